"""Finished games and the ratings built from them, on the database thread (sqlite3-style
calls on either database, see :class:`storage.database.Connection`).

:func:`record` runs inside the transaction of the action that ends a game: the result row, each
seat's place and outcome, and (for a rated game) the rating update, or none of it. The ratings
table is derived data: :func:`recompute` rebuilds a server's boards from its result rows in
commit order (``seq``) with the same :func:`rate_result`, so it gets the same numbers.

Rated: a game in a server between at least two different people (a solo game, a table where one
person holds every seat, and a cancelled game are not rated; computer seats will not be either).
Resignations count as a loss for the one who resigned, as the engine's result says.
:class:`Results` is the store's side of the boards (what the front ends await).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, NamedTuple

from engine.rules import Result
from storage import seek_hooks, tournaments
from storage.base import StoreBase
from storage.database import Connection
from storage.ratings import NEWCOMER, Skill, outcome, places_of, rate, repeat_weight
from storage.seasons import ALL_TIME, season_of
from storage.servers import setting


@dataclass(frozen=True)
class Standing:
    """One line of a board."""

    user_id: int
    rating: float
    sigma: float
    games: int
    wins: int
    losses: int
    draws: int
    rank: int

    @property
    def provisional(self) -> bool:
        return Skill(0.0, self.sigma).provisional


@dataclass(frozen=True)
class GameResult:
    """A finished game as a player's history shows it."""

    table_id: int
    game: str
    ended_at: str
    reason: str
    plies: int
    rated: bool
    seats: tuple[int, ...]
    places: tuple[int, ...]
    rating_change: float | None  # the player's all-time rating change, when rated
    channel_id: int
    message_id: int | None
    ending: str | None = None  # how it ended (migration 013; None: finished before it)


def record(
    conn: Connection,
    *,
    table_id: int,
    guild_id: int | None,
    game: str,
    seats: Sequence[int],
    result: Result,
    plies: int,
    ended_at: str,
    ending: str | None = None,
) -> None:
    """Write a finished game's result (and rate it, if it counts): call inside the transaction
    of the action that ended it. ``ending``: how (migration 013; a forfeit on the clock or a
    claim counts as the forfeiting seat's loss, as a resignation does)."""
    places = places_of(result.winners, len(seats), result.scores)
    # A solo game, a seat held twice or a computer seat (negative id) is not rated, nor a game
    # an unrated seek opened, nor a game of an unrated tournament (whose match takes its points
    # here: always called).
    rated = guild_id is not None and len(set(seats)) == len(seats) >= 2 and min(seats) > 0
    rated = rated and not seek_hooks.is_casual(conn, table_id)
    rated = tournaments.record_game(conn, table_id, tuple(seats), result) and rated
    seq = conn.execute("SELECT coalesce(max(seq), 0) + 1 FROM results").fetchone()[0]
    # The server's settings as the game ends: kept on the row, so a recompute agrees.
    season = season_of(ended_at, setting(conn, guild_id, "season"))
    repeats = setting(conn, guild_id, "repeats_count_less")
    conn.execute(
        "INSERT INTO results (table_id, seq, guild_id, game, season, ended_at, reason, plies,"
        " rated, weight, players, repeats_count_less, ending)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1.0, ?, ?, ?)",
        (
            table_id,
            seq,
            guild_id,
            game,
            season,
            ended_at,
            result.reason,
            plies,
            int(rated),
            ",".join(str(u) for u in sorted(seats)),
            int(bool(repeats)),
            ending,
        ),
    )
    conn.executemany(
        "INSERT INTO result_seats (table_id, seat, user_id, place, outcome, score, guild_id,"
        " game, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                table_id,
                seat,
                user,
                places[seat],
                outcome(places[seat], places),
                None if result.scores is None else result.scores[seat],
                guild_id,
                game,
                seq,
            )
            for seat, user in enumerate(seats)
        ],
    )
    if rated:
        rate_result(conn, table_id)


def rate_result(conn: Connection, table_id: int) -> None:
    """Apply one rated result to its server's all-time and season boards."""
    row = conn.execute(
        "SELECT seq, guild_id, game, season, ended_at, players, repeats_count_less FROM results"
        " WHERE table_id = ?",
        (table_id,),
    ).fetchone()
    seq, guild_id, game, season, ended_at, players, repeats = row
    day = date.fromisoformat(ended_at[:10])
    earlier = conn.execute(  # a range on ended_at, so the pairing index serves it whole
        "SELECT count(*) FROM results WHERE guild_id = ? AND game = ? AND players = ?"
        " AND ended_at >= ? AND ended_at < ? AND rated = 1 AND seq < ?",
        (guild_id, game, players, day.isoformat(), (day + timedelta(days=1)).isoformat(), seq),
    ).fetchone()[0]
    weight = repeat_weight(earlier) if repeats else 1.0
    conn.execute("UPDATE results SET weight = ? WHERE table_id = ?", (weight, table_id))
    seats = conn.execute(
        "SELECT seat, user_id, place, outcome FROM result_seats WHERE table_id = ? ORDER BY seat",
        (table_id,),
    ).fetchall()
    places = [place for _, _, place, _ in seats]
    for board in (ALL_TIME, season):
        before = [_skill(conn, guild_id, game, board, user) for _, user, _, _ in seats]
        after = rate(before, places, weight)
        for (seat, user, _, result), skill, old in zip(seats, after, before, strict=True):
            _save_skill(conn, guild_id, game, board, user, skill, result)
            if board == ALL_TIME:
                conn.execute(
                    "UPDATE result_seats SET rating_before = ?, rating_after = ?"
                    " WHERE table_id = ? AND seat = ?",
                    (old.shown, skill.shown, table_id, seat),
                )


def recompute(conn: Connection, guild_id: int) -> int:
    """Rebuild every board of a server from its results, in commit order. Returns how many
    rated games were replayed."""
    conn.execute("DELETE FROM ratings WHERE guild_id = ?", (guild_id,))
    rows = conn.execute(
        "SELECT table_id FROM results WHERE guild_id = ? AND rated = 1 ORDER BY seq", (guild_id,)
    ).fetchall()
    for (table_id,) in rows:
        rate_result(conn, table_id)
    return len(rows)


def board(
    conn: Connection, guild_id: int, game: str, season: str, offset: int, limit: int
) -> list[Standing]:
    """A page of a board, best first (ties by who got there... by user id, stably)."""
    rows = conn.execute(
        "SELECT user_id, rating, sigma, games, wins, losses, draws FROM ratings"
        " WHERE guild_id = ? AND game = ? AND season = ?"
        " ORDER BY rating DESC, user_id LIMIT ? OFFSET ?",
        (guild_id, game, season, limit, offset),
    ).fetchall()
    return [_standing(row, offset + n + 1) for n, row in enumerate(rows)]


def standing(
    conn: Connection, guild_id: int, game: str, season: str, user_id: int
) -> Standing | None:
    """One player's line and rank on a board (``None`` if they have no rated game there)."""
    row = conn.execute(
        "SELECT user_id, rating, sigma, games, wins, losses, draws FROM ratings"
        " WHERE guild_id = ? AND game = ? AND season = ? AND user_id = ?",
        (guild_id, game, season, user_id),
    ).fetchone()
    if row is None:
        return None
    ahead = conn.execute(
        "SELECT count(*) FROM ratings WHERE guild_id = ? AND game = ? AND season = ?"
        " AND (rating > ? OR (rating = ? AND user_id < ?))",
        (guild_id, game, season, row[1], row[1], user_id),
    ).fetchone()[0]
    return _standing(row, ahead + 1)


def board_size(conn: Connection, guild_id: int, game: str, season: str) -> int:
    return int(
        conn.execute(
            "SELECT count(*) FROM ratings WHERE guild_id = ? AND game = ? AND season = ?",
            (guild_id, game, season),
        ).fetchone()[0]
    )


class RatingPoint(NamedTuple):
    """A player's shown all-time rating after one rated game, and when that game ended (ISO)."""

    ended_at: str
    rating: float


def history(
    conn: Connection, guild_id: int, game: str, user_id: int, limit: int = 500
) -> list[RatingPoint]:
    """A player's shown all-time rating after each of their last ``limit`` rated games, oldest
    first: one range of ``result_seats_history``, newest first, whatever the server's size, and
    each game's end by its key."""
    rows = conn.execute(
        "SELECT r.ended_at, s.rating_after FROM result_seats AS s"
        " INDEXED BY result_seats_history"
        " JOIN results AS r ON r.table_id = s.table_id"
        " WHERE s.user_id = ? AND s.guild_id = ? AND s.game = ? AND s.rating_after IS NOT NULL"
        " ORDER BY s.seq DESC LIMIT ?",
        (user_id, guild_id, game, limit),
    ).fetchall()
    return [RatingPoint(str(row[0]), float(row[1])) for row in reversed(rows)]


def recent(
    conn: Connection, guild_id: int, user_id: int, game: str | None, limit: int
) -> list[GameResult]:
    """A player's latest finished games in a server, newest first: the newest of their seats
    by an index range (``result_seats_recent``, or ``_history`` for one game), then each game."""
    picked = conn.execute(
        "SELECT table_id, rating_after - rating_before FROM result_seats"
        " WHERE user_id = ? AND guild_id = ?"
        + (" AND game = ?" if game is not None else "")
        + " ORDER BY seq DESC LIMIT ?",
        (user_id, guild_id, *((game,) if game is not None else ()), limit * 2),
    ).fetchall()
    changes: dict[int, float | None] = {}
    for table_id, change in picked:  # one person in two seats (a solo table) counts once
        changes.setdefault(int(table_id), change)
    rows = []
    for table_id in list(changes)[:limit]:
        key, ended_at, reason, plies, rated, channel, message, ending = conn.execute(
            "SELECT r.game, r.ended_at, r.reason, r.plies, r.rated, t.channel_id, t.message_id,"
            " r.ending FROM results AS r JOIN tables AS t ON t.id = r.table_id"
            " WHERE r.table_id = ?",
            (table_id,),
        ).fetchone()
        row = (table_id, key, ended_at, reason, plies, rated, changes[table_id])
        rows.append((*row, channel, message, ending))
    found = []
    for table_id, key, ended_at, reason, plies, rated, change, channel, message, ending in rows:
        seats = conn.execute(
            "SELECT user_id, place FROM result_seats WHERE table_id = ? ORDER BY seat",
            (table_id,),
        ).fetchall()
        found.append(
            GameResult(
                table_id=int(table_id),
                game=str(key),
                ended_at=str(ended_at),
                reason=str(reason),
                plies=int(plies),
                rated=bool(rated),
                seats=tuple(int(u) for u, _ in seats),
                places=tuple(int(p) for _, p in seats),
                rating_change=None if change is None else float(change),
                channel_id=int(channel),
                message_id=None if message is None else int(message),
                ending=None if ending is None else str(ending),
            )
        )
    return found


@dataclass(frozen=True)
class SoloLine:
    """One line of a solo game's board: best score, then wins."""

    user_id: int
    best: int
    wins: int
    games: int
    rank: int


def solo_board(
    conn: Connection, guild_id: int, game: str, variant: str, limit: int
) -> list[SoloLine]:
    """A solo game's board for one difficulty: each player's best score and wins (solo games
    are not rated; every finished one counts here)."""
    rows = conn.execute(
        "SELECT s.user_id, max(coalesce(s.score, 0)),"
        " sum(CASE WHEN s.outcome = 'win' THEN 1 ELSE 0 END), count(*)"
        " FROM results AS r CROSS JOIN result_seats AS s ON s.table_id = r.table_id"
        " JOIN tables AS t ON t.id = r.table_id"
        " WHERE r.guild_id = ? AND r.game = ? AND json_extract(t.options, '$.difficulty') = ?"
        " GROUP BY s.user_id ORDER BY 2 DESC, 3 DESC, s.user_id LIMIT ?",
        (guild_id, game, variant, limit),
    ).fetchall()
    return [
        SoloLine(int(u), int(best), int(wins), int(games), n + 1)
        for n, (u, best, wins, games) in enumerate(rows)
    ]


def seasons(conn: Connection, guild_id: int, game: str) -> list[str]:
    rows = conn.execute(
        "SELECT DISTINCT season FROM ratings WHERE guild_id = ? AND game = ? AND season != ?"
        " ORDER BY season DESC",
        (guild_id, game, ALL_TIME),
    ).fetchall()
    return [str(row[0]) for row in rows]


def _standing(row: Sequence[Any], rank: int) -> Standing:
    user_id, rating, sigma, games, wins, losses, draws = row
    return Standing(
        user_id=int(user_id),
        rating=float(rating),
        sigma=float(sigma),
        games=int(games),
        wins=int(wins),
        losses=int(losses),
        draws=int(draws),
        rank=rank,
    )


def _skill(conn: Connection, guild_id: int, game: str, season: str, user: int) -> Skill:
    row = conn.execute(
        "SELECT mu, sigma FROM ratings WHERE guild_id = ? AND game = ? AND season = ?"
        " AND user_id = ?",
        (guild_id, game, season, user),
    ).fetchone()
    return NEWCOMER if row is None else Skill(float(row[0]), float(row[1]))


def _save_skill(
    conn: Connection,
    guild_id: int,
    game: str,
    season: str,
    user: int,
    skill: Skill,
    result: str,
) -> None:
    won, lost, drew = int(result == "win"), int(result == "loss"), int(result == "draw")
    conn.execute(
        "INSERT INTO ratings (guild_id, game, season, user_id, mu, sigma, rating, games, wins,"
        " losses, draws) VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)"
        " ON CONFLICT (guild_id, game, season, user_id) DO UPDATE SET mu = excluded.mu,"
        " sigma = excluded.sigma, rating = excluded.rating, games = ratings.games + 1,"
        " wins = ratings.wins + excluded.wins, losses = ratings.losses + excluded.losses,"
        " draws = ratings.draws + excluded.draws",
        (guild_id, game, season, user, skill.mu, skill.sigma, skill.shown, won, lost, drew),
    )


class Results(StoreBase):
    """Boards, standings and rating histories: each method reads with this module's function
    of that name (or nearly)."""

    async def leaderboard(
        self, guild_id: int, game: str, season: str = ALL_TIME, *, offset: int = 0, limit: int = 10
    ) -> list[Standing]:
        """A page of a server's board for a game: ``season`` is ``"all"`` or ``"YYYY-MM"``."""
        return await self._db.read(lambda conn: board(conn, guild_id, game, season, offset, limit))

    async def standing(
        self, guild_id: int, game: str, user_id: int, season: str = ALL_TIME
    ) -> Standing | None:
        """A player's line and rank on a board, wherever it is."""
        return await self._db.read(lambda conn: standing(conn, guild_id, game, season, user_id))

    async def board_size(self, guild_id: int, game: str, season: str = ALL_TIME) -> int:
        return await self._db.read(lambda conn: board_size(conn, guild_id, game, season))

    async def rating_history(self, guild_id: int, game: str, user_id: int) -> list[RatingPoint]:
        """A player's shown all-time rating after each rated game (and its end), oldest first."""
        return await self._db.read(lambda conn: history(conn, guild_id, game, user_id))

    async def recent_results(
        self, guild_id: int, user_id: int, game: str | None = None, limit: int = 10
    ) -> list[GameResult]:
        """A player's latest finished games in a server, newest first."""
        return await self._db.read(lambda conn: recent(conn, guild_id, user_id, game, limit))

    async def solo_board(
        self, guild_id: int, game: str, difficulty: str, limit: int = 10
    ) -> list[SoloLine]:
        """A solo game's board for a difficulty: best score first, then wins."""
        return await self._db.read(lambda conn: solo_board(conn, guild_id, game, difficulty, limit))

    async def seasons(self, guild_id: int, game: str) -> list[str]:
        """The seasons with rated games of a server, newest first."""
        return await self._db.read(lambda conn: seasons(conn, guild_id, game))

    async def recompute_ratings(self, guild_id: int) -> int:
        """Rebuild every rating of a server from its stored results, in order (an admin's
        command). Returns how many rated games were replayed."""
        return await self._write(lambda conn: recompute(conn, guild_id))


__all__ = [
    "ALL_TIME",
    "GameResult",
    "Results",
    "SoloLine",
    "Standing",
    "board",
    "board_size",
    "history",
    "recent",
    "recompute",
    "record",
    "season_of",
    "seasons",
    "solo_board",
    "standing",
]
