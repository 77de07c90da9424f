"""Persistence for Siege Hall tables (SQLite or PostgreSQL): lobby, games, the action log, DM
panels.

Every change is one call to :meth:`Database.write`: one ``BEGIN IMMEDIATE`` transaction run
whole on the writer's thread. A game action loads the table, checks it, runs the engine, writes
the new state, its log row and the result and commits in that one trip, guarded by a ply check so
two attempts at the same ply apply exactly once (also across processes sharing the file). Reads
go to a separate read-only connection and only ever see committed data. Schema changes are the
numbered SQL files in ``storage/migrations/``, run with SQLite's own script execution and tracked
by ``PRAGMA user_version``; a database that has data is backed up before one runs.

With a ``postgresql://`` URL instead of a path the same functions run on PostgreSQL
(storage/postgres.py): each write one SERIALIZABLE transaction on a pooled connection, run
again after a conflict, so exactly once holds across processes there too; its schema is
``storage/migrations_pg/``.

The store takes and returns engine types; SQL stays inside this package.
"""

from __future__ import annotations

import json
import random
import sqlite3
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from engine import chance, get_game
from engine.rules import (
    JSON,
    Action,
    Event,
    Result,
    RuleError,
    State,
    dumps,
    resolve_options,
)
from storage import clock, computers, daily, fairness, offers, players, records, results
from storage.database import (
    BUSY_TIMEOUT_MS,
    Connection,
    Database,
    DatabaseBusy,
    DatabaseUnusable,
)
from storage.migration import backup_path
from storage.postgres import PgDatabase, is_url
from storage.records import (
    BUSY,
    DAMAGED,
    FORFEIT_AFTER,
    RESIGN,
    ActionRecord,
    Clock,
    CorruptTable,
    DmMode,
    DmTarget,
    Seating,
    StaleAction,
    Status,
    StoreBusy,
    TableError,
    TableExists,
    TableRecord,
    Timeout,
    load_table,
    open_table_in,
    read_actions,
    require,
    seats_of,
    table_record,
)
from storage.results import ALL_TIME, GameResult, Standing
from storage.shards import Shards
from storage.shards import condition as shard_condition
from storage.tables import cancel, move_deadlines, new_table, perform, update_lobby, write_seats

T = TypeVar("T")


#: The schema version that added results and ratings (games finished before it are backfilled).
RESULTS_SCHEMA = 5


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _migrations(kind: str = "migrations") -> list[tuple[int, str]]:
    """The numbered SQL files of ``storage/<kind>/`` (``migrations``, or ``migrations_pg`` for
    PostgreSQL), in order."""
    folder = resources.files("storage") / kind
    found = []
    for entry in folder.iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:3].isdigit():
            found.append((int(name[:3]), entry.read_text(encoding="utf-8")))
    return sorted(found)


#: The longest history a render shows beside a position (a panel's "since your last turn").
TAIL_KEPT = 40
#: How many tables' recent history the store keeps in memory (see :meth:`Store.log_tail`): the
#: tables being drawn right now. Each is about 200 objects the garbage collector walks through,
#: so no more (with 512, the longest collection at 1,000 tables was 58 ms against 48: one run
#: each of ``benchmarks/table_load.py --sizes 1000 --moves 8 --rates 40``).
TAIL_TABLES = 128


class Store:
    """The one gateway to the database. Create with :meth:`open`; close with :meth:`close`."""

    def __init__(self, db: Database | PgDatabase, clock: Clock = _utc_now) -> None:
        self._db = db
        self._clock = clock
        #: Each table's last logged actions, by table id: (ply, actions); see log_tail.
        self._tails: OrderedDict[int, tuple[int, tuple[ActionRecord, ...]]] = OrderedDict()

    @classmethod
    async def open(cls, path: str | Path, *, clock: Clock = _utc_now) -> Store:
        """Open (creating if needed) the SQLite database at ``path``, or the PostgreSQL database
        when ``path`` is a ``postgresql://`` URL. Raises :class:`DatabaseUnusable` with a
        one-line reason when it cannot be used, leaving nothing open."""
        if is_url(path):
            return cls(await PgDatabase.open(str(path)), clock)
        return cls(await Database.open(path), clock)

    @property
    def path(self) -> Path | str:
        """The SQLite file, or the PostgreSQL URL without its password."""
        return self._db.path

    async def close(self) -> None:
        await self._db.close()

    def _moment(self) -> datetime:
        return self._clock().astimezone(UTC)

    def _now(self) -> str:
        return clock.stamp(self._moment())

    async def schema_version(self) -> int:
        return await self._db.schema_version()

    async def migrate(self) -> int:
        """Apply every migration newer than the schema version and backfill what they need, all
        in one transaction under the migration lock (storage/migration.py); returns the new
        version. A SQLite database with tables in it is first copied beside itself."""
        return await self._db.migrate(_migrations(self._db.migrations_folder), _after_migration)

    async def backup(self, destination: str | Path) -> None:
        """Copy the live database to ``destination`` (consistent even mid-write)."""
        await self._db.backup(destination)

    async def _write(self, fn: Callable[[Connection], T]) -> T:
        try:
            return await self._db.write(fn)
        except DatabaseBusy:
            raise StoreBusy(BUSY) from None
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):  # locked, constraint, misuse...
                raise
            raise CorruptTable(DAMAGED) from exc

    # -- reading -----------------------------------------------------------------------------

    async def _read(self, fn: Callable[[Connection], T]) -> T:
        """A read of table rows: a damaged page of the file answers as an unreadable table
        (a defined refusal an admin can act on), not as an unexpected error."""
        try:
            return await self._db.read(fn)
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):  # locked, constraint, misuse...
                raise
            raise CorruptTable(DAMAGED) from exc

    async def get_table(self, table_id: int) -> TableRecord | None:
        return await self._read(lambda conn: load_table(conn, table_id))

    async def open_table_in(self, channel_id: int) -> TableRecord | None:
        return await self._read(lambda conn: open_table_in(conn, channel_id))

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

        Logged actions never change, so a table's tail is kept in memory (for the
        :data:`TAIL_TABLES` tables shown last, up to :data:`TAIL_KEPT` actions each) and only
        the actions logged since are read: the table message and every panel of one move share
        one short read. Safe with several processes on one database, since the position's ply
        bounds what is read."""
        ply = table.ply
        latest = "SELECT * FROM actions WHERE table_id = ? AND ply < ? ORDER BY ply DESC LIMIT ?"
        if limit > TAIL_KEPT:  # longer than what is kept: read, and not kept
            rows = await self._read(lambda conn: read_actions(conn, latest, (table.id, ply, limit)))
            return rows[::-1]
        kept = self._tails.get(table.id)
        if kept is not None and kept[0] == ply:
            self._tails.move_to_end(table.id)
            return list(kept[1][-limit:]) if limit else []
        if kept is not None and kept[0] < ply <= kept[0] + TAIL_KEPT:
            since = kept[0]
            sql = "SELECT * FROM actions WHERE table_id = ? AND ply >= ? AND ply < ? ORDER BY ply"
            newer = await self._read(lambda conn: read_actions(conn, sql, (table.id, since, ply)))
            tail = (*kept[1], *newer)[-TAIL_KEPT:]
        else:
            rows = await self._read(
                lambda conn: read_actions(conn, latest, (table.id, ply, TAIL_KEPT))
            )
            tail = tuple(rows[::-1])
        current = self._tails.get(table.id)
        if current is None or current[0] <= ply:  # an older position's tail is not kept
            self._tails[table.id] = (ply, tail)
            self._tails.move_to_end(table.id)
            while len(self._tails) > TAIL_TABLES:
                self._tails.popitem(last=False)
        return list(tail[-limit:]) if limit else []

    async def newest(self, table: TableRecord) -> TableRecord | None:
        """The table as stored now: ``table`` itself when its version is still the stored one
        (one indexed lookup, nothing decoded), else read again; None once it is gone."""
        return await self._read(lambda conn: records.newest(conn, table))

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

        return await self._read(run)

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

    # -- lobby -------------------------------------------------------------------------------

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
            existing = await self.open_table_in(channel_id)
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

    async def _execute(self, sql: str, params: tuple[Any, ...]) -> None:
        def run(conn: Connection) -> None:
            conn.execute(sql, params)

        await self._write(run)

    async def join(self, table_id: int, user_id: int) -> TableRecord:
        def run(conn: Connection) -> TableRecord:
            table = require(conn, table_id)
            if table.status != "lobby":
                raise TableError("This table has already started; you can watch it.")
            if user_id in table.seats:
                raise TableError("You already have a seat at this table.")
            if len(table.seats) >= table.engine.max_seats:
                raise TableError("This table is full.")
            return update_lobby(conn, table, (*table.seats, user_id), self._now())

        return await self._write(run)

    async def leave(self, table_id: int, user_id: int) -> TableRecord:
        def run(conn: Connection) -> TableRecord:
            table = require(conn, table_id)
            if table.status != "lobby":
                raise TableError("The game has started; use Resign to leave it.")
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
            return replace(
                table,
                status="cancelled",
                version=table.version + 1,
                updated_at=now,
                deadline=None,
                remind_at=None,
            )

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

    # -- playing -----------------------------------------------------------------------------

    async def act(
        self, table_id: int, user_id: int, action: Action, expected_ply: int
    ) -> tuple[TableRecord, list[Event]]:
        """Apply one action for ``user_id`` at ``expected_ply``: state, log row and ply bump
        commit together, or nothing changes (RuleError, TableError, StaleAction)."""
        return await self._commit_action(table_id, user_id, action, expected_ply)

    async def resign(
        self, table_id: int, user_id: int, expected_ply: int | None = None
    ) -> tuple[TableRecord, list[Event]]:
        return await self._commit_action(table_id, user_id, RESIGN, expected_ply)

    async def _commit_action(
        self, table_id: int, user_id: int, action: Action, expected_ply: int | None
    ) -> tuple[TableRecord, list[Event]]:
        def run(conn: Connection) -> tuple[TableRecord, list[Event]]:
            return _act(
                conn, table_id, user_id, action, expected_ply, self._moment(), memo=self._db.memo
            )

        return await self._write(run)

    # -- clocks: deadlines, reminders and the AFK ladder ----------------------------------------

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
            after, events = _act(
                conn, table.id, user, safe or RESIGN, table.ply, moment, automatic=True
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

    # -- offers: challenges and rematches (storage/offers.py) -----------------------------------

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
    ) -> offers.OfferRecord:
        """Offer ``challenged_id`` a two-player game here (``challenger_id`` has said yes)."""
        opts = resolve_options(get_game(game), options)
        moment = self._moment()

        def run(conn: Connection) -> offers.OfferRecord:
            return offers.challenge(
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

    async def offer_rematch(self, table_id: int, user_id: int) -> offers.OfferOutcome:
        """Ask for a rematch of a finished table, or say yes to the one already asked for."""
        moment, seed = self._moment(), random.SystemRandom().randrange(2**62)
        return await self._write(lambda conn: offers.rematch(conn, table_id, user_id, moment, seed))

    async def answer_offer(self, offer_id: int, user_id: int, yes: bool) -> offers.OfferOutcome:
        """Accept or decline an offer; the last yes starts the game in the same transaction."""
        moment, seed = self._moment(), random.SystemRandom().randrange(2**62)
        return await self._write(
            lambda conn: offers.answer(conn, offer_id, user_id, yes, moment, seed)
        )

    async def get_offer(self, offer_id: int) -> offers.OfferRecord | None:
        return await self._db.read(lambda conn: offers.load(conn, offer_id))

    async def set_offer_message(
        self, offer_id: int, channel_id: int | None, message_id: int | None
    ) -> None:
        """Remember the message that carries an offer's Accept / Decline buttons."""
        await self._write(lambda conn: offers.set_message(conn, offer_id, channel_id, message_id))

    async def expire_offers(
        self, limit: int = 100, *, shards: Shards | None = None
    ) -> list[offers.OfferRecord]:
        """Close the open offers whose time is up (the sweeper's); returns them. With
        ``shards``, only the offers made in the servers on those shards."""
        moment = self._moment()
        return await self._write(lambda conn: offers.expire(conn, moment, limit, shards))

    # -- the daily challenge (Siege at Kurth) ----------------------------------------------------

    async def start_daily(
        self, *, guild_id: int, channel_id: int, user_id: int, difficulty: str, day: str
    ) -> tuple[TableRecord, bool]:
        """Start ``user_id``'s daily Kurth game of ``day`` (``YYYY-MM-DD``, UTC) in a channel:
        the server's seed of the day; scored if it is their first attempt of the day at this
        difficulty, else practice. Returns the running table and whether it is scored."""
        options = resolve_options(get_game(daily.GAME), {"difficulty": difficulty})
        moment = self._moment()

        def run(conn: Connection) -> tuple[TableRecord, bool]:
            scored = not daily.has_scored_attempt(conn, guild_id, day, difficulty, user_id)
            table = new_table(
                conn,
                guild_id=guild_id,
                channel_id=channel_id,
                game=daily.GAME,
                options=options,
                seed=daily.seed_for(conn, guild_id, day, difficulty),
                host_id=user_id,
                seats=(user_id,),
                start=True,
                moment=moment,
            )
            daily.add_attempt(
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
        return await self._db.read(lambda conn: daily.day_of(conn, table_id))

    async def daily_board(
        self, guild_id: int, day: str, difficulty: str, *, offset: int = 0, limit: int = 10
    ) -> list[daily.DailyLine]:
        return await self._db.read(
            lambda conn: daily.board(conn, guild_id, day, difficulty, offset, limit)
        )

    async def daily_standing(
        self, guild_id: int, day: str, difficulty: str, user_id: int
    ) -> daily.DailyLine | None:
        return await self._db.read(
            lambda conn: daily.standing(conn, guild_id, day, difficulty, user_id)
        )

    # -- results and ratings ---------------------------------------------------------------------

    async def leaderboard(
        self, guild_id: int, game: str, season: str = ALL_TIME, *, offset: int = 0, limit: int = 10
    ) -> list[Standing]:
        """A page of a server's board for a game: ``season`` is ``"all"`` or ``"YYYY-MM"``."""
        return await self._db.read(
            lambda conn: results.board(conn, guild_id, game, season, offset, limit)
        )

    async def standing(
        self, guild_id: int, game: str, user_id: int, season: str = ALL_TIME
    ) -> Standing | None:
        """A player's line and rank on a board, wherever it is."""
        return await self._db.read(
            lambda conn: results.standing(conn, guild_id, game, season, user_id)
        )

    async def board_size(self, guild_id: int, game: str, season: str = ALL_TIME) -> int:
        return await self._db.read(lambda conn: results.board_size(conn, guild_id, game, season))

    async def rating_history(
        self, guild_id: int, game: str, user_id: int
    ) -> list[results.RatingPoint]:
        """A player's shown all-time rating after each rated game (and its end), oldest first."""
        return await self._db.read(lambda conn: results.history(conn, guild_id, game, user_id))

    async def recent_results(
        self, guild_id: int, user_id: int, game: str | None = None, limit: int = 10
    ) -> list[GameResult]:
        """A player's latest finished games in a server, newest first."""
        return await self._db.read(
            lambda conn: results.recent(conn, guild_id, user_id, game, limit)
        )

    async def solo_board(
        self, guild_id: int, game: str, difficulty: str, limit: int = 10
    ) -> list[results.SoloLine]:
        """A solo game's board for a difficulty: best score first, then wins."""
        return await self._db.read(
            lambda conn: results.solo_board(conn, guild_id, game, difficulty, limit)
        )

    async def seasons(self, guild_id: int, game: str) -> list[str]:
        """The seasons with rated games of a server, newest first."""
        return await self._db.read(lambda conn: results.seasons(conn, guild_id, game))

    async def recompute_ratings(self, guild_id: int) -> int:
        """Rebuild every rating of a server from its stored results, in order (an admin's
        command). Returns how many rated games were replayed."""
        return await self._write(lambda conn: results.recompute(conn, guild_id))

    # -- players and DM panels -----------------------------------------------------------------

    async def settings(self, user_id: int) -> players.Settings:
        return await self._db.read(lambda conn: players.load(conn, user_id))

    async def set_settings(self, user_id: int, settings: players.Settings) -> None:
        await self._write(lambda conn: players.save(conn, user_id, settings))

    async def digests_due(self) -> list[int]:
        moment = self._moment()
        return await self._db.read(lambda conn: players.digests_due(conn, moment))

    async def digest_sent(self, user_id: int) -> bool:
        moment = self._moment()
        return await self._write(lambda conn: players.digest_sent(conn, user_id, moment))

    def now(self) -> datetime:
        """The store's clock (the one deadlines are kept by)."""
        return self._moment()

    async def take_vacation(self, user_id: int, days: int) -> tuple[int, int]:
        """``days`` of vacation for ``user_id``: the deadlines of their daily-clock moves that
        are waiting now move on by that much, and new ones wait it out too. Returns (tables
        whose deadline moved, vacation days left this month); ``TableError`` past the cap."""
        moment = self._moment()

        def run(conn: Connection) -> tuple[int, int]:
            try:
                left = players.take_vacation(conn, user_id, days, moment)
            except ValueError as exc:
                raise TableError(str(exc)) from None
            moved = 0
            rows = conn.execute(
                "SELECT tables.id FROM seats JOIN tables ON tables.id = seats.table_id"
                " WHERE seats.user_id = ? AND tables.status = 'running'"
                " AND tables.time_control LIKE 'daily:%' AND tables.deadline IS NOT NULL"
                " GROUP BY tables.id",
                (user_id,),
            ).fetchall()
            for (table_id,) in rows:
                try:
                    table = require(conn, int(table_id))
                except CorruptTable:
                    continue
                seat = table.engine.to_act(table.running_state())
                if seat is None or table.seats[seat] != user_id or table.deadline is None:
                    continue
                shift = timedelta(days=days)
                conn.execute(
                    "UPDATE tables SET deadline = ?, remind_at = ? WHERE id = ?",
                    (
                        clock.stamp(datetime.fromisoformat(table.deadline) + shift),
                        None
                        if table.remind_at is None
                        else clock.stamp(datetime.fromisoformat(table.remind_at) + shift),
                        table.id,
                    ),
                )
                moved += 1
            return moved, left

        return await self._write(run)

    async def remember_names(self, names: Mapping[int, str]) -> None:
        """Keep the names players were last seen under (written only when one changed)."""
        known = await self.names(list(names))
        changed = [(uid, name) for uid, name in names.items() if known.get(uid) != name]
        if not changed:
            return

        def run(conn: Connection) -> None:
            conn.executemany(
                "INSERT INTO players (user_id, name) VALUES (?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET name = excluded.name",
                changed,
            )

        await self._write(run)

    async def names(self, user_ids: Sequence[int]) -> dict[int, str]:
        """The stored names of these players (those never seen are left out)."""
        ids = list(dict.fromkeys(user_ids))

        def run(conn: Connection) -> dict[int, str]:
            marks = ",".join("?" * len(ids))
            found = conn.execute(
                "SELECT user_id, name FROM players"
                f" WHERE name IS NOT NULL AND user_id IN ({marks})",
                ids,
            ).fetchall()
            return {int(uid): str(name) for uid, name in found}

        return await self._db.read(run) if ids else {}

    async def dm_mode(self, user_id: int) -> DmMode:
        mode = await self._db.scalar("SELECT dm_mode FROM players WHERE user_id = ?", (user_id,))
        found: DmMode = "on" if mode is None else mode
        return found

    async def set_dm_mode(self, user_id: int, mode: DmMode) -> None:
        await self._execute(
            "INSERT INTO players (user_id, dm_mode) VALUES (?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET dm_mode = excluded.dm_mode",
            (user_id, mode),
        )

    async def dm_panel(self, table_id: int, user_id: int) -> tuple[int, int] | None:
        """The (DM channel id, message id) of a player's panel for a table, if one was sent."""

        def run(conn: Connection) -> tuple[int, int] | None:
            row = conn.execute(
                "SELECT channel_id, message_id FROM dm_panels WHERE table_id = ? AND user_id = ?",
                (table_id, user_id),
            ).fetchone()
            return None if row is None else (int(row[0]), int(row[1]))

        return await self._db.read(run)

    async def set_dm_panel(
        self, table_id: int, user_id: int, channel_id: int, message_id: int
    ) -> None:
        await self._execute(
            "INSERT INTO dm_panels (table_id, user_id, channel_id, message_id)"
            " VALUES (?, ?, ?, ?) ON CONFLICT (table_id, user_id) DO UPDATE SET"
            " channel_id = excluded.channel_id, message_id = excluded.message_id",
            (table_id, user_id, channel_id, message_id),
        )

    async def forget_dm_panel(self, table_id: int, user_id: int) -> None:
        await self._execute(
            "DELETE FROM dm_panels WHERE table_id = ? AND user_id = ?", (table_id, user_id)
        )


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


def _after_migration(conn: Connection, old: int, new: int) -> None:
    """In the migration's transaction: results for games that finished before results were
    recorded (schema 5), read with today's code once every migration has run."""
    if not old < RESULTS_SCHEMA <= new:
        return
    rows = conn.execute(
        "SELECT id FROM tables WHERE status = 'over' AND id NOT IN"
        " (SELECT table_id FROM results) ORDER BY updated_at, id"
    ).fetchall()
    for (table_id,) in rows:
        try:
            table = require(conn, table_id)
        except CorruptTable:
            continue  # unreadable: it stays out of the boards
        if table.result is None:
            continue
        results.record(
            conn,
            table_id=table.id,
            guild_id=table.guild_id,
            game=table.game,
            seats=table.seats,
            result=table.result,
            plies=table.ply,
            ended_at=table.updated_at,
        )


def is_damage(exc: sqlite3.DatabaseError) -> bool:
    """SQLite raises its plain ``DatabaseError`` for a damaged page ("database disk image is
    malformed"); locks, constraints and misuse raise subclasses."""
    return type(exc) is sqlite3.DatabaseError


# -- On the database thread: sqlite3-style calls, inside the caller's transaction ----------------


#: How many running tables the writer keeps decoded in memory between their moves.
HOT_TABLES = 4096


def _act(
    conn: Connection,
    table_id: int,
    user_id: int,
    action: Action,
    expected_ply: int | None,
    moment: datetime,
    *,
    automatic: bool = False,
    memo: dict[Any, Any] | None = None,
) -> tuple[TableRecord, list[Event]]:
    """Load, check, apply and write one action: the body of one write transaction. The next
    move's deadline starts now; a move the player made (not ``automatic``) clears their missed
    deadlines.

    With ``memo`` (the writer's, see :attr:`Database.memo`) a table the writer wrote last is
    taken from memory instead of being read and decoded again. The write then only applies if
    the row's version is still the one remembered (every change to a table bumps it, triggers
    included); otherwise, or when the remembered copy refuses the action, the table is read
    from the file and the action tried again, so a stale copy can never decide anything."""
    key = ("table", table_id)
    cached = None if memo is None else memo.pop(key, None)
    if cached is not None:
        try:
            plan = _plan(cached, user_id, action, expected_ply)
        except (TableError, RuleError):
            plan = None  # perhaps only because the copy is stale: read the file and decide
        if plan is not None:
            done = _write_plan(conn, plan, user_id, action, moment, automatic, memo)
            if done is not None:
                return done
    plan = _plan(require(conn, table_id), user_id, action, expected_ply)
    done = _write_plan(conn, plan, user_id, action, moment, automatic, memo)
    if done is None:  # pragma: no cover - the write lock makes the load current
        raise StaleAction("That button is out of date: the game has moved on.")
    return done


@dataclass(frozen=True)
class _Plan:
    """An action checked and applied in memory, not yet written."""

    table: TableRecord
    seat: int
    state: State
    events: list[Event]
    result: Result | None


def _plan(table: TableRecord, user_id: int, action: Action, expected_ply: int | None) -> _Plan:
    if table.status != "running":
        if table.status == "lobby":
            raise TableError("This game has not started yet.")
        raise TableError("This game is over.")
    seat = table.seat_of(user_id)
    if seat is None:
        raise TableError("You are not playing at this table.")
    if expected_ply is not None and expected_ply != table.ply:
        raise StaleAction("That button is out of date: the game has moved on.")
    game = table.engine
    state = table.running_state()
    if action != RESIGN:
        # A seat held twice (a solo table) acts as whichever of its seats is to act.
        to_act = game.to_act(state)
        if to_act is not None and to_act != seat and table.seats[to_act] == user_id:
            seat = to_act
    new_state, events = perform(game, state, seat, action, table.seed, table.ply)
    return _Plan(table, seat, new_state, events, game.result(new_state))


def _write_plan(
    conn: Connection,
    plan: _Plan,
    user_id: int,
    action: Action,
    moment: datetime,
    automatic: bool,
    memo: dict[Any, Any] | None,
) -> tuple[TableRecord, list[Event]] | None:
    """Write a planned action if the table is still the version it was planned on (else
    nothing is written and this returns None)."""
    table, seat, new_state, events, result = (
        plan.table,
        plan.seat,
        plan.state,
        plan.events,
        plan.result,
    )
    game = table.engine
    now = clock.stamp(moment)
    status: Status = "running" if result is None else "over"
    deadline, remind_at = (None, None)
    next_seat = game.to_act(new_state)
    if result is None and next_seat is not None:
        deadline, remind_at = move_deadlines(
            conn, table.time_control, moment, table.seats[next_seat]
        )
    cur = conn.execute(
        "UPDATE tables SET state = ?, ply = ply + 1, version = version + 1,"
        " status = ?, result = ?, updated_at = ?, deadline = ?, remind_at = ?"
        " WHERE id = ? AND ply = ? AND version = ?",
        (
            dumps(new_state),
            status,
            None if result is None else json.dumps(result.to_json()),
            now,
            deadline,
            remind_at,
            table.id,
            table.ply,
            table.version,
        ),
    )
    if cur.rowcount != 1:
        return None
    if not automatic and table.time_control != clock.NONE:  # misses only happen on a clock
        conn.execute(
            "UPDATE seats SET misses = 0 WHERE table_id = ? AND user_id = ? AND misses > 0",
            (table.id, user_id),
        )
    conn.execute(
        "INSERT INTO actions (table_id, ply, seat, user_id, action, events, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (table.id, table.ply, seat, user_id, json.dumps(action), json.dumps(events), now),
    )
    if result is not None:  # the game's end and its rating commit with the last action
        daily.finish(conn, table.id, result.winners, result.scores, game.summary(new_state), now)
        results.record(
            conn,
            table_id=table.id,
            guild_id=table.guild_id,
            game=table.game,
            seats=table.seats,
            result=result,
            plies=table.ply + 1,
            ended_at=now,
        )
    after = replace(
        table,
        state=new_state,
        ply=table.ply + 1,
        version=table.version + 1,
        status=status,
        result=result,
        updated_at=now,
        deadline=deadline,
        remind_at=remind_at,
    )
    if memo is not None and status == "running":
        memo[("table", table.id)] = after
        if len(memo) > HOT_TABLES:  # the least recently written goes
            del memo[next(iter(memo))]
    return after, events


def _beat(conn: Connection, moment: datetime) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('heartbeat', ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (clock.stamp(moment),),
    )


__all__ = [
    "BUSY_TIMEOUT_MS",
    "RESIGN",
    "ActionRecord",
    "CorruptTable",
    "DatabaseUnusable",
    "DmMode",
    "DmTarget",
    "RuleError",
    "StaleAction",
    "Standing",
    "Store",
    "StoreBusy",
    "TableError",
    "TableExists",
    "TableRecord",
    "Timeout",
    "backup_path",
    "perform",
]
