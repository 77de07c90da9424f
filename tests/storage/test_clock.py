"""Clocks in the store, moved by hand (never slept): lobbies that nobody starts, deadlines and
the 80 % reminder, the AFK ladder (a safe automatic move, then a forfeit), a click racing a
timeout, and deadlines shifted by the time the bot was down."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from engine.castles import GAME
from storage import StaleAction, Store, TableError, TableRecord
from storage.clock import describe, per_move
from tests.fakeclock import Clock
from tests.pg import raw_connect

ALICE, BOB = 1, 2
DRAW = {"type": "draw"}


async def daily_game(store: Store, control: str = "daily:1") -> TableRecord:
    """A castles game, Alice dealing, so Bob (seat 1) moves first."""
    return await store.create_table(
        guild_id=1,
        channel_id=10,
        game="castles",
        host_id=ALICE,
        options={"dealer": 0},
        seats=(ALICE, BOB),
        start=True,
        seed=5,
        time_control=control,
    )


def to_act(table: TableRecord) -> int:
    seat = GAME.to_act(table.running_state())
    assert seat is not None
    return table.seats[seat]


def test_time_controls_in_words() -> None:
    assert per_move("daily:14") == timedelta(days=14)
    assert describe("live:1") == "1 minute per move"
    with pytest.raises(ValueError):
        per_move("daily:4")  # Lichess's choices only: 1, 2, 3, 7, 14 days


async def test_a_lobby_nobody_starts_closes_after_a_day(timed: Store, clock: Clock) -> None:
    lobby = await timed.create_table(guild_id=1, channel_id=10, game="castles", host_id=ALICE)
    clock.advance(hours=23, minutes=59)
    assert await timed.due() == []
    clock.advance(minutes=2)
    assert await timed.due() == [(lobby.id, 0)]
    outcome = await timed.time_out(lobby.id, 0)
    assert outcome is not None and outcome.rung == "lobby_expired"
    assert outcome.table.status == "cancelled"
    assert await timed.time_out(lobby.id, 0) is None  # exactly once
    assert await timed.open_table_in(10) is None  # the channel is free again


async def test_no_clock_means_no_deadline(timed: Store, clock: Clock) -> None:
    """No deadline ever; the one "reminder" is the moment the others may claim the game
    (issue 25), three days after the last move."""
    table = await daily_game(timed, "none")
    assert table.deadline is None
    assert table.remind_at == "2026-11-28T09:00:00.000+00:00"
    clock.advance(days=30)
    assert await timed.due() == []
    assert [t.id for t in await timed.reminders_due()] == [table.id]


async def test_the_reminder_comes_once_at_80_percent(timed: Store, clock: Clock) -> None:
    table = await daily_game(timed)
    assert table.deadline == "2026-11-26T09:00:00.000+00:00"
    clock.advance(hours=19)
    assert await timed.reminders_due() == []
    clock.advance(hours=1)  # 20 h of 24
    (due,) = await timed.reminders_due()
    assert due.id == table.id
    assert await timed.mark_reminded(table.id, table.ply)
    assert not await timed.mark_reminded(table.id, table.ply)  # one reminder per move
    assert await timed.reminders_due() == []
    after, _ = await timed.act(table.id, to_act(table), DRAW, 0)
    assert after.remind_at == "2026-11-27T00:12:00.000+00:00"  # 05:00 plus 80 % of a day


async def test_the_afk_ladder_plays_a_safe_move_then_forfeits(
    timed: Store, clock: Clock, db_path: Path
) -> None:
    table = await daily_game(timed)
    sleeper = to_act(table)
    clock.advance(days=1, seconds=1)
    first = await timed.time_out(table.id, 0)
    assert first is not None and first.rung == "auto_move" and first.user_id == sleeper
    assert first.misses == 1 and first.table.ply == 1
    assert [e["type"] for e in first.events] == ["card_drawn"]  # castles' safe move: draw
    assert first.table.deadline == "2026-11-27T09:00:01.000+00:00"
    # The other player moves in time; then the sleeper misses again and forfeits.
    awake = first.table
    after, _ = await timed.act(awake.id, to_act(awake), DRAW, awake.ply)
    assert to_act(after) == sleeper
    clock.advance(days=1, seconds=1)
    second = await timed.time_out(after.id, after.ply)
    assert second is not None and second.rung == "forfeit" and second.misses == 2
    assert second.table.status == "over"
    assert second.table.result is not None and second.table.result.reason == "resigned"
    assert sleeper not in [second.table.seats[w] for w in second.table.result.winners]
    assert second.table.deadline is None
    conn = raw_connect(db_path)
    try:
        rows = conn.execute("SELECT outcome FROM result_seats ORDER BY seat").fetchall()
    finally:
        conn.close()
    assert ("loss",) in rows and ("win",) in rows  # rated as a loss for the one who left


async def test_a_real_move_clears_the_missed_deadlines(timed: Store, clock: Clock) -> None:
    table = await daily_game(timed)
    sleeper = to_act(table)
    clock.advance(days=1, seconds=1)
    first = await timed.time_out(table.id, 0)
    assert first is not None and first.misses == 1
    table, _ = await timed.act(table.id, to_act(first.table), DRAW, 1)  # the other seat
    table, _ = await timed.act(table.id, sleeper, DRAW, 2)  # back, and moving
    table, _ = await timed.act(table.id, to_act(table), DRAW, 3)
    clock.advance(days=1, seconds=1)
    again = await timed.time_out(table.id, table.ply)
    assert again is not None and again.rung == "auto_move" and again.misses == 1


async def test_a_click_and_a_timeout_at_the_same_instant_apply_once(
    timed: Store, clock: Clock
) -> None:
    table = await daily_game(timed)
    clock.advance(days=1, seconds=1)
    click, timeout = await asyncio.gather(
        timed.act(table.id, to_act(table), DRAW, 0),
        timed.time_out(table.id, 0),
        return_exceptions=True,
    )
    applied = [r for r in (click, timeout) if r is not None and not isinstance(r, BaseException)]
    assert len(applied) == 1
    assert isinstance(click, StaleAction) or timeout is None
    after = await timed.get_table(table.id)
    assert after is not None and after.ply == 1
    assert len(await timed.actions(table.id)) == 1


async def test_downtime_shifts_every_deadline(timed: Store, clock: Clock) -> None:
    table = await daily_game(timed)
    assert await timed.catch_up(timedelta(minutes=1)) == timedelta(0)  # first start
    clock.advance(hours=2)
    await timed.heartbeat()
    clock.advance(hours=30)  # the bot was down past the deadline
    shift = await timed.catch_up(timedelta(minutes=1))
    assert shift == timedelta(hours=30) - timedelta(minutes=1)
    moved = await timed.get_table(table.id)
    assert moved is not None and moved.deadline is not None
    assert (
        datetime.fromisoformat(moved.deadline) == datetime(2026, 11, 26, 9, 0, tzinfo=UTC) + shift
    )
    assert await timed.due() == []  # nobody loses on time for the bot's downtime


async def test_vacation_moves_daily_deadlines_and_is_capped(timed: Store, clock: Clock) -> None:
    table = await daily_game(timed)  # Bob to move, a day per move
    sleeper = to_act(table)
    assert table.deadline == "2026-11-26T09:00:00.000+00:00"
    moved, left = await timed.take_vacation(sleeper, 3)
    assert (moved, left) == (1, 11)
    shifted = await timed.get_table(table.id)
    assert shifted is not None and shifted.deadline == "2026-11-29T09:00:00.000+00:00"
    clock.advance(days=2)
    assert await timed.due() == []
    after, _ = await timed.act(table.id, sleeper, DRAW, 0)  # back early: the other's clock
    assert after.deadline == "2026-11-28T09:00:00.000+00:00"  # the opponent is not on vacation
    awake = to_act(after)
    again, _ = await timed.act(table.id, awake, DRAW, 1)  # the turn comes back to the sleeper
    assert again.deadline == "2026-11-29T09:00:00.000+00:00"  # + 1 day after the vacation ends
    with pytest.raises(TableError, match="11 vacation days left"):
        await timed.take_vacation(sleeper, 12)
    clock.now = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)  # a new month, a new allowance
    assert (await timed.take_vacation(sleeper, 14))[1] == 0


async def test_a_table_can_forfeit_at_the_first_missed_move(timed: Store, clock: Clock) -> None:
    table = await timed.create_table(
        guild_id=1,
        channel_id=11,
        game="castles",
        host_id=ALICE,
        options={"dealer": 0},
        seats=(ALICE, BOB),
        start=True,
        seed=5,
        time_control="live:5",
        forfeit_after=1,
    )
    clock.advance(minutes=6)
    outcome = await timed.time_out(table.id, 0)
    assert outcome is not None and outcome.rung == "forfeit" and outcome.table.status == "over"
    with pytest.raises(TableError, match="1 to 5"):
        await timed.create_table(
            guild_id=1, channel_id=12, game="castles", host_id=ALICE, forfeit_after=9
        )
