"""How games end, in the store (issue 25), on both backends: each ending recorded with the table
and its result; aborts only before every seat moved; agreed ends; a moderator's cancel; claims
on a game without a clock after :data:`storage.clock.CLAIM_AFTER`; and games stored before
migration 013 still replay, export and verify."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from engine.verify import verify
from storage import Store, TableError
from storage.clock import CLAIM_AFTER, stamp
from storage.endings import ClaimTooEarly, ComputerDeclines
from storage.export import export_script
from storage.offers import OFFER_WAIT
from tests.fakeclock import START, Clock
from tests.pg import raw_connect
from tests.storage.test_clock import ALICE, BOB, DRAW, daily_game, to_act

CAROL = 3
MOD = 9


def rows(db: Path | str, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    with contextlib.closing(raw_connect(db)) as conn:
        return [tuple(r) for r in conn.execute(sql, params).fetchall()]


async def both_moved(store: Store, control: str = "none") -> int:
    table = await daily_game(store, control)
    for _ in range(2):
        table, _ = await store.act(table.id, to_act(table), DRAW, table.ply)
    return table.id


async def test_abort_only_before_every_seat_moved(timed: Store) -> None:
    table = await daily_game(timed, "none")
    with pytest.raises(TableError, match="Only the players"):
        await timed.abort(table.id, CAROL)
    table, _ = await timed.act(table.id, to_act(table), DRAW, 0)
    aborted = await timed.abort(table.id, ALICE)  # Alice has not moved yet
    assert (aborted.status, aborted.ending, aborted.ended_by) == ("cancelled", "aborted", ALICE)
    stored = await timed.get_table(table.id)
    assert stored is not None and (stored.ending, stored.ended_by) == ("aborted", ALICE)
    with pytest.raises(TableError, match="over already"):
        await timed.abort(table.id, ALICE)

    moved = await both_moved(timed)
    with pytest.raises(TableError, match="can no longer be aborted"):
        await timed.abort(moved, ALICE)
    assert (await timed.get_table(moved)).status == "running"  # type: ignore[union-attr]


async def test_lobby_cancel_refuses_a_started_game(timed: Store) -> None:
    table = await daily_game(timed, "none")
    with pytest.raises(TableError, match="lobby's Cancel no longer applies"):
        await timed.cancel_lobby(table.id)
    lobby = await timed.create_table(guild_id=1, channel_id=11, game="castles", host_id=ALICE)
    closed = await timed.cancel_lobby(lobby.id)
    assert closed.status == "cancelled" and closed.ending is None


async def test_agreed_end(timed: Store, clock: Clock) -> None:
    tid = await both_moved(timed)
    offer = await timed.offer_cancel(tid, ALICE)
    assert offer.waiting == (BOB,) and offer.status == "open"
    with pytest.raises(TableError, match="already offered"):
        await timed.offer_cancel(tid, ALICE)
    with pytest.raises(TableError, match="not for you"):
        await timed.answer_cancel(offer.id, CAROL, True)
    declined = await timed.answer_cancel(offer.id, BOB, False)
    assert declined.offer.status == "declined" and declined.table is None
    assert (await timed.get_table(tid)).status == "running"  # type: ignore[union-attr]

    offer = await timed.offer_cancel(tid, BOB)
    outcome = await timed.answer_cancel(offer.id, ALICE, True)
    assert outcome.offer.status == "accepted" and outcome.table is not None
    assert (outcome.table.status, outcome.table.ending, outcome.table.ended_by) == (
        "cancelled",
        "agreed",
        BOB,
    )
    with pytest.raises(TableError, match="already accepted"):
        await timed.answer_cancel(offer.id, ALICE, True)

    other = await timed.create_table(
        guild_id=1, channel_id=12, game="castles", host_id=ALICE, seats=(ALICE, BOB), start=True
    )
    for _ in range(2):
        other, _ = await timed.act(other.id, to_act(other), DRAW, other.ply)
    lapsing = await timed.offer_cancel(other.id, ALICE)
    clock.advance(seconds=OFFER_WAIT.total_seconds() + 1)
    (expired,) = await timed.expire_cancel_offers()
    assert expired.id == lapsing.id and expired.status == "expired"
    with pytest.raises(TableError, match="expired"):
        await timed.answer_cancel(lapsing.id, BOB, True)
    # An offer outlived by the game's end is refused, and closed.
    late = await timed.offer_cancel(other.id, BOB)
    await timed.resign(other.id, BOB)
    with pytest.raises(TableError, match="ended already"):
        await timed.answer_cancel(late.id, ALICE, True)


async def test_a_computer_declines_and_nothing_is_written(
    timed: Store, db_path: Path | str
) -> None:
    table = await timed.create_table(
        guild_id=1, channel_id=13, game="castles", host_id=ALICE, seats=(ALICE, -201), start=True
    )
    for _ in range(2):
        table, _ = await timed.act(table.id, to_act(table), DRAW, table.ply)
    with pytest.raises(ComputerDeclines, match="declines"):
        await timed.offer_cancel(table.id, ALICE)
    assert rows(db_path, "SELECT count(*) FROM cancel_offers") == [(0,)]


async def test_a_moderator_not_playing_cancels(timed: Store, db_path: Path | str) -> None:
    tid = await both_moved(timed)
    with pytest.raises(TableError, match="You are playing"):
        await timed.moderator_cancel(tid, ALICE)
    closed = await timed.moderator_cancel(tid, MOD)
    assert (closed.status, closed.ending, closed.ended_by) == ("cancelled", "moderator", MOD)
    assert rows(db_path, "SELECT count(*) FROM results") == [(0,)]


async def test_claim_after_three_days(timed: Store, db_path: Path | str, clock: Clock) -> None:
    table = await daily_game(timed, "none")
    table, _ = await timed.act(table.id, to_act(table), DRAW, 0)  # Bob moved; Alice is away
    with pytest.raises(TableError, match="It is your move"):
        await timed.claim(table.id, ALICE)
    clock.advance(seconds=CLAIM_AFTER.total_seconds() - 1)
    with pytest.raises(ClaimTooEarly) as early:
        await timed.claim(table.id, BOB)
    assert early.value.at == stamp(START + CLAIM_AFTER)  # the moment, for the front end to show
    clock.advance(seconds=1)
    over, events, absent = await timed.claim(table.id, BOB)
    assert absent == ALICE and over.status == "over" and over.result is not None
    assert [over.seats[s] for s in over.result.winners] == [BOB]
    assert (over.ending, over.ended_by) == ("claim", BOB)
    assert events and events[0]["why"] == "claim"
    logged = rows(db_path, "SELECT action FROM actions WHERE table_id = ? AND ply = 1", (over.id,))
    assert json.loads(str(logged[0][0])) == {"type": "resign", "why": "claim", "by": BOB}
    assert rows(db_path, "SELECT ending FROM results WHERE table_id = ?", (over.id,)) == [
        ("claim",)
    ]
    assert await timed.replay(over.id) == over.state

    clocked = await timed.create_table(
        guild_id=1,
        channel_id=14,
        game="castles",
        host_id=ALICE,
        seats=(ALICE, BOB),
        start=True,
        time_control="daily:1",
    )
    with pytest.raises(TableError, match="on a clock"):
        await timed.claim(clocked.id, BOB if to_act(clocked) == ALICE else ALICE)


async def test_a_claimed_draw(timed: Store, db_path: Path | str, clock: Clock) -> None:
    table = await daily_game(timed, "none")
    table, _ = await timed.act(table.id, to_act(table), DRAW, 0)  # Bob moved; Alice is away
    with pytest.raises(ClaimTooEarly):
        await timed.claim(table.id, BOB, draw=True)
    with pytest.raises(TableError, match="It is your move"):
        await timed.claim(table.id, ALICE, draw=True)
    clock.advance(seconds=CLAIM_AFTER.total_seconds())
    over, events, absent = await timed.claim(table.id, BOB, draw=True)
    assert absent == ALICE and over.status == "over" and over.result is not None
    assert over.result.winners == () and over.result.reason == "abandoned"
    assert (over.ending, over.ended_by) == ("claim", BOB)
    assert events[0] == {"type": "abandoned", "seat": 0}
    logged = rows(db_path, "SELECT action FROM actions WHERE table_id = ? AND ply = 1", (over.id,))
    assert json.loads(str(logged[0][0])) == {
        "type": "resign",
        "why": "claim",
        "by": BOB,
        "draw": True,
    }
    # Rated, as a draw: both seats share first place.
    assert rows(
        db_path, "SELECT rated, reason, ending FROM results WHERE table_id = ?", (over.id,)
    ) == [(1, "abandoned", "claim")]
    assert rows(
        db_path,
        "SELECT user_id, place, outcome, rating_after IS NOT NULL FROM result_seats"
        " WHERE table_id = ? ORDER BY seat",
        (over.id,),
    ) == [(ALICE, 1, "draw", 1), (BOB, 1, "draw", 1)]
    assert await timed.replay(over.id) == over.state
    script = await export_script(timed, over)
    assert script["dealt"]["resignations"] == [
        {"after": 1, "seat": 0, "why": "claim", "draw": True}
    ]
    verdict = verify(script)
    assert verdict.ok and "ended: by a claim" in verdict.text()


async def test_a_draw_is_not_claimed_in_a_game_without_draws(timed: Store) -> None:
    game = await timed.create_table(
        guild_id=1,
        channel_id=15,
        game="towers",
        host_id=ALICE,
        seats=(ALICE, BOB, CAROL),
        start=True,
        seed=2,
    )
    with pytest.raises(TableError, match="has no drawn result") as refused:
        await timed.claim(game.id, BOB if to_act(game) != BOB else CAROL, draw=True)
    assert "claim the win instead" in str(refused.value)
    assert (await timed.get_table(game.id)) == game


async def test_a_time_forfeit_is_its_own_ending(
    timed: Store, db_path: Path | str, clock: Clock
) -> None:
    table = await daily_game(timed, "live:5")
    loser = to_act(table)
    for _ in range(2):  # an automatic draw, then the forfeit (the ladder of FORFEIT_AFTER = 2)
        clock.advance(minutes=6)
        ((tid, ply),) = await timed.due()
        outcome = await timed.time_out(tid, ply)
        assert outcome is not None
        table = outcome.table
        if table.status == "running" and to_act(table) != loser:
            table, _ = await timed.act(table.id, to_act(table), DRAW, table.ply)
    assert table.status == "over" and (table.ending, table.ended_by) == ("time", loser)
    assert rows(db_path, "SELECT ending FROM results WHERE table_id = ?", (table.id,)) == [
        ("time",)
    ]
    script = await export_script(timed, table)
    assert script["dealt"]["ending"] == "time"
    assert script["dealt"]["resignations"][-1]["why"] == "time"
    verdict = verify(script)
    assert verdict.ok and "ended: by a forfeit on the clock" in verdict.text()


async def test_games_stored_before_migration_013_still_read(
    timed: Store, db_path: Path | str
) -> None:
    """A resignation logged before 013 (no ``why``) and a table without ``ending``."""
    table = await daily_game(timed, "none")
    table, _ = await timed.resign(table.id, ALICE)
    with contextlib.closing(raw_connect(db_path)) as conn:
        conn.execute("UPDATE tables SET ending = NULL, ended_by = NULL")
        conn.execute("UPDATE results SET ending = NULL")  # each statement commits on its own
    old = await timed.get_table(table.id)
    assert old is not None and old.ending is None and old.status == "over"
    assert await timed.replay(old.id) == old.state
    script = await export_script(timed, old)
    assert "ending" not in script["dealt"] and script["dealt"]["resignations"] == [
        {"after": 0, "seat": 0}
    ]
    assert verify(script).ok
    (result,) = await timed.recent_results(1, BOB)
    assert result.ending is None and result.reason == "resigned"
