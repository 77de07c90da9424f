"""Ending a running game other than by a move or a resignation (issue 25), each way recorded as
its own ending (migration 013) so that nobody dodges a loss:

- **abort**: any seated player (or the host) may abort a game until every seat has made a first
  move (as Lichess does); it closes unrated.
- **agreed**: after that, a player may offer to cancel; the game closes unrated when every other
  player still in it has accepted. A computer declines at once (it plays every started game to
  its end), so nothing is written.
- **moderator**: a moderator who is not playing may cancel a running game (the front end asks
  them to confirm first).
- **claim**: in a game without a clock, once the seat to act has not moved for
  :data:`storage.clock.CLAIM_AFTER`, another player still in the game may claim it: the absent
  seat forfeits (logged as a resignation ``why: claim``, rated as the forfeit it is); in a game
  whose rules have drawn results they may claim a draw instead (logged with ``draw``, the game
  ends drawn by ``Game.claim_draw`` and is rated as a draw).

Each function here is the body of one write transaction; :class:`Endings` runs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from engine.rules import Event
from storage import clock, computers
from storage.base import StoreBase
from storage.database import Connection
from storage.expiry import expire_due
from storage.offers import CLOSED, OFFER_WAIT
from storage.playing import apply_action
from storage.records import Ending, TableError, TableRecord, drawn_claim, require, resignation
from storage.shards import Shards
from storage.tables import cancel, cancelled

OfferStatus = Literal["open", "accepted", "declined", "expired"]


class ClaimTooEarly(TableError):
    """A claim before the seat to act has been away :data:`clock.CLAIM_AFTER`; ``at`` is when
    it becomes claimable (the front end shows it as a Discord timestamp)."""

    def __init__(self, at: str) -> None:
        super().__init__("The game cannot be claimed yet.")
        self.at = at


class ComputerDeclines(TableError):
    """A cancel offer to a computer, answered at once: no."""


@dataclass(frozen=True)
class CancelOffer:
    """An offer to end a running game by agreement: the asker said yes; ``waiting`` have not
    answered yet."""

    id: int
    table_id: int
    host_id: int
    waiting: tuple[int, ...]
    status: OfferStatus
    message_channel_id: int | None
    message_id: int | None
    expires_at: str


@dataclass(frozen=True)
class CancelOutcome:
    """What an answer did: the offer as it stands, and the table once it closed by agreement."""

    offer: CancelOffer
    table: TableRecord | None = None


# -- On the database thread ------------------------------------------------------------------


def everyone_moved(conn: Connection, table: TableRecord) -> bool:
    """Whether every seat has made a first move (a resignation counts: that seat has acted)."""
    rows = conn.execute("SELECT DISTINCT seat FROM actions WHERE table_id = ?", (table.id,))
    return {int(row[0]) for row in rows.fetchall()} >= set(range(len(table.seats)))


def claimable_at(table: TableRecord) -> str | None:
    """When the others may claim a running game without a clock: :data:`clock.CLAIM_AFTER`
    after its last move (or its start); ``None`` for a game on a clock (the clock ends it)."""
    if table.time_control != clock.NONE or table.status != "running":
        return None
    return clock.stamp(datetime.fromisoformat(table.updated_at) + clock.CLAIM_AFTER)


def _running(conn: Connection, table_id: int) -> TableRecord:
    table = require(conn, table_id)
    if table.status == "lobby":
        raise TableError("This game has not started yet.")
    if table.status != "running":
        raise TableError("This game is over already.")
    return table


def _close(
    conn: Connection, table: TableRecord, ending: Ending, by: int, moment: datetime
) -> TableRecord:
    now = clock.stamp(moment)
    cancel(conn, table.id, now, ending, by)
    conn.execute(
        "UPDATE cancel_offers SET status = 'expired', updated_at = ? WHERE table_id = ?"
        " AND status = 'open'",
        (now, table.id),
    )
    return cancelled(table, now, ending, by)


def abort(conn: Connection, table_id: int, user_id: int, moment: datetime) -> TableRecord:
    """A seated player (or the host) aborts a game before every seat has made a first move."""
    table = _running(conn, table_id)
    if table.seat_of(user_id) is None and user_id != table.host_id:
        raise TableError("Only the players at this table can abort it.")
    if everyone_moved(conn, table):
        raise TableError(
            "Every player has made a move, so this game can no longer be aborted: it ends by "
            "the rules, a resignation, the clock, a claim, or an agreed end (/siege cancel "
            "offers one to the others)."
        )
    return _close(conn, table, "aborted", user_id, moment)


def moderate(conn: Connection, table_id: int, user_id: int, moment: datetime) -> TableRecord:
    """A moderator who is not playing cancels a running game (confirmed before this)."""
    table = _running(conn, table_id)
    if table.seat_of(user_id) is not None:
        raise TableError(
            "You are playing at this table, so you cancel it as a player: abort it before "
            "every player has moved, or offer the others to cancel."
        )
    return _close(conn, table, "moderator", user_id, moment)


def offer_cancel(conn: Connection, table_id: int, user_id: int, moment: datetime) -> CancelOffer:
    """A player asks the others to end the game by agreement (once every seat has moved)."""
    table = _running(conn, table_id)
    seat = table.seat_of(user_id)
    if seat is None:
        raise TableError("Only the players at this table can offer to cancel it.")
    state = table.running_state()
    asked = [
        uid
        for n, uid in enumerate(table.seats)
        if uid != user_id and table.engine.is_playing(state, n)
    ]
    if not asked:
        raise TableError("Nobody else is playing this game: resign to end it.")
    machines = [uid for uid in asked if computers.is_computer(uid)]
    if machines:
        raise ComputerDeclines(
            f"🤖 {computers.name_of(machines[0])} declines: a computer plays every game it has "
            "started to its end. Resign to stop playing."
        )
    row = conn.execute(
        "SELECT id FROM cancel_offers WHERE table_id = ? AND status = 'open'", (table.id,)
    ).fetchone()
    if row is not None:
        offer = _require(conn, int(row[0]))
        if user_id in offer.waiting:
            raise TableError("The others already asked to cancel: answer their offer above.")
        raise TableError("You have already offered to cancel; the others have not all answered.")
    now = clock.stamp(moment)
    cur = conn.execute(
        "INSERT INTO cancel_offers (table_id, host_id, waiting, expires_at, created_at,"
        " updated_at) VALUES (?, ?, ?, ?, ?, ?)",
        (
            table.id,
            user_id,
            ",".join(str(uid) for uid in dict.fromkeys(asked)),
            clock.stamp(moment + OFFER_WAIT),
            now,
            now,
        ),
    )
    assert cur.lastrowid is not None
    return _require(conn, cur.lastrowid)


def answer_cancel(
    conn: Connection, offer_id: int, user_id: int, yes: bool, moment: datetime
) -> CancelOutcome:
    """Record an answer: a no ends the offer; the last yes closes the game by agreement."""
    offer = _require(conn, offer_id)
    if offer.status != "open":
        raise TableError(CLOSED[offer.status].replace(": the game is on", ""))
    now = clock.stamp(moment)
    if offer.expires_at <= now:
        raise TableError(CLOSED["expired"])
    table = require(conn, offer.table_id)
    if table.status != "running":
        conn.execute(
            "UPDATE cancel_offers SET status = 'expired', updated_at = ? WHERE id = ?",
            (now, offer.id),
        )
        raise TableError("This game has ended already, so there is nothing to cancel.")
    if user_id not in offer.waiting:
        if user_id == offer.host_id or table.seat_of(user_id) is not None:
            raise TableError("You have already answered this offer.")
        raise TableError("This offer is not for you.")
    if not yes:
        conn.execute(
            "UPDATE cancel_offers SET status = 'declined', updated_at = ? WHERE id = ?",
            (now, offer.id),
        )
        return CancelOutcome(_require(conn, offer.id))
    waiting = [uid for uid in offer.waiting if uid != user_id]
    conn.execute(
        "UPDATE cancel_offers SET waiting = ?, updated_at = ? WHERE id = ?",
        (",".join(str(uid) for uid in waiting), now, offer.id),
    )
    if waiting:
        return CancelOutcome(_require(conn, offer.id))
    closed = _close(conn, table, "agreed", offer.host_id, moment)
    conn.execute(
        "UPDATE cancel_offers SET status = 'accepted', updated_at = ? WHERE id = ?",
        (now, offer.id),
    )
    return CancelOutcome(_require(conn, offer.id), closed)


def claim(
    conn: Connection, table_id: int, user_id: int, moment: datetime, draw: bool = False
) -> tuple[TableRecord, list[Event], int]:
    """``user_id`` claims a game without a clock whose seat to act has been away long enough:
    that seat forfeits (the result, and its rating, as for a resignation), or with ``draw``, in
    a game whose rules have drawn results (``About.draws``), the game ends drawn (rated as a
    draw). Returns the table, the events and the user who abandoned it."""
    table = _running(conn, table_id)
    if draw and not table.engine.about.draws:
        raise TableError(
            f"{table.engine.title} has no drawn result, so a draw cannot be claimed: "
            "claim the win instead."
        )
    seat = table.seat_of(user_id)
    if seat is None:
        raise TableError("Only the players at this table can claim it.")
    at = claimable_at(table)
    if at is None:
        raise TableError(
            "This game is on a clock: a player who does not move loses on time, so there is "
            "nothing to claim."
        )
    state = table.running_state()
    to_act = table.engine.to_act(state)
    if to_act is None:
        raise TableError("Nobody is to move at this table.")
    absent = table.seats[to_act]
    if absent == user_id:
        raise TableError("It is your move: the others may claim when you are away, not you.")
    if not table.engine.is_playing(state, seat):
        raise TableError("You are out of this game already, so you cannot claim it.")
    if computers.is_computer(absent):
        raise TableError("A computer is to move; it never abandons a game.")
    if clock.stamp(moment) < at:
        raise ClaimTooEarly(at)
    action = drawn_claim(user_id) if draw else resignation("claim", user_id)
    after, events, _ = apply_action(
        conn, table.id, absent, action, table.ply, moment, automatic=True
    )
    return after, events, absent


def expire_cancels(
    conn: Connection, moment: datetime, limit: int, shards: Shards | None = None
) -> list[CancelOffer]:
    """Close the open cancel offers whose time is up (with ``shards``: of tables in a server on
    one of those shards); returns them as closed."""
    joined = "JOIN tables AS t ON t.id = x.table_id"
    ids = expire_due(conn, "cancel_offers", moment, limit, shards, joined=joined)
    return [_require(conn, offer_id) for offer_id in ids]


def load(conn: Connection, offer_id: int) -> CancelOffer | None:
    row = conn.execute("SELECT * FROM cancel_offers WHERE id = ?", (offer_id,)).fetchone()
    if row is None:
        return None
    waiting = str(row["waiting"])
    return CancelOffer(
        id=int(row["id"]),
        table_id=int(row["table_id"]),
        host_id=int(row["host_id"]),
        waiting=tuple(int(uid) for uid in waiting.split(",") if uid),
        status=row["status"],
        message_channel_id=row["message_channel_id"],
        message_id=row["message_id"],
        expires_at=str(row["expires_at"]),
    )


def _require(conn: Connection, offer_id: int) -> CancelOffer:
    offer = load(conn, offer_id)
    if offer is None:
        raise TableError("That offer no longer exists.")
    return offer


class Endings(StoreBase):
    """Aborts, agreed ends, moderators' cancels and claims: each one transaction."""

    async def abort(self, table_id: int, user_id: int) -> TableRecord:
        moment = self._moment()
        return await self._write(lambda conn: abort(conn, table_id, user_id, moment))

    async def moderator_cancel(self, table_id: int, user_id: int) -> TableRecord:
        moment = self._moment()
        return await self._write(lambda conn: moderate(conn, table_id, user_id, moment))

    async def everyone_moved(self, table: TableRecord) -> bool:
        return await self._db.read(lambda conn: everyone_moved(conn, table))

    async def offer_cancel(self, table_id: int, user_id: int) -> CancelOffer:
        moment = self._moment()
        return await self._write(lambda conn: offer_cancel(conn, table_id, user_id, moment))

    async def answer_cancel(self, offer_id: int, user_id: int, yes: bool) -> CancelOutcome:
        moment = self._moment()
        return await self._write(lambda conn: answer_cancel(conn, offer_id, user_id, yes, moment))

    async def set_cancel_message(self, offer_id: int, channel_id: int, message_id: int) -> None:
        """Remember the message that carries a cancel offer's Accept / Decline buttons."""
        await self._execute(
            "UPDATE cancel_offers SET message_channel_id = ?, message_id = ? WHERE id = ?",
            (channel_id, message_id, offer_id),
        )

    async def claim(
        self, table_id: int, user_id: int, draw: bool = False
    ) -> tuple[TableRecord, list[Event], int]:
        moment = self._moment()
        return await self._write(lambda conn: claim(conn, table_id, user_id, moment, draw))

    async def expire_cancel_offers(
        self, limit: int = 100, *, shards: Shards | None = None
    ) -> list[CancelOffer]:
        moment = self._moment()
        return await self._write(lambda conn: expire_cancels(conn, moment, limit, shards))


__all__ = [
    "CancelOffer",
    "CancelOutcome",
    "ClaimTooEarly",
    "ComputerDeclines",
    "Endings",
    "claimable_at",
    "everyone_moved",
]
