"""Offers, on the database thread (sqlite3-style calls on
either database): challenges and rematches that start a game
once every player has said yes.

An offer is one ``offers`` row and one ``offer_seats`` row per seat of the game it would start,
each with that player's answer. The one who makes it has said yes. Each function here is the
body of one write transaction: answering the last seat and creating the table commit together
(through :func:`storage.tables.new_table`), so two accepts at the same instant start one game. An
open offer expires after :data:`OFFER_WAIT`; the sweeper closes those due with :func:`expire`.
:class:`Offers` is the store's side of them (what the front ends await).
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from engine import get_game
from engine.rules import JSON, resolve_options
from storage import clock, computers, records, tables
from storage.base import StoreBase
from storage.database import Connection
from storage.expiry import expire_due
from storage.shards import Shards

OFFER_WAIT = timedelta(hours=24)
Kind = Literal["challenge", "rematch"]
OfferStatus = Literal["open", "accepted", "declined", "expired"]
CLOSED = {
    "accepted": "This offer was already accepted: the game is on.",
    "declined": "This offer was declined.",
    "expired": "This offer has expired; make a new one.",
}


@dataclass(frozen=True)
class OfferRecord:
    id: int
    kind: Kind
    guild_id: int | None
    channel_id: int
    game: str
    options: dict[str, JSON]
    time_control: str
    host_id: int
    rematch_of: int | None
    status: OfferStatus
    table_id: int | None
    message_channel_id: int | None
    message_id: int | None
    expires_at: str
    seats: tuple[int, ...]
    answers: tuple[str | None, ...]

    def waiting_for(self) -> tuple[int, ...]:
        """The players who have not answered yet (each once)."""
        return tuple(
            dict.fromkeys(u for u, a in zip(self.seats, self.answers, strict=True) if a is None)
        )


@dataclass(frozen=True)
class OfferOutcome:
    """What an answer did: the offer as it now stands, and the game it started, if any."""

    offer: OfferRecord
    table: records.TableRecord | None = None


def challenge(
    conn: Connection,
    *,
    guild_id: int | None,
    channel_id: int,
    game: str,
    options: dict[str, JSON],
    time_control: str,
    challenger: int,
    challenged: int,
    moment: datetime,
) -> OfferRecord:
    """A challenge from ``challenger`` to ``challenged``: a two-player game, challenger first."""
    if challenger == challenged:
        raise records.TableError("You cannot challenge yourself; open a table with /play.")
    engine = get_game(game)
    if engine.max_seats == 1:
        raise records.TableError(f"{engine.title} is a solo game: start it with /play.")
    if not engine.min_seats <= 2 <= engine.max_seats:
        raise records.TableError(f"{engine.title} is not a game for two players.")
    clock.per_move(time_control)  # refuses an unknown control before anything is written
    existing = records.open_table_in(conn, channel_id)
    if existing is not None:
        raise records.TableError(
            "This channel already has an open table. Challenge from a thread (each thread is "
            "a channel of its own), or once the table is closed."
        )
    row = conn.execute(
        "SELECT offers.id FROM offers JOIN offer_seats AS them ON them.offer_id = offers.id"
        " WHERE offers.status = 'open' AND offers.kind = 'challenge' AND offers.host_id = ?"
        " AND offers.channel_id = ? AND them.user_id = ?",
        (challenger, channel_id, challenged),
    ).fetchone()
    if row is not None:
        raise records.TableError(
            "You have already challenged this player here; wait for their answer."
        )
    return _insert(
        conn,
        kind="challenge",
        guild_id=guild_id,
        channel_id=channel_id,
        game=game,
        options=options,
        time_control=time_control,
        host_id=challenger,
        rematch_of=None,
        seats=(challenger, challenged),
        moment=moment,
    )


def rematch(
    conn: Connection, table_id: int, user_id: int, moment: datetime, seed: int
) -> OfferOutcome:
    """``user_id`` asks for a rematch of a finished table: the same seats, options (as the
    game's ``rematch_options`` has them) and time control. A second click on Rematch while an
    offer is open answers yes to it; a game where the asker holds every seat starts at once."""
    old = records.require(conn, table_id)
    if old.seat_of(user_id) is None:
        raise records.TableError("Only the players of this game can ask for a rematch.")
    if old.status != "over" or old.result is None:
        raise records.TableError("The game is not over yet.")
    row = conn.execute(
        "SELECT id FROM offers WHERE rematch_of = ? AND status = 'open'", (table_id,)
    ).fetchone()
    if row is not None:
        return answer(conn, int(row[0]), user_id, True, moment, seed)
    offer = _insert(
        conn,
        kind="rematch",
        guild_id=old.guild_id,
        channel_id=old.channel_id,
        game=old.game,
        options=old.engine.rematch_options(old.options, old.result),
        time_control=old.time_control,
        host_id=user_id,
        rematch_of=old.id,
        seats=old.seats,
        moment=moment,
    )
    return _start_if_agreed(conn, offer, moment, seed)


def answer(
    conn: Connection,
    offer_id: int,
    user_id: int,
    yes: bool,
    moment: datetime,
    seed: int,
) -> OfferOutcome:
    """Record ``user_id``'s answer. A no ends the offer; the last yes starts the game, in this
    transaction (a channel that has an open table refuses, and the offer stays open)."""
    offer = load(conn, offer_id)
    if offer is None:
        raise records.TableError("That offer no longer exists.")
    if offer.status != "open":
        raise records.TableError(CLOSED[offer.status])
    if offer.expires_at <= clock.stamp(moment):
        raise records.TableError(CLOSED["expired"])
    if user_id not in offer.seats:
        raise records.TableError("This offer is not for you.")
    if user_id not in offer.waiting_for():
        raise records.TableError("You have already answered this offer.")
    now = clock.stamp(moment)
    conn.execute(
        "UPDATE offer_seats SET answer = ? WHERE offer_id = ? AND user_id = ?",
        ("yes" if yes else "no", offer.id, user_id),
    )
    if not yes:
        conn.execute(
            "UPDATE offers SET status = 'declined', updated_at = ? WHERE id = ?", (now, offer.id)
        )
        return OfferOutcome(_require(conn, offer.id))
    return _start_if_agreed(conn, _require(conn, offer.id), moment, seed)


def expire(
    conn: Connection, moment: datetime, limit: int, shards: Shards | None = None
) -> list[OfferRecord]:
    """Close every open offer whose time is up (with ``shards``: made in a server on one of
    those shards); returns them as closed."""
    ids = expire_due(conn, "offers", moment, limit, shards)
    return [_require(conn, offer_id) for offer_id in ids]


def set_message(
    conn: Connection, offer_id: int, channel_id: int | None, message_id: int | None
) -> None:
    conn.execute(
        "UPDATE offers SET message_channel_id = ?, message_id = ? WHERE id = ?",
        (channel_id, message_id, offer_id),
    )


def load(conn: Connection, offer_id: int) -> OfferRecord | None:
    row = conn.execute("SELECT * FROM offers WHERE id = ?", (offer_id,)).fetchone()
    if row is None:
        return None
    seats = conn.execute(
        "SELECT user_id, answer FROM offer_seats WHERE offer_id = ? ORDER BY seat", (offer_id,)
    ).fetchall()
    return OfferRecord(
        id=int(row["id"]),
        kind=row["kind"],
        guild_id=row["guild_id"],
        channel_id=int(row["channel_id"]),
        game=row["game"],
        options=json.loads(row["options"]),
        time_control=row["time_control"],
        host_id=int(row["host_id"]),
        rematch_of=row["rematch_of"],
        status=row["status"],
        table_id=row["table_id"],
        message_channel_id=row["message_channel_id"],
        message_id=row["message_id"],
        expires_at=row["expires_at"],
        seats=tuple(int(s[0]) for s in seats),
        answers=tuple(s[1] for s in seats),
    )


def _require(conn: Connection, offer_id: int) -> OfferRecord:
    offer = load(conn, offer_id)
    if offer is None:
        raise records.TableError("That offer no longer exists.")
    return offer


def _insert(
    conn: Connection,
    *,
    kind: Kind,
    guild_id: int | None,
    channel_id: int,
    game: str,
    options: dict[str, JSON],
    time_control: str,
    host_id: int,
    rematch_of: int | None,
    seats: tuple[int, ...],
    moment: datetime,
) -> OfferRecord:
    now = clock.stamp(moment)
    cur = conn.execute(
        "INSERT INTO offers (kind, guild_id, channel_id, game, options, time_control, host_id,"
        " rematch_of, expires_at, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            kind,
            guild_id,
            channel_id,
            game,
            json.dumps(options),
            time_control,
            host_id,
            rematch_of,
            clock.stamp(moment + OFFER_WAIT),
            now,
            now,
        ),
    )
    assert cur.lastrowid is not None
    conn.executemany(
        "INSERT INTO offer_seats (offer_id, seat, user_id, answer) VALUES (?, ?, ?, ?)",
        [(cur.lastrowid, n, uid, _first_answer(uid, host_id)) for n, uid in enumerate(seats)],
    )
    return _require(conn, cur.lastrowid)


def _first_answer(user_id: int, host_id: int) -> str | None:
    """The asker has said yes, and so has every computer seat (a computer always plays again);
    the other players are asked."""
    return "yes" if user_id == host_id or computers.is_computer(user_id) else None


def _start_if_agreed(
    conn: Connection, offer: OfferRecord, moment: datetime, seed: int
) -> OfferOutcome:
    if offer.waiting_for():
        return OfferOutcome(offer)
    try:
        table = tables.new_table(
            conn,
            guild_id=offer.guild_id,
            channel_id=offer.channel_id,
            game=offer.game,
            options=offer.options,
            seed=seed,
            host_id=offer.host_id,
            seats=offer.seats,
            start=True,
            moment=moment,
            rematch_of=offer.rematch_of,
            time_control=offer.time_control,
        )
    except records.TableExists:
        raise records.TableError(
            "The channel has an open table now, so the game cannot start there yet; answer "
            "again once it is closed (the offer stays open until it expires)."
        ) from None
    conn.execute(
        "UPDATE offers SET status = 'accepted', table_id = ?, updated_at = ? WHERE id = ?",
        (table.id, clock.stamp(moment), offer.id),
    )
    return OfferOutcome(_require(conn, offer.id), table)


class Offers(StoreBase):
    """Challenges and rematches: each method runs this module's function of that name (or
    nearly) as one transaction."""

    async def challenge(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        game: str,
        challenger_id: int,
        challenged_id: int,
        options: Mapping[str, JSON] | None = None,
        time_control: str = clock.NONE,
    ) -> OfferRecord:
        """Offer ``challenged_id`` a two-player game here (``challenger_id`` has said yes)."""
        opts = resolve_options(get_game(game), options)
        moment = self._moment()

        def run(conn: Connection) -> OfferRecord:
            return challenge(
                conn,
                guild_id=guild_id,
                channel_id=channel_id,
                game=game,
                options=opts,
                time_control=time_control,
                challenger=challenger_id,
                challenged=challenged_id,
                moment=moment,
            )

        return await self._write(run)

    async def offer_rematch(self, table_id: int, user_id: int) -> OfferOutcome:
        """Ask for a rematch of a finished table, or say yes to the one already asked for."""
        moment, seed = self._moment(), random.SystemRandom().randrange(2**62)
        return await self._write(lambda conn: rematch(conn, table_id, user_id, moment, seed))

    async def answer_offer(self, offer_id: int, user_id: int, yes: bool) -> OfferOutcome:
        """Accept or decline an offer; the last yes starts the game in the same transaction."""
        moment, seed = self._moment(), random.SystemRandom().randrange(2**62)
        return await self._write(lambda conn: answer(conn, offer_id, user_id, yes, moment, seed))

    async def get_offer(self, offer_id: int) -> OfferRecord | None:
        return await self._db.read(lambda conn: load(conn, offer_id))

    async def set_offer_message(
        self, offer_id: int, channel_id: int | None, message_id: int | None
    ) -> None:
        """Remember the message that carries an offer's Accept / Decline buttons."""
        await self._write(lambda conn: set_message(conn, offer_id, channel_id, message_id))

    async def expire_offers(
        self, limit: int = 100, *, shards: Shards | None = None
    ) -> list[OfferRecord]:
        """Close the open offers whose time is up (the sweeper's); returns them. With
        ``shards``, only the offers made in the servers on those shards."""
        moment = self._moment()
        return await self._write(lambda conn: expire(conn, moment, limit, shards))


__all__ = [
    "OFFER_WAIT",
    "OfferOutcome",
    "OfferRecord",
    "Offers",
    "answer",
    "challenge",
    "expire",
    "rematch",
]
