"""Results and ratings: recorded with the action that ends a game, per server, game and season;
draws, multiplayer places, repeat pairings, unrated tables, backfill, and the recompute."""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from engine.rules import Result
from storage import Store, TableRecord
from storage import results as results_module
from storage.ratings import NEWCOMER, places_of, rate
from storage.results import record
from tests.fakeclock import Clock
from tests.pg import raw_rows

GUILD, OTHER_GUILD = 77, 78
ALICE, BOB, CAROL, DAVE = 1, 2, 3, 4
MIGRATIONS = Path(__file__).resolve().parents[2] / "storage" / "migrations"


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 11, 25, 12, 0, tzinfo=UTC))


@pytest.fixture
async def rated_store(db_path: Path, clock: Clock) -> Any:
    store = await Store.open(db_path, clock=clock)
    await store.migrate()
    yield store
    await store.close()


channels = iter(range(10_000, 1_000_000))


async def play(
    store: Store, winner: int, loser: int, guild: int | None = GUILD, game: str = "castles"
) -> TableRecord:
    """A two-player game that ``loser`` resigns."""
    table = await store.create_table(
        guild_id=guild,
        channel_id=next(channels),
        game=game,
        host_id=winner,
        seats=(winner, loser),
        start=True,
        seed=7,
    )
    over, _ = await store.resign(table.id, loser)
    assert over.status == "over"
    return over


def back_to_schema_4(db_path: Path) -> None:
    """Drop every table, trigger and column that migrations after 4 added, keeping the data of
    the rest (as a database from before results were recorded would be)."""
    reference = sqlite3.connect(":memory:")
    for number in range(1, 5):
        (script,) = MIGRATIONS.glob(f"{number:03d}_*.sql")
        reference.executescript(script.read_text(encoding="utf-8"))
    query = "SELECT name FROM sqlite_master WHERE type = 'table'"
    indexes = "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
    keep = {name for (name,) in reference.execute(query)}
    keep_indexes = {name for (name,) in reference.execute(indexes)}
    conn = sqlite3.connect(db_path, isolation_level=None)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    for (name,) in conn.execute(indexes).fetchall():
        if name not in keep_indexes:
            conn.execute(f"DROP INDEX {name}")
    for (name,) in conn.execute(query).fetchall():
        if name not in keep:
            conn.execute(f"DROP TABLE {name}")
    for table in keep:
        wanted = {row[1] for row in reference.execute(f"PRAGMA table_info({table})")}
        for row in conn.execute(f"PRAGMA table_info({table})").fetchall():
            if row[1] not in wanted:
                conn.execute(f"ALTER TABLE {table} DROP COLUMN {row[1]}")
    conn.execute("PRAGMA user_version = 4")
    conn.close()


def rows(db_path: Path | str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    return raw_rows(db_path, sql, params)


async def test_a_finished_game_is_recorded_and_rated_with_its_last_action(
    rated_store: Store, db_path: Path
) -> None:
    table = await play(rated_store, ALICE, BOB)
    assert rows(db_path, "SELECT reason, rated, weight, season FROM results") == [
        ("resigned", 1, 1.0, "2026-11")
    ]
    assert rows(db_path, "SELECT user_id, place, outcome FROM result_seats ORDER BY seat") == [
        (ALICE, 1, "win"),
        (BOB, 2, "loss"),
    ]
    alice = await rated_store.standing(GUILD, "castles", ALICE)
    bob = await rated_store.standing(GUILD, "castles", BOB)
    assert alice is not None and bob is not None
    assert (alice.rank, alice.games, alice.wins, alice.losses) == (1, 1, 1, 0)
    assert (bob.rank, bob.games, bob.wins, bob.losses) == (2, 1, 0, 1)
    assert alice.rating > NEWCOMER.shown > bob.rating
    assert alice.provisional and bob.provisional
    season = await rated_store.standing(GUILD, "castles", ALICE, season="2026-11")
    assert season is not None and season.rating == alice.rating
    (point,) = await rated_store.rating_history(GUILD, "castles", ALICE)
    assert point.rating == alice.rating and point.ended_at.startswith("20")
    assert table.result is not None


async def test_the_rating_commits_with_the_action_or_not_at_all(
    rated_store: Store, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await rated_store.create_table(
        guild_id=GUILD, channel_id=1, game="castles", host_id=ALICE, seats=(ALICE, BOB), start=True
    )

    def broken(conn: sqlite3.Connection, table_id: int) -> None:
        raise sqlite3.OperationalError("disk full")

    monkeypatch.setattr(results_module, "rate_result", broken)
    with pytest.raises(sqlite3.OperationalError):
        await rated_store.resign(table.id, BOB)
    assert await rated_store.get_table(table.id) == table  # the resignation did not happen
    assert rows(db_path, "SELECT count(*) FROM results") == [(0,)]
    monkeypatch.undo()
    await rated_store.resign(table.id, BOB)
    assert rows(db_path, "SELECT count(*) FROM results") == [(1,)]
    assert rows(db_path, "SELECT games FROM ratings WHERE user_id = ?", (ALICE,)) == [(1,), (1,)]


async def test_unrated_tables(rated_store: Store, db_path: Path) -> None:
    solo = await play(rated_store, ALICE, ALICE)  # one person holding both seats
    cancelled = await rated_store.create_table(
        guild_id=GUILD, channel_id=2, game="castles", host_id=ALICE, seats=(ALICE, BOB), start=True
    )
    await rated_store.cancel(cancelled.id)
    assert rows(db_path, "SELECT table_id, rated FROM results") == [(solo.id, 0)]
    assert rows(db_path, "SELECT count(*) FROM ratings") == [(0,)]
    assert await rated_store.leaderboard(GUILD, "castles") == []


async def test_a_draw_and_multiplayer_places(rated_store: Store, db_path: Path) -> None:
    def finish(result: Result, seats: tuple[int, ...]) -> Callable[[sqlite3.Connection], None]:
        def run(conn: sqlite3.Connection) -> None:
            cur = conn.execute(
                "INSERT INTO tables (guild_id, channel_id, game, options, seed, host_id, status,"
                " created_at, updated_at) VALUES (?, ?, 'castles', '{}', 1, ?, 'over', 'x', 'x')",
                (GUILD, next(channels), seats[0]),
            )
            assert cur.lastrowid is not None
            record(
                conn,
                table_id=cur.lastrowid,
                guild_id=GUILD,
                game="castles",
                seats=seats,
                result=result,
                plies=10,
                ended_at="2026-11-25T12:00:00.000+00:00",
            )

        return run

    await rated_store._write(finish(Result((), "draw"), (ALICE, BOB)))
    alice = await rated_store.standing(GUILD, "castles", ALICE)
    bob = await rated_store.standing(GUILD, "castles", BOB)
    assert alice is not None and bob is not None
    assert (alice.draws, bob.draws) == (1, 1) and alice.rating == bob.rating
    # Four seats ranked by chips: the winner, then 30 and 30 sharing second, then 0.
    await rated_store._write(
        finish(Result((2,), "last_tower", (30, 0, 100, 30)), (ALICE, BOB, CAROL, DAVE))
    )
    placed = rows(
        db_path, "SELECT user_id, place, outcome FROM result_seats WHERE table_id = 2 ORDER BY seat"
    )
    assert placed == [(ALICE, 2, "loss"), (BOB, 4, "loss"), (CAROL, 1, "win"), (DAVE, 2, "loss")]
    board = await rated_store.leaderboard(GUILD, "castles")
    order = [line.user_id for line in board]
    assert order[0] == CAROL and order[-1] == BOB


def test_places_and_rate_follow_the_model() -> None:
    assert places_of([0], 3, [5, 5, 5]) == [1, 2, 2]
    first, second, third = rate([NEWCOMER] * 3, [1, 2, 3])
    assert first.mu > second.mu > third.mu
    half = rate([NEWCOMER, NEWCOMER], [1, 2], weight=0.5)
    full = rate([NEWCOMER, NEWCOMER], [1, 2])
    assert half[0].mu - NEWCOMER.mu == pytest.approx((full[0].mu - NEWCOMER.mu) / 2)


async def test_repeat_pairings_on_one_day_count_less(
    rated_store: Store, db_path: Path, clock: Clock
) -> None:
    for _ in range(3):
        await play(rated_store, ALICE, BOB)
        clock.advance(minutes=20)
    await play(rated_store, ALICE, CAROL)  # another opponent: a first game
    clock.advance(days=1)
    await play(rated_store, ALICE, BOB)  # the next day: counts fully again
    weights = [w for (w,) in rows(db_path, "SELECT weight FROM results ORDER BY seq")]
    assert weights == pytest.approx([1.0, 0.5, 1 / 3, 1.0, 1.0])


async def test_seasons_are_monthly_and_all_time_adds_them_up(
    rated_store: Store, clock: Clock
) -> None:
    clock.now = datetime(2026, 1, 31, 23, 59, tzinfo=UTC)
    await play(rated_store, ALICE, BOB)
    clock.advance(minutes=2)  # 1 February, 00:01
    await play(rated_store, BOB, ALICE)
    january = await rated_store.standing(GUILD, "castles", ALICE, season="2026-01")
    february = await rated_store.standing(GUILD, "castles", ALICE, season="2026-02")
    all_time = await rated_store.standing(GUILD, "castles", ALICE)
    assert january is not None and february is not None and all_time is not None
    assert (january.games, january.wins) == (1, 1)
    assert (february.games, february.losses) == (1, 1)
    assert (all_time.games, all_time.wins, all_time.losses) == (2, 1, 1)
    assert await rated_store.board_size(GUILD, "castles", "2026-02") == 2


async def test_boards_are_per_server_and_per_game(rated_store: Store) -> None:
    await play(rated_store, ALICE, BOB)
    await play(rated_store, BOB, ALICE, guild=OTHER_GUILD)
    await play(rated_store, CAROL, DAVE, game="king")
    assert [s.user_id for s in await rated_store.leaderboard(GUILD, "castles")] == [ALICE, BOB]
    assert [s.user_id for s in await rated_store.leaderboard(OTHER_GUILD, "castles")] == [
        BOB,
        ALICE,
    ]
    assert [s.user_id for s in await rated_store.leaderboard(GUILD, "king")] == [CAROL, DAVE]


async def test_the_callers_rank_beyond_the_page(rated_store: Store) -> None:
    players = list(range(100, 130))
    for winner, loser in itertools.pairwise(players):
        await play(rated_store, winner, loser)
    page = await rated_store.leaderboard(GUILD, "castles", limit=5)
    assert [line.rank for line in page] == [1, 2, 3, 4, 5]
    ratings = [line.rating for line in page]
    assert ratings == sorted(ratings, reverse=True)
    everyone = await rated_store.leaderboard(GUILD, "castles", limit=100)
    last = everyone[-1]
    mine = await rated_store.standing(GUILD, "castles", last.user_id)
    assert mine == last and mine.rank == len(players) == await rated_store.board_size(
        GUILD, "castles"
    )
    second_page = await rated_store.leaderboard(GUILD, "castles", offset=5, limit=5)
    assert second_page == everyone[5:10]


async def test_recompute_rebuilds_the_same_numbers(
    rated_store: Store, db_path: Path, clock: Clock
) -> None:
    pairs = [(ALICE, BOB), (BOB, CAROL), (ALICE, BOB), (CAROL, ALICE), (DAVE, ALICE)]
    for n in range(12):
        winner, loser = pairs[n % len(pairs)]
        await play(rated_store, winner, loser)
        clock.advance(hours=7)
    await play(rated_store, ALICE, BOB, guild=OTHER_GUILD)
    query = "SELECT * FROM ratings ORDER BY guild_id, game, season, user_id"
    seats_query = "SELECT * FROM result_seats ORDER BY table_id, seat"
    before, seats_before = rows(db_path, query), rows(db_path, seats_query)
    assert len(before) > 8
    assert await rated_store.recompute_ratings(GUILD) == 12
    assert rows(db_path, query) == before
    assert rows(db_path, seats_query) == seats_before


@pytest.mark.sqlite_only("a SQLite file from before schema 5; PostgreSQL starts at schema 11")
async def test_games_finished_before_ratings_existed_are_backfilled(db_path: Path) -> None:
    store = await Store.open(db_path)
    try:
        await store.migrate()
        await play(store, ALICE, BOB)
        await play(store, ALICE, BOB)
    finally:
        await store.close()
    back_to_schema_4(db_path)

    store = await Store.open(db_path)
    try:
        await store.migrate()
        alice = await store.standing(GUILD, "castles", ALICE)
        assert alice is not None and (alice.games, alice.wins) == (2, 2)
        weights = rows(db_path, "SELECT weight FROM results ORDER BY seq")
        assert weights == [(1.0,), (0.5,)]  # same players, same day
    finally:
        await store.close()


async def test_recent_results_newest_first_per_game_and_once_per_table(
    rated_store: Store, clock: Clock
) -> None:
    first = await play(rated_store, ALICE, BOB)
    clock.advance(minutes=5)
    king = await play(rated_store, BOB, ALICE, game="king")
    clock.advance(minutes=5)
    solo = await play(rated_store, ALICE, ALICE)  # both seats hers: listed once, unrated
    recent = await rated_store.recent_results(GUILD, ALICE)
    assert [g.table_id for g in recent] == [solo.id, king.id, first.id]
    assert recent[0].rating_change is None and recent[0].seats == (ALICE, ALICE)
    assert recent[2].rating_change is not None and recent[2].rating_change > 0
    assert [g.table_id for g in await rated_store.recent_results(GUILD, ALICE, "king")] == [king.id]
    assert [g.table_id for g in await rated_store.recent_results(GUILD, ALICE, limit=1)] == [
        solo.id
    ]
    assert await rated_store.recent_results(OTHER_GUILD, ALICE) == []
