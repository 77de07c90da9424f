"""Servers the bot was removed from (issue 28): their open tables close at once, and everything of
the server is deleted once the time it is kept for has passed, unless the bot is added back
first (then everything is as it was, but for the tables that closed).

What "everything of the server" is comes from the declaration of :mod:`storage.kept` (each
table's ``server`` clause), deleted children first, in one transaction per server. The sweeper
(cogs/clockwork.py) asks for the deletions due; the store's clock says when they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from storage import clock
from storage.base import StoreBase
from storage.database import Connection
from storage.kept import KEPT, params
from storage.records import CorruptTable, TableRecord, require
from storage.tables import cancel


@dataclass(frozen=True)
class Departure:
    """A server the bot left: the tables that closed, and when its data goes."""

    closed: tuple[TableRecord, ...]
    delete_at: str


def depart(conn: Connection, guild_id: int, moment: datetime, keep_for: timedelta) -> Departure:
    """Close the server's open tables, offers, open challenges and tournaments and plan the
    deletion of its data (a second removal keeps the first date)."""
    now = clock.stamp(moment)
    closed = []
    rows = conn.execute(
        "SELECT id FROM tables WHERE guild_id = ? AND status IN ('lobby', 'running') ORDER BY id",
        (guild_id,),
    ).fetchall()
    for (table_id,) in rows:
        cancel(conn, int(table_id), now)
        try:
            closed.append(require(conn, int(table_id)))
        except CorruptTable:
            continue
    conn.execute(
        "UPDATE offers SET status = 'expired', updated_at = ?"
        " WHERE guild_id = ? AND status = 'open'",
        (now, guild_id),
    )
    conn.execute(
        "UPDATE seeks SET status = 'expired', updated_at = ?"
        " WHERE guild_id = ? AND status = 'open'",
        (now, guild_id),
    )
    conn.execute(  # a tournament there stops (its tables were cancelled above)
        "UPDATE tournaments SET status = 'cancelled', ended_reason = 'the bot left the server',"
        " version = version + 1, updated_at = ? WHERE guild_id = ? AND status IN"
        " ('open', 'running')",
        (now, guild_id),
    )
    conn.execute(
        "INSERT INTO guild_departures (guild_id, left_at, delete_at) VALUES (?, ?, ?)"
        " ON CONFLICT (guild_id) DO NOTHING",
        (guild_id, now, clock.stamp(moment + keep_for)),
    )
    (delete_at,) = conn.execute(
        "SELECT delete_at FROM guild_departures WHERE guild_id = ?", (guild_id,)
    ).fetchone()
    return Departure(tuple(closed), str(delete_at))


def delete_server(conn: Connection, guild_id: int) -> None:
    """Every row of the server, children first."""
    for name, kept in KEPT.items():
        if kept.server is not None:
            conn.execute(f"DELETE FROM {name} WHERE {kept.server}", params(kept.server, guild_id))


def delete_due(conn: Connection, now: str) -> list[int]:
    """Delete the servers whose time is up; returns their ids. The departure row goes first, so
    two sweepers (processes) delete a server once."""
    rows = conn.execute(
        "SELECT guild_id FROM guild_departures WHERE delete_at <= ? ORDER BY delete_at", (now,)
    ).fetchall()
    deleted = []
    for (guild_id,) in rows:
        cur = conn.execute("DELETE FROM guild_departures WHERE guild_id = ?", (guild_id,))
        if cur.rowcount == 1:
            delete_server(conn, int(guild_id))
            deleted.append(int(guild_id))
    return deleted


class Departures(StoreBase):
    """Servers the bot was removed from."""

    async def guild_left(self, guild_id: int, keep_for: timedelta) -> Departure:
        moment = self._moment()
        return await self._write(lambda conn: depart(conn, guild_id, moment, keep_for))

    async def guild_returned(self, guild_id: int) -> bool:
        """The bot is back before the deletion: cancel it. ``False``: none was planned."""

        def run(conn: Connection) -> bool:
            cur = conn.execute("DELETE FROM guild_departures WHERE guild_id = ?", (guild_id,))
            return cur.rowcount == 1

        return await self._write(run)

    async def departure(self, guild_id: int) -> str | None:
        """When the server's data is deleted, if the bot left it."""
        value = await self._db.scalar(
            "SELECT delete_at FROM guild_departures WHERE guild_id = ?", (guild_id,)
        )
        return None if value is None else str(value)

    async def departed_guilds(self) -> set[int]:
        """The servers whose data waits to be deleted."""

        def run(conn: Connection) -> set[int]:
            rows = conn.execute("SELECT guild_id FROM guild_departures").fetchall()
            return {int(row[0]) for row in rows}

        return await self._db.read(run)

    async def delete_departed(self) -> list[int]:
        """The sweeper's: delete the data of every server whose time is up."""
        now = self._now()
        deleted = await self._write(lambda conn: delete_due(conn, now))
        if deleted:
            self._tails.clear()
        return deleted


__all__ = ["Departure", "Departures", "delete_due", "delete_server", "depart"]
