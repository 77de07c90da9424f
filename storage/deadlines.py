"""Clocks: deadlines, reminders and the AFK ladder. The sweeper asks what is due, reminds the
seat to act once per move, and acts on a missed deadline through the same transaction and ply
check as a click; after a restart the open deadlines move on by the time the bot was away.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from storage import clock
from storage.base import StoreBase
from storage.database import Connection
from storage.playing import apply_action
from storage.records import (
    CorruptTable,
    TableRecord,
    Timeout,
    require,
    resignation,
)
from storage.shards import Shards
from storage.shards import condition as shard_condition
from storage.tables import cancel


class Deadlines(StoreBase):
    """What the sweeper reads and writes."""

    async def due(self, limit: int = 100, *, shards: Shards | None = None) -> list[tuple[int, int]]:
        """Open tables whose deadline has passed, oldest first: ``(table id, ply)``; with
        ``shards``, only those of the servers on those shards."""
        now = self._now()
        mine, params = shard_condition(shards)

        def run(conn: Connection) -> list[tuple[int, int]]:
            rows = conn.execute(
                "SELECT id, ply FROM tables WHERE deadline IS NOT NULL AND deadline <= ?"
                f"{mine} ORDER BY deadline LIMIT ?",
                (now, *params, limit),
            ).fetchall()
            return [(int(tid), int(ply)) for tid, ply in rows]

        return await self._db.read(run)

    async def reminders_due(
        self, limit: int = 100, *, shards: Shards | None = None
    ) -> list[TableRecord]:
        """Running tables whose seat to act has used 80 % of its time and was not reminded;
        with ``shards``, only those of the servers on those shards."""
        now = self._now()
        mine, params = shard_condition(shards)

        def run(conn: Connection) -> list[TableRecord]:
            rows = conn.execute(
                "SELECT id FROM tables WHERE remind_at IS NOT NULL AND remind_at <= ?"
                f" AND status = 'running'{mine} ORDER BY remind_at LIMIT ?",
                (now, *params, limit),
            ).fetchall()
            found = []
            for (table_id,) in rows:
                try:
                    found.append(require(conn, int(table_id)))
                except CorruptTable:
                    continue
            return found

        return await self._read(run)

    async def mark_reminded(self, table_id: int, ply: int) -> bool:
        """Note that the seat to act at ``ply`` was reminded; ``False`` if someone else did, or
        the move was made meanwhile (so one reminder per move, also across processes)."""

        def run(conn: Connection) -> bool:
            cur = conn.execute(
                "UPDATE tables SET remind_at = NULL WHERE id = ? AND ply = ?"
                " AND remind_at IS NOT NULL",
                (table_id, ply),
            )
            return cur.rowcount == 1

        return await self._write(run)

    async def time_out(self, table_id: int, expected_ply: int) -> Timeout | None:
        """Act on a missed deadline, through the same transaction and ply check as a click (so
        a click and a timeout at the same instant apply exactly once): a lobby nobody started
        closes; the seat to act gets its game's safe automatic move, or forfeits once it has
        missed ``forfeit_after`` deadlines (at once where the game has no safe move). ``None``
        when nothing was due any more (a move, a start or another sweeper came first)."""
        moment = self._moment()

        def run(conn: Connection) -> Timeout | None:
            now = clock.stamp(moment)
            table = require(conn, table_id)
            if (
                not table.is_open
                or table.deadline is None
                or table.deadline > now
                or table.ply != expected_ply
            ):
                return None
            if table.status == "lobby":
                cancel(conn, table.id, now)
                closed = replace(table, status="cancelled", deadline=None, remind_at=None)
                return Timeout(closed, [], "lobby_expired", None, None, 0, table.deadline)
            game = table.engine
            state = table.running_state()
            seat = game.to_act(state)
            assert seat is not None
            user = table.seats[seat]
            (misses,) = conn.execute(
                "UPDATE seats SET misses = misses + 1 WHERE table_id = ? AND seat = ?"
                " RETURNING misses",
                (table.id, seat),
            ).fetchone()
            safe = game.safe_action(state, seat) if misses < table.forfeit_after else None
            rung = "auto_move" if safe is not None else "forfeit"
            after, events, _ = apply_action(
                conn, table.id, user, safe or resignation("time"), table.ply, moment, automatic=True
            )
            return Timeout(after, events, rung, seat, user, int(misses), table.deadline)

        return await self._write(run)

    async def catch_up(self, interval: timedelta) -> timedelta:
        """At start-up: shift every open deadline by the time the sweeper was away (beyond one
        ``interval``), so nobody loses on time because the bot was down. Returns the shift."""
        moment = self._moment()

        def run(conn: Connection) -> timedelta:
            row = conn.execute("SELECT value FROM meta WHERE key = 'heartbeat'").fetchone()
            shift = timedelta(0)
            if row is not None:
                shift = moment - datetime.fromisoformat(str(row[0])) - interval
            if shift > timedelta(0):
                for column in ("deadline", "remind_at"):
                    rows = conn.execute(
                        f"SELECT id, {column} FROM tables WHERE {column} IS NOT NULL"
                    ).fetchall()
                    conn.executemany(
                        f"UPDATE tables SET {column} = ? WHERE id = ?",
                        [
                            (clock.stamp(datetime.fromisoformat(str(value)) + shift), table_id)
                            for table_id, value in rows
                        ],
                    )
            _beat(conn, moment)
            return max(shift, timedelta(0))

        return await self._write(run)

    async def heartbeat(self) -> None:
        """The sweeper ran now (what :meth:`catch_up` measures downtime from)."""
        moment = self._moment()
        await self._write(lambda conn: _beat(conn, moment))


def _beat(conn: Connection, moment: datetime) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('heartbeat', ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (clock.stamp(moment),),
    )


__all__ = ["Deadlines"]
