"""A server with the real Siege Hall bot in it, for end-to-end tests through the fake Discord.

``world`` is a guild with a channel, three members (Alice and Bob play, Carol watches), a
moderator with Manage Server, and the bot from ``bot.py`` started against the fake on a fresh
database: a SQLite file, or a PostgreSQL database of the session's server (each test runs on
both; see tests/e2e/conftest.py). Tests act only as users would (slash commands, clicks,
selects) and read what each user sees; the database is read only to know the hidden truth that
must not leak.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import discord
import pytest
import pytest_asyncio

import bot as siege_bot
from engine import cards
from storage import TableRecord
from tests.fakecord import FakeDiscord, FakeMessage, start_client, stop_client
from tests.fakecord.world import FakeChannel, FakeGuild, FakeUser
from tests.pg import PgCluster

TOKEN_RE = re.compile(r"\b([A2-9TJQK][SHDC])\b")


@dataclass
class World:
    fake: FakeDiscord
    db_path: Path
    guild: FakeGuild
    channel: FakeChannel
    alice: FakeUser
    bob: FakeUser
    carol: FakeUser
    mod: FakeUser
    bot: siege_bot.SiegeBot | None = None
    bots: list[siege_bot.SiegeBot] = field(default_factory=list)
    #: The bot's clock: the wall clock unless a test sets one it moves by hand (then restarts).
    clock: Callable[[], datetime] | None = None
    #: A PostgreSQL database (``postgresql://…``) for the bot instead of the file at ``db_path``.
    database_url: str | None = None
    #: Processes drawing the pictures (``PICTURE_PROCESSES``): none, a thread, unless a test asks
    #: (a pool spawned for every bot started would add a second a test).
    picture_processes: int = 0

    async def start_bot(self) -> siege_bot.SiegeBot:
        settings = siege_bot.Settings(
            token="fake-token",
            database_path=str(self.db_path),
            database_url=self.database_url,
            dev_guild_id=self.guild.id,
            picture_processes=self.picture_processes,
        )
        client = siege_bot.create_bot(settings, guild_ready_timeout=0.05, clock=self.clock)
        await start_client(client)
        self.fake.busy_while(lambda: client.hall.redraws.busy)  # what its clicks left to show
        self.bot = client
        self.bots.append(client)
        return client

    async def restart_bot(self) -> siege_bot.SiegeBot:
        """Close the running bot (as a process stop would) and start a fresh one on the same
        database file."""
        assert self.bot is not None
        await self.fake.settle()
        await stop_client(self.bot)
        return await self.start_bot()

    @property
    def database(self) -> Path | str:
        """The bot's database: the PostgreSQL URL, or the SQLite file (for ``raw_connect``)."""
        return self.database_url if self.database_url is not None else self.db_path

    @property
    def running(self) -> siege_bot.SiegeBot:
        assert self.bot is not None
        return self.bot

    async def table(self, channel: FakeChannel | None = None) -> TableRecord:
        """The channel's open table as stored (the hidden truth, for checks only)."""
        record = await self.running.store.open_table_in((channel or self.channel).id)
        assert record is not None, "no open table in the channel"
        return record

    async def table_by_id(self, table_id: int) -> TableRecord:
        record = await self.running.store.get_table(table_id)
        assert record is not None
        return record

    def table_message(self, table: TableRecord) -> FakeMessage:
        assert table.message_id is not None
        return self.fake.messages[table.message_id]

    def public_text(self, channel: FakeChannel | None = None, *, since: int = 0) -> str:
        """Everything anyone can read in the channel (messages from id ``since`` on): texts,
        embeds, labels, file names."""
        messages = self.fake.channel_messages(channel or self.channel)
        return "\n".join(m.text() for m in messages if m.id >= since)


def card_mentions(text: str, card: str) -> bool:
    """Does ``text`` show ``card``, either as a code token (``7H``) or as it is drawn (``7♥``)?"""
    pretty = re.escape(cards.pretty(card))
    if re.search(rf"(?<![0-9A-Za-z]){pretty}", text):
        return True
    return card in TOKEN_RE.findall(text)


def assert_hidden(text: str, hidden: list[str], where: str) -> None:
    shown = [c for c in hidden if card_mentions(text, c)]
    assert not shown, f"{where} shows hidden cards {shown}:\n{text}"


@pytest.fixture
def e2e_backend(request: pytest.FixtureRequest) -> str:
    """The database the test's bot runs on: ``sqlite`` or ``postgresql`` (every test that takes
    ``world`` runs on both, unless marked ``sqlite_only``; see tests/e2e/conftest.py)."""
    name: str = request.param
    return name


@pytest_asyncio.fixture
async def world(
    fakecord: FakeDiscord, tmp_path: Path, e2e_backend: str, request: pytest.FixtureRequest
) -> AsyncIterator[World]:
    guild = fakecord.add_guild("Siege Test Server")
    channel = guild.add_text_channel("games")
    users = {}
    for name in ("alice", "bob", "carol", "mod"):
        user = fakecord.add_user(name)
        perms = discord.Permissions(manage_guild=True) if name == "mod" else 0
        guild.add_member(user, permissions=perms)
        users[name] = user
    w = World(
        fake=fakecord,
        db_path=tmp_path / "siege.db",
        guild=guild,
        channel=channel,
        alice=users["alice"],
        bob=users["bob"],
        carol=users["carol"],
        mod=users["mod"],
    )
    cluster: PgCluster | None = None
    if e2e_backend == "postgresql":
        cluster = request.getfixturevalue("pg_cluster")
        w.database_url = cluster.create()
    try:
        await w.start_bot()
        # The tests before game threads (issue 25, item 12) play in the channel: threads are a
        # setting the server turns on (tests/e2e/test_threads_e2e.py does, as its admin would).
        await w.running.store.change_server_settings(guild.id, w.mod.id, threads=False)
        yield w
        await fakecord.settle()
    finally:
        for client in w.bots:
            if not client.is_closed():
                await stop_client(client)
        if cluster is not None and w.database_url is not None:
            cluster.drop(w.database_url)
