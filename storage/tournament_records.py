"""The records of tournaments and their reading, on the database thread: a tournament with its
entrants (:class:`TournamentRecord`), a match (:class:`MatchRecord`). See
:mod:`storage.tournaments` for the writes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from engine import get_game
from engine.tournament import Entrant, Format, Match
from storage import records
from storage.database import Connection


@dataclass(frozen=True)
class TournamentPlan:
    """What a host asks for in creating a tournament (:func:`storage.tournaments.create` checks
    it against the game and the format)."""

    guild_id: int
    channel_id: int
    host_id: int
    game: str
    fmt: Format
    rounds: int | None  # Swiss only
    time_control: str
    starts_at: datetime
    max_players: int
    rated: bool


@dataclass(frozen=True)
class EntrantRecord:
    user_id: int
    rating: float
    withdrawn: bool


@dataclass(frozen=True)
class MatchRecord:
    id: int
    round: int
    board: int
    players: tuple[int, ...]
    points: tuple[float, ...] | None
    scores: tuple[int, ...] | None
    reason: str | None
    table_id: int | None
    thread_id: int | None

    @property
    def match(self) -> Match:
        return Match(self.round, self.players, self.points, self.scores)

    @property
    def needs_table(self) -> bool:
        return self.points is None and self.table_id is None


@dataclass(frozen=True)
class TournamentRecord:
    id: int
    guild_id: int
    channel_id: int
    host_id: int
    game: str
    format: Format
    rounds: int | None
    time_control: str
    starts_at: str
    max_players: int
    rated: bool
    status: str  # open, running, over, cancelled
    round: int
    version: int
    message_id: int | None
    standings_message_id: int | None
    ended_reason: str | None
    entrants: tuple[EntrantRecord, ...]

    @property
    def seeds(self) -> list[Entrant]:
        """The entrants in their initial ranking: rating, then who joined first."""
        return [Entrant(e.user_id, e.rating) for e in self.entrants]

    @property
    def withdrawn(self) -> frozenset[int]:
        return frozenset(e.user_id for e in self.entrants if e.withdrawn)

    @property
    def table_size(self) -> int:
        return get_game(self.game).max_seats

    def has(self, user_id: int) -> bool:
        return any(e.user_id == user_id for e in self.entrants)


# -- reading -----------------------------------------------------------------------------------


def load(conn: Connection, tid: int) -> TournamentRecord | None:
    row = conn.execute("SELECT * FROM tournaments WHERE id = ?", (tid,)).fetchone()
    if row is None:
        return None
    entrants = conn.execute(
        "SELECT user_id, rating, withdrawn_at FROM tournament_entrants WHERE tournament_id = ?"
        " ORDER BY rating DESC, joined_at, user_id",
        (tid,),
    ).fetchall()
    return TournamentRecord(
        id=int(row["id"]),
        guild_id=int(row["guild_id"]),
        channel_id=int(row["channel_id"]),
        host_id=int(row["host_id"]),
        game=row["game"],
        format=row["format"],
        rounds=row["rounds"],
        time_control=row["time_control"],
        starts_at=row["starts_at"],
        max_players=int(row["max_players"]),
        rated=bool(row["rated"]),
        status=row["status"],
        round=int(row["round"]),
        version=int(row["version"]),
        message_id=row["message_id"],
        standings_message_id=row["standings_message_id"],
        ended_reason=row["ended_reason"],
        entrants=tuple(EntrantRecord(int(u), float(r), w is not None) for u, r, w in entrants),
    )


def require(conn: Connection, tid: int) -> TournamentRecord:
    tournament = load(conn, tid)
    if tournament is None:
        raise records.TableError("That tournament no longer exists.")
    return tournament


def matches(conn: Connection, tid: int) -> list[MatchRecord]:
    rows = conn.execute(
        "SELECT id, round, board, points, scores, reason, table_id, thread_id"
        " FROM tournament_matches WHERE tournament_id = ? ORDER BY round, board",
        (tid,),
    ).fetchall()
    seats: dict[int, list[int]] = {}
    for match_id, user_id in conn.execute(
        "SELECT s.match_id, s.user_id FROM tournament_match_seats AS s JOIN tournament_matches"
        " AS m ON m.id = s.match_id WHERE m.tournament_id = ? ORDER BY s.match_id, s.seat",
        (tid,),
    ).fetchall():
        seats.setdefault(int(match_id), []).append(int(user_id))
    return [
        MatchRecord(
            id=int(r[0]),
            round=int(r[1]),
            board=int(r[2]),
            players=tuple(seats.get(int(r[0]), ())),
            points=None if r[3] is None else tuple(json.loads(r[3])),
            scores=None if r[4] is None else tuple(json.loads(r[4])),
            reason=r[5],
            table_id=r[6],
            thread_id=r[7],
        )
        for r in rows
    ]


def of_guild(conn: Connection, guild_id: int, limit: int) -> list[TournamentRecord]:
    rows = conn.execute(
        "SELECT id FROM tournaments WHERE guild_id = ? ORDER BY id DESC LIMIT ?",
        (guild_id, limit),
    ).fetchall()
    return [require(conn, int(row[0])) for row in rows]


def of_table(conn: Connection, table_id: int) -> int | None:
    row = conn.execute(
        "SELECT tournament_id FROM tournament_matches WHERE table_id = ?", (table_id,)
    ).fetchone()
    return None if row is None else int(row[0])


__all__ = [
    "EntrantRecord",
    "MatchRecord",
    "TournamentPlan",
    "TournamentRecord",
    "load",
    "matches",
    "of_guild",
    "of_table",
    "require",
]
