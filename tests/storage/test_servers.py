"""Server settings (issue 28): defaults, checked changes logged with who made them, kept across
a restart; and the leaderboard settings as results are recorded (season length, repeats)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine import GAMES
from storage import Store, TableError
from storage.servers import DEFAULTS
from tests.fakeclock import Clock
from tests.pg import raw_rows

GUILD, OTHER = 77, 78
ADMIN, ALICE, BOB = 9, 1, 2
GAME = sorted(key for key, game in GAMES.items() if game.max_seats >= 2)[0]


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 11, 25, 12, 0, tzinfo=UTC))


@pytest.fixture
async def hall_store(db_path: Path | str, clock: Clock) -> AsyncIterator[Store]:
    store = await Store.open(db_path, clock=clock)
    await store.migrate()
    yield store
    await store.close()


channels = iter(range(10_000, 1_000_000))


async def play(store: Store, winner: int, loser: int) -> None:
    table = await store.create_table(
        guild_id=GUILD,
        channel_id=next(channels),
        game=GAME,
        host_id=winner,
        seats=(winner, loser),
        start=True,
        seed=7,
    )
    over, _ = await store.resign(table.id, loser)
    assert over.status == "over"


async def test_a_server_without_settings_has_the_defaults(hall_store: Store) -> None:
    settings = await hall_store.server_settings(GUILD)
    assert settings == DEFAULTS
    assert settings.threads and settings.leaderboards and settings.repeats_count_less
    assert settings.season == "monthly" and settings.allows_channel(123)
    assert await hall_store.moderator_role(GUILD) is None
    assert await hall_store.server_setting_history(GUILD) == []


async def test_changes_are_logged_with_who_made_them_and_survive_a_restart(
    hall_store: Store, db_path: Path | str, clock: Clock
) -> None:
    settings, changes = await hall_store.change_server_settings(
        GUILD, ADMIN, channels=[5, 4], moderator_role=66, threads=False, forfeit_after=3
    )
    assert settings.channels == (4, 5) and settings.moderator_role == 66
    assert [c.name for c in changes] == ["channels", "moderator_role", "threads", "forfeit_after"]
    # The same value again changes nothing and logs nothing.
    _, again = await hall_store.change_server_settings(GUILD, ADMIN, threads=False)
    assert again == []
    await hall_store.change_server_settings(GUILD, ALICE, season="yearly")
    await hall_store.close()
    reopened = await Store.open(db_path, clock=clock)
    try:
        await reopened.migrate()
        kept = await reopened.server_settings(GUILD)
        assert kept.channels == (4, 5) and not kept.threads and kept.forfeit_after == 3
        assert kept.season == "yearly" and kept.allows_channel(77, parent_id=5)
        assert not kept.allows_channel(6) and kept.allows_channel(4)
        assert await reopened.moderator_role(GUILD) == 66
        assert await reopened.server_settings(OTHER) == DEFAULTS
        newest, *older = await reopened.server_setting_history(GUILD)
        assert (newest.name, newest.old, newest.new, newest.user_id) == (
            "season",
            "monthly",
            "yearly",
            ALICE,
        )
        assert {(c.name, c.user_id) for c in older} >= {("threads", ADMIN), ("channels", ADMIN)}
        assert next(c for c in older if c.name == "threads").old is True
    finally:
        await reopened.close()


@pytest.mark.parametrize(
    ("changes", "refusal"),
    [
        ({"time_control": "live:7"}, "is not a clock"),
        ({"forfeit_after": 9}, "1 to 5 missed moves"),
        ({"season": "weekly"}, "A season is monthly, quarterly or yearly"),
        ({"games_off": ["no-such-game"]}, "There is no game"),
        ({"games_off": sorted(GAMES)}, "At least one game stays offered"),
        ({"threads": False, "forfeit_after": 0}, "1 to 5 missed moves"),
    ],
)
async def test_a_bad_value_is_refused_and_changes_nothing(
    hall_store: Store, db_path: Path | str, changes: dict[str, object], refusal: str
) -> None:
    with pytest.raises(TableError, match=refusal):
        await hall_store.change_server_settings(GUILD, ADMIN, **changes)
    assert await hall_store.server_settings(GUILD) == DEFAULTS
    assert raw_rows(db_path, "SELECT count(*) FROM server_setting_changes") == [(0,)]


async def test_the_season_length_names_the_season_of_each_game_as_it_ends(
    hall_store: Store, db_path: Path | str
) -> None:
    await play(hall_store, ALICE, BOB)
    await hall_store.change_server_settings(GUILD, ADMIN, season="quarterly")
    await play(hall_store, ALICE, BOB)
    await hall_store.change_server_settings(GUILD, ADMIN, season="yearly")
    await play(hall_store, BOB, ALICE)
    seasons = raw_rows(db_path, "SELECT season FROM results ORDER BY seq")
    assert seasons == [("2026-11",), ("2026-Q4",), ("2026",)]
    assert await hall_store.seasons(GUILD, GAME) == ["2026-Q4", "2026-11", "2026"]
    quarter = await hall_store.standing(GUILD, GAME, ALICE, season="2026-Q4")
    assert quarter is not None and (quarter.games, quarter.wins) == (1, 1)
    year = await hall_store.standing(GUILD, GAME, ALICE, season="2026")
    assert year is not None and (year.games, year.losses) == (1, 1)


async def test_repeated_games_count_less_only_while_the_server_says_so(
    hall_store: Store, db_path: Path | str
) -> None:
    """ "Count less": the n-th rated game of the same players on the same UTC day (server and
    game) moves their ratings 1/n as far as a first game would. Off, every game counts fully.
    A game keeps the rule it was rated by: the recompute gives the same boards."""
    await play(hall_store, ALICE, BOB)
    await play(hall_store, ALICE, BOB)
    await hall_store.change_server_settings(GUILD, ADMIN, repeats_count_less=False)
    await play(hall_store, ALICE, BOB)
    await play(hall_store, ALICE, BOB)
    weights = raw_rows(db_path, "SELECT weight, repeats_count_less FROM results ORDER BY seq")
    assert weights == [(1.0, 1), (0.5, 1), (1.0, 0), (1.0, 0)]
    board = await hall_store.leaderboard(GUILD, GAME)
    await hall_store.change_server_settings(GUILD, ADMIN, repeats_count_less=True)
    assert await hall_store.recompute_ratings(GUILD) == 4
    assert await hall_store.leaderboard(GUILD, GAME) == board
    assert raw_rows(db_path, "SELECT weight FROM results ORDER BY seq") == [
        (1.0,),
        (0.5,),
        (1.0,),
        (1.0,),
    ]
