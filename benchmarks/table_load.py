"""Load benchmark: many Castles Besieged tables played at once, the bot in a process of its own.

Not a test. This process runs the loopback fake Discord and the scripted players; the bot runs
as ``python bot.py`` does (``bot.main()`` through a small launcher that points discord.py at the
fake), so the CPU time read from ``/proc/<bot pid>/stat`` is the bot's own (its threads
included: the database thread, picture rendering).

For each size (concurrent tables): open the tables (lobby, join, start), then every table plays
MOVES moves. The player to act clicks a move picked at random among those offered (seeded)
on the table message or on their DM panel, alternately, as soon as that message shows the
position; with ``--rate`` the clicks of all tables together are paced to that many per second
(an open loop: a table waits for its turn in the pacer, not for other tables' answers).

Printed per size: every interaction's first answer (from the bot's start-up on: the tables'
opening included) within 3 s and within the answer budget, and how many were deferred; moves
per second, click-to-answer latency (from the interaction's dispatch to
the bot's initial response: what a player waits for) p50/p99/max, the bot's CPU milliseconds per
move, requests per move (exempt: interaction callbacks and webhooks; rate-limited: everything
else) and what the bot's event loop reports: callbacks that blocked it longer than 20 ms (the
bot runs with ``asyncio`` debug mode's ``slow_callback_duration`` when ``--debug-loop`` is
given; its overhead inflates CPU, so that run is separate). Slow callbacks are counted while the
moves are played (the load) apart from those at start-up and while the tables are opened; every
run also reports the garbage collections that stopped the bot longer than 20 ms during the
moves (a ``gc.callbacks`` probe). The last line is one JSON object (``RESULT {...}``) for
``benchmarks/all.py``.

Run: ``.venv/bin/python benchmarks/table_load.py [--sizes 1,100,1000] [--moves 100,10,3]
[--rates 0,0,200] [--debug-loop] [--debug-rate 40]`` (rate 0: as fast as the bot answers; the
debug-mode run plays the largest size at ``--debug-rate`` clicks/s).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repo root, for tests.fakecord

from storage import Store  # noqa: E402
from tests.fakecord import FakeDiscord, FakeMessage  # noqa: E402
from tests.fakecord.interactions import DEFERRED_CHANNEL_MESSAGE as DEFERRED  # noqa: E402
from tests.fakecord.interactions import DEFERRED_UPDATE_MESSAGE  # noqa: E402
from tests.fakecord.messages import walk_components  # noqa: E402
from tests.fakecord.world import FakeChannel, FakeUser  # noqa: E402

PYTHON = sys.executable
SLOW_CALLBACK = 0.020  # seconds: the limit for one callback on the bot's loop

LAUNCHER = """\
import asyncio, json, logging, os, re, signal, sys
sys.path.insert(0, os.environ["SIEGE_BENCH_ROOT"])
import discord.gateway, discord.http, yarl
discord.http.Route.BASE = os.environ["SIEGE_BENCH_API"]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["SIEGE_BENCH_GATEWAY"])
import bot, gc, time
slow = []  # (wall time, seconds) of each callback asyncio's debug mode reports as slow
class Slow(logging.Handler):
    def emit(self, record):
        found = re.search(r"took ([0-9.]+) seconds", record.getMessage())
        if found:
            slow.append((record.created, float(found.group(1))))
pauses = []  # (wall time, generation, seconds) of each garbage collection over 5 ms
began = [0.0]
def collector(phase, info):
    if phase == "start":
        began[0] = time.perf_counter()
    elif time.perf_counter() - began[0] > 0.005:
        pauses.append((time.time(), info["generation"], time.perf_counter() - began[0]))
gc.callbacks.append(collector)
def report_pauses():
    print("GCPAUSES " + json.dumps(pauses), file=sys.stderr, flush=True)
import atexit
atexit.register(report_pauses)
if os.environ.get("SIEGE_BENCH_DEBUG_LOOP"):
    handler = Slow(level=logging.WARNING)
    logging.getLogger("asyncio").addHandler(handler)
    _new_event_loop = bot.new_event_loop
    def new_event_loop():
        loop = _new_event_loop()
        loop.set_debug(True)
        loop.slow_callback_duration = float(os.environ["SIEGE_BENCH_DEBUG_LOOP"])
        return loop
    bot.new_event_loop = new_event_loop
    def report(*_):
        print("SLOW " + json.dumps(slow), file=sys.stderr, flush=True)
    atexit.register(report)
_create_bot = bot.create_bot
bot.create_bot = lambda settings, **options: _create_bot(
    settings, guild_ready_timeout=0.05, **options
)
if os.environ.get("SIEGE_BENCH_PROFILE"):
    import cProfile
    profile = cProfile.Profile()
    try:
        status = profile.runcall(bot.main)
    finally:
        profile.dump_stats(os.environ["SIEGE_BENCH_PROFILE"])
    raise SystemExit(status)
raise SystemExit(bot.main())
"""


@dataclass
class Table:
    channel: FakeChannel
    host: FakeUser
    guest: FakeUser
    table_id: int = 0
    message_id: int = 0
    ply: int = 0
    unanswered: int = 0
    stalled: int = 0  # no move offered for 30 s: the table never showed the position
    waits: list[float] = field(default_factory=list)


class Watcher:
    """Wakes the players when a message they may click changes (no polling): the fake calls
    ``_store`` for every message created, edited or deleted."""

    def __init__(self, fake: FakeDiscord) -> None:
        self.fake = fake
        self.changed: dict[int, asyncio.Event] = {}  # by channel id
        self.panels: dict[tuple[int, int], int] = {}  # (user id, table id) -> DM panel id
        store = fake._store

        def hooked(old: FakeMessage | None, new: FakeMessage, event: str) -> None:
            store(old, new, event)
            if new.guild_id is None and not new.deleted and new.ephemeral_for is None:
                channel = fake.channels.get(new.channel_id)
                if channel is not None and channel.recipient is not None:
                    for component in walk_components(new.components):
                        custom_id = str(component.get("custom_id") or "")
                        if custom_id.startswith("sh:resign:"):
                            table_id = int(custom_id.rsplit(":", 1)[1])
                            self.panels[(channel.recipient.id, table_id)] = new.id
            event_ = self.changed.get(new.channel_id)
            if event_ is not None:
                event_.set()

        fake._store = hooked  # type: ignore[method-assign]

    def event(self, channel_id: int) -> asyncio.Event:
        return self.changed.setdefault(channel_id, asyncio.Event())


def pick_move(
    message: FakeMessage, table: Table, rng: random.Random
) -> tuple[str, str | None] | None:
    """A move ``message`` offers at the table's ply, picked at random (so the tables' positions,
    and their pictures, differ: identical positions would be drawn once and flatter the figures):
    a button's custom id (and None), or an action menu's custom id and one of its options."""
    buttons = f"sh:act:{table.table_id}:{table.ply}:"
    menus = f"sh:pick:{table.table_id}:{table.ply}:"
    offered: list[tuple[str, str | None]] = []
    for component in walk_components(message.components):
        custom_id = str(component.get("custom_id") or "")
        if custom_id.startswith(buttons) and component.get("type") == 2:
            offered.append((custom_id, None))
        if custom_id.startswith(menus) and component.get("options"):
            offered.extend((custom_id, str(o["value"])) for o in component["options"])
    return rng.choice(offered) if offered else None


class Pacer:
    """Hands out click permits at ``rate`` per second (0: at once)."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate if rate > 0 else 0.0
        self.next = 0.0
        self.lock = asyncio.Lock()

    async def permit(self) -> None:
        if not self.interval:
            return
        async with self.lock:
            loop = asyncio.get_running_loop()
            now = loop.time()
            self.next = max(self.next, now)
            delay = self.next - now
            self.next += self.interval
        if delay > 0:
            await asyncio.sleep(delay)


async def tables_in_channels(db: Path, guild_id: int) -> None:
    """The load is a table per channel, measured as before game threads: the server's threads
    setting off (set before the bot starts, on the database it will open)."""
    store = await Store.open(db)
    try:
        await store.migrate()
        await store.change_server_settings(guild_id, 1, threads=False)
    finally:
        await store.close()


async def open_table(fake: FakeDiscord, table: Table, command: str) -> None:
    handle = await table.host.slash(table.channel, command, dealer="1")
    lobby = handle.response_message
    assert lobby is not None, "no lobby"
    await table.guest.click(fake.latest(lobby), "Join", settle_first=False)
    await table.host.click(fake.latest(lobby), "Start", settle_first=False)
    table.message_id = lobby.id
    started = fake.latest(lobby)
    custom_ids = [str(c.get("custom_id") or "") for c in walk_components(started.components)]
    resign = next(c for c in custom_ids if c.startswith("sh:resign:"))
    table.table_id = int(resign.rsplit(":", 1)[1])


async def play(
    fake: FakeDiscord, watcher: Watcher, table: Table, moves: int, pacer: Pacer, rng: random.Random
) -> None:
    """Both players of one table: the one to act clicks as soon as their message shows the
    position (alternately the table and their DM panel)."""
    players = (table.host, table.guest)  # dealer "1": the guest deals, the host moves first
    for move in range(moves):
        user = players[move % 2]
        on_panel = (move // 2) % 2 == 1
        dm = user.dm_channel.id
        waited_since = time.monotonic()
        while True:
            if time.monotonic() - waited_since > 30:
                shown = fake.messages.get(table.message_id)
                print(
                    f"table {table.table_id}: no move offered at ply {table.ply} for 30 s:",
                    shown and shown.text()[:300],
                    file=sys.stderr,
                )
                table.stalled += 1
                return
            # The preferred message first; some moves (laying a card) only the panel offers.
            panels = [
                m
                for m in reversed(user.dms())
                if f"sh:resign:{table.table_id}" in str(m.components)
            ]
            # A panel turn waits for the panel (the table may show the move first; the panel's
            # lay menu is what makes the positions differ); a table turn falls back to the
            # panel for the moves only the panel offers.
            panel = panels[0] if panels else None
            table_message = fake.messages.get(table.message_id)
            choices = [panel] if on_panel else [table_message, panel]
            found = None
            for message in choices:
                if message is not None and not message.deleted:
                    found = pick_move(message, table, rng)
                    if found is not None:
                        break
            if found is not None:
                break
            shown = fake.messages.get(table.message_id)
            if shown is not None and f"sh:rematch:{table.table_id}" in str(shown.components):
                return  # the game is over (a castle fell): this table has played its part
            # Wait for a change in the channel or the DMs (whichever comes first).
            events = [watcher.event(dm), watcher.event(table.channel.id)]
            for event in events:
                event.clear()
            waiters = [asyncio.ensure_future(event.wait()) for event in events]
            await asyncio.wait(waiters, timeout=5.0, return_when=asyncio.FIRST_COMPLETED)
            for waiter in waiters:
                waiter.cancel()
        assert message is not None
        await pacer.permit()
        assert found is not None
        custom_id, value = found
        if value is None:
            handle = await user.click(message, custom_id=custom_id, settle_first=False)
        else:
            handle = await user.select(message, value, custom_id=custom_id, settle_first=False)
        record = handle.record
        if record.responded_at is None:
            # Not answered within Discord's 3 seconds (the fake recorded a violation): the
            # player saw "This interaction failed"; this table stops here.
            table.unanswered += 1
            return
        table.waits.append(record.responded_at - record.dispatched_at)
        table.ply += 1


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """CPU seconds of process ``pid`` (all its threads), or of its thread ``thread``."""
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    with open(path) as stat:
        fields = stat.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds(pid: int) -> float:
    """CPU seconds of the live child processes of ``pid`` (the picture and computer workers)."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == pid:  # the parent's pid
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class Result:
    tables: int
    moves: int
    rate: float
    seconds: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    cpu_ms_per_move: float
    #: Of which on the event loop's thread (the rest: pictures and the database's threads).
    loop_cpu_ms_per_move: float
    #: In the bot's worker processes (pictures, computers), not counted in ``cpu_ms_per_move``.
    workers_cpu_ms_per_move: float
    exempt_per_move: float
    limited_per_move: float
    rss_mb: float
    unanswered: int = 0
    stalled: int = 0  # tables that stopped: their next position was not shown within 30 s
    slow_callbacks: int | None = None
    slowest_ms: float | None = None
    slow_outside: int | None = None  # slow callbacks outside the moves (start-up, opening)
    gc_pauses_over_limit: int = 0  # garbage collections over SLOW_CALLBACK during the moves
    gc_slowest_ms: float = 0.0
    #: Every interaction of the run, the tables' opening from the bot's start-up on included:
    #: how many, how many had a first answer (full or deferred) within the bot's budget and
    #: within Discord's 3 s, and how many of the first answers were deferred ones.
    interactions: int = 0
    within_budget: int = 0
    within_limit: int = 0
    deferred: int = 0

    @property
    def share_within_limit(self) -> float:
        return self.within_limit / self.interactions if self.interactions else 1.0

    @property
    def share_within_budget(self) -> float:
        return self.within_budget / self.interactions if self.interactions else 1.0

    @property
    def moves_per_second(self) -> float:
        return self.moves / self.seconds


def start_bot(
    fake: FakeDiscord, guild_id: int, db: Path, debug_loop: bool, log: Any
) -> subprocess.Popen[str]:
    """The bot as its own process; its log (stderr) goes to the file ``log``, as a deployed
    bot's goes to a file or the journal: a pipe read by this busy process could fill up and
    stop the bot's event loop on a write."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "SIEGE_"))}
    env.pop("DATABASE_PATH", None)
    env.update(
        DISCORD_TOKEN="fake-token",
        DATABASE_PATH=str(db),
        DEV_GUILD_ID=str(guild_id),
        LOG_LEVEL="INFO",  # a line per move (a few µs); the close line counts pictures
        SIEGE_BENCH_ROOT=str(ROOT),
        SIEGE_BENCH_API=fake.api_base,
        SIEGE_BENCH_GATEWAY=fake.ws_url,
    )
    if debug_loop:
        env["SIEGE_BENCH_DEBUG_LOOP"] = str(SLOW_CALLBACK)
    if os.environ.get("SIEGE_BENCH_PROFILE"):  # cProfile the bot (a .pstats file path)
        env["SIEGE_BENCH_PROFILE"] = os.environ["SIEGE_BENCH_PROFILE"]
    return subprocess.Popen(
        [PYTHON, "-c", LAUNCHER],
        env=env,
        cwd=db.parent,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=log,
        text=True,
    )


async def run_size(tables: int, moves: int, rate: float, debug_loop: bool, seed: int = 1) -> Result:
    from cogs.guide import command_name

    command = f"play {command_name('castles')}"
    async with FakeDiscord(capture_library_errors=False) as fake:
        guild = fake.add_guild("Load")
        rows = []
        for n in range(tables):
            channel = guild.add_text_channel(f"table-{n}")
            host, guest = fake.add_user(f"a{n}"), fake.add_user(f"b{n}")
            guild.add_member(host)
            guild.add_member(guest)
            rows.append(Table(channel, host, guest))
        watcher = Watcher(fake)
        with tempfile.TemporaryDirectory() as tmp:
            log_path = Path(tmp) / "bot.log"
            log = log_path.open("w")
            await tables_in_channels(Path(tmp) / "load.db", guild.id)
            process = start_bot(fake, guild.id, Path(tmp) / "load.db", debug_loop, log)
            try:
                deadline = time.monotonic() + 60
                while not (fake.connected and guild.commands.all()):
                    if process.poll() is not None or time.monotonic() > deadline:
                        tail = log_path.read_text().splitlines()[-20:]
                        raise SystemExit("the bot did not start:\n" + "\n".join(tail))
                    await asyncio.sleep(0.05)
                await fake.settle(quiet=0.3, timeout=600)
                for start in range(0, tables, 50):  # open in batches
                    await asyncio.gather(
                        *(open_table(fake, t, command) for t in rows[start : start + 50])
                    )
                await fake.settle(quiet=0.3, timeout=600)
                rng = random.Random(seed)
                pacer = Pacer(rate)
                exempt, limited = fake.exempt_count, fake.limited_count
                cpu = cpu_seconds(process.pid)
                loop_cpu = cpu_seconds(process.pid, process.pid)  # the event loop's thread
                workers_cpu = children_cpu_seconds(process.pid)
                started = time.perf_counter()
                window = [time.time(), 0.0]  # the moves, in wall time (the bot's clock too)
                await asyncio.gather(*(play(fake, watcher, t, moves, pacer, rng) for t in rows))
                await fake.settle(quiet=0.2, timeout=120)
                elapsed = time.perf_counter() - started
                window[1] = time.time()
                cpu = cpu_seconds(process.pid) - cpu
                loop_cpu = cpu_seconds(process.pid, process.pid) - loop_cpu
                workers_cpu = children_cpu_seconds(process.pid) - workers_cpu
                exempt, limited = fake.exempt_count - exempt, fake.limited_count - limited
                routes = Counter(
                    re.sub(r"/[0-9]{6,}|/[A-Za-z0-9_-]{60,}", "/…", line)
                    for line in list(fake.request_log)[-min(limited + exempt, 4000) :]
                )
                rss = rss_mb(process.pid)
                answers = first_answers(fake)
            finally:
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)  # a background job ignores SIGINT
                    try:
                        process.wait(timeout=60)
                    except subprocess.TimeoutExpired:
                        print("  the bot did not stop within 60 s: killed (no exit figures)")
                        process.kill()
                        process.wait()
                log.close()
                stderr = log_path.read_text().splitlines(keepends=True)
        if fake.violations:
            print("fake Discord violations:", *fake.violations[:10], sep="\n  ")
    slow: list[float] | None = None  # slow callbacks while the moves were played
    slow_outside: list[float] = []  # at start-up, while the tables were opened, at the end
    pauses: list[tuple[float, int, float]] = []
    for line in stderr:
        if line.startswith("SLOW "):
            slow = []
            for at, seconds in json.loads(line[5:]):
                (slow if window[0] <= at <= window[1] else slow_outside).append(seconds)
        if line.startswith("GCPAUSES "):
            pauses = [tuple(p) for p in json.loads(line[9:]) if window[0] <= p[0] <= window[1]]
    # asyncio's own lines ("Executing <Task …> took 0.031 seconds"): which callbacks were slow.
    slowest_lines = sorted(
        (
            (float(found.group(1)), line.strip())
            for line in stderr
            if (found := re.search(r"Executing (?:.*) took ([0-9.]+) seconds", line))
        ),
        reverse=True,
    )
    for seconds, line in slowest_lines[:5]:  # at any time, start-up included
        print(f"  slow callback {seconds * 1000:.0f} ms: {line[line.find('Executing') :][:240]}")
    print("  requests by route (the last ones):", dict(routes.most_common(8)))
    for line in stderr:
        if "closing: " in line:
            print("  the bot at exit:", line.rpartition("closing: ")[2].strip())
    errors = [n for n, line in enumerate(stderr) if "Traceback" in line or " ERROR " in line]
    if errors:
        first = errors[0]
        print(
            "bot errors:",
            len(errors),
            "; the first:",
            *stderr[max(0, first - 12) : first + 40],
            sep="\n  ",
        )
    waits = sorted(w * 1000 for t in rows for w in t.waits)
    total = len(waits)
    return Result(
        tables=tables,
        moves=total,
        rate=rate,
        seconds=elapsed,
        p50_ms=statistics.median(waits),
        p99_ms=waits[min(total - 1, int(0.99 * total))],
        max_ms=waits[-1],
        cpu_ms_per_move=cpu * 1000 / total,
        loop_cpu_ms_per_move=loop_cpu * 1000 / total,
        workers_cpu_ms_per_move=workers_cpu * 1000 / total,
        exempt_per_move=exempt / total,
        limited_per_move=limited / total,
        rss_mb=rss,
        unanswered=sum(t.unanswered for t in rows),
        stalled=sum(t.stalled for t in rows),
        slow_callbacks=None if slow is None else len(slow),
        slowest_ms=None if not slow else max(slow) * 1000,
        slow_outside=None if slow is None else len(slow_outside),
        gc_pauses_over_limit=sum(1 for p in pauses if p[2] > SLOW_CALLBACK),
        gc_slowest_ms=max((p[2] * 1000 for p in pauses), default=0.0),
        **answers,
    )


def first_answers(fake: FakeDiscord) -> dict[str, int]:
    """How every interaction of the run was first answered: within the bot's budget
    (``ANSWER_BUDGET``'s default), within Discord's 3 s, and how many by a deferral. Measured
    in the fake from the interaction's dispatch (its snowflake is made just before)."""
    from cogs.deadline import DEFAULT_BUDGET, DISCORD_LIMIT

    counts = {"interactions": 0, "within_budget": 0, "within_limit": 0, "deferred": 0}
    for record in fake.interactions.values():
        counts["interactions"] += 1
        if record.responded_at is None:
            continue
        waited = record.responded_at - record.dispatched_at
        counts["within_budget"] += waited <= DEFAULT_BUDGET
        counts["within_limit"] += waited <= DISCORD_LIMIT
        counts["deferred"] += record.response_type in (DEFERRED, DEFERRED_UPDATE_MESSAGE)
    return counts


def show(result: Result) -> None:
    pace = f"paced at {result.rate:g}/s" if result.rate else "unpaced"
    print(
        f"{result.tables} tables, {result.moves} moves ({pace}): "
        f"{result.moves_per_second:.0f} moves/s; click to answer p50 {result.p50_ms:.1f} ms, "
        f"p99 {result.p99_ms:.1f} ms, max {result.max_ms:.1f} ms; bot CPU "
        f"{result.cpu_ms_per_move:.2f} ms/move ({result.loop_cpu_ms_per_move:.2f} on the loop's "
        f"thread) + {result.workers_cpu_ms_per_move:.2f} in its worker processes; requests per "
        f"move {result.exempt_per_move:.2f} "
        f"exempt + {result.limited_per_move:.2f} rate-limited; bot RSS {result.rss_mb:.0f} MB"
        + (f"; {result.unanswered} clicks NOT answered within 3 s" if result.unanswered else "")
        + (
            f"; {result.stalled} tables STALLED (their next position not shown within 30 s)"
            if result.stalled
            else ""
        )
    )
    print(
        f"  interactions (from start-up): {result.interactions}, first answered within 3 s "
        f"{result.share_within_limit:.2%}, within the 1.5 s budget {result.share_within_budget:.2%}"
        f"; {result.deferred} of the first answers deferred"
    )
    limit = f"{SLOW_CALLBACK * 1000:.0f} ms"
    print(
        f"  garbage collections during the moves: {result.gc_pauses_over_limit} over {limit}, "
        f"the longest {result.gc_slowest_ms:.1f} ms"
    )
    if result.slow_callbacks is not None:
        slowest = f"{result.slowest_ms:.1f} ms" if result.slowest_ms is not None else "none"
        print(
            f"  event loop (asyncio debug mode): {result.slow_callbacks} callbacks over {limit} "
            f"while the moves were played, slowest {slowest}; {result.slow_outside} more at "
            "start-up and while the tables were opened"
        )


def ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=ints, default=[1, 100, 1000])
    parser.add_argument("--moves", type=ints, default=[200, 10, 3], help="moves per table")
    parser.add_argument("--rates", type=ints, default=[0, 0, 200], help="clicks/s, 0: unpaced")
    parser.add_argument(
        "--debug-loop",
        action="store_true",
        help="one more run of the largest size with asyncio debug mode (slow callbacks)",
    )
    parser.add_argument(
        "--debug-rate",
        type=int,
        default=40,
        help="clicks/s of the debug-mode run (debug mode halves what the bot carries: offered "
        "more, it falls behind and measures its backlog, not its callbacks)",
    )
    return parser.parse_args(argv)


async def amain(args: argparse.Namespace) -> list[Result]:
    results = []
    for size, moves, rate in zip(args.sizes, args.moves, args.rates, strict=True):
        result = await run_size(size, moves, rate, debug_loop=False)
        show(result)
        results.append(result)
    if args.debug_loop:
        result = await run_size(args.sizes[-1], args.moves[-1], args.debug_rate, debug_loop=True)
        show(result)
        results.append(result)
    return results


def main(argv: Sequence[str] | None = None) -> None:
    results = asyncio.run(amain(arguments(argv)))
    rows: list[dict[str, Any]] = [
        {
            **r.__dict__,
            "moves_per_second": r.moves_per_second,
            "share_within_limit": r.share_within_limit,
            "share_within_budget": r.share_within_budget,
        }
        for r in results
    ]
    print("RESULT " + json.dumps(rows))


if __name__ == "__main__":
    main()
