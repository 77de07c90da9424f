"""Two bot processes over two shards of the fake Discord, on one database (issue 16).

Each process is the real bot (``bot.main()``, as ``python bot.py`` runs it, through a launcher
that points discord.py at the fake) with ``SHARD_COUNT=2`` and ``SHARD_IDS`` 0 or 1, on one
SQLite file. One server is on each shard; the same two players play a game of Siege (1966) to the
end in both at once, by slash commands, clicks and selects. The fake sends a server's
events, its interactions included, only on the session of the server's shard and DMs on shard 0,
and records which session each interaction went to: so every guild interaction was answered by
the process of its shard. The database holds each result once. A second test runs two sharded
bots in this process on a clock it moves, to show that each one's sweeper acts only on the
tables of its own servers.

Nothing here sleeps for timing: every wait polls observable state (the fake's sessions and
messages, the database, the processes' logs) with a deadline.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

import pytest
import pytest_asyncio

import bot as siege_bot
from cogs.guide import command_name
from storage import Store, TableRecord
from tests.e2e.moves import OPTIONS, POLICIES, offered, stage_menus, to_act
from tests.fakeclock import Clock
from tests.fakecord import FakeDiscord, FakeMessage, start_client, stop_client
from tests.fakecord.world import FakeChannel, FakeGuild, FakeUser

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
SHARDS = 2
WAIT = 20.0  # seconds any one awaited state may take before the test fails
POLL = 0.02
STEPS_MAX = 200
#: Siege (1966): a short game when the players take what they can (tests/e2e/moves.py).
GAME = "knights"

#: ``python bot.py``, with discord.py pointed at the fake (as benchmarks/table_load.py does).
LAUNCHER = """\
import os, sys
sys.path.insert(0, os.environ["SIEGE_TEST_ROOT"])
import discord.gateway, discord.http, yarl
discord.http.Route.BASE = os.environ["SIEGE_TEST_API"]
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["SIEGE_TEST_GATEWAY"])
import bot
_create_bot = bot.create_bot
bot.create_bot = lambda settings, **options: _create_bot(
    settings, guild_ready_timeout=0.05, **options
)
raise SystemExit(bot.main())
"""

#: Variables of the bot (and its tests) that must not leak in from the caller's environment.
OURS = ("DISCORD_", "DATABASE_", "DEV_GUILD_ID", "LOG_LEVEL", "SYNC_COMMANDS", "SHARD_", "SIEGE_")

T = TypeVar("T")


async def until(probe: Callable[[], Awaitable[T | None]], what: str, timeout: float = WAIT) -> T:
    """Poll ``probe`` until it returns something true; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        found = await probe()
        if found:
            return found
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(POLL)


@dataclass
class BotProcess:
    shard: int
    process: subprocess.Popen[bytes]
    log_path: Path
    log_file: IO[bytes]

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def check_alive(self) -> None:
        if self.process.poll() is not None:
            raise AssertionError(
                f"the bot of shard {self.shard} exited with {self.process.returncode}:\n"
                + self.log()[-3000:]
            )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log_file.close()


def start_bot(fake: FakeDiscord, db: Path, shard: int) -> BotProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(OURS)}
    env.update(
        DISCORD_TOKEN="fake-token",
        DATABASE_PATH=str(db),
        LOG_LEVEL="INFO",
        SHARD_COUNT=str(SHARDS),
        SHARD_IDS=str(shard),
        SIEGE_TEST_ROOT=str(ROOT),
        SIEGE_TEST_API=fake.api_base,
        SIEGE_TEST_GATEWAY=fake.ws_url,
    )
    log_path = db.parent / f"bot-shard-{shard}.log"
    log_file = log_path.open("wb")
    process = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER],
        env=env,
        cwd=db.parent,  # no .env there
        stdin=subprocess.DEVNULL,
        stdout=log_file,
        stderr=subprocess.STDOUT,
    )
    return BotProcess(shard, process, log_path, log_file)


@dataclass
class Hall:
    fake: FakeDiscord
    store: Store
    db: Path
    bots: list[BotProcess]
    guilds: list[FakeGuild]
    channels: list[FakeChannel]
    alice: FakeUser
    bob: FakeUser


@pytest_asyncio.fixture
async def hall(fakecord: FakeDiscord, tmp_path: Path) -> AsyncIterator[Hall]:
    fake = fakecord
    alice, bob = fake.add_user("alice"), fake.add_user("bob")
    guilds, channels = [], []
    for shard, name in enumerate(("North Keep", "South Keep")):
        guild = fake.add_guild(name, shard=(shard, SHARDS))
        for user in (alice, bob):
            guild.add_member(user)
        guilds.append(guild)
        channels.append(guild.add_text_channel("games"))
    db = tmp_path / "siege.db"
    # Migrated here first: two processes starting on a fresh file must not both migrate it.
    store = await Store.open(db)
    await store.migrate()
    for guild in guilds:  # tables in the channel, as before game threads (tests/e2e/world.py)
        await store.change_server_settings(guild.id, alice.id, threads=False)
    bots: list[BotProcess] = []
    try:
        bots = [start_bot(fake, db, shard) for shard in range(SHARDS)]

        async def ready() -> bool:
            for bot in bots:
                bot.check_alive()
            sessions = [fake.gateway.shards.get(shard) for shard in range(SHARDS)]
            return (
                all(s is not None and s.connection is not None for s in sessions)
                and bool(fake.global_commands.all())
                and all("ready as" in bot.log() for bot in bots)
            )

        await until(ready, "both bot processes to connect, sync and be ready", timeout=40)
        yield Hall(fake, store, db, bots, guilds, channels, alice, bob)
    finally:
        for bot in bots:
            bot.stop()
        await store.close()


def latest_panel(user: FakeUser, table: TableRecord) -> FakeMessage | None:
    panels = [m for m in user.dms() if f"Table #{table.id}" in m.text()]
    return panels[-1] if panels else None


async def open_game(h: Hall, channel: FakeChannel) -> int:
    """Alice opens a table in ``channel``, Bob joins, Alice starts it."""
    handle = await h.alice.slash(channel, f"play {command_name(GAME)}", **OPTIONS[GAME])
    lobby = handle.response_message
    assert lobby is not None and not handle.ephemeral
    await h.bob.click(h.fake.latest(lobby), "Join", settle_first=False)
    await h.alice.click(h.fake.latest(lobby), "Start", settle_first=False)

    async def started() -> int | None:
        table = await h.store.open_table_in(channel.id)
        return table.id if table is not None and table.status == "running" else None

    return await until(started, f"the game in #{channel.name} to start")


Move = tuple[FakeMessage, str, str, str]  # message, "button"/"select"/"stage", custom id, value


def pick(
    message: FakeMessage | None, table: TableRecord, wanted: set[int], rng: random.Random
) -> Move | None:
    """A move ``message`` offers at the table's ply (one the policy wants, if any), else a
    first-step menu's option."""
    if message is None or message.deleted:
        return None
    moves = sorted(offered(message, table).items())
    if moves:
        best = [m for m in moves if m[0] in wanted] or moves
        index, (kind, custom_id) = rng.choice(best)
        return message, kind, custom_id, str(index)
    for custom_id, values in stage_menus(message, table):
        return message, "stage", custom_id, rng.choice(values)
    return None


async def play_to_end(h: Hall, table_id: int, rng: random.Random) -> TableRecord:
    """The player to act makes one legal move at a time until the game ends: at even plies in
    the server (the table message, or the private panel its button opens), which only the
    process of the server's shard receives; at odd plies from their DM panel (shard 0's)."""
    users = {u.id: u for u in (h.alice, h.bob)}
    in_server: dict[tuple[int, int], int] = {}  # (user, ply) -> the private panel opened there
    for _ in range(STEPS_MAX):
        table = await h.store.get_table(table_id)
        assert table is not None and table.message_id is not None
        if table.status != "running":
            return table
        user_id = to_act(table)
        assert user_id is not None
        user = users[user_id]
        state = table.running_state()
        seat = table.engine.to_act(state)
        assert seat is not None
        policy = POLICIES.get(table.game)
        wanted = policy(state, table.engine.legal_actions(state, seat)) if policy else set()
        key = (user.id, table.ply)
        if table.ply % 2 == 0 and key not in in_server:
            board = h.fake.messages[table.message_id]
            if pick(board, table, wanted, rng) is None:
                opened = await user.click(
                    board, custom_id=f"sh:hand:{table.id}", settle_first=False
                )
                assert opened.ephemeral and opened.response_message is not None
                in_server[key] = opened.response_message.id

        async def move_offered(
            table: TableRecord = table, user: FakeUser = user, wanted: set[int] = wanted
        ) -> Move | None:
            assert table.message_id is not None
            if table.ply % 2 == 0:
                panel = in_server.get((user.id, table.ply))
                sources = [h.fake.messages[table.message_id]]
                sources += [h.fake.messages[panel]] if panel is not None else []
            else:
                sources = [latest_panel(user, table)]
            for message in sources:
                found = pick(message, table, wanted, rng)
                if found is not None:
                    return found
            return None

        message, kind, custom_id, value = await until(
            move_offered, f"{user.name}'s move at table #{table.id} ply {table.ply}"
        )
        if kind == "button":
            handle = await user.click(message, custom_id=custom_id, settle_first=False)
        else:
            handle = await user.select(message, value, custom_id=custom_id, settle_first=False)
        assert handle.record.responded_at is not None, f"{handle.record.description} unanswered"
        if kind == "stage":  # a first-step menu: the same ply, now with the second step
            version = message.version

            async def redrawn(message: FakeMessage = message, version: int = version) -> bool:
                return h.fake.messages[message.id].version > version

            await until(redrawn, f"the second step at table #{table.id}")
            continue

        async def applied(table: TableRecord = table) -> bool:
            now = await h.store.get_table(table.id)
            return now is not None and now.ply > table.ply

        await until(applied, f"table #{table.id}'s move at ply {table.ply} to be stored")
    raise AssertionError(f"table #{table_id} did not end in {STEPS_MAX} steps")


async def test_two_processes_over_two_shards_play_a_game_in_each(hall: Hall) -> None:
    h = hall
    fake = h.fake
    # The fake put one server on each shard, and each process got only its own.
    assert [(g.id >> 22) % SHARDS for g in h.guilds] == [0, 1]
    sessions = [fake.gateway.shards[shard] for shard in range(SHARDS)]
    assert [s.shard for s in sessions] == [(0, SHARDS), (1, SHARDS)]
    assert fake.gateway.identify_count == SHARDS
    for bot in h.bots:
        assert f"in 1 servers on shards {bot.shard} of {SHARDS}" in bot.log(), bot.log()
    # Commands belong to the application: only shard 0's process uploads them.
    assert "synced" in h.bots[0].log() and "global commands" in h.bots[0].log()
    assert "synced by the process serving shard 0" in h.bots[1].log()

    table_ids = [await open_game(h, channel) for channel in h.channels]
    finished = await asyncio.gather(
        *(play_to_end(h, table_id, random.Random(n)) for n, table_id in enumerate(table_ids))
    )

    for shard, (table, guild, channel) in enumerate(
        zip(finished, h.guilds, h.channels, strict=True)
    ):
        assert table.status == "over", table.status
        assert table.guild_id == guild.id and table.channel_id == channel.id
        assert table.message_id is not None
        assert fake.messages[table.message_id].guild_id == guild.id
        # Every interaction in this server went to the session of its shard, and was answered
        # there (the fake counts an unanswered one as a violation, which fails the test).
        here = [r for r in fake.interactions.values() if r.channel.guild is guild]
        assert here, f"no interaction in {guild.name}"
        assert {r.session_id for r in here} == {sessions[shard].id}, shard
        assert all(r.responded_at is not None for r in here)
    # DMs (panel clicks) come on shard 0, whichever server the table is in: shard 0's process
    # also moved at the table of the other shard's server.
    in_dms = [r for r in fake.interactions.values() if r.channel.guild is None]
    assert all(r.session_id == sessions[0].id for r in in_dms)
    for table in finished:
        assert any(f":{table.id}:" in r.description for r in in_dms), table.id

    # Each result is stored once, with its own server; and each table's moves once.
    with sqlite3.connect(h.db) as conn:
        for table in finished:
            results = conn.execute(
                "SELECT guild_id, plies FROM results WHERE table_id = ?", (table.id,)
            ).fetchall()
            assert results == [(table.guild_id, table.ply)], results
            moves = conn.execute(
                "SELECT COUNT(*), COUNT(DISTINCT ply) FROM actions WHERE table_id = ?", (table.id,)
            ).fetchone()
            assert moves == (table.ply, table.ply), moves
        assert conn.execute("SELECT COUNT(*) FROM results").fetchone() == (len(finished),)


async def test_each_process_sweeps_only_the_tables_of_its_shards(
    fakecord: FakeDiscord, tmp_path: Path
) -> None:
    """Two sharded bots (in this process, on a clock the test moves) on one database: a lobby
    nobody starts in a server of each shard; each bot's sweeper closes only its own server's,
    so each channel is told once."""
    fake = fakecord
    alice = fake.add_user("alice")
    guilds, channels = [], []
    for shard, name in enumerate(("North Keep", "South Keep")):
        guild = fake.add_guild(name, shard=(shard, SHARDS))
        guild.add_member(alice)
        guilds.append(guild)
        channels.append(guild.add_text_channel("games"))
    clock = Clock()
    db = tmp_path / "siege.db"
    store = await Store.open(db, clock=clock)
    await store.migrate()
    for guild in guilds:  # tables in the channel, as before game threads (tests/e2e/world.py)
        await store.change_server_settings(guild.id, alice.id, threads=False)
    bots = []
    try:
        for shard in range(SHARDS):
            settings = siege_bot.Settings(
                token="fake-token",
                database_path=str(db),
                shard_count=SHARDS,
                shard_ids=(shard,),
                picture_processes=0,
            )
            client = siege_bot.create_bot(settings, guild_ready_timeout=0.05, clock=clock)
            await start_client(client)
            fake.busy_while(lambda client=client: client.hall.redraws.busy)
            bots.append(client)
        assert [[g.id for g in b.guilds] for b in bots] == [[g.id] for g in guilds]
        lobbies = []
        for channel in channels:
            handle = await alice.slash(channel, f"play {command_name('castles')}")
            assert handle.response_message is not None
            lobbies.append(handle.response_message)
        clock.advance(hours=25)  # both lobbies are past their day
        for shard in (1, 0):
            assert await bots[shard].clockwork.sweep() == 1  # its own server's lobby only
            await fake.settle()
            for other, lobby in enumerate(lobbies):
                closed = "table closed" in fake.latest(lobby).text()
                assert closed is (other >= shard), (shard, other)
        for bot in bots:
            assert await bot.clockwork.sweep() == 0
        await fake.settle()
        for channel in channels:
            told = [m for m in fake.channel_messages(channel) if "nobody started it" in m.text()]
            assert len(told) == 1
    finally:
        for client in bots:
            await stop_client(client)
        await store.close()
