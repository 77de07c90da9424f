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
moves (a ``gc.callbacks`` probe), in wall time and in the collector's own CPU time, and this
process's own collections over 20 ms (they delay what the players measure as much as the bot's
do). This process is the measuring instrument, so it must not pause: it runs the fake in its
light mode (``tests/fakecord/light.py``: what it keeps does not grow with every click and
picture), freezes what it built before the moves and makes no collection while they are played;
the count says whether one happened anyway, and the objects it keeps after the moves, the
cycles it left and its RSS are printed.
Once the moves are over the bot is asked for its figures (SIGUSR1: pauses, slow callbacks, the
heap a full collection walks, by type, and what the caches hold; ``TABLE_LOAD_SHARES=1`` also
empties each cache in turn and prints what it held) before it is stopped, so a bot slow to stop
loses none. After each size one JSON line (``SIZE {...}``), and at the end all of them
(``RESULT [...]``), for ``benchmarks/all.py``. ``run_size`` also runs several bot processes over
shards on PostgreSQL (``Deployment``; ``scale_out.py``).

Run: ``.venv/bin/python benchmarks/table_load.py [--sizes 1,100,1000] [--moves 100,10,3]
[--rates 0,0,200] [--debug-loop] [--debug-rate 40] [--debug-moves N] [--bot-root DIR]`` (rate 0:
as fast as the bot answers; the debug-mode run plays the largest size at ``--debug-rate``
clicks/s; ``--bot-root``: the bot from another checkout, for before/after pairs).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repo root, for tests.fakecord

from storage import Store  # noqa: E402
from tests.fakecord import FakeDiscord, FakeMessage  # noqa: E402
from tests.fakecord.interactions import DEFERRED_CHANNEL_MESSAGE as DEFERRED  # noqa: E402
from tests.fakecord.interactions import DEFERRED_UPDATE_MESSAGE  # noqa: E402
from tests.fakecord.messages import walk_components  # noqa: E402
from tests.fakecord.world import FakeChannel, FakeGuild, FakeUser  # noqa: E402

PYTHON = sys.executable
SLOW_CALLBACK = 0.020  # seconds: the limit for one callback on the bot's loop

LAUNCHER = """\
import asyncio, json, logging, os, re, signal, sys
sys.path.insert(0, os.environ["SIEGE_BENCH_ROOT"])
import discord.gateway, discord.http, yarl
discord.http.Route.BASE = os.environ["SIEGE_BENCH_API"]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["SIEGE_BENCH_GATEWAY"])
import bot, gc, threading, time
slow = []  # (wall time, seconds) of each callback asyncio's debug mode reports as slow
class Slow(logging.Handler):
    def emit(self, record):
        found = re.search(r"took ([0-9.]+) seconds", record.getMessage())
        if found:
            slow.append((record.created, float(found.group(1))))
# (wall time, generation, seconds, CPU seconds) of each garbage collection over 5 ms: the
# seconds the loop stood still, and of them the collector's own work (on a loaded machine the
# process also waits for a core in the middle of a collection).
pauses = []
began = [0.0, 0.0]
collected = [[0, 0.0], [0, 0.0], [0, 0.0]]  # by generation: collections, CPU seconds
def collector(phase, info):
    if phase == "start":
        began[0], began[1] = time.perf_counter(), time.thread_time()
        return
    spent = collected[info["generation"]]
    spent[0] += 1
    spent[1] += time.thread_time() - began[1]
    if time.perf_counter() - began[0] > 0.005:
        pauses.append((time.time(), info["generation"], time.perf_counter() - began[0],
                       time.thread_time() - began[1]))
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
made = []
def create_bot(settings, **options):
    made.append(_create_bot(settings, guild_ready_timeout=0.05, **options))
    return made[-1]
bot.create_bot = create_bot
def walk():
    gc.collect()
    began = time.perf_counter()
    gc.collect()
    return len(gc.get_objects()), (time.perf_counter() - began) * 1000
def shares(b):
    # Emptied one after another (the moves are over): the objects each held and what a full
    # collection then takes.
    found = []
    steps = [
        ("writer memo", lambda: b.store._db.memo.clear()),
        ("kept tails", lambda: b.store._tails.clear()),
        ("pictures kept", lambda: b.hall.pictures._done.clear()),
        ("interaction webhooks kept", lambda: (b.hall.delivery._handles.clear(),
                                               b.hall.delivery._in_dms.clear())),
        ("rate-limit buckets", lambda: b.http._buckets.clear()),
    ]
    before = walk()
    for name, empty in steps:
        try:
            empty()
        except AttributeError as exc:
            found.append((name, repr(exc), 0, 0.0))
            continue
        after = walk()
        found.append((name, before[0] - after[0], after[0], after[1]))
        before = after
    return found
def thread_cpu():
    # CPU seconds of each of the bot's threads, by role (the event loop, the database's,
    # the picture pool's, asyncio's helper threads), to tell where a move's CPU goes.
    roles = {threading.main_thread().ident: "event loop"}
    if made:
        db = getattr(getattr(made[-1], "store", None), "_db", None)
        for role in ("writer", "reader"):
            conn = getattr(db, "_" + role, None)
            thread = getattr(conn, "_thread", None)
            if thread is not None:
                roles[thread.ident] = "database " + role
    found = {}
    for thread in threading.enumerate():
        try:
            with open(f"/proc/self/task/{thread.native_id}/stat") as stat:
                fields = stat.read().rpartition(")")[2].split()
        except (OSError, TypeError):
            continue
        role = roles.get(thread.ident) or re.sub(r"[-_]\\d+", "", thread.name)
        seconds = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        found[role] = found.get(role, 0.0) + seconds
    return found
def figures(*_):
    # SIGUSR1, sent when the moves are over: the figures now, not at exit (a bot that is slow to
    # stop and gets killed would lose them), and what a full collection walks.
    counts = {}
    for item in gc.get_objects():
        name = type(item).__module__ + "." + type(item).__qualname__
        counts[name] = counts.get(name, 0) + 1
    if os.environ.get("TABLE_LOAD_OWNERS"):
        import random as _r
        kinds = os.environ["TABLE_LOAD_OWNERS"]  # "1", or the type names to look at
        kinds = kinds.split(",") if kinds != "1" else ["Interaction", "TableRecord", "list"]
        for kind in kinds:
            sample = [o for o in gc.get_objects() if type(o).__name__ == kind]
            owners = {}
            for o in _r.sample(sample, min(300, len(sample))):
                for ref in gc.get_referrers(o):
                    if ref is sample or isinstance(ref, type(sys._getframe())):
                        continue
                    n = type(ref).__qualname__
                    if isinstance(ref, dict):
                        n = "dict:" + ",".join(sorted(map(str, list(ref)[:4])))[:60]
                    owners[n] = owners.get(n, 0) + 1
            top = sorted(owners.items(), key=lambda kv: -kv[1])[:6]
            print("OWNERS", kind, len(sample), top, file=sys.stderr, flush=True)
    began_collect = time.perf_counter()
    gc.collect()
    collect_ms = (time.perf_counter() - began_collect) * 1000
    heap = {"tracked": sum(counts.values()), "frozen": gc.get_freeze_count(),
            "full_collection_ms": collect_ms,
            "types": sorted(counts.items(), key=lambda kv: -kv[1])[:30]}
    if made:
        b = made[-1]
        heap["rate_limit_buckets"] = len(b.http._buckets)
        heap["bucket_hashes"] = len(b.http._bucket_hashes)
        store = getattr(b, "store", None)
        db = getattr(store, "_db", None)
        heap["writer_memo"] = len(getattr(db, "memo", None) or {})
        heap["kept_tails"] = len(getattr(store, "_tails", {}))
        hall = getattr(b, "hall", None)
        if hall is not None:
            heap["pictures_kept"] = len(hall.pictures._done)
            heap["drawn"] = hall.pictures.drawn
            heap["summary"] = hall.summary()
    if made and os.environ.get("TABLE_LOAD_SHARES"):  # what each cache adds to a collection
        heap["shares"] = shares(made[-1])
    heap["threads"] = thread_cpu()
    heap["collected"] = collected
    print("FIGURES " + json.dumps({"gc_pauses": pauses, "slow": slow, "heap": heap}),
          file=sys.stderr, flush=True)
signal.signal(signal.SIGUSR1, figures)
def counts(*_):
    hall = getattr(made[-1], "hall", None) if made else None
    drawn = hall.pictures.drawn if hall is not None else 0
    busy = bool(hall is not None and hall.redraws.busy)
    print("COUNTS " + json.dumps({"drawn": drawn, "redraws_busy": busy, "threads": thread_cpu(),
                                  "collected": collected}),
          file=sys.stderr, flush=True)
signal.signal(signal.SIGUSR2, counts)
if os.environ.get("SIEGE_BENCH_PROFILE"):
    import cProfile
    # CPU time of the loop's thread (wall time would count the other threads' turns too)
    profile = cProfile.Profile(time.thread_time)
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


async def tables_in_channels(db: Path | str, guild_ids: Sequence[int]) -> None:
    """The load is a table per channel, measured as before game threads: each server's threads
    setting off (set before the bots start, on the database they will open). A bot from another
    checkout (--bot-root) may predate the setting (and threads, ``cogs/threads.py``): then
    nothing is set."""
    root = os.environ.get("TABLE_LOAD_BOT_ROOT")
    if root and not (Path(root) / "cogs" / "threads.py").exists():
        return
    store = await Store.open(db)
    try:
        await store.migrate()
        for guild_id in guild_ids:
            await store.change_server_settings(guild_id, 1, threads=False)
    finally:
        await store.close()


async def showing(fake: FakeDiscord, message: FakeMessage, label: str) -> FakeMessage:
    """``message`` as it is once it shows a button ``label`` (an answer deferred on a busy
    machine shows "thinking…" first): waits up to 180 s (a thousand tables opened at once on a
    busy machine took longer than a minute)."""
    deadline = time.monotonic() + 180
    while True:
        latest = fake.latest(message)
        labels = {str(c.get("label")) for c in walk_components(latest.components)}
        if label in labels or time.monotonic() > deadline:
            return latest
        await asyncio.sleep(0.05)


async def open_table(fake: FakeDiscord, table: Table, command: str) -> None:
    handle = await table.host.slash(table.channel, command, dealer="1")
    lobby = handle.response_message
    assert lobby is not None, "no lobby"
    await table.guest.click(await showing(fake, lobby, "Join"), "Join", settle_first=False)
    await table.host.click(await showing(fake, lobby, "Start"), "Start", settle_first=False)
    table.message_id = lobby.id
    started = await showing(fake, lobby, "Resign")
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


class HarnessPauses:
    """The garbage collections of this process (the fake Discord and the players) that took
    longer than :data:`SLOW_CALLBACK`: they delay what the players measure as much as the bot's
    own pauses do."""

    def __init__(self) -> None:
        self.began = (0.0, 0.0)
        self.pauses: list[float] = []
        #: Of those, the collector's own CPU time (the rest: waiting for a core).
        self.cpu: list[float] = []
        self.generations: list[int] = []

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.began = (time.perf_counter(), time.thread_time())
        elif time.perf_counter() - self.began[0] > SLOW_CALLBACK:
            self.pauses.append((time.perf_counter() - self.began[0]) * 1000)
            self.cpu.append((time.thread_time() - self.began[1]) * 1000)
            self.generations.append(info["generation"])


def _stat(path: str) -> list[str]:
    """The fields of a ``/proc/.../stat`` file after the command's name: [1] the parent's pid,
    [7] minor and [9] major page faults, [11] user and [12] system CPU ticks."""
    with open(path) as stat:
        return stat.read().rpartition(")")[2].split()


def _cpu(fields: list[str]) -> float:
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _faults(fields: list[str]) -> int:
    return int(fields[7]) + int(fields[9])


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """CPU seconds of process ``pid`` (all its threads), or of its thread ``thread``."""
    return _cpu(_stat(f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"))


def _children(pid: int) -> list[list[str]]:
    """The stat fields of the live child processes of ``pid`` (the picture and computer
    workers)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = _stat(f"/proc/{entry}/stat")
        except OSError:
            continue
        if int(fields[1]) == pid:  # the parent's pid
            found.append(fields)
    return found


def children_cpu_seconds(pid: int) -> float:
    """CPU seconds of the live child processes of ``pid`` (the picture and computer workers)."""
    return sum(_cpu(fields) for fields in _children(pid))


def load_average() -> float:
    """The machine's load average over the last minute (other processes' work included)."""
    with open("/proc/loadavg") as loadavg:
        return float(loadavg.read().split()[0])


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
    #: The machine's 1-minute load average when the moves began and when they ended.
    load: tuple[float, float] = (0.0, 0.0)
    unanswered: int = 0
    stalled: int = 0  # tables that stopped: their next position was not shown within 30 s
    slow_callbacks: int | None = None
    slowest_ms: float | None = None
    slow_outside: int | None = None  # slow callbacks outside the moves (start-up, opening)
    gc_pauses_over_limit: int = 0  # garbage collections over SLOW_CALLBACK during the moves
    gc_slowest_ms: float = 0.0
    #: The same in the collector's CPU time (the wall-time figures include waiting for a core).
    gc_cpu_over_limit: int = 0
    gc_slowest_cpu_ms: float = 0.0
    #: After the moves: what the collector tracks, what a full collection of it took, and
    #: discord.py's rate-limit buckets among it.
    gc_tracked: int = 0
    full_collection_ms: float = 0.0
    rate_limit_buckets: int = 0
    #: Pictures drawn during the moves (their CPU is ``workers_cpu_ms_per_move``).
    pictures_drawn: int = 0
    #: Page faults (minor and major) per move in the bot processes and in their workers.
    faults_per_move: float = 0.0
    workers_faults_per_move: float = 0.0
    deployment: str = "1 process, SQLite"
    others_cpu_ms_per_move: dict[str, float] = field(default_factory=dict)
    #: This process's CPU per move: the fake Discord and the players (on a 2-core machine the
    #: harness shares the cores with the bot, so it bounds what the bot can be offered).
    harness_cpu_ms_per_move: float = 0.0
    #: This process's garbage collections over SLOW_CALLBACK during the moves, longest first.
    harness_gc_pauses_ms: list[float] = field(default_factory=list)
    #: After the moves: the objects this process's collector tracks (not frozen: what a full
    #: collection would walk), and its RSS.
    harness_tracked: int = 0
    #: Of those, the garbage (cycles) the collection after the moves freed.
    harness_garbage: int = 0
    #: The longest of those collections in the collector's CPU time.
    harness_gc_cpu_ms: float = 0.0
    #: The generation each of them collected.
    harness_gc_generations: list[int] = field(default_factory=list)
    harness_rss_mb: float = 0.0
    processes: int = 1
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
    fake: FakeDiscord, db: Path, debug_loop: bool, log: Any, extra: dict[str, str]
) -> subprocess.Popen[str]:
    """The bot as its own process; its log (stderr) goes to the file ``log``, as a deployed
    bot's goes to a file or the journal: a pipe read by this busy process could fill up and
    stop the bot's event loop on a write."""
    ours = ("DISCORD_", "SIEGE_", "DATABASE_", "SHARD_", "DEV_GUILD_ID", "METRICS_")
    env = {k: v for k, v in os.environ.items() if not k.startswith(ours)}
    env.update(extra)
    env.update(
        DISCORD_TOKEN="fake-token",
        DATABASE_PATH=str(db),
        LOG_LEVEL="INFO",  # as deployed (moves log at DEBUG); the close line counts pictures
        # The bot's code: this checkout, or another one to compare with (--bot-root).
        SIEGE_BENCH_ROOT=os.environ.get("TABLE_LOAD_BOT_ROOT", str(ROOT)),
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


@dataclass
class Bot:
    """One bot process of a run, its log file and its figures."""

    process: subprocess.Popen[str]
    log_path: Path
    log: IO[str]
    figures: dict[str, Any] | None = None

    def lines(self) -> list[str]:
        return self.log_path.read_text().splitlines(keepends=True)


async def start_bots(
    fake: FakeDiscord, guilds: list[FakeGuild], tmp: Path, deployment: Deployment, debug: bool
) -> list[Bot]:
    """The bot processes of a run, connected and with their commands, or SystemExit."""
    shards = deployment.shards
    bots = []
    for n in range(deployment.processes):
        log_path = tmp / f"bot-{n}.log"
        log = log_path.open("w")
        env: dict[str, str] = {}
        if shards:
            env["SHARD_COUNT"] = str(shards)
            if deployment.processes > 1:  # each process its share of the shards
                env["SHARD_IDS"] = ",".join(
                    str(k) for k in range(shards) if k % deployment.processes == n
                )
        else:
            env["DEV_GUILD_ID"] = str(guilds[0].id)
        if deployment.database is not None:
            env["DATABASE_URL"] = deployment.database
        process = start_bot(fake, tmp / "load.db", debug, log, env)
        bots.append(Bot(process, log_path, log))
    deadline = time.monotonic() + 90

    def ready() -> bool:
        if not shards:
            return fake.connected and bool(guilds[0].commands.all())
        sessions = [fake.gateway.shards.get(k) for k in range(shards)]
        return (
            all(s is not None and s.connection is not None for s in sessions)
            and bool(fake.global_commands.all())
            and all("ready as" in b.log_path.read_text() for b in bots)
        )

    while not ready():
        for b in bots:
            if b.process.poll() is not None or time.monotonic() > deadline:
                tail = b.lines()[-20:]
                for other in bots:
                    stop_bot(other)
                raise SystemExit("the bot did not start:\n" + "".join(tail))
        await asyncio.sleep(0.05)
    return bots


def stop_bot(b: Bot) -> None:
    if b.process.poll() is None:
        b.process.send_signal(signal.SIGTERM)  # a background job ignores SIGINT
        try:
            b.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            print("  the bot did not stop within 60 s: killed (its figures were taken before)")
            b.process.kill()
            b.process.wait()
    b.log.close()


@dataclass(frozen=True)
class Deployment:
    """How the bot runs: ``processes`` processes over ``shards`` shards (0: unsharded, one
    server), on ``database`` (a PostgreSQL URL) or a SQLite file (None)."""

    processes: int = 1
    shards: int = 0
    database: str | None = None

    @property
    def label(self) -> str:
        where = "PostgreSQL" if self.database else "SQLite"
        if not self.shards:
            return f"1 process, {where}"
        processes = f"{self.processes} process{'es' if self.processes > 1 else ''}"
        return f"{processes} over {self.shards} shards, {where}"


def process_figures(pids: Sequence[int]) -> tuple[float, float, float, int, int]:
    """So far, for the bot processes: CPU seconds of all their threads, of their main threads
    (the event loops) and of their worker processes; page faults of theirs and of their
    workers'. (A picture process that gives its freed buffers back to the system faults them
    in again for the next picture: about 290 faults, half of a Castles picture's CPU, before
    ``cogs.picture_workers.keep_freed_memory``.)"""
    own = [_stat(f"/proc/{pid}/stat") for pid in pids]
    workers = [fields for pid in pids for fields in _children(pid)]
    return (
        sum(_cpu(fields) for fields in own),
        sum(cpu_seconds(pid, pid) for pid in pids),
        sum(_cpu(fields) for fields in workers),
        sum(_faults(fields) for fields in own),
        sum(_faults(fields) for fields in workers),
    )


async def run_size(
    tables: int,
    moves: int,
    rate: float,
    debug_loop: bool,
    seed: int = 1,
    deployment: Deployment = Deployment(),
    others: dict[str, Callable[[], float]] | None = None,
) -> Result:
    """One run of ``tables`` tables, ``moves`` moves each. ``others``: more processes whose CPU
    seconds (read by each callable) are counted over the moves too, per move (the database
    server's, in ``scale_out.py``)."""
    from cogs.guide import command_name

    command = f"play {command_name('castles')}"
    async with FakeDiscord(capture_library_errors=False, light=True) as fake:
        shards = deployment.shards
        guilds = [
            fake.add_guild(f"Load {k}", shard=(k, shards) if shards else None)
            for k in range(max(shards, 1))
        ]
        rows = []
        for n in range(tables):
            guild = guilds[n % len(guilds)]  # each shard's server its share of the tables
            channel = guild.add_text_channel(f"table-{n}")
            host, guest = fake.add_user(f"a{n}"), fake.add_user(f"b{n}")
            guild.add_member(host)
            guild.add_member(guest)
            rows.append(Table(channel, host, guest))
        watcher = Watcher(fake)
        with tempfile.TemporaryDirectory() as tmp:
            database = deployment.database or Path(tmp) / "load.db"
            await tables_in_channels(database, [g.id for g in guilds])
            bots = await start_bots(fake, guilds, Path(tmp), deployment, debug_loop)
            pids = [b.process.pid for b in bots]
            try:
                await fake.settle(quiet=0.3, timeout=600)
                for start in range(0, tables, 50):  # open in batches
                    await asyncio.gather(
                        *(open_table(fake, t, command) for t in rows[start : start + 50])
                    )
                await fake.settle(quiet=0.3, timeout=600)
                await opening_drained(fake, bots)
                rng = random.Random(seed)
                pacer = Pacer(rate)
                drawn_before = 0
                threads_before: Counter[str] = Counter()
                collected_before = [[0, 0.0] for _ in range(3)]
                for b in bots:
                    counted = await ask(b, signal.SIGUSR2, "COUNTS ") or {}
                    drawn_before += counted.get("drawn", 0)
                    threads_before.update(counted.get("threads", {}))
                    for gen, (n, seconds) in enumerate(counted.get("collected", [])):
                        collected_before[gen][0] += n
                        collected_before[gen][1] += seconds
                exempt, limited = fake.exempt_count, fake.limited_count
                figures_before = process_figures(pids)
                # The fake's world and the opened tables live to the end: out of the collector's
                # walks, so the players' measurements are not held up by the harness's own
                # full collections (100 ms and more at 1,000 tables).
                gc.collect()
                gc.freeze()
                # Nor does it collect while the moves are played: at 1,000 tables its young
                # collections walked 17,000-35,000 objects (12-28 ms of CPU, a dozen a run) and
                # a full one all it keeps of the clicks. Its heap grows by what the fake keeps
                # (light mode: little) and the cycles left for later (counted after the moves).
                gc.disable()
                harness_before = time.process_time()
                harness_pauses = HarnessPauses()
                gc.callbacks.append(harness_pauses)
                others_before = {k: read() for k, read in (others or {}).items()}
                load_before = load_average()
                started = time.perf_counter()
                window = [time.time(), 0.0]  # the moves, in wall time (the bot's clock too)
                await asyncio.gather(*(play(fake, watcher, t, moves, pacer, rng) for t in rows))
                await fake.settle(quiet=0.2, timeout=120)
                elapsed = time.perf_counter() - started
                window[1] = time.time()
                harness_cpu = time.process_time() - harness_before
                gc.callbacks.remove(harness_pauses)
                harness_tracked = len(gc.get_objects())  # what a full collection would walk
                harness_rss = rss_mb(os.getpid())
                gc.enable()
                harness_garbage = gc.collect()
                gc.unfreeze()
                figures_after = process_figures(pids)
                cpu, loop_cpu, workers_cpu, faults, workers_faults = (
                    now - then for now, then in zip(figures_after, figures_before, strict=True)
                )
                others_cpu = {k: read() - others_before[k] for k, read in (others or {}).items()}
                exempt, limited = fake.exempt_count - exempt, fake.limited_count - limited
                routes = Counter(
                    re.sub(r"/[0-9]{6,}|/[A-Za-z0-9_-]{60,}", "/…", line)
                    for line in list(fake.request_log)[-min(limited + exempt, 4000) :]
                )
                rss = max(rss_mb(pid) for pid in pids)
                load_after = load_average()
                answers = first_answers(fake)
                for b in bots:
                    b.figures = await ask(b, signal.SIGUSR1, "FIGURES ")
            finally:
                for b in bots:
                    stop_bot(b)
            stderr = [line for b in bots for line in b.lines()]
            for b in bots:
                if b.figures is None:
                    print("  a bot did not report its figures when asked; its exit lines used")
                    b.figures = exit_figures(b.lines())
        if fake.violations:
            print("fake Discord violations:", *fake.violations[:10], sep="\n  ")
    figures: dict[str, Any] = {
        "slow": [x for b in bots for x in (b.figures or {}).get("slow", [])],
        "gc_pauses": [x for b in bots for x in (b.figures or {}).get("gc_pauses", [])],
    }
    heaps = [(b.figures or {}).get("heap", {}) for b in bots]
    drawn = sum(h.get("drawn", 0) for h in heaps) - drawn_before
    slow: list[float] | None = None  # slow callbacks while the moves were played
    slow_outside: list[float] = []  # at start-up, while the tables were opened, at the end
    if figures is None:
        print("  the bot did not report its figures when asked (SIGUSR1); its exit lines used")
        figures = exit_figures(stderr)
    if debug_loop:
        slow = []
        for at, seconds in figures["slow"]:
            (slow if window[0] <= at <= window[1] else slow_outside).append(seconds)
    pauses = [tuple(p) for p in figures["gc_pauses"] if window[0] <= p[0] <= window[1]]
    for heap in heaps:
        if not heap:
            continue
        print(
            f"  heap after the moves: {heap['tracked']:,} objects tracked by the collector "
            f"({heap['frozen']:,} frozen), a full collection {heap['full_collection_ms']:.0f} ms;"
            f" rate-limit buckets {heap.get('rate_limit_buckets')}, writer memo "
            f"{heap.get('writer_memo')}, kept tails {heap.get('kept_tails')}, pictures kept "
            f"{heap.get('pictures_kept')}"
        )
        print("  most tracked:", ", ".join(f"{n} {c}" for n, c in heap["types"][:12]))
    threads: Counter[str] = Counter()
    for heap in heaps:
        threads.update(heap.get("threads", {}))
    threads.subtract(threads_before)
    played = sum(len(t.waits) for t in rows)
    collected = [[-n, -seconds] for n, seconds in collected_before]
    for heap in heaps:
        for gen, (n, seconds) in enumerate(heap.get("collected", [])):
            collected[gen][0] += n
            collected[gen][1] += seconds
    if played and any(n for n, _ in collected):
        print(
            "  the collector during the moves: "
            + ", ".join(
                f"generation {gen} {n / played:.2f} a move, {seconds * 1000 / played:.3f} ms CPU"
                for gen, (n, seconds) in enumerate(collected)
            )
            + " a move"
        )
    if threads and played:
        print(
            "  bot CPU per move by thread: "
            + ", ".join(
                f"{name} {seconds * 1000 / played:.2f} ms"
                for name, seconds in threads.most_common()
                if seconds > 0
            )
        )
        for name, held, left, collect_ms in heap.get("shares", []):
            print(
                f"  emptying the {name}: {held} objects fewer; then {left} tracked, a full "
                f"collection {collect_ms:.1f} ms"
            )
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
    print("  requests by route (the last ones):", dict(routes.most_common(14)))
    for line in stderr:
        if line.startswith("OWNERS "):
            print("  " + line.strip())
    for heap in heaps:
        if heap.get("summary"):
            print("  the bot's own counts:", heap["summary"])
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
        faults_per_move=faults / total,
        workers_faults_per_move=workers_faults / total,
        exempt_per_move=exempt / total,
        limited_per_move=limited / total,
        rss_mb=rss,
        load=(load_before, load_after),
        unanswered=sum(t.unanswered for t in rows),
        stalled=sum(t.stalled for t in rows),
        slow_callbacks=None if slow is None else len(slow),
        slowest_ms=None if not slow else max(slow) * 1000,
        slow_outside=None if slow is None else len(slow_outside),
        gc_pauses_over_limit=sum(1 for p in pauses if p[2] > SLOW_CALLBACK),
        gc_slowest_ms=max((p[2] * 1000 for p in pauses), default=0.0),
        gc_cpu_over_limit=sum(1 for p in pauses if p[-1] > SLOW_CALLBACK),
        gc_slowest_cpu_ms=max((p[-1] * 1000 for p in pauses), default=0.0),
        gc_tracked=max((h.get("tracked", 0) for h in heaps), default=0),
        full_collection_ms=max((h.get("full_collection_ms", 0.0) for h in heaps), default=0.0),
        rate_limit_buckets=max((h.get("rate_limit_buckets", 0) for h in heaps), default=0),
        pictures_drawn=drawn,
        others_cpu_ms_per_move={k: v * 1000 / total for k, v in others_cpu.items()},
        harness_cpu_ms_per_move=harness_cpu * 1000 / total,
        harness_gc_pauses_ms=sorted(harness_pauses.pauses, reverse=True),
        harness_gc_cpu_ms=max(harness_pauses.cpu, default=0.0),
        harness_gc_generations=sorted(harness_pauses.generations),
        harness_tracked=harness_tracked,
        harness_garbage=harness_garbage,
        harness_rss_mb=harness_rss,
        deployment=deployment.label,
        processes=deployment.processes,
        **answers,
    )


async def opening_drained(fake: FakeDiscord, bots: list[Bot], limit: float = 600) -> None:
    """Wait until the bots have shown what opening the tables queued (the DM panels go by the
    rate-limited channel routes, Discord's 50 requests/s for the whole bot, until each player
    has clicked in their DMs): the moves are then timed from a steady start, not behind a
    backlog of thousands of panels."""
    began = time.monotonic()
    while time.monotonic() - began < limit:
        counts = [await ask(b, signal.SIGUSR2, "COUNTS ") for b in bots]
        if not any((c or {}).get("redraws_busy") for c in counts):
            break
        await asyncio.sleep(1.0)
    await fake.settle(quiet=0.3, timeout=600)
    print(f"  the tables' opening shown {time.monotonic() - began:.0f} s after it was answered")


async def ask(bot: Bot, sig: int, prefix: str) -> dict[str, Any] | None:
    """Signal the bot (SIGUSR1: its figures; SIGUSR2: its counts) and wait for the line it
    prints: figures taken while it runs, so a bot slow to stop, or killed, loses none."""
    if bot.process.poll() is not None:
        return None
    seen = sum(1 for line in bot.lines() if line.startswith(prefix))
    bot.process.send_signal(sig)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and bot.process.poll() is None:
        found = [line for line in bot.lines() if line.startswith(prefix)]
        if len(found) > seen:
            answer: dict[str, Any] = json.loads(found[-1][len(prefix) :])
            return answer
        await asyncio.sleep(0.1)
    return None


def exit_figures(stderr: Sequence[str]) -> dict[str, Any]:
    """The figures from the lines the bot prints at exit (when it did not answer SIGUSR1)."""
    found: dict[str, Any] = {"slow": [], "gc_pauses": []}
    for line in stderr:
        if line.startswith("SLOW "):
            found["slow"] = json.loads(line[5:])
        if line.startswith("GCPAUSES "):
            found["gc_pauses"] = json.loads(line[9:])
    return found


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
        f"exempt + {result.limited_per_move:.2f} rate-limited; page faults per move "
        f"{result.faults_per_move:.1f} + {result.workers_faults_per_move:.1f} in its workers; "
        f"bot RSS {result.rss_mb:.0f} MB; "
        f"load average {result.load[0]:.1f} -> {result.load[1]:.1f}"
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
        f"the longest {result.gc_slowest_ms:.1f} ms; in the collector's CPU time "
        f"{result.gc_cpu_over_limit} over {limit}, the longest {result.gc_slowest_cpu_ms:.1f} ms"
    )
    for name, ms in result.others_cpu_ms_per_move.items():
        print(f"  {name}: {ms:.2f} ms CPU per move")
    print(
        f"  the fake Discord and the players: {result.harness_cpu_ms_per_move:.2f} ms CPU per move"
        f"; {len(result.harness_gc_pauses_ms)} of their collections over {limit}"
        + (
            f", the longest {result.harness_gc_pauses_ms[0]:.0f} ms (in CPU time "
            f"{result.harness_gc_cpu_ms:.0f} ms the longest; generations "
            f"{','.join(map(str, result.harness_gc_generations))})"
            if result.harness_gc_pauses_ms
            else ""
        )
        + f"; {result.harness_tracked:,} objects tracked after the moves (not frozen; "
        f"{result.harness_garbage:,} of them garbage), RSS {result.harness_rss_mb:.0f} MB"
    )
    if result.slow_callbacks is not None:
        slowest = f"{result.slowest_ms:.1f} ms" if result.slowest_ms is not None else "none"
        print(
            f"  event loop (asyncio debug mode): {result.slow_callbacks} callbacks over {limit} "
            f"while the moves were played, slowest {slowest}; {result.slow_outside} more at "
            "start-up and while the tables were opened"
        )


def as_json(result: Result) -> dict[str, Any]:
    return {
        **result.__dict__,
        "moves_per_second": result.moves_per_second,
        "share_within_limit": result.share_within_limit,
        "share_within_budget": result.share_within_budget,
    }


def report(result: Result) -> None:
    """Print a run's figures, then one line of JSON (``SIZE {...}``) at once: a later size
    that fails or runs out of time loses nothing of this one (``benchmarks/all.py``)."""
    show(result)
    print("SIZE " + json.dumps(as_json(result)), flush=True)


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
    parser.add_argument(
        "--debug-moves", type=int, help="moves per table of the debug-mode run (the last size's)"
    )
    parser.add_argument(
        "--bot-root",
        type=Path,
        help="run the bot from this checkout (e.g. an export of main, for a before/after pair); "
        "the fake Discord and the players stay this one's",
    )
    return parser.parse_args(argv)


async def amain(args: argparse.Namespace) -> list[Result]:
    results = []
    for size, moves, rate in zip(args.sizes, args.moves, args.rates, strict=True):
        result = await run_size(size, moves, rate, debug_loop=False)
        report(result)
        results.append(result)
    if args.debug_loop:
        moves = args.debug_moves or args.moves[-1]
        result = await run_size(args.sizes[-1], moves, args.debug_rate, debug_loop=True)
        report(result)
        results.append(result)
    return results


def main(argv: Sequence[str] | None = None) -> None:
    args = arguments(argv)
    if args.bot_root is not None:
        os.environ["TABLE_LOAD_BOT_ROOT"] = str(args.bot_root.resolve())
        print(f"the bot from {args.bot_root.resolve()}", flush=True)
    results = asyncio.run(amain(args))
    print("RESULT " + json.dumps([as_json(r) for r in results]))


if __name__ == "__main__":
    main()
