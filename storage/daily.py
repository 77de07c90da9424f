"""The daily challenge of Siege at Kurth, on the database thread (sqlite3-style
calls on either database).

Every player of a server gets the same seed on a UTC day and difficulty, so everyone defends
against the same draws and dice (chance comes in streams by purpose: engine/chance.py). The
seed is an HMAC of the day and difficulty under a random secret of the server stored in the
database: it cannot be worked out before the day. A daily game's seed and deal stay closed to
everyone until its day is over (storage/fairness.py). The first attempt of a player per day and
difficulty is scored; later ones are practice. A scored attempt's score is written in the
transaction of the action that ends its game (:func:`finish`), once: the result row's key and
this table's key are the table. :class:`Dailies` is the store's side of it (what the front ends
await).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine import daily_game, get_game
from engine.rules import resolve_options
from storage.base import StoreBase
from storage.database import Connection
from storage.records import TableRecord
from storage.tables import new_table

GAME = daily_game().key  # the game the declarations name (Siege at Kurth)


@dataclass(frozen=True)
class DailyLine:
    """One line of a day's board."""

    user_id: int
    score: int
    turns: int
    won: bool
    rank: int


def seed_for(conn: Connection, guild_id: int, day: str, difficulty: str) -> int:
    """The seed of a server's day at one difficulty (its secret is made on first use): each
    difficulty its own, so a player's easy game shows nothing of their advanced one."""
    row = conn.execute(
        "SELECT secret FROM guild_secrets WHERE guild_id = ?", (guild_id,)
    ).fetchone()
    if row is None:
        secret = secrets.token_hex(32)
        conn.execute(
            "INSERT INTO guild_secrets (guild_id, secret) VALUES (?, ?)", (guild_id, secret)
        )
    else:
        secret = str(row[0])
    digest = hmac.new(
        bytes.fromhex(secret), f"{GAME}-daily:{day}:{difficulty}".encode(), hashlib.sha256
    )
    return int.from_bytes(digest.digest()[:8], "big") >> 2  # fits SQLite's signed integers


def day_of(conn: Connection, table_id: int) -> str | None:
    """The UTC day of a daily game (``None``: the table is not one)."""
    row = conn.execute("SELECT day FROM daily_attempts WHERE table_id = ?", (table_id,)).fetchone()
    return None if row is None else str(row[0])


def has_scored_attempt(
    conn: Connection, guild_id: int, day: str, difficulty: str, user_id: int
) -> bool:
    row = conn.execute(
        "SELECT 1 FROM daily_attempts WHERE guild_id = ? AND day = ? AND difficulty = ?"
        " AND user_id = ? AND scored = 1",
        (guild_id, day, difficulty, user_id),
    ).fetchone()
    return row is not None


def add_attempt(
    conn: Connection,
    *,
    table_id: int,
    guild_id: int,
    day: str,
    difficulty: str,
    user_id: int,
    scored: bool,
) -> None:
    conn.execute(
        "INSERT INTO daily_attempts (table_id, guild_id, day, difficulty, user_id, scored)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (table_id, guild_id, day, difficulty, user_id, int(scored)),
    )


def finish(
    conn: Connection,
    table_id: int,
    winners: tuple[int, ...],
    scores: tuple[int, ...] | None,
    summary: Mapping[str, Any],
    finished_at: str,
) -> None:
    """Write a daily attempt's outcome (nothing happens for a table that is not one)."""
    conn.execute(
        "UPDATE daily_attempts SET score = ?, turns = ?, won = ?, finished_at = ?"
        " WHERE table_id = ? AND finished_at IS NULL",
        (
            0 if not scores else int(scores[0]),
            int(summary.get("turn", 0)),
            int(bool(winners)),
            finished_at,
            table_id,
        ),
    )


def board(
    conn: Connection, guild_id: int, day: str, difficulty: str, offset: int, limit: int
) -> list[DailyLine]:
    """A page of a day's board: best score first, then fewest turns, then who finished first."""
    rows = conn.execute(
        "SELECT user_id, score, turns, won FROM daily_attempts"
        " WHERE guild_id = ? AND day = ? AND difficulty = ? AND scored = 1"
        " AND finished_at IS NOT NULL"
        " ORDER BY score DESC, turns, finished_at, user_id LIMIT ? OFFSET ?",
        (guild_id, day, difficulty, limit, offset),
    ).fetchall()
    return [
        DailyLine(int(u), int(s), int(t), bool(w), offset + n + 1)
        for n, (u, s, t, w) in enumerate(rows)
    ]


def standing(
    conn: Connection, guild_id: int, day: str, difficulty: str, user_id: int
) -> DailyLine | None:
    """A player's scored attempt of the day and its rank (``None`` if not finished)."""
    mine = conn.execute(
        "SELECT score, turns, won, finished_at FROM daily_attempts WHERE guild_id = ? AND day = ?"
        " AND difficulty = ? AND user_id = ? AND scored = 1 AND finished_at IS NOT NULL",
        (guild_id, day, difficulty, user_id),
    ).fetchone()
    if mine is None:
        return None
    score, turns, won, finished_at = mine
    ahead = conn.execute(
        "SELECT count(*) FROM daily_attempts WHERE guild_id = ? AND day = ? AND difficulty = ?"
        " AND scored = 1 AND finished_at IS NOT NULL AND (score > ? OR (score = ? AND"
        " (turns < ? OR (turns = ? AND (finished_at < ? OR (finished_at = ? AND user_id < ?))))))",
        (guild_id, day, difficulty, score, score, turns, turns, finished_at, finished_at, user_id),
    ).fetchone()[0]
    return DailyLine(user_id, int(score), int(turns), bool(won), int(ahead) + 1)


class Dailies(StoreBase):
    """The daily challenge's games and boards, through this module's functions."""

    async def start_daily(
        self, *, guild_id: int, channel_id: int, user_id: int, difficulty: str, day: str
    ) -> tuple[TableRecord, bool]:
        """Start ``user_id``'s daily Kurth game of ``day`` (``YYYY-MM-DD``, UTC) in a channel:
        the server's seed of the day; scored if it is their first attempt of the day at this
        difficulty, else practice. Returns the running table and whether it is scored."""
        options = resolve_options(get_game(GAME), {"difficulty": difficulty})
        moment = self._moment()

        def run(conn: Connection) -> tuple[TableRecord, bool]:
            scored = not has_scored_attempt(conn, guild_id, day, difficulty, user_id)
            table = new_table(
                conn,
                guild_id=guild_id,
                channel_id=channel_id,
                game=GAME,
                options=options,
                seed=seed_for(conn, guild_id, day, difficulty),
                host_id=user_id,
                seats=(user_id,),
                start=True,
                moment=moment,
            )
            add_attempt(
                conn,
                table_id=table.id,
                guild_id=guild_id,
                day=day,
                difficulty=difficulty,
                user_id=user_id,
                scored=scored,
            )
            return table, scored

        return await self._write(run)

    async def daily_day(self, table_id: int) -> str | None:
        """The UTC day of a daily game (``None``: the table is not one)."""
        return await self._db.read(lambda conn: day_of(conn, table_id))

    async def daily_board(
        self, guild_id: int, day: str, difficulty: str, *, offset: int = 0, limit: int = 10
    ) -> list[DailyLine]:
        return await self._db.read(
            lambda conn: board(conn, guild_id, day, difficulty, offset, limit)
        )

    async def daily_standing(
        self, guild_id: int, day: str, difficulty: str, user_id: int
    ) -> DailyLine | None:
        return await self._db.read(lambda conn: standing(conn, guild_id, day, difficulty, user_id))


__all__ = [
    "GAME",
    "Dailies",
    "DailyLine",
    "add_attempt",
    "board",
    "day_of",
    "finish",
    "has_scored_attempt",
    "seed_for",
    "standing",
]
