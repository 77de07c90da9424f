"""Tournaments in the store, on both backends: entries until the start, a start with too few
players cancels, rounds made from the results written in the transaction that ends each game,
two results at once close a round once, a withdrawal resigns the game being played, an unrated
tournament's games are not rated, and the refusals say why."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

from storage import Store, TableError
from storage.tournament_records import TournamentPlan, TournamentRecord
from tests.fakeclock import Clock
from tests.pg import raw_rows

GUILD, CHANNEL, HOST = 1, 10, 99
THREADS = iter(range(1000, 100000))


async def new_tournament(
    store: Store, clock: Clock, fmt: str = "robin", game: str = "castles", **kw: object
) -> TournamentRecord:
    args: dict[str, object] = {
        "guild_id": GUILD,
        "channel_id": CHANNEL,
        "host_id": HOST,
        "game": game,
        "fmt": fmt,
        "rounds": 3 if fmt == "swiss" else None,
        "time_control": "live:5",
        "starts_at": clock.now + timedelta(hours=1),
        "max_players": 8,
        "rated": True,
    } | kw
    return await store.create_tournament(TournamentPlan(**args))  # type: ignore[arg-type]


async def play_round(store: Store, tid: int, loser_of: dict[int, int] | None = None) -> None:
    """Seat every match of the current round and end each game by a resignation (the second
    seat resigns, unless ``loser_of`` names the loser by board)."""
    tournament = await store.get_tournament(tid)
    assert tournament is not None
    for match in await store.tournament_matches(tid):
        if match.round != tournament.round or not match.needs_table:
            continue
        table = await store.seat_match(match.id, next(THREADS))
        assert table is not None and table.status == "running"
        await store.resign(table.id, (loser_of or {}).get(match.board, match.players[-1]))


async def test_entries_until_the_start_then_a_full_round_robin(timed: Store, clock: Clock) -> None:
    t = await new_tournament(timed, clock)
    for user in (1, 2, 3, 4):
        t = await timed.join_tournament(t.id, user)
    with pytest.raises(TableError, match="already"):
        await timed.join_tournament(t.id, 1)
    t, _ = await timed.leave_tournament(t.id, 4)
    assert [e.user_id for e in t.entrants] == [1, 2, 3]
    t = await timed.join_tournament(t.id, 4)
    assert await timed.push_tournament(t.id) is None  # not yet its time
    clock.advance(hours=1)
    assert await timed.tournaments_due() == [t.id]
    started = await timed.push_tournament(t.id)
    assert started is not None and started.what == "started"
    assert started.tournament.status == "running" and started.tournament.rounds == 3
    assert len(started.matches) == 2
    with pytest.raises(TableError, match="started"):
        await timed.join_tournament(t.id, 5)
    for round_no in (1, 2, 3):
        await play_round(timed, t.id)
        step = await timed.push_tournament(t.id)
        assert step is not None
        assert step.what == ("round" if round_no < 3 else "over")
    done = await timed.get_tournament(t.id)
    assert done is not None and done.status == "over"
    games = await timed.tournament_matches(t.id)
    assert len(games) == 6 and all(m.points is not None for m in games)
    assert all(m.reason == "resigned" for m in games)
    pairs = {frozenset(m.players) for m in games}
    assert len(pairs) == 6


async def test_too_few_players_cancel_at_the_start(timed: Store, clock: Clock) -> None:
    t = await new_tournament(timed, clock, fmt="swiss")
    await timed.join_tournament(t.id, 1)
    clock.advance(hours=2)
    outcome = await timed.push_tournament(t.id)
    assert outcome is not None and outcome.what == "cancelled"
    assert outcome.tournament.ended_reason == "only 1 of the 3 players it needs had joined"
    assert await timed.push_tournament(t.id) is None
    assert await timed.tournaments_due() == []


async def test_two_results_at_once_close_the_round_once(timed: Store, clock: Clock) -> None:
    t = await new_tournament(timed, clock, fmt="swiss")
    for user in (1, 2, 3, 4):
        await timed.join_tournament(t.id, user)
    clock.advance(hours=1)
    await timed.push_tournament(t.id)
    assert await timed.tournaments_due() == [t.id]  # its matches wait for their tables
    tables = [
        await timed.seat_match(m.id, next(THREADS)) for m in await timed.tournament_matches(t.id)
    ]
    assert all(table is not None for table in tables)
    assert await timed.tournaments_due() == []  # nothing to do while the games are played
    # A second seating of the same match opens nothing.
    first = (await timed.tournament_matches(t.id))[0]
    assert await timed.seat_match(first.id, next(THREADS)) is None
    await asyncio.gather(*(timed.resign(tb.id, tb.seats[1]) for tb in tables if tb))
    pushes = await asyncio.gather(*(timed.push_tournament(t.id) for _ in range(4)))
    made = [p for p in pushes if p is not None]
    assert len(made) == 1 and made[0].what == "round"
    rounds = [m.round for m in await timed.tournament_matches(t.id)]
    assert rounds == [1, 1, 2, 2]


async def test_a_withdrawal_resigns_the_game_and_pairs_the_player_no_more(
    timed: Store, clock: Clock
) -> None:
    t = await new_tournament(timed, clock, fmt="swiss", rated=False)
    for user in (1, 2, 3, 4, 5):
        await timed.join_tournament(t.id, user)
    clock.advance(hours=1)
    await timed.push_tournament(t.id)
    matches = await timed.tournament_matches(t.id)
    assert [m.reason for m in matches if m.points is not None] == ["bye"]
    seated = [await timed.seat_match(m.id, next(THREADS)) for m in matches if m.needs_table]
    leaver = seated[0].seats[0] if seated[0] else 0
    after, resigned = await timed.leave_tournament(t.id, leaver)
    assert leaver in after.withdrawn and len(resigned) == 1
    assert resigned[0].status == "over" and resigned[0].result is not None
    assert resigned[0].result.reason == "resigned"
    # The unrated tournament's game is not rated.
    assert raw_rows(timed.path, "SELECT rated FROM results") == [(0,)]
    other = seated[1]
    assert other is not None
    await timed.resign(other.id, other.seats[0])
    step = await timed.push_tournament(t.id)
    assert step is not None and step.what == "round"
    assert all(leaver not in m.players for m in step.matches)
    with pytest.raises(TableError, match="not in this"):
        await timed.leave_tournament(t.id, leaver)


async def test_a_table_event_merges_tables_until_one_is_left(timed: Store, clock: Clock) -> None:
    t = await new_tournament(timed, clock, fmt="tables", game="towers", max_players=12)
    for user in range(1, 10):
        await timed.join_tournament(t.id, user)
    clock.advance(hours=1)
    started = await timed.push_tournament(t.id)
    assert started is not None and [len(m.players) for m in started.matches] == [5, 4]
    for match in started.matches:
        table = await timed.seat_match(match.id, next(THREADS))
        assert table is not None
        for user in match.players[1:]:  # everyone but the first leaves: the first wins
            table, _ = await timed.resign(table.id, user)
        assert table.status == "over"
    final = await timed.push_tournament(t.id)
    assert final is not None and final.what == "round"
    assert [m.players for m in final.matches] == [
        tuple(sorted((m.players[0] for m in started.matches), key=lambda u: u))
    ]


async def test_refusals_say_why(timed: Store, clock: Clock) -> None:
    with pytest.raises(TableError, match="needs a clock"):
        await new_tournament(timed, clock, time_control="none")
    with pytest.raises(TableError, match="table event"):
        await new_tournament(timed, clock, game="towers", fmt="swiss")
    with pytest.raises(TableError, match="Swiss or a round robin"):
        await new_tournament(timed, clock, fmt="tables")
    with pytest.raises(TableError, match="cannot be played"):
        await new_tournament(timed, clock, game="kurth")
    with pytest.raises(TableError, match="3 to 10"):
        await new_tournament(timed, clock, max_players=11)
    with pytest.raises(TableError, match="future"):
        await new_tournament(timed, clock, starts_at=clock.now)
    t = await new_tournament(timed, clock, max_players=3)
    for user in (1, 2, 3):
        await timed.join_tournament(t.id, user)
    with pytest.raises(TableError, match="full"):
        await timed.join_tournament(t.id, 4)


async def test_a_forgotten_player_is_a_former_player_in_the_tournament(
    timed: Store, clock: Clock
) -> None:
    t = await new_tournament(timed, clock, fmt="swiss")
    for user in (1, 2, 3, 4):
        await timed.join_tournament(t.id, user)
    clock.advance(hours=1)
    await timed.push_tournament(t.id)
    await timed.forget_player(2)
    after = await timed.get_tournament(t.id)
    assert after is not None and 2 not in {e.user_id for e in after.entrants}
    players = {p for m in await timed.tournament_matches(t.id) for p in m.players}
    assert 2 not in players and len(players) == 4
    # Withdrawn as they are forgotten: the former player is never paired again.
    (former,) = players - {1, 3, 4}
    assert after.withdrawn == {former}


async def test_a_server_the_bot_left_stops_its_tournaments(timed: Store, clock: Clock) -> None:
    t = await new_tournament(timed, clock, fmt="swiss")
    for user in (1, 2, 3):
        await timed.join_tournament(t.id, user)
    clock.advance(hours=1)
    started = await timed.push_tournament(t.id)
    assert started is not None and started.what == "started"
    match = next(m for m in started.matches if m.needs_table)
    table = await timed.seat_match(match.id, next(THREADS))
    assert table is not None
    await timed.guild_left(GUILD, timedelta(days=30))
    after = await timed.get_tournament(t.id)
    assert after is not None and after.status == "cancelled"
    assert after.ended_reason == "the bot left the server"
    assert await timed.tournaments_due() == [] and await timed.push_tournament(t.id) is None


async def test_a_withdrawal_before_the_table_opens_forfeits_the_match(
    timed: Store, clock: Clock
) -> None:
    """Paired but not yet seated (the thread is still being opened): withdrawing forfeits the
    match at once, so no table opens for a player who has gone."""
    t = await new_tournament(timed, clock, fmt="swiss")
    for user in (1, 2, 3, 4):
        await timed.join_tournament(t.id, user)
    clock.advance(hours=1)
    started = await timed.push_tournament(t.id)
    assert started is not None
    match = next(m for m in started.matches if 2 in m.players)
    await timed.leave_tournament(t.id, 2)
    (after,) = [m for m in await timed.tournament_matches(t.id) if m.id == match.id]
    assert after.match.points_of(2) == 0.0 and after.reason == "forfeit"
    assert after.points is not None and sum(after.points) == 1.0
    assert await timed.seat_match(match.id, next(THREADS)) is None
