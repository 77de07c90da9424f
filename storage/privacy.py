"""A player's data on request (issue 28): everything kept about them as JSON, and forgetting them.

Both follow the declaration of :mod:`storage.kept`. Forgetting is one transaction: the player's
running games are resigned (the results recorded as for any resignation), the lobbies they host
are cancelled and those they joined left, their open challenges withdrawn, their settings, DM
panels and offers are deleted, and their id in every game they played (seats, moves, results,
ratings, daily attempts, the challenges that opened games) becomes the id of a *former player*:
a random negative number (see :mod:`storage.computers`), one per forgotten player, never a
Discord id and linked to theirs nowhere, so the other players' games, histories and ratings stay
exactly as they were (a recompute gives the same boards).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from engine.rules import Event
from storage import clock, offers, tournaments
from storage.base import StoreBase
from storage.computers import FORMER_FLOOR
from storage.database import Connection
from storage.kept import KEPT, params
from storage.offers import OfferRecord
from storage.playing import apply_action
from storage.records import RESIGN, CorruptTable, TableRecord, require
from storage.tables import cancel, update_lobby

#: Tables whose rows forgetting handles by hand before the declared rules run: an offer goes
#: whole, with every seat of it.
_OFFERS = ("offer_seats", "offers")


@dataclass(frozen=True)
class Forgotten:
    """What forgetting a player did, for the messages that follow it."""

    former_id: int
    #: Running games the player resigned, as they stand after it, with what the resignation did.
    resigned: tuple[tuple[TableRecord, tuple[Event, ...]], ...]
    #: Tables whose seats changed (lobbies left or cancelled, games still going without them),
    #: as they stand now.
    changed: tuple[TableRecord, ...]
    #: Offers that were open (their messages still show Accept / Decline).
    withdrawn: tuple[OfferRecord, ...]
    #: The (channel id, message id) of the open challenges (seeks) they posted, now withdrawn.
    seeks: tuple[tuple[int, int], ...]
    #: The (DM channel id, message id) of the player's panels.
    panels: tuple[tuple[int, int], ...]


def export(conn: Connection, user_id: int) -> dict[str, list[dict[str, Any]]]:
    """Every row of every declared table that names ``user_id``, by table (a game's secrets
    left out: see :attr:`Kept.hidden`)."""
    found: dict[str, list[dict[str, Any]]] = {}
    for name, kept in KEPT.items():
        if kept.mine is None:
            continue
        rows = conn.execute(
            f"SELECT * FROM {name} WHERE {kept.mine} ORDER BY 1", params(kept.mine, user_id)
        ).fetchall()
        columns = [k for k in row_keys(rows) if k not in kept.hidden]
        found[name] = [{k: row[k] for k in columns} for row in rows]
    return found


def row_keys(rows: list[Any]) -> list[str]:
    """The column names of rows read by name (either backend's rows have ``keys()``)."""
    return list(rows[0].keys()) if rows else []


def new_former_id(conn: Connection) -> int:
    """A former player's id no seat or result holds yet."""
    while True:
        candidate = FORMER_FLOOR - secrets.randbelow(2**52)
        taken = conn.execute(
            "SELECT 1 FROM seats WHERE user_id = ? UNION ALL"
            " SELECT 1 FROM result_seats WHERE user_id = ?",
            (candidate, candidate),
        ).fetchone()
        if taken is None:
            return candidate


def forget(conn: Connection, user_id: int, moment: datetime) -> Forgotten:
    """Forget ``user_id`` (the body of one write transaction)."""
    now = clock.stamp(moment)
    _withdraw_from_tournaments(conn, user_id, moment)  # paired no more; their games resign below
    resigned = _resign_all(conn, user_id, moment)
    lobbies = _leave_lobbies(conn, user_id, now)
    withdrawn = _remove_offers(conn, user_id)
    seeks = tuple(
        (int(channel), int(message))
        for channel, message in conn.execute(
            "UPDATE seeks SET status = 'withdrawn', updated_at = ?"
            " WHERE status = 'open' AND author_id = ? RETURNING channel_id, message_id",
            (now, user_id),
        ).fetchall()
        if message is not None
    )
    panels = tuple(
        (int(channel), int(message))
        for channel, message in conn.execute(
            "SELECT channel_id, message_id FROM dm_panels WHERE user_id = ?", (user_id,)
        ).fetchall()
    )
    former = new_former_id(conn)
    for name, kept in KEPT.items():  # lists first: their rows are found through the others
        for column in kept.user_lists:
            assert kept.mine is not None and not kept.removed
            _replace_in_lists(conn, name, column, kept.mine, user_id, former)
    for name, kept in KEPT.items():
        if name in _OFFERS or kept.mine is None:
            continue
        if kept.removed:
            conn.execute(f"DELETE FROM {name} WHERE {kept.mine}", params(kept.mine, user_id))
            continue
        for column in kept.users:
            conn.execute(
                f"UPDATE {name} SET {column} = ? WHERE ({kept.mine}) AND {column} = ?",
                (former, *params(kept.mine, user_id), user_id),
            )
    # Seats live beside their table's row: bump the open tables' versions, so a writer holding
    # one in memory reads it again (see storage/playing.py).
    rows = conn.execute(
        "UPDATE tables SET updated_at = ? WHERE status IN ('lobby', 'running')"
        " AND id IN (SELECT table_id FROM seats WHERE user_id = ?) RETURNING id",
        (now, former),
    ).fetchall()
    changed = [_table(conn, tid) for tid in dict.fromkeys([*lobbies, *(int(r[0]) for r in rows)])]
    return Forgotten(
        former_id=former,
        resigned=tuple((_table(conn, table.id) or table, events) for table, events in resigned),
        changed=tuple(table for table in changed if table is not None),
        withdrawn=withdrawn,
        seeks=seeks,
        panels=panels,
    )


def _withdraw_from_tournaments(conn: Connection, user_id: int, moment: datetime) -> None:
    """Leave every tournament not yet started and withdraw from every running one, so a
    forgotten player is never paired again (their running games are resigned with the rest)."""
    for tid in tournaments.withdrawals_of(conn, None, user_id):
        tournaments.leave(conn, tid, user_id, moment)


def _table(conn: Connection, table_id: int) -> TableRecord | None:
    try:
        return require(conn, table_id)
    except CorruptTable:
        return None


def _resign_all(
    conn: Connection, user_id: int, moment: datetime
) -> list[tuple[TableRecord, tuple[Event, ...]]]:
    """Resign every running game where the player still plays, as the Resign button does."""
    done = []
    rows = conn.execute(
        "SELECT DISTINCT seats.table_id FROM seats JOIN tables ON tables.id = seats.table_id"
        " WHERE seats.user_id = ? AND tables.status = 'running' ORDER BY seats.table_id",
        (user_id,),
    ).fetchall()
    for (table_id,) in rows:
        table = _table(conn, int(table_id))
        if table is None:
            continue  # unreadable: only its id is replaced below
        seat = table.seat_of(user_id)
        if seat is None or not table.engine.is_playing(table.running_state(), seat):
            continue
        after, events, _ = apply_action(conn, table.id, user_id, RESIGN, table.ply, moment)
        done.append((after, tuple(events)))
    return done


def _leave_lobbies(conn: Connection, user_id: int, now: str) -> list[int]:
    """Cancel the lobbies the player hosts; leave those they joined. Returns their ids."""
    rows = conn.execute(
        "SELECT id FROM tables WHERE status = 'lobby'"
        " AND (host_id = ? OR id IN (SELECT table_id FROM seats WHERE user_id = ?))",
        (user_id, user_id),
    ).fetchall()
    for (table_id,) in rows:
        table = _table(conn, int(table_id))
        if table is None or table.host_id == user_id:
            cancel(conn, int(table_id), now)
            continue
        update_lobby(conn, table, tuple(s for s in table.seats if s != user_id), now)
    return [int(row[0]) for row in rows]


def _remove_offers(conn: Connection, user_id: int) -> tuple[OfferRecord, ...]:
    """Delete every offer the player made or was sent (each whole); returns those still open."""
    mine = KEPT["offers"].mine
    assert mine is not None
    ids = [
        int(row[0])
        for row in conn.execute(
            f"SELECT id FROM offers WHERE {mine} ORDER BY id", params(mine, user_id)
        ).fetchall()
    ]
    open_offers = []
    for offer_id in ids:
        offer = offers.load(conn, offer_id)
        if offer is not None and offer.status == "open":
            open_offers.append(offer)
        conn.execute("DELETE FROM offer_seats WHERE offer_id = ?", (offer_id,))
        conn.execute("DELETE FROM offers WHERE id = ?", (offer_id,))
    return tuple(open_offers)


def _replace_in_lists(
    conn: Connection, name: str, column: str, mine: str, user_id: int, former: int
) -> None:
    """Put ``former`` for ``user_id`` in a column of sorted comma-separated ids, in a table keyed
    by ``table_id`` (kept sorted, so equal lists stay equal)."""
    rows = conn.execute(
        f"SELECT table_id, {column} FROM {name} WHERE {mine}", params(mine, user_id)
    ).fetchall()
    for key, text in rows:
        ids = sorted(former if int(part) == user_id else int(part) for part in str(text).split(","))
        conn.execute(
            f"UPDATE {name} SET {column} = ? WHERE table_id = ?",
            (",".join(map(str, ids)), key),
        )


class Privacy(StoreBase):
    """A player's data: the export, and forgetting them."""

    async def export_player(self, user_id: int) -> dict[str, list[dict[str, Any]]]:
        await self._db.flush_later()  # (a DM panel sent a moment ago is theirs too)
        return await self._read(lambda conn: export(conn, user_id))

    async def forget_player(self, user_id: int) -> Forgotten:
        """Forget ``user_id`` in one transaction (see the module's docstring)."""
        moment = self._moment()
        forgotten = await self._write(lambda conn: forget(conn, user_id, moment))
        self._tails.clear()  # the log kept in memory names them
        return forgotten

    async def schema_columns(self) -> dict[str, tuple[str, ...]]:
        """Every table of the live schema and its columns (what :data:`KEPT` must declare)."""

        def run(conn: Connection) -> dict[str, tuple[str, ...]]:
            if self._db.migrations_folder == "migrations_pg":
                rows = conn.execute(
                    "SELECT table_name, column_name FROM information_schema.columns"
                    " WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
                ).fetchall()
            else:
                rows = conn.execute(
                    "SELECT m.name, p.name FROM sqlite_master AS m, pragma_table_info(m.name) AS p"
                    " WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, p.cid"
                ).fetchall()
            found: dict[str, list[str]] = {}
            for table, column in rows:
                found.setdefault(str(table), []).append(str(column))
            return {table: tuple(columns) for table, columns in found.items()}

        return await self._db.read(run)


__all__ = ["Forgotten", "Privacy", "export", "forget", "new_former_id"]
