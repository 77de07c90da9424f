"""Start-up benchmark: how long ``python bot.py`` takes to be ready, and its memory, with many
finished games stored (issue 12: with 10,000 finished games, ready in <= 2 s and <= 150 MB RSS).

Not a test. Three parts, all printed as plain text lines:

1. **The database.** Builds (or reuses, when ``--db`` already holds enough finished games)
   a SQLite database of N finished games of Castles Besieged, Siege the King and Siege (1966),
   each played to its end with random legal moves (about one in seven resigned part-way), spread
   over many guilds, channels and players, each with its table message and two DM panels
   recorded. Playing 10,000 games through ``Store.act`` costs one fsync'd transaction per move
   (about a million of them), so the games are played in the engine in-process and each is
   written as ONE transaction with the store's own SQL. Before building, a sample of games is
   played both ways (through the real ``Store`` API into one scratch database, through the fast
   writer into another) and every row of every table must come out identical, or it stops.
   The build time, the measured rate through the store (and what 10k would take that way) and
   the file size are printed.
2. **Store.open + migrate alone** on that database, warm (file in the page cache) and cold
   (its pages evicted with ``posix_fadvise``), beside what a whole-file ``PRAGMA quick_check``
   costs (start-up does not run one; ``python -m storage check`` runs the full check on demand),
   plus the one-time backup a future migration would take.
3. **The bot.** The fake Discord runs in its own process (``benchmarks/startup_fake.py``); the
   bot runs as a separate process as an operator starts it (``bot.main()`` with
   ``DISCORD_TOKEN``, ``DATABASE_PATH``, ``DEV_GUILD_ID``, ``LOG_LEVEL`` in the environment),
   through a ``python -c`` launcher that only points discord.py at the fake and sets a small
   ``guild_ready_timeout``. From launch, it times each start-up log line (database open,
   commands synced, gateway connected, ``ready as``) and reads the bot's ``/proc/<pid>/status``
   (VmRSS and the peak VmHWM) when ready and ``--later`` seconds after. ``--runs`` starts
   (default 5) against the full database and against an empty (migrated) one, interleaved,
   then one start with the full database evicted from the page cache.

Run: ``.venv/bin/python benchmarks/startup.py [--games N] [--db PATH] [--runs R]``
(defaults: 10,000 games in ``$TMPDIR/siege-startup-<N>.db``, 5 runs).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scratch_db import fast_connection, new_database  # noqa: E402

from engine import chance, get_game  # noqa: E402
from engine.rules import (  # noqa: E402
    Action,
    Event,
    Result,
    State,
    dumps,
    resolve_options,
)
from storage import RESIGN, Store, fairness, results  # noqa: E402
from storage.tables import perform  # noqa: E402

PYTHON = sys.executable
GAME_KEYS = ("castles", "king", "knights")
GUILDS = 250
CHANNELS_PER_GUILD = 12
USERS = 4000
RESIGN_SHARE = 0.15
DISCORD_EPOCH_MS = 1_420_070_400_000
FIRST_GAME = datetime(2024, 1, 1, tzinfo=UTC)

# -- the games -------------------------------------------------------------------------------


def snowflake(when: datetime, n: int) -> int:
    """A Discord-like id for something made at ``when`` (``n`` keeps them apart)."""
    return ((int(when.timestamp() * 1000) - DISCORD_EPOCH_MS) << 22) | (n & 0x3FFFFF)


def user_id(n: int) -> int:
    return snowflake(datetime(2019, 6, 1, tzinfo=UTC) + timedelta(hours=n), n)


def dm_channel_of(user: int) -> int:
    return user ^ 0x155555  # one DM channel per user, distinct from every other id here


@dataclass(frozen=True)
class Plan:
    """Everything about game number ``index`` except its moves (those come from ``moves()``)."""

    index: int
    game: str
    options: dict[str, Any]
    seed: int
    guild_id: int
    channel_id: int
    seats: tuple[int, int]
    start: datetime
    step: timedelta
    resign_at: int | None
    message_id: int
    panel_ids: tuple[int, int]

    @classmethod
    def make(cls, index: int) -> Plan:
        rnd = random.Random(f"siege-startup-plan:{index}")
        key = rnd.choice(GAME_KEYS)
        options = {o.name: rnd.choice(o.choices) for o in get_game(key).options}
        guild = rnd.randrange(GUILDS)
        channel = rnd.randrange(CHANNELS_PER_GUILD)
        a, b = rnd.sample(range(USERS), 2)
        start = FIRST_GAME + timedelta(minutes=7 * index, seconds=rnd.randrange(420))
        return cls(
            index=index,
            game=key,
            options=options,
            seed=rnd.randrange(2**62),
            guild_id=snowflake(datetime(2020, 1, 1, tzinfo=UTC) + timedelta(days=guild), guild),
            channel_id=snowflake(
                datetime(2020, 2, 1, tzinfo=UTC) + timedelta(days=guild, minutes=channel),
                guild * CHANNELS_PER_GUILD + channel,
            ),
            seats=(user_id(a), user_id(b)),
            start=start,
            step=timedelta(seconds=rnd.randint(5, 300), milliseconds=rnd.randrange(1000)),
            resign_at=rnd.randint(1, 120) if rnd.random() < RESIGN_SHARE else None,
            message_id=snowflake(start, 2 * index),
            panel_ids=(snowflake(start, 2 * index + 1), snowflake(start, 2 * index + 2)),
        )

    def moves(self) -> random.Random:
        return random.Random(f"siege-startup-moves:{self.index}")

    def time(self, call: int) -> datetime:
        """What the store's clock says at its ``call``-th reading (0: create_table)."""
        return self.start + call * self.step


def stamp(when: datetime) -> str:
    """``Store._now()``'s format."""
    return when.astimezone(UTC).isoformat(timespec="milliseconds")


def choose(plan: Plan, moves: random.Random, state: State, ply: int) -> Action:
    """The next action: a resignation at the planned ply, else a random legal move."""
    game = get_game(plan.game)
    seat = game.to_act(state)
    assert seat is not None
    legal = game.legal_actions(state, seat)
    if ply == plan.resign_at or not legal:
        return RESIGN
    return moves.choice(legal)


class PlanClock:
    """A store clock that reads ``plan.time(0)``, ``plan.time(1)``, … for the current plan."""

    def __init__(self) -> None:
        self.plan: Plan | None = None
        self.calls = 0

    def use(self, plan: Plan) -> None:
        self.plan, self.calls = plan, 0

    def __call__(self) -> datetime:
        assert self.plan is not None
        when = self.plan.time(self.calls)
        self.calls += 1
        return when


async def play_through_store(store: Store, clock: PlanClock, plan: Plan) -> int:
    """One game through the real Store API, as the bot drives it; the table id."""
    clock.use(plan)
    table = await store.create_table(
        guild_id=plan.guild_id,
        channel_id=plan.channel_id,
        game=plan.game,
        host_id=plan.seats[0],
        options=plan.options,
        seed=plan.seed,
        seats=plan.seats,
        start=True,
    )
    await store.set_message(table.id, plan.message_id)
    for user, panel in zip(plan.seats, plan.panel_ids, strict=True):
        await store.set_dm_panel(table.id, user, dm_channel_of(user), panel)
    moves = plan.moves()
    while table.status == "running":
        state = table.running_state()
        seat = table.engine.to_act(state)
        assert seat is not None
        action = choose(plan, moves, state, table.ply)
        if action == RESIGN:
            table, _ = await store.resign(table.id, table.seats[seat], table.ply)
        else:
            table, _ = await store.act(table.id, table.seats[seat], action, table.ply)
    assert table.status == "over"
    return table.id


@dataclass
class Played:
    plan: Plan
    options: dict[str, Any]
    first_state: State
    final_state: State
    result: str
    log: list[tuple[int, int, int, str, str, str]]  # ply, seat, user, action, events, created


def play_in_engine(plan: Plan) -> Played:
    """The same game as :func:`play_through_store`, played in the engine alone."""
    game = get_game(plan.game)
    options = resolve_options(game, plan.options)
    first = state = chance.deal(game, len(plan.seats), options, plan.seed)  # as new_table
    moves = plan.moves()
    log = []
    ply = 0
    while (result := game.result(state)) is None:
        seat = game.to_act(state)
        assert seat is not None
        action = choose(plan, moves, state, ply)
        events: list[Event]
        state, events = perform(game, state, seat, action, plan.seed, ply)
        created = stamp(plan.time(ply + 1))
        log.append((ply, seat, plan.seats[seat], json.dumps(action), json.dumps(events), created))
        ply += 1
    return Played(plan, options, first, state, json.dumps(result.to_json()), log)


def write_played(conn: sqlite3.Connection, played: Played) -> int:
    """One finished game as one transaction, with the SQL the store runs (create_table,
    set_message, set_dm_panel, then act/resign per move: only each row's final value is kept)."""
    plan = played.plan
    created = stamp(plan.time(0))
    conn.execute("BEGIN IMMEDIATE")
    try:
        cur = conn.execute(
            "INSERT INTO tables (guild_id, channel_id, game, options, seed, host_id,"
            " status, state, created_at, updated_at, rematch_of, seating, salt)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                plan.guild_id,
                plan.channel_id,
                plan.game,
                json.dumps(played.options),
                plan.seed,
                plan.seats[0],
                "running",
                dumps(played.first_state),
                created,
                created,
                None,
                "join",
                fairness.new_salt(),  # random, as the store's (dump_rows compares its presence)
            ),
        )
        table_id = cur.lastrowid
        assert table_id is not None
        conn.executemany(
            "INSERT INTO seats (table_id, seat, user_id) VALUES (?, ?, ?)",
            [(table_id, n, user) for n, user in enumerate(plan.seats)],
        )
        conn.execute("UPDATE tables SET message_id = ? WHERE id = ?", (plan.message_id, table_id))
        conn.executemany(
            "INSERT INTO dm_panels (table_id, user_id, channel_id, message_id)"
            " VALUES (?, ?, ?, ?) ON CONFLICT (table_id, user_id) DO UPDATE SET"
            " channel_id = excluded.channel_id, message_id = excluded.message_id",
            [
                (table_id, user, dm_channel_of(user), panel)
                for user, panel in zip(plan.seats, plan.panel_ids, strict=True)
            ],
        )
        conn.executemany(
            "INSERT INTO actions (table_id, ply, seat, user_id, action, events, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(table_id, *row) for row in played.log],
        )
        plies = len(played.log)
        conn.execute(
            "UPDATE tables SET state = ?, ply = ?, version = ?, status = 'over', result = ?,"
            " updated_at = ? WHERE id = ?",
            (
                dumps(played.final_state),
                plies,
                plies + 1,  # every move, and setting the message id, bumps the version
                played.result,
                played.log[-1][5],
                table_id,
            ),
        )
        results.record(  # what the store's last action writes: the result and the ratings
            conn,
            table_id=table_id,
            guild_id=plan.guild_id,
            game=plan.game,
            seats=plan.seats,
            result=Result.from_json(json.loads(played.result)),
            plies=plies,
            ended_at=played.log[-1][5],
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return table_id


def dump_rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(path)
    try:
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            )
        ]
        found = {}
        for n in names:
            cur = conn.execute(f"SELECT * FROM {n} ORDER BY 1, 2")
            columns = [d[0] for d in cur.description]
            rows = cur.fetchall()
            if "salt" in columns:  # a random secret per table: only whether there is one
                at = columns.index("salt")
                rows = [(*r[:at], r[at] is not None, *r[at + 1 :]) for r in rows]
            found[n] = rows
        return found
    finally:
        conn.close()


async def verify_fast_writer(indexes: Sequence[int]) -> float:
    """Plays ``indexes`` through the Store and through the fast writer; stops unless every row
    matches. Returns the store's seconds per move (for the estimate)."""
    with tempfile.TemporaryDirectory() as tmp:
        via_store, via_fast = Path(tmp, "store.db"), Path(tmp, "fast.db")
        clock = PlanClock()
        await new_database(via_store)
        store = await Store.open(via_store, clock=clock)
        try:
            started = time.perf_counter()
            ids = [await play_through_store(store, clock, Plan.make(i)) for i in indexes]
            store_seconds = time.perf_counter() - started
            for table_id in ids:  # the log replays to the stored state
                stored = await store.get_table(table_id)
                assert stored is not None and stored.state == await store.replay(table_id)
        finally:
            await store.close()
        await new_database(via_fast)
        conn = fast_connection(via_fast)
        try:
            for i in indexes:
                write_played(conn, play_in_engine(Plan.make(i)))
        finally:
            conn.close()
        a, b = dump_rows(via_store), dump_rows(via_fast)
        if a != b:
            for name in sorted(set(a) | set(b)):
                if a.get(name) != b.get(name):
                    print(f"MISMATCH in table {name}", file=sys.stderr)
            raise SystemExit("the fast writer does not write what the store writes; stopping")
        moves = len(a["actions"])
        print(
            f"fast writer check: {len(indexes)} games ({moves} moves) written through"
            f" Store.create_table/act and through the fast writer: all rows identical"
            f" ({', '.join(f'{n} {len(rows)}' for n, rows in sorted(a.items()))})"
        )
        return store_seconds / max(moves, 1)


def finished_games(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("SELECT count(*) FROM tables WHERE status = 'over'").fetchone()[0])
    except sqlite3.Error:
        return 0
    finally:
        conn.close()


async def build(path: Path, games: int) -> None:
    """Makes sure ``path`` holds at least ``games`` finished games; prints what it did."""
    have = finished_games(path) if path.exists() else 0
    if have >= games:
        print(f"database: reusing {path} ({have} finished games)")
        return
    sample = [i for i in range(have, have + 30)]
    per_move = await verify_fast_writer(sample)
    if not path.exists():
        await new_database(path)
    print(f"database: adding games {have}..{games - 1} to {path}")
    conn = fast_connection(path)
    started = time.perf_counter()
    moves = 0
    try:
        for i in range(have, games):
            played = play_in_engine(Plan.make(i))
            moves += len(played.log)
            write_played(conn, played)
            if (i + 1) % 2000 == 0:
                print(f"  {i + 1} games, {time.perf_counter() - started:.0f} s", flush=True)
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
    seconds = time.perf_counter() - started
    print(
        f"build: {games - have} games, {moves} moves in {seconds:.1f} s"
        f" (engine + one transaction per game)"
    )
    print(
        f"build through Store.act would take about {per_move * moves / 60:.0f} min"
        f" ({per_move * 1000:.2f} ms per move, measured on {len(sample)} games)"
    )


def describe_database(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        by_game = conn.execute(
            "SELECT game, count(*), sum(ply) FROM tables WHERE status = 'over' GROUP BY game"
        ).fetchall()
        actions = conn.execute("SELECT count(*) FROM actions").fetchone()[0]
        log_bytes = conn.execute(
            "SELECT sum(length(action) + length(events)) FROM actions"
        ).fetchone()[0]
        state_bytes = conn.execute("SELECT sum(length(state)) FROM tables").fetchone()[0]
        pages = conn.execute("PRAGMA page_count").fetchone()[0]
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    finally:
        conn.close()
    size = path.stat().st_size
    wal = Path(f"{path}-wal")
    wal_size = wal.stat().st_size if wal.exists() else 0
    games = ", ".join(f"{g} {n} ({moves} moves)" for g, n, moves in by_game)
    print(f"database file: {size / 1e6:.1f} MB ({pages} pages of {page_size} B), -wal {wal_size} B")
    print(f"database contents: {games}; {actions} logged actions")
    print(
        f"  action log JSON {log_bytes / 1e6:.1f} MB, table states JSON {state_bytes / 1e6:.1f} MB"
    )


# -- Store.open + migrate alone --------------------------------------------------------------


def evict(path: Path) -> None:
    """Drops the file's pages (and its -wal's) from the page cache: the next read is cold."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        if name.exists():
            fd = os.open(name, os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


async def time_open(path: Path) -> tuple[float, float]:
    started = time.perf_counter()
    store = await Store.open(path)
    opened = time.perf_counter()
    try:
        await store.migrate()
    finally:
        migrated = time.perf_counter()
        await store.close()
    return opened - started, migrated - opened


def time_quick_check(path: Path) -> float:
    conn = sqlite3.connect(path)
    try:
        started = time.perf_counter()
        assert conn.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        return time.perf_counter() - started
    finally:
        conn.close()


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def spread(values: Sequence[float], unit: Callable[[float], str]) -> str:
    return (
        f"min {unit(min(values))}, median {unit(statistics.median(values))},"
        f" max {unit(max(values))}"
    )


def measure_open(path: Path, label: str, runs: int) -> None:
    for temperature in ("warm", "cold"):
        opens, migrates, checks = [], [], []
        for _ in range(runs):
            if temperature == "cold":
                evict(path)
            else:
                time_quick_check(path)  # make sure it is in the page cache
            opened, migrated = asyncio.run(time_open(path))
            opens.append(opened)
            migrates.append(migrated)
            if temperature == "cold":
                evict(path)
            checks.append(time_quick_check(path))
        print(f"Store.open ({label}, {temperature}, {runs} runs): {spread(opens, ms)}")
        print(
            f"  a whole-file quick_check, for comparison (not run at start-up; {temperature}):"
            f" {spread(checks, ms)}"
        )
        print(f"migrate ({label}, {temperature}, already current): {spread(migrates, ms)}")


async def time_backup(path: Path) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        store = await Store.open(path)
        try:
            started = time.perf_counter()
            await store.backup(Path(tmp, "backup.db"))
            return time.perf_counter() - started
        finally:
            await store.close()


# -- the bot as a process --------------------------------------------------------------------

LAUNCHER = """\
import os, sys
sys.path.insert(0, os.environ["SIEGE_BENCH_ROOT"])
import discord.gateway, discord.http, yarl
discord.http.Route.BASE = os.environ["SIEGE_BENCH_API"]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["SIEGE_BENCH_GATEWAY"])
import bot
print("siege-bench: bot imported", file=sys.stderr, flush=True)
_create_bot = bot.create_bot
_timeout = float(os.environ["SIEGE_BENCH_GUILD_READY_TIMEOUT"])
bot.create_bot = lambda settings, **options: _create_bot(
    settings, guild_ready_timeout=_timeout, **options
)
raise SystemExit(bot.main())
"""

#: Start-up log lines, in order: (name, text the line contains).
MILESTONES = (
    ("imported", "siege-bench: bot imported"),
    ("database", "at schema version"),
    ("synced", "synced "),
    ("gateway", "has connected to Gateway"),
    ("ready", "ready as "),
)


@dataclass
class Fake:
    process: subprocess.Popen[str]
    api_base: str
    gateway: str
    guild_id: int
    identifies: queue.Queue[float]


def start_fake() -> Fake:
    process = subprocess.Popen(
        [PYTHON, str(ROOT / "benchmarks" / "startup_fake.py")],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    if not first:
        raise SystemExit("the fake Discord did not start")
    info = json.loads(first)
    identifies: queue.Queue[float] = queue.Queue()

    def read(stream: Any) -> None:
        for line in stream:
            if line.startswith("IDENTIFY "):
                identifies.put(float(line.split()[1]))

    threading.Thread(target=read, args=(process.stdout,), daemon=True).start()
    return Fake(process, info["api_base"], info["gateway"], int(info["guild_id"]), identifies)


def stop_process(process: subprocess.Popen[str], sig: int = signal.SIGINT) -> None:
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (kB) of a process."""
    found = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0])
    return found


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Start:
    times: dict[str, float]  # seconds from launch to each milestone (and "identify")
    rss_ready: float  # MB
    rss_later: float
    hwm_later: float
    cpu_ready: float


def start_bot(fake: Fake, db: Path, later: float, guild_ready_timeout: float) -> Start:
    env = dict(os.environ)
    env.update(
        DISCORD_TOKEN="fake-token",
        DATABASE_PATH=str(db),
        DEV_GUILD_ID=str(fake.guild_id),
        LOG_LEVEL="INFO",
        SIEGE_BENCH_ROOT=str(ROOT),
        SIEGE_BENCH_API=fake.api_base,
        SIEGE_BENCH_GATEWAY=fake.gateway,
        SIEGE_BENCH_GUILD_READY_TIMEOUT=str(guild_ready_timeout),
    )
    while not fake.identifies.empty():
        fake.identifies.get_nowait()
    lines: queue.Queue[tuple[float, str] | None] = queue.Queue()
    # cwd: an empty folder, so no .env from anywhere is read; the environment says it all.
    with tempfile.TemporaryDirectory() as cwd:
        wall_start = time.time()
        started = time.perf_counter()
        process = subprocess.Popen(
            [PYTHON, "-c", LAUNCHER],
            env=env,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )

        def read(stream: Any) -> None:
            for line in stream:
                lines.put((time.perf_counter() - started, line.rstrip("\n")))
            lines.put(None)

        assert process.stderr is not None
        threading.Thread(target=read, args=(process.stderr,), daemon=True).start()
        times: dict[str, float] = {}
        seen: list[str] = []
        try:
            while "ready" not in times:
                try:
                    item = lines.get(timeout=60)
                except queue.Empty:
                    item = None
                if item is None:
                    shown = "\n  ".join(seen[-20:])
                    raise SystemExit(f"the bot did not get ready; its standard error:\n  {shown}")
                at, line = item
                seen.append(line)
                for name, text in MILESTONES:
                    if text in line and name not in times:
                        times[name] = at
            ready = proc_status(process.pid)
            cpu = cpu_seconds(process.pid)
            time.sleep(later)
            after = proc_status(process.pid)
        finally:
            stop_process(process)
    with contextlib.suppress(queue.Empty):
        times["identify"] = fake.identifies.get(timeout=1) - wall_start
    return Start(
        times,
        ready["VmRSS"] / 1024,
        after["VmRSS"] / 1024,
        after["VmHWM"] / 1024,
        cpu,
    )


def s(seconds: float) -> str:
    return f"{seconds:.2f} s"


def mb(value: float) -> str:
    return f"{value:.1f} MB"


def report(label: str, starts: list[Start], later: float) -> None:
    print(f"bot start, {label}, {len(starts)} runs:")
    print(f"  launch -> ready:       {spread([x.times['ready'] for x in starts], s)}")
    for name, what in (
        ("imported", "python + imports done"),
        ("database", "database open+migrated"),
        ("synced", "commands synced"),
        ("identify", "IDENTIFY at the fake"),
        ("gateway", "gateway connected"),
    ):
        values = [x.times[name] for x in starts if name in x.times]
        if values:
            print(f"  launch -> {what}: {spread(values, s)}")
    print(f"  CPU time at ready:     {spread([x.cpu_ready for x in starts], s)}")
    print(f"  RSS at ready:          {spread([x.rss_ready for x in starts], mb)}")
    print(f"  RSS {later:g} s after ready:  {spread([x.rss_later for x in starts], mb)}")
    print(f"  peak RSS (VmHWM):      {spread([x.hwm_later for x in starts], mb)}")


def measure_bot(db: Path, runs: int, later: float, guild_ready_timeout: float, games: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        empty = Path(tmp, "empty.db")
        asyncio.run(new_database(empty))
        fake = start_fake()
        try:
            full_starts, empty_starts = [], []
            for _ in range(runs):
                time_quick_check(db)  # warm, as after the previous run
                full_starts.append(start_bot(fake, db, later, guild_ready_timeout))
                empty_starts.append(start_bot(fake, empty, later, guild_ready_timeout))
            evict(db)
            cold = start_bot(fake, db, later, guild_ready_timeout)
        finally:
            stop_process(fake.process, signal.SIGTERM)
    print(f"(guild_ready_timeout {guild_ready_timeout:g} s; discord.py's default is 2 s)")
    report(f"{games} finished games, warm page cache", full_starts, later)
    report("empty database", empty_starts, later)
    cost = statistics.median(x.times["ready"] for x in full_starts) - statistics.median(
        x.times["ready"] for x in empty_starts
    )
    rss = statistics.median(x.rss_later for x in full_starts) - statistics.median(
        x.rss_later for x in empty_starts
    )
    print(f"cost of the {games} games (medians): start {cost * 1000:+.0f} ms, RSS {rss:+.1f} MB")
    report(f"{games} finished games, cold page cache", [cold], later)


# -- main ------------------------------------------------------------------------------------


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000, help="finished games (10000)")
    parser.add_argument("--db", type=Path, help="the database to build or reuse")
    parser.add_argument("--runs", type=int, default=5, help="bot starts per database (5)")
    parser.add_argument("--later", type=float, default=3.0, help="seconds to RSS re-read (3)")
    parser.add_argument(
        "--guild-ready-timeout",
        type=float,
        default=0.05,
        help="discord.py's wait after the last GUILD_CREATE (0.05; its default is 2)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = arguments(argv)
    db: Path = args.db or Path(tempfile.gettempdir(), f"siege-startup-{args.games}.db")
    db = db.resolve()
    print(f"Siege Hall start-up benchmark: {args.games} finished games in {db}")
    asyncio.run(build(db, args.games))
    describe_database(db)
    measure_open(db, f"{args.games} games", args.runs)
    print(f"one-time backup before a future migration: {s(asyncio.run(time_backup(db)))}")
    measure_bot(db, args.runs, args.later, args.guild_ready_timeout, args.games)


if __name__ == "__main__":
    main()
