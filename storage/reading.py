"""The store's reads of tables and their logs: a table by id or channel, its actions, the
history shown beside a position (kept in memory for the tables drawn last), the newest version
of a table and whom to deliver it to (the hot path of every move), a player's open tables and
turns, and a replay from the seed.
"""

from __future__ import annotations

from typing import Any

from engine import chance
from engine.rules import State
from storage import computers, records, tails
from storage.base import StoreBase
from storage.database import Connection
from storage.records import (
    ActionRecord,
    CorruptTable,
    DmMode,
    DmTarget,
    TableError,
    TableRecord,
    dm_panel_key,
    load_table,
    open_table_in,
    read_actions,
    seats_of,
    table_record,
)
from storage.tables import perform
from storage.tails import TAIL_KEPT, RawRow, decode, raw_row


def read_raw(conn: Connection, sql: str, params: tuple[Any, ...]) -> list[RawRow]:
    """Log rows as :class:`~storage.tails.KeptTails` keeps them."""
    return [raw_row(row) for row in conn.execute(sql, params).fetchall()]


class Reading(StoreBase):
    """Tables and their logs, as stored."""

    async def get_table(self, table_id: int) -> TableRecord | None:
        return await self._read_near(lambda conn: load_table(conn, table_id))

    async def open_table_in(self, channel_id: int) -> TableRecord | None:
        return await self._read_near(lambda conn: open_table_in(conn, channel_id))

    async def actions(self, table_id: int) -> list[ActionRecord]:
        sql = "SELECT * FROM actions WHERE table_id = ? ORDER BY ply"
        return await self._read(lambda conn: read_actions(conn, sql, (table_id,)))

    async def recent_actions(self, table_id: int, limit: int) -> list[ActionRecord]:
        """The last ``limit`` logged actions of a table, oldest first."""
        sql = "SELECT * FROM actions WHERE table_id = ? ORDER BY ply DESC LIMIT ?"
        rows = await self._read(lambda conn: read_actions(conn, sql, (table_id, limit)))
        return rows[::-1]

    async def log_tail(self, table: TableRecord, limit: int = TAIL_KEPT) -> list[ActionRecord]:
        """The last ``limit`` actions logged before ``table``'s ply, oldest first: the history
        shown beside that position.

        Logged actions never change, so each table's last :data:`~storage.tails.TAIL_KEPT` are
        kept in memory (:class:`~storage.tails.KeptTails`) and only the actions logged since are
        read: the table message and every panel of one move share one short read, and a move
        this process wrote reads nothing. Safe with several processes on one database, since the
        position's ply bounds what is read."""
        ply = table.ply
        latest = "SELECT * FROM actions WHERE table_id = ? AND ply < ? ORDER BY ply DESC LIMIT ?"
        if limit > tails.TAIL_KEPT:  # longer than what is kept: read, and not kept
            found = await self._read(
                lambda conn: read_actions(conn, latest, (table.id, ply, limit))
            )
            return found[::-1]
        kept = self._tails.at(table.id, ply)
        if kept is None:
            since = self._tails.ply(table.id)
            if since is not None and since < ply <= since + tails.TAIL_KEPT:
                sql = (
                    "SELECT * FROM actions WHERE table_id = ? AND ply >= ? AND ply < ? ORDER BY ply"
                )
                newer = await self._read_near(
                    lambda conn: read_raw(conn, sql, (table.id, since, ply))
                )
                rows = (*self._tails.rows(table.id), *newer)
            else:
                last = await self._read_near(
                    lambda conn: read_raw(conn, latest, (table.id, ply, tails.TAIL_KEPT))
                )
                rows = tuple(last[::-1])
            self._tails.keep(table.id, ply, rows)
            kept = self._tails.at(table.id, ply)
            if kept is None:  # a later position's history is kept: this one's is decoded apart
                kept = decode(table.id, rows[-tails.TAIL_KEPT :])
        return list(kept[-limit:]) if limit else []

    async def newest(self, table: TableRecord) -> TableRecord | None:
        """The table as stored now: ``table`` itself when its version is still the stored one
        (one indexed lookup, nothing decoded), else read again; None once it is gone."""
        return await self._read_near(lambda conn: records.newest(conn, table))

    async def delivery_targets(
        self, table: TableRecord
    ) -> tuple[TableRecord | None, dict[int, DmTarget]]:
        """In one read: the newest table (as :meth:`newest`), and for each human seat its DM
        mode and stored DM panel (what refreshing the panels and pinging need)."""

        def run(conn: Connection) -> tuple[TableRecord | None, dict[int, DmTarget]]:
            newest = records.newest(conn, table)
            if newest is None:
                return None, {}
            users = [uid for uid in dict.fromkeys(newest.seats) if not computers.is_computer(uid)]
            modes: dict[int, DmMode] = {}
            if users:
                marks = ", ".join("?" * len(users))
                rows = conn.execute(
                    f"SELECT user_id, dm_mode FROM players WHERE user_id IN ({marks})",
                    tuple(users),
                ).fetchall()
                modes = {int(uid): mode for uid, mode in rows}
            panels = {
                int(uid): (int(channel), int(message))
                for uid, channel, message in conn.execute(
                    "SELECT user_id, channel_id, message_id FROM dm_panels WHERE table_id = ?",
                    (table.id,),
                ).fetchall()
            }
            return newest, {uid: DmTarget(modes.get(uid) or "on", panels.get(uid)) for uid in users}

        newest, targets = await self._read_near(run)
        for uid, target in targets.items():  # panels sent since, not yet written
            key = dm_panel_key(table.id, uid)
            if self._db.has_unwritten(key):
                targets[uid] = DmTarget(target.mode, self._db.unwritten(key))
        return newest, targets

    async def open_tables_of(self, user_id: int) -> list[TableRecord]:
        """Open tables where this user holds a seat (unreadable ones are left out)."""

        def run(conn: Connection) -> list[TableRecord]:
            rows = conn.execute(
                "SELECT tables.* FROM seats JOIN tables ON tables.id = seats.table_id"
                " WHERE seats.user_id = ? AND tables.status IN ('lobby', 'running')"
                " GROUP BY tables.id ORDER BY tables.id",
                (user_id,),
            ).fetchall()
            found = []
            for row in rows:
                try:
                    found.append(table_record(row, seats_of(conn, row["id"])))
                except CorruptTable:
                    continue
            return found

        return await self._db.read(run)

    async def count_open_tables(self) -> dict[str, int]:
        """How many tables are open, by status: ``{"lobby": n, "running": m}`` (for metrics)."""

        def run(conn: Connection) -> dict[str, int]:
            rows = conn.execute(
                "SELECT status, COUNT(*) FROM tables WHERE status IN ('lobby', 'running')"
                " GROUP BY status"
            ).fetchall()
            counts = {"lobby": 0, "running": 0}
            counts.update({str(status): int(count) for status, count in rows})
            return counts

        return await self._db.read(run)

    async def turns_of(self, user_id: int) -> list[TableRecord]:
        """Running tables, in every server, where it is this user's turn: the most urgent
        deadline first, tables without a clock last."""
        tables = [t for t in await self.open_tables_of(user_id) if t.status == "running"]
        mine = []
        for table in tables:
            seat = table.engine.to_act(table.running_state())
            if seat is not None and table.seats[seat] == user_id:
                mine.append(table)
        return sorted(mine, key=lambda t: (t.deadline is None, t.deadline or "", t.id))

    async def replay(self, table_id: int, upto: int | None = None) -> State:
        """Rebuild a table's state from its seed and action log (it equals the stored state),
        or with ``upto`` the state after its first ``upto`` actions."""
        table = await self._require(table_id)
        game = table.engine
        scheme = chance.scheme_of(table.state)
        state = chance.deal(game, len(table.seats), table.options, table.seed, scheme=scheme)
        for record in (await self.actions(table_id))[:upto]:
            state, _ = perform(game, state, record.seat, record.action, table.seed, record.ply)
        return state

    async def _require(self, table_id: int) -> TableRecord:
        table = await self.get_table(table_id)
        if table is None:
            raise TableError("That table no longer exists.")
        return table


__all__ = ["Reading"]
