"""Offers in the store: a challenge accepted opens one started table, two accepts at the same
instant start one game, a decline ends the offer, an offer expires with a moved clock, and the
refusals (yourself, a solo game, a busy channel, a stale or foreign answer) say why."""

from __future__ import annotations

import asyncio

import pytest

from storage import Store, TableError, TableRecord
from storage.offers import OfferRecord
from tests.fakeclock import Clock

ALICE, BOB, CAROL = 1, 2, 3
CHANNEL = 10


async def open_tables(store: Store) -> int:
    return int(await store._db.scalar("SELECT count(*) FROM tables"))


async def finished_game(store: Store, seats: tuple[int, ...], game: str = "castles") -> TableRecord:
    """A game that ended by resignation (the first seat resigns)."""
    table = await store.create_table(
        guild_id=1,
        channel_id=CHANNEL,
        game=game,
        host_id=seats[0],
        options={"dealer": 0} if game == "castles" else None,
        seats=seats,
        start=True,
        time_control="daily:3",
    )
    if game == "towers":  # tower poker plays on when one seat leaves: everyone else resigns
        for user in seats[1:]:
            table, _ = await store.resign(table.id, user)
    else:
        table, _ = await store.resign(table.id, seats[0])
    assert table.status == "over"
    return table


async def test_an_accepted_challenge_opens_one_started_table(timed: Store) -> None:
    offer = await timed.challenge(
        guild_id=1,
        channel_id=CHANNEL,
        game="king",
        challenger_id=ALICE,
        challenged_id=BOB,
        time_control="daily:1",
    )
    assert offer.status == "open" and offer.seats == (ALICE, BOB)
    assert offer.answers == ("yes", None) and offer.waiting_for() == (BOB,)
    outcome = await timed.answer_offer(offer.id, BOB, True)
    table = outcome.table
    assert table is not None and outcome.offer.status == "accepted"
    assert outcome.offer.table_id == table.id
    assert table.status == "running" and table.seats == (ALICE, BOB)
    assert table.channel_id == CHANNEL and table.time_control == "daily:1"
    assert table.deadline is not None
    assert await timed.open_table_in(CHANNEL) == await timed.get_table(table.id)
    with pytest.raises(TableError, match="already accepted"):
        await timed.answer_offer(offer.id, BOB, True)
    assert await open_tables(timed) == 1


async def test_concurrent_accepts_start_exactly_one_game(timed: Store) -> None:
    # Tower poker for three: Alice asks for the rematch, Bob and Carol accept at once.
    old = await finished_game(timed, (ALICE, BOB, CAROL), game="towers")
    asked = await timed.offer_rematch(old.id, ALICE)
    assert asked.table is None and asked.offer.waiting_for() == (BOB, CAROL)
    outcomes = await asyncio.gather(
        timed.answer_offer(asked.offer.id, BOB, True),
        timed.answer_offer(asked.offer.id, CAROL, True),
    )
    started = [o.table for o in outcomes if o.table is not None]
    assert len(started) == 1
    assert await open_tables(timed) == 2  # the old game and one rematch
    table = started[0]
    assert table.seats == old.seats and table.rematch_of == old.id
    assert table.time_control == "daily:3" and table.status == "running"

    # A challenge accepted twice at once (a double click): one game, one polite refusal.
    other = CHANNEL + 1
    offer = await timed.challenge(
        guild_id=1, channel_id=other, game="castles", challenger_id=ALICE, challenged_id=BOB
    )
    answers = await asyncio.gather(
        timed.answer_offer(offer.id, BOB, True),
        timed.answer_offer(offer.id, BOB, True),
        return_exceptions=True,
    )
    assert sum(1 for a in answers if isinstance(a, TableError)) == 1
    assert await open_tables(timed) == 3


async def test_a_rematch_keeps_seats_and_the_winner_deals(timed: Store) -> None:
    old = await finished_game(timed, (ALICE, BOB))  # Alice resigned: Bob (seat 1) won
    asked = await timed.offer_rematch(old.id, BOB)
    assert asked.table is None and asked.offer.kind == "rematch"
    with pytest.raises(TableError, match="already answered"):
        await timed.offer_rematch(old.id, BOB)
    # Alice clicking Rematch too is her yes.
    outcome = await timed.offer_rematch(old.id, ALICE)
    assert outcome.table is not None and outcome.offer.id == asked.offer.id
    assert outcome.table.options["dealer"] == 1 and outcome.table.seats == (ALICE, BOB)
    with pytest.raises(TableError, match="Only the players"):
        await timed.offer_rematch(old.id, CAROL)


async def test_a_solo_rematch_starts_at_once(timed: Store) -> None:
    old = await finished_game(timed, (ALICE,), game="kurth")
    outcome = await timed.offer_rematch(old.id, ALICE)
    assert outcome.table is not None and outcome.offer.status == "accepted"


async def test_a_decline_ends_the_offer(timed: Store) -> None:
    offer = await timed.challenge(
        guild_id=1, channel_id=CHANNEL, game="castles", challenger_id=ALICE, challenged_id=BOB
    )
    with pytest.raises(TableError, match="not for you"):
        await timed.answer_offer(offer.id, CAROL, False)
    outcome = await timed.answer_offer(offer.id, BOB, False)
    assert outcome.table is None and outcome.offer.status == "declined"
    assert outcome.offer.answers == ("yes", "no")
    with pytest.raises(TableError, match="declined"):
        await timed.answer_offer(offer.id, BOB, True)
    assert await open_tables(timed) == 0


async def test_an_offer_expires_after_a_day(timed: Store, clock: Clock) -> None:
    offer = await timed.challenge(
        guild_id=1, channel_id=CHANNEL, game="castles", challenger_id=ALICE, challenged_id=BOB
    )
    clock.advance(hours=23, minutes=59)
    assert await timed.expire_offers() == []
    clock.advance(minutes=2)
    # Not swept yet: the late answer is refused all the same.
    with pytest.raises(TableError, match="expired"):
        await timed.answer_offer(offer.id, BOB, True)
    expired = await timed.expire_offers()
    assert [o.id for o in expired] == [offer.id] and expired[0].status == "expired"
    assert await timed.expire_offers() == []  # once
    with pytest.raises(TableError, match="expired"):
        await timed.answer_offer(offer.id, BOB, True)
    assert await open_tables(timed) == 0


async def test_refusals(timed: Store) -> None:
    async def ask(challenged: int, game: str = "castles", channel: int = CHANNEL) -> OfferRecord:
        return await timed.challenge(
            guild_id=1, channel_id=channel, game=game, challenger_id=ALICE, challenged_id=challenged
        )

    with pytest.raises(TableError, match="challenge yourself"):
        await ask(ALICE)
    with pytest.raises(TableError, match="solo game"):
        await ask(BOB, game="kurth")
    offer = await ask(BOB)
    with pytest.raises(TableError, match="already challenged"):
        await ask(BOB)
    # A table opened in the channel meanwhile: the accept is refused and the offer stays open.
    await timed.create_table(guild_id=1, channel_id=CHANNEL, game="king", host_id=CAROL)
    with pytest.raises(TableError, match="open table"):
        await timed.answer_offer(offer.id, BOB, True)
    stored = await timed.get_offer(offer.id)
    assert stored is not None and stored.status == "open" and stored.answers == ("yes", None)
    with pytest.raises(TableError, match="already has an open table"):
        await ask(CAROL)
    # Tower poker challenges are for two.
    poker = await ask(CAROL, game="towers", channel=CHANNEL + 1)
    assert poker.seats == (ALICE, CAROL)
    running = await timed.create_table(
        guild_id=1,
        channel_id=CHANNEL + 2,
        game="castles",
        host_id=ALICE,
        seats=(ALICE, BOB),
        start=True,
    )
    with pytest.raises(TableError, match="not over"):
        await timed.offer_rematch(running.id, ALICE)
