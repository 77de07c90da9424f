"""Store calls whose SQL the PostgreSQL dialect rewrites or that no other storage test reaches,
each on both databases: ``json_extract`` (solo boards), ``INDEXED BY`` (digests), a ``LIKE`` with
``%`` (vacations), the seasons list, turns, computer seats, offer messages and pings."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from storage import Store, computers
from storage.players import Settings
from tests.fakeclock import Clock

GUILD = 77
ALICE, BOB = 1001, 2002


@pytest.fixture
def clock() -> Clock:
    """The clock of the ``timed`` store (tests/storage/conftest.py): 10:30 in Paris."""
    return Clock(datetime(2026, 11, 25, 9, 30, tzinfo=UTC))


async def test_digest_settings_and_once_a_day(timed: Store) -> None:
    paris = Settings("Europe/Paris", 22, 8, digest=True)
    await timed.set_settings(ALICE, paris)
    await timed.set_settings(BOB, Settings())
    assert await timed.settings(ALICE) == paris
    assert await timed.digests_due() == [ALICE]
    assert await timed.digest_sent(ALICE) is True
    assert await timed.digest_sent(ALICE) is False  # once a local day
    assert await timed.digests_due() == []


async def test_solo_board_by_difficulty_and_seasons(timed: Store) -> None:
    for channel, difficulty in enumerate(("normal", "normal", "advanced"), start=1):
        solo = await timed.create_table(
            guild_id=GUILD,
            channel_id=channel,
            game="kurth",
            host_id=ALICE,
            seats=(ALICE,),
            start=True,
            options={"difficulty": difficulty},
        )
        await timed.resign(solo.id, ALICE)
    normal = await timed.solo_board(GUILD, "kurth", "normal")
    assert [(line.user_id, line.games, line.rank) for line in normal] == [(ALICE, 2, 1)]
    assert [line.games for line in await timed.solo_board(GUILD, "kurth", "advanced")] == [1]
    assert await timed.solo_board(GUILD, "kurth", "expert") == []
    duel = await timed.create_table(
        guild_id=GUILD,
        channel_id=9,
        game="castles",
        host_id=ALICE,
        seats=(ALICE, BOB),
        start=True,
    )
    await timed.resign(duel.id, BOB)
    assert await timed.seasons(GUILD, "castles") == ["2026-11"]
    assert await timed.board_size(GUILD, "castles") == 2


async def test_turns_vacation_computers_offers_and_pings(timed: Store) -> None:
    daily = await timed.create_table(
        guild_id=GUILD,
        channel_id=1,
        game="castles",
        host_id=ALICE,
        seats=(ALICE, BOB),
        start=True,
        options={"dealer": 0},  # BOB to act
        time_control="daily:1",
    )
    assert [t.id for t in await timed.turns_of(BOB)] == [daily.id]
    assert await timed.turns_of(ALICE) == []
    moved, left = await timed.take_vacation(BOB, 3)  # his daily-clock move waits 3 more days
    assert (moved, left) == (1, 11)
    later = await timed.get_table(daily.id)
    assert later is not None and later.deadline is not None and daily.deadline is not None
    assert datetime.fromisoformat(later.deadline) - datetime.fromisoformat(daily.deadline) == (
        datetime(2026, 1, 4) - datetime(2026, 1, 1)
    )
    await timed.set_ping(daily.id, 4242)
    pinged = await timed.get_table(daily.id)
    assert pinged is not None and pinged.ping_message_id == 4242

    lobby = await timed.create_table(guild_id=GUILD, channel_id=2, game="castles", host_id=ALICE)
    with_robot = await timed.add_computer(lobby.id, ALICE, "hard")
    assert with_robot.seats == (ALICE, computers.computer_id("hard", 1))
    assert (await timed.remove_computer(lobby.id, ALICE)).seats == (ALICE,)

    offer = await timed.challenge(
        guild_id=GUILD, channel_id=3, game="castles", challenger_id=ALICE, challenged_id=BOB
    )
    await timed.set_offer_message(offer.id, 3, 777)
    stored = await timed.get_offer(offer.id)
    assert stored is not None and (stored.message_channel_id, stored.message_id) == (3, 777)
