"""Open challenges (seeks), on the database thread (sqlite3-style calls on either database): a
game offered to anyone in a channel, that the first member to accept plays against its author.

A seek is one ``seeks`` row. Each function here is the body of one write transaction, so its
checks and its change commit together: accepting closes the seek and opens its table (through
:func:`storage.tables.new_table`, as a new game always opens) in one transaction, and two
members accepting at the same instant are serialised by the database (one writer on SQLite, a
serializable transaction run again after a conflict on PostgreSQL), so exactly one gets the
seat and the other reads why not. A two-player game starts at once, the author in the first
seat; a game for more players opens as a lobby with both seated, which others join and the
author starts once the minimum is seated.

A seek closes when it is accepted, withdrawn by its author, superseded (its author took a seat
in another game: :func:`storage.seek_hooks.seated`, in that game's transaction) or expired
(:data:`SEEK_WAIT` after it was made; the sweeper closes those due with :func:`expire`).
:class:`Seeks` is the store's side of them (what the front ends await).
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from engine import get_game
from engine.rules import JSON, resolve_options
from storage import clock, records, results, tables
from storage.base import StoreBase
from storage.database import Connection
from storage.expiry import expire_due
from storage.ratings import NEWCOMER
from storage.shards import Shards
from storage.shards import condition as shard_condition

SEEK_WAIT = timedelta(hours=24)
SeekStatus = Literal["open", "accepted", "withdrawn", "superseded", "expired"]
#: Why a click on a closed seek does nothing, by the seek's status.
CLOSED: dict[str, str] = {
    "accepted": "Someone else accepted this seek first: that game is on. Post your own with "
    "/siege seek, or see the open ones with /siege seeks.",
    "withdrawn": "Its author withdrew this seek. See the open ones with /siege seeks.",
    "superseded": "This seek was withdrawn: its author started or joined another game. See "
    "the open ones with /siege seeks.",
    "expired": "This seek has expired. See the open ones with /siege seeks.",
}
GONE = "That seek no longer exists. See the open ones with /siege seeks."


@dataclass(frozen=True)
class SeekRecord:
    id: int
    guild_id: int | None
    channel_id: int
    game: str
    options: dict[str, JSON]
    time_control: str
    rated: bool
    rating_low: int | None
    rating_high: int | None
    author_id: int
    status: SeekStatus
    accepted_by: int | None
    table_id: int | None
    message_id: int | None
    expires_at: str
    created_at: str

    @property
    def jump_url(self) -> str | None:
        if self.message_id is None:
            return None
        guild = self.guild_id if self.guild_id is not None else "@me"
        return f"https://discord.com/channels/{guild}/{self.channel_id}/{self.message_id}"


@dataclass(frozen=True)
class SeekOutcome:
    """An accepted seek and the table it opened (a started game, or a lobby for more)."""

    seek: SeekRecord
    table: records.TableRecord


def post(
    conn: Connection,
    *,
    guild_id: int,
    channel_id: int,
    game: str,
    options: dict[str, JSON],
    time_control: str,
    rated: bool,
    author_id: int,
    moment: datetime,
    rating_range: int | None = None,
) -> SeekRecord:
    """A new open seek of ``author_id`` in this channel; with ``rating_range``, for the players
    rated within that many points of the author (in this game and server, all time)."""
    engine = get_game(game)
    if engine.max_seats == 1:
        raise records.TableError(f"{engine.title} is a solo game: start it with /play.")
    clock.per_move(time_control)  # refuses an unknown control before anything is written
    row = conn.execute(
        "SELECT id FROM seeks WHERE status = 'open' AND author_id = ?"
        " AND game = ? AND guild_id = ? AND expires_at > ?",
        (author_id, game, guild_id, clock.stamp(moment)),
    ).fetchone()
    if row is not None:
        raise records.TableError(
            f"You already seek a game of {engine.title} in this server; withdraw that seek "
            "first to post another."
        )
    now = clock.stamp(moment)
    low = high = None
    if rating_range is not None:
        rating = rating_of(conn, guild_id, game, author_id)
        low, high = rating - rating_range, rating + rating_range
    cur = conn.execute(
        "INSERT INTO seeks (guild_id, channel_id, game, options, time_control, rated,"
        " rating_low, rating_high, author_id, expires_at, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            guild_id,
            channel_id,
            game,
            json.dumps(options),
            time_control,
            int(rated),
            low,
            high,
            author_id,
            clock.stamp(moment + SEEK_WAIT),
            now,
            now,
        ),
    )
    assert cur.lastrowid is not None
    return require(conn, cur.lastrowid)


def acceptable(conn: Connection, seek_id: int, user_id: int, moment: datetime) -> SeekRecord:
    """The seek, if ``user_id`` may accept it now; else its sentence."""
    seek = _open(conn, seek_id, moment)
    if user_id == seek.author_id:
        raise records.TableError(
            "This is your own seek: wait for someone to accept it, or withdraw it."
        )
    if seek.rating_low is not None and seek.rating_high is not None and seek.guild_id:
        rating = rating_of(conn, seek.guild_id, seek.game, user_id)
        if not seek.rating_low <= rating <= seek.rating_high:
            raise records.TableError(
                f"This seek is for players rated {seek.rating_low}–{seek.rating_high} in "
                f"{get_game(seek.game).title} here; you are rated {rating}."
            )
    return seek


def accept(
    conn: Connection,
    seek_id: int,
    user_id: int,
    moment: datetime,
    seed: int,
    channel_id: int | None = None,
) -> SeekOutcome:
    """``user_id`` accepts: the seek closes and its table opens, in this transaction, in its
    channel or (``channel_id``) the thread started from its message. A channel that has an
    open table refuses, and the seek stays open."""
    seek = acceptable(conn, seek_id, user_id, moment)
    where = seek.channel_id if channel_id is None else channel_id
    if where not in (seek.channel_id, seek.message_id):
        raise records.TableError("A seek's game opens in its channel or its own thread.")
    now = clock.stamp(moment)
    closed = conn.execute(
        "UPDATE seeks SET status = 'accepted', accepted_by = ?, updated_at = ?"
        " WHERE id = ? AND status = 'open'",
        (user_id, now, seek.id),
    )
    if closed.rowcount == 0:  # pragma: no cover - the transaction read it open just now
        raise records.TableError(CLOSED["accepted"])
    engine = get_game(seek.game)
    try:
        table = tables.new_table(
            conn,
            guild_id=seek.guild_id,
            channel_id=where,
            game=seek.game,
            options=seek.options,
            seed=seed,
            host_id=seek.author_id,
            seats=(seek.author_id, user_id),
            start=engine.max_seats == 2,  # a game for more opens as a lobby, both seated
            moment=moment,
            time_control=seek.time_control,
        )
    except records.TableExists:
        raise records.TableError(
            "The channel has an open table, so this game cannot open there yet; accept "
            "again once it is closed (the seek stays open until it expires)."
        ) from None
    conn.execute("UPDATE seeks SET table_id = ? WHERE id = ?", (table.id, seek.id))
    return SeekOutcome(require(conn, seek.id), table)


def rating_of(conn: Connection, guild_id: int, game: str, user_id: int) -> int:
    """A player's shown all-time rating in a game of this server (a newcomer's without one)."""
    line = results.standing(conn, guild_id, game, results.ALL_TIME, user_id)
    return round(NEWCOMER.shown if line is None else line.rating)


def withdraw(conn: Connection, seek_id: int, user_id: int, moment: datetime) -> SeekRecord:
    """The author takes their open seek back."""
    seek = _open(conn, seek_id, moment)
    if user_id != seek.author_id:
        raise records.TableError("Only the member who posted this seek can withdraw it.")
    conn.execute(
        "UPDATE seeks SET status = 'withdrawn', updated_at = ? WHERE id = ?",
        (clock.stamp(moment), seek.id),
    )
    return require(conn, seek.id)


def expire(
    conn: Connection, moment: datetime, limit: int, shards: Shards | None = None
) -> list[SeekRecord]:
    """Close every open seek whose day is over (with ``shards``: posted in a server on one of
    those shards); returns them as closed."""
    ids = expire_due(conn, "seeks", moment, limit, shards)
    return [require(conn, seek_id) for seek_id in ids]


def claim_unshown(
    conn: Connection, authors: tuple[int, ...] | None, limit: int, shards: Shards | None = None
) -> list[SeekRecord]:
    """The closed seeks whose messages still show them open (of ``authors``, or any), marked
    shown: whoever claims one edits its message, once."""
    mine, params = shard_condition(shards)
    who = ""
    if authors is not None:
        who = f" AND author_id IN ({', '.join('?' for _ in authors)})"
        params = (*authors, *params)
    rows = conn.execute(
        f"SELECT id FROM seeks WHERE shown = 0{who}{mine} ORDER BY id LIMIT ?",
        (*params, limit),
    ).fetchall()
    ids = [int(row[0]) for row in rows]
    conn.executemany("UPDATE seeks SET shown = 1 WHERE id = ?", [(seek_id,) for seek_id in ids])
    return [require(conn, seek_id) for seek_id in ids]


def open_in(conn: Connection, guild_id: int, moment: datetime, limit: int) -> list[SeekRecord]:
    """A server's open seeks, the oldest first."""
    rows = conn.execute(
        "SELECT id FROM seeks WHERE status = 'open' AND guild_id = ? AND expires_at > ?"
        " ORDER BY created_at, id LIMIT ?",
        (guild_id, clock.stamp(moment), limit),
    ).fetchall()
    return [require(conn, int(row[0])) for row in rows]


def load(conn: Connection, seek_id: int) -> SeekRecord | None:
    row = conn.execute("SELECT * FROM seeks WHERE id = ?", (seek_id,)).fetchone()
    if row is None:
        return None
    return SeekRecord(
        id=int(row["id"]),
        guild_id=row["guild_id"],
        channel_id=int(row["channel_id"]),
        game=row["game"],
        options=json.loads(row["options"]),
        time_control=row["time_control"],
        rated=bool(row["rated"]),
        rating_low=row["rating_low"],
        rating_high=row["rating_high"],
        author_id=int(row["author_id"]),
        status=row["status"],
        accepted_by=row["accepted_by"],
        table_id=row["table_id"],
        message_id=row["message_id"],
        expires_at=row["expires_at"],
        created_at=row["created_at"],
    )


def require(conn: Connection, seek_id: int) -> SeekRecord:
    seek = load(conn, seek_id)
    if seek is None:
        raise records.TableError(GONE)
    return seek


def _open(conn: Connection, seek_id: int, moment: datetime) -> SeekRecord:
    """The seek, refused with its sentence unless it is open (a day-old seek the sweeper has
    not closed yet counts as expired)."""
    seek = require(conn, seek_id)
    if seek.status != "open":
        raise records.TableError(CLOSED[seek.status])
    if seek.expires_at <= clock.stamp(moment):
        raise records.TableError(CLOSED["expired"])
    return seek


class Seeks(StoreBase):
    """Open challenges: each method runs this module's function of that name (or nearly) as
    one transaction."""

    async def post_seek(
        self,
        *,
        guild_id: int,
        channel_id: int,
        game: str,
        author_id: int,
        time_control: str = clock.NONE,
        rated: bool = True,
        rating_range: int | None = None,
    ) -> SeekRecord:
        """Offer a game of ``game`` (its default options) to anyone in this channel (with
        ``rating_range``: to those rated within that many points of the author)."""
        opts = resolve_options(get_game(game), None)
        moment = self._moment()

        def run(conn: Connection) -> SeekRecord:
            return post(
                conn,
                guild_id=guild_id,
                channel_id=channel_id,
                game=game,
                options=opts,
                time_control=time_control,
                rated=rated,
                author_id=author_id,
                moment=moment,
                rating_range=rating_range,
            )

        return await self._write(run)

    async def accept_seek(
        self, seek_id: int, user_id: int, channel_id: int | None = None
    ) -> SeekOutcome:
        """Take the other seat of an open seek; its table opens in the same transaction, in
        the seek's channel or (``channel_id``) the thread started from its message."""
        moment, seed = self._moment(), random.SystemRandom().randrange(2**62)
        return await self._write(
            lambda conn: accept(conn, seek_id, user_id, moment, seed, channel_id)
        )

    async def acceptable_seek(self, seek_id: int, user_id: int) -> SeekRecord:
        """The seek if ``user_id`` may accept it now (a read: the accept checks again)."""
        moment = self._moment()
        return await self._read(lambda conn: acceptable(conn, seek_id, user_id, moment))

    async def withdraw_seek(self, seek_id: int, user_id: int) -> SeekRecord:
        moment = self._moment()
        return await self._write(lambda conn: withdraw(conn, seek_id, user_id, moment))

    async def set_seek_message(self, seek_id: int, message_id: int) -> None:
        """Remember the message that carries a seek's buttons (in the seek's channel)."""
        await self._execute("UPDATE seeks SET message_id = ? WHERE id = ?", (message_id, seek_id))

    async def drop_seeks_in(self, channel_id: int) -> int:
        """Withdraw the open seeks of a deleted channel; returns how many."""

        def run(conn: Connection) -> int:
            cur = conn.execute(
                "UPDATE seeks SET status = 'withdrawn', updated_at = ?"
                " WHERE channel_id = ? AND status = 'open'",
                (self._now(), channel_id),
            )
            return max(cur.rowcount, 0)

        return await self._write(run)

    async def get_seek(self, seek_id: int) -> SeekRecord | None:
        return await self._read(lambda conn: load(conn, seek_id))

    async def open_seeks(self, guild_id: int, limit: int = 25) -> list[SeekRecord]:
        """``/siege seeks``: the server's open seeks, the oldest first."""
        moment = self._moment()
        return await self._read(lambda conn: open_in(conn, guild_id, moment, limit))

    async def expire_seeks(
        self, limit: int = 100, *, shards: Shards | None = None
    ) -> list[SeekRecord]:
        """Close the open seeks whose day is over (the sweeper's); returns them."""
        moment = self._moment()
        return await self._write(lambda conn: expire(conn, moment, limit, shards))

    async def superseded_seeks(
        self,
        authors: tuple[int, ...] | None = None,
        limit: int = 100,
        *,
        shards: Shards | None = None,
    ) -> list[SeekRecord]:
        """The seeks closed because their authors took a seat elsewhere whose messages still
        show them open (of ``authors``, or any), each returned once to edit its message."""
        if authors is not None:
            marks = ", ".join("?" for _ in authors)
            sql = f"SELECT 1 FROM seeks WHERE shown = 0 AND author_id IN ({marks}) LIMIT 1"
            if not await self._read(lambda conn: conn.execute(sql, authors).fetchone()):
                return []  # the usual case, read without taking the writer
        return await self._write(lambda conn: claim_unshown(conn, authors, limit, shards))


__all__ = [
    "CLOSED",
    "SEEK_WAIT",
    "SeekOutcome",
    "SeekRecord",
    "Seeks",
    "accept",
    "acceptable",
    "expire",
    "post",
    "rating_of",
    "withdraw",
]
