"""Discord shards (issue 16): ``SHARD_COUNT``/``SHARD_IDS``, the bot class they choose, and the
store's shard filters, by which a process's sweeper picks only the tables of its own servers.

The end-to-end test with two bot processes is tests/e2e/test_shards_e2e.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import bot
from storage import Store, computers
from storage.shards import Shards
from tests.fakeclock import Clock
from tests.storage.conftest import backend, clock, db_path, pytest_generate_tests, timed

__all__ = ["backend", "clock", "db_path", "pytest_generate_tests", "timed"]  # fixtures, re-used

TOKEN = {"DISCORD_TOKEN": "secret-token"}
ALICE, BOB = 1, 2
EVEN, ODD = 4 << 22, (5 << 22) | 99  # servers on shards 0 and 1 of 2


# -- settings --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "ids", "served"),
    [
        ("", "", None),  # unset: one process, as before
        ("2", "", (0, 1)),  # every shard of two, in this process
        ("2", "1", (1,)),
        ("4", "0-2", (0, 1, 2)),
        ("8", " 6, 0-1 ,1 ", (0, 1, 6)),
        ("1", "0", (0,)),
    ],
)
def test_shard_settings(count: str, ids: str, served: tuple[int, ...] | None) -> None:
    settings = bot.Settings.from_env({**TOKEN, "SHARD_COUNT": count, "SHARD_IDS": ids})
    if served is None:
        assert settings.shard_count is None and settings.shards is None
        return
    assert settings.shard_count == int(count)
    assert settings.shards == Shards(int(count), served)


@pytest.mark.parametrize(
    ("count", "ids", "message"),
    [
        ("", "1", "SHARD_IDS needs SHARD_COUNT, the number of shards in all."),
        ("2", "0,2", "SHARD_IDS must each be below SHARD_COUNT (2), not 0,2."),
        ("2", "1-3", "SHARD_IDS must each be below SHARD_COUNT (2), not 1,2,3."),
        ("2", "one", "SHARD_IDS must be shard numbers such as 0,1 or 0-3, not 'one'."),
        ("2", "1-0", "SHARD_IDS must be shard numbers such as 0,1 or 0-3, not '1-0'."),
        ("2", "0,,1", "SHARD_IDS must be shard numbers such as 0,1 or 0-3, not '0,,1'."),
        ("2", "-1", "SHARD_IDS must be shard numbers such as 0,1 or 0-3, not '-1'."),
        ("0", "", "SHARD_COUNT must be how many shards there are in all"),
        ("two", "0", "SHARD_COUNT must be how many shards there are in all"),
    ],
)
def test_bad_shard_settings_are_one_line_naming_the_variable(
    count: str, ids: str, message: str
) -> None:
    with pytest.raises(bot.SettingsError) as caught:
        bot.Settings.from_env({**TOKEN, "SHARD_COUNT": count, "SHARD_IDS": ids})
    text = str(caught.value)
    assert text.startswith(message) and "\n" not in text
    assert "secret-token" not in text
    if count in ("0", "two"):
        assert "SHARD_IDS" not in text  # the ids are not blamed for a bad count


def test_shard_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHARD_COUNT", "3")
    monkeypatch.setenv("SHARD_IDS", "1,2")
    monkeypatch.chdir(Path(__file__).parent)  # no .env here
    assert bot.Settings.from_env().shards == Shards(3, (1, 2))


def test_which_shard_a_server_is_on() -> None:
    assert Shards.shard_of(EVEN, 2) == 0 and Shards.shard_of(ODD, 2) == 1
    assert Shards.shard_of(None, 2) == 0  # DMs: shard 0
    one = Shards.of(2, [1])
    assert one.owns(ODD) and not one.owns(EVEN) and not one.owns(None)
    assert not one.has_dms and not one.serves_all
    assert Shards.of(2).serves_all and Shards.of(2).has_dms
    with pytest.raises(ValueError):
        Shards(2, (2,))


# -- the bot ---------------------------------------------------------------------------------


async def test_without_shard_settings_the_bot_is_one_plain_connection() -> None:
    client = bot.create_bot(bot.Settings(token="t"))
    assert type(client) is bot.SiegeBot
    assert not isinstance(client, bot.commands.AutoShardedBot)
    assert client.served_shards is None and client.syncs_commands


@pytest.mark.parametrize(("ids", "syncs"), [((0,), True), ((1,), False), (None, True)])
async def test_with_shard_settings_the_bot_is_auto_sharded(
    ids: tuple[int, ...] | None, syncs: bool
) -> None:
    client = bot.create_bot(bot.Settings(token="t", shard_count=2, shard_ids=ids))
    assert isinstance(client, bot.ShardedSiegeBot)
    assert isinstance(client, bot.commands.AutoShardedBot)
    assert client.shard_count == 2
    assert client.shard_ids == list(ids or (0, 1))
    # Commands are the application's: only the process serving shard 0 uploads them.
    assert client.syncs_commands is syncs


# -- the store's shard filters ---------------------------------------------------------------


async def test_each_process_sweeps_only_its_own_servers(timed: Store, clock: Clock) -> None:
    """Deadlines, reminders, offers and computer turns, each in a server of shard 0, one of
    shard 1 and none (a DM-only table is shard 0's): each process picks only its own, and a
    process serving every shard (or unsharded) picks all, as before."""
    store = timed
    everywhere = (EVEN, ODD, None)

    async def started(guild: int | None, channel: int, opponent: int, **clock: str) -> object:
        """A started Castles table in which Alice deals, so seat 1 (``opponent``) is to act."""
        return await store.create_table(
            guild_id=guild,
            channel_id=channel,
            game="castles",
            host_id=ALICE,
            options={"dealer": 0},
            seats=(ALICE, opponent),
            start=True,
            seed=5,
            **clock,
        )

    tables = {
        g: await started(g, 10 + n, BOB, time_control="daily:1") for n, g in enumerate(everywhere)
    }
    computer = computers.computer_id("easy", 1)
    waiting = {g: await started(g, 20 + n, computer) for n, g in enumerate(everywhere)}
    offers = {}
    for n, guild in enumerate(everywhere):
        offer = await store.challenge(
            guild_id=guild,
            channel_id=30 + n,
            game="castles",
            challenger_id=ALICE,
            challenged_id=BOB,
        )
        offers[guild] = offer.id
    clock.advance(hours=20)  # 80 % of a day: the reminders

    def ids_of(guilds: tuple[int | None, ...], of: dict[int | None, object]) -> set[object]:
        return {getattr(of[g], "id", of[g]) for g in guilds}

    shard0, shard1 = Shards.of(2, [0]), Shards.of(2, [1])
    mine0, mine1 = (EVEN, None), (ODD,)
    for shards, mine in ((shard0, mine0), (shard1, mine1), (Shards.of(2), everywhere)):
        found = {t.id for t in await store.reminders_due(shards=shards)}
        assert found == ids_of(mine, tables)
        found = {t.id for t in await store.computer_turns(shards=shards)}
        assert found == ids_of(mine, waiting)
    assert {t.id for t in await store.reminders_due()} == ids_of(everywhere, tables)
    assert {t.id for t in await store.computer_turns()} == ids_of(everywhere, waiting)

    clock.advance(days=2)  # every deadline passed, every offer expired
    assert {t for t, _ in await store.due(shards=shard1)} == ids_of(mine1, tables)
    assert {t for t, _ in await store.due(shards=shard0)} == ids_of(mine0, tables)
    assert {t for t, _ in await store.due()} == ids_of(everywhere, tables)
    assert {o.id for o in await store.expire_offers(shards=shard1)} == ids_of(mine1, offers)
    assert {o.id for o in await store.expire_offers(shards=shard0)} == ids_of(mine0, offers)
    assert await store.expire_offers() == []  # each expired once, by its own process
