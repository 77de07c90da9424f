"""The lobby: opening a table, joining and leaving it, seating computer players, starting and
cancelling; and which running tables wait for a computer's move.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Mapping
from dataclasses import replace

from engine import chance, get_game
from engine.rules import JSON, dumps, resolve_options
from storage import clock, computers, fairness, seek_hooks
from storage.base import StoreBase
from storage.database import Connection
from storage.records import (
    FORFEIT_AFTER,
    CorruptTable,
    Seating,
    TableError,
    TableExists,
    TableRecord,
    open_table_in,
    require,
)
from storage.shards import Shards
from storage.shards import condition as shard_condition
from storage.tables import cancel, cancelled, move_deadlines, new_table, update_lobby, write_seats


class Lobby(StoreBase):
    """Tables before their game starts, and their closing."""

    async def create_table(
        self,
        *,
        guild_id: int | None,
        channel_id: int,
        game: str,
        host_id: int,
        options: Mapping[str, JSON] | None = None,
        seed: int | None = None,
        seats: tuple[int, ...] | None = None,
        start: bool = False,
        rematch_of: int | None = None,
        seating: Seating = "join",
        time_control: str = clock.NONE,
        forfeit_after: int = FORFEIT_AFTER,
    ) -> TableRecord:
        """Open a lobby (the host takes the first seat), or with ``start`` a running game.
        ``forfeit_after``: missed deadlines before a seat forfeits (1 to 5)."""
        if not 1 <= forfeit_after <= 5:
            raise TableError("A seat forfeits after 1 to 5 missed moves.")
        opts = resolve_options(get_game(game), options)
        chosen = random.SystemRandom().randrange(2**62) if seed is None else seed
        moment = self._moment()

        def run(conn: Connection) -> TableRecord:
            return new_table(
                conn,
                guild_id=guild_id,
                channel_id=channel_id,
                game=game,
                options=opts,
                seed=chosen,
                host_id=host_id,
                seats=tuple(seats) if seats is not None else (host_id,),
                start=start,
                rematch_of=rematch_of,
                seating=seating,
                time_control=time_control,
                forfeit_after=forfeit_after,
                moment=moment,
            )

        try:
            return await self._write(run)
        except sqlite3.IntegrityError:  # pragma: no cover - another process won the channel
            existing = await self._read(lambda conn: open_table_in(conn, channel_id))
            if existing is None:
                raise
            raise TableExists(existing) from None

    async def set_message(self, table_id: int, message_id: int | None) -> None:
        await self._execute("UPDATE tables SET message_id = ? WHERE id = ?", (message_id, table_id))

    async def set_ping(self, table_id: int, message_id: int | None) -> None:
        """Remember (or forget) the channel message pinging the player to act."""
        await self._execute(
            "UPDATE tables SET ping_message_id = ? WHERE id = ?", (message_id, table_id)
        )

    async def join(self, table_id: int, user_id: int) -> TableRecord:
        def run(conn: Connection) -> TableRecord:
            table = require(conn, table_id)
            if table.status != "lobby":
                raise TableError("This table has already started; you can watch it.")
            if user_id in table.seats:
                raise TableError("You already have a seat at this table.")
            if len(table.seats) >= table.engine.max_seats:
                raise TableError("This table is full.")
            now = self._now()
            seek_hooks.seated(conn, table.game, (user_id,), now)  # their open seeks close
            return update_lobby(conn, table, (*table.seats, user_id), now)

        return await self._write(run)

    async def leave(self, table_id: int, user_id: int) -> TableRecord:
        def run(conn: Connection) -> TableRecord:
            table = require(conn, table_id)
            if table.status == "running":
                raise TableError("The game has started; use Resign to leave it.")
            if table.status != "lobby":
                raise TableError("This table is closed already: there is nothing to leave.")
            if user_id not in table.seats:
                raise TableError("You do not have a seat at this table.")
            if user_id == table.host_id:
                raise TableError("You host this table: cancel it instead of leaving.")
            seats = tuple(s for s in table.seats if s != user_id)
            return update_lobby(conn, table, seats, self._now())

        return await self._write(run)

    async def add_computer(self, table_id: int, user_id: int, level: str) -> TableRecord:
        """The host seats a computer player of ``level`` in the lobby."""

        def run(conn: Connection) -> TableRecord:
            table = require(conn, table_id)
            if table.status != "lobby":
                raise TableError("This table has already started.")
            if user_id != table.host_id:
                raise TableError("Only the host can seat a computer player.")
            if table.engine.max_seats < 2:
                raise TableError(f"{table.engine.title} is played alone.")
            if len(table.seats) >= table.engine.max_seats:
                raise TableError("This table is full.")
            seat = computers.next_computer(level, table.seats)
            return update_lobby(conn, table, (*table.seats, seat), self._now())

        return await self._write(run)

    async def remove_computer(self, table_id: int, user_id: int) -> TableRecord:
        """The host takes the last computer player seated in the lobby away again."""

        def run(conn: Connection) -> TableRecord:
            table = require(conn, table_id)
            if table.status != "lobby":
                raise TableError("This table has already started.")
            if user_id != table.host_id:
                raise TableError("Only the host can remove a computer player.")
            seated = [uid for uid in table.seats if computers.is_computer(uid)]
            if not seated:
                raise TableError("There is no computer player at this table.")
            seats = tuple(uid for uid in table.seats if uid != seated[-1])
            return update_lobby(conn, table, seats, self._now())

        return await self._write(run)

    async def computer_turns(
        self, limit: int = 100, *, shards: Shards | None = None
    ) -> list[TableRecord]:
        """Running tables whose seat to act is a computer (after a restart, or a missed move);
        with ``shards``, only those of the servers on those shards."""
        mine, params = shard_condition(shards, "t.guild_id")

        def run(conn: Connection) -> list[TableRecord]:
            rows = conn.execute(
                "SELECT t.id FROM tables t WHERE t.status = 'running' AND EXISTS"
                " (SELECT 1 FROM seats s WHERE s.table_id = t.id AND s.user_id < 0)"
                f"{mine} ORDER BY t.updated_at, t.id",
                params,
            ).fetchall()
            waiting: list[TableRecord] = []
            for (table_id,) in rows:
                if len(waiting) >= limit:
                    break
                try:
                    table = require(conn, table_id)
                except CorruptTable:
                    continue  # answered where a person meets it; a computer just waits
                seat = table.engine.to_act(table.running_state())
                if seat is not None and computers.is_computer(table.seats[seat]):
                    waiting.append(table)
            return waiting

        return await self._read(run)

    async def start(self, table_id: int, user_id: int) -> TableRecord:
        def run(conn: Connection) -> TableRecord:
            table = require(conn, table_id)
            if table.status != "lobby":
                raise TableError("This table has already started.")
            if user_id != table.host_id:
                raise TableError("Only the host can start the game.")
            engine = table.engine
            if not engine.min_seats <= len(table.seats) <= engine.max_seats:
                if engine.min_seats == engine.max_seats:
                    need = f"exactly {engine.min_seats} players"
                else:
                    need = f"{engine.min_seats} to {engine.max_seats} players"
                raise TableError(f"{engine.title} needs {need}; {len(table.seats)} seated.")
            seats = seat_order(table.seats, table.host_id, table.seating, table.seed)
            state = chance.deal(engine, len(seats), table.options, table.seed)
            moment = self._moment()
            now = clock.stamp(moment)
            first = engine.to_act(state)
            deadline, remind_at = move_deadlines(
                conn, table.time_control, moment, seats[first if first is not None else 0]
            )
            salt = table.salt or fairness.new_salt()  # a lobby opened before migration 012
            conn.execute(
                "UPDATE tables SET status = 'running', state = ?, version = version + 1,"
                " updated_at = ?, deadline = ?, remind_at = ?, salt = ? WHERE id = ?",
                (dumps(state), now, deadline, remind_at, salt, table.id),
            )
            write_seats(conn, table.id, seats)
            return replace(
                table,
                salt=salt,
                status="running",
                state=state,
                seats=seats,
                version=table.version + 1,
                updated_at=now,
                deadline=deadline,
                remind_at=remind_at,
            )

        return await self._write(run)

    async def cancel(self, table_id: int) -> TableRecord:
        def run(conn: Connection) -> TableRecord:
            table = require(conn, table_id)
            if not table.is_open:
                raise TableError("This table is already closed.")
            now = self._now()
            cancel(conn, table.id, now)
            return cancelled(table, now)

        return await self._write(run)

    async def cancel_lobby(self, table_id: int) -> TableRecord:
        """Close a table before its game starts (its lobby's Cancel, or ``/siege cancel``). A
        click from an old copy of the lobby once the game has started, or is over, is refused:
        a started game ends only by its rules, a resignation, the clock, a claim, or an abort,
        agreed end or moderator's cancel (:mod:`storage.endings`)."""

        def run(conn: Connection) -> TableRecord:
            table = require(conn, table_id)
            if table.status == "running":
                raise TableError(
                    "The game has started, so the lobby's Cancel no longer applies. Until every "
                    "player has made a first move, a player can abort it with /siege cancel; "
                    "after that, /siege cancel offers the others to cancel."
                )
            if table.status != "lobby":
                raise TableError("This table is closed already.")
            now = self._now()
            cancel(conn, table.id, now)
            return cancelled(table, now)

        return await self._write(run)

    async def close_channel(self, channel_id: int) -> int | None:
        """Cancel the open table of a channel without reading it (a deleted channel, or a row
        too damaged to load). Returns the closed table's id, if there was one."""

        def run(conn: Connection) -> int | None:
            row = conn.execute(
                "SELECT id FROM tables WHERE channel_id = ? AND status IN ('lobby', 'running')",
                (channel_id,),
            ).fetchone()
            if row is None:
                return None
            cancel(conn, int(row[0]), self._now())
            return int(row[0])

        return await self._write(run)


def seat_order(
    joined: tuple[int, ...], host_id: int, seating: Seating, seed: int
) -> tuple[int, ...]:
    """The seats a game starts with, from the join order and the table's seating rule.

    >>> seat_order((1, 2, 3), 1, "host_second", 0)
    (2, 1, 3)
    >>> sorted(seat_order((1, 2, 3), 1, "random", 7))
    [1, 2, 3]
    """
    if seating == "random":
        shuffled = list(joined)
        random.Random(f"{seed}:seating").shuffle(shuffled)
        return tuple(shuffled)
    others = [uid for uid in joined if uid != host_id]
    if seating == "host_first":
        return (host_id, *others)
    if seating == "host_second" and others:
        return (others[0], host_id, *others[1:])
    return joined


__all__ = ["Lobby", "seat_order"]
