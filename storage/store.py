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
from typing import Any, Literal, TypeVar

from engine import chance, get_game
from engine.rules import (
    JSON,
    Action,
    Event,
    Game,
    Result,
    RuleError,
    State,
    dumps,
    loads,
    resolve_options,
)
from storage import clock, computers, daily, fairness, offers, players, results
from storage.database import (
    BUSY_TIMEOUT_MS,
    Connection,
    Database,
    DatabaseBusy,
    DatabaseUnusable,
)
from storage.migration import backup_path
from storage.postgres import PgDatabase, is_url
from storage.results import ALL_TIME, GameResult, Standing
from storage.shards import Shards
from storage.shards import condition as shard_condition

DmMode = Literal["on", "off", "closed"]
Seating = Literal["join", "random", "host_first", "host_second"]
Status = Literal["lobby", "running", "over", "cancelled"]
Clock = Callable[[], datetime]
T = TypeVar("T")


#: Missed deadlines before a seat forfeits, unless the table says otherwise.
FORFEIT_AFTER = 2

#: The schema version that added results and ratings (games finished before it are backfilled).
RESULTS_SCHEMA = 5


class TableError(Exception):
    """A table-level refusal (not a rule of the game) with a sentence a player understands."""


class StaleAction(TableError):
    """The action was aimed at a ply the table has moved past (a stale button or double click)."""


class TableExists(TableError):
    """The channel already has an open table."""

    def __init__(self, table: TableRecord) -> None:
        super().__init__("This channel already has an open table.")
        self.table = table


class CorruptTable(TableError):
    """A stored row that this code cannot read."""


class StoreBusy(TableError):
    """The database stayed locked by another program for longer than the busy timeout."""


BUSY = "The game database is busy right now; nothing changed. Try again in a moment."
DAMAGED = (
    "This table could not be read from the database (the file is damaged); an admin can "
    "cancel it, and the operator can run `python -m storage check`."
)


@dataclass(frozen=True)
class TableRecord:
    id: int
    guild_id: int | None
    channel_id: int
    game: str
    options: dict[str, JSON]
    seed: int
    host_id: int
    seats: tuple[int, ...]
    status: Status
    state: State | None
    ply: int
    version: int
    result: Result | None
    message_id: int | None
    rematch_of: int | None
    created_at: str
    updated_at: str
    seating: Seating = "join"
    ping_message_id: int | None = None
    time_control: str = clock.NONE
    deadline: str | None = None  # when the seat to act (or the lobby) runs out of time
    remind_at: str | None = None  # when to remind the seat to act (None once reminded)
    forfeit_after: int = FORFEIT_AFTER  # missed deadlines before a seat forfeits
    salt: str | None = None  # kept secret with the seed until the end (None: made before 012)

    @property
    def engine(self) -> Game:
        return get_game(self.game)

    @property
    def is_open(self) -> bool:
        return self.status in ("lobby", "running")

    def seat_of(self, user_id: int) -> int | None:
        """The first seat this user holds (a solo game has one), or None."""
        try:
            return self.seats.index(user_id)
        except ValueError:
            return None

    def running_state(self) -> State:
        if self.state is None:
            raise TableError("This game has not started yet.")
        return self.state


@dataclass(frozen=True)
class Timeout:
    """What a missed deadline did: ``rung`` is ``lobby_expired``, ``auto_move`` (the game's safe
    move was played for the seat) or ``forfeit`` (the seat resigned by the clock)."""

    table: TableRecord
    events: list[Event]
    rung: str
    seat: int | None
    user_id: int | None
    misses: int
    #: The deadline that was missed (how late the sweeper came is measured from it).
    missed: str


@dataclass(frozen=True)
class ActionRecord:
    table_id: int
    ply: int
    seat: int
    user_id: int
    action: Action
    events: list[Event]
    created_at: str


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


@dataclass(frozen=True)
class DmTarget:
    """How a seated player is reached: their DM mode and their stored DM panel of a table."""

    mode: DmMode
    panel: tuple[int, int] | None  # (DM channel id, message id)


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
        return await self._read(lambda conn: _load_table(conn, table_id))

    async def open_table_in(self, channel_id: int) -> TableRecord | None:
        return await self._read(lambda conn: _open_table_in(conn, channel_id))

    async def actions(self, table_id: int) -> list[ActionRecord]:
        sql = "SELECT * FROM actions WHERE table_id = ? ORDER BY ply"
        return await self._read(lambda conn: _actions(conn, sql, (table_id,)))

    async def recent_actions(self, table_id: int, limit: int) -> list[ActionRecord]:
        """The last ``limit`` logged actions of a table, oldest first."""
        sql = "SELECT * FROM actions WHERE table_id = ? ORDER BY ply DESC LIMIT ?"
        rows = await self._read(lambda conn: _actions(conn, sql, (table_id, limit)))
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
            rows = await self._read(lambda conn: _actions(conn, latest, (table.id, ply, limit)))
            return rows[::-1]
        kept = self._tails.get(table.id)
        if kept is not None and kept[0] == ply:
            self._tails.move_to_end(table.id)
            return list(kept[1][-limit:]) if limit else []
        if kept is not None and kept[0] < ply <= kept[0] + TAIL_KEPT:
            since = kept[0]
            sql = "SELECT * FROM actions WHERE table_id = ? AND ply >= ? AND ply < ? ORDER BY ply"
            newer = await self._read(lambda conn: _actions(conn, sql, (table.id, since, ply)))
            tail = (*kept[1], *newer)[-TAIL_KEPT:]
        else:
            rows = await self._read(lambda conn: _actions(conn, latest, (table.id, ply, TAIL_KEPT)))
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
        return await self._read(lambda conn: _newest(conn, table))

    async def delivery_targets(
        self, table: TableRecord
    ) -> tuple[TableRecord | None, dict[int, DmTarget]]:
        """In one read: the newest table (as :meth:`newest`), and for each human seat its DM
        mode and stored DM panel (what refreshing the panels and pinging need)."""

        def run(conn: Connection) -> tuple[TableRecord | None, dict[int, DmTarget]]:
            newest = _newest(conn, table)
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
                    found.append(_record(row, _seats(conn, row["id"])))
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
            return _new_table(
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
            table = _require(conn, table_id)
            if table.status != "lobby":
                raise TableError("This table has already started; you can watch it.")
            if user_id in table.seats:
                raise TableError("You already have a seat at this table.")
            if len(table.seats) >= table.engine.max_seats:
                raise TableError("This table is full.")
            return _update_lobby(conn, table, (*table.seats, user_id), self._now())

        return await self._write(run)

    async def leave(self, table_id: int, user_id: int) -> TableRecord:
        def run(conn: Connection) -> TableRecord:
            table = _require(conn, table_id)
            if table.status != "lobby":
                raise TableError("The game has started; use Resign to leave it.")
            if user_id not in table.seats:
                raise TableError("You do not have a seat at this table.")
            if user_id == table.host_id:
                raise TableError("You host this table: cancel it instead of leaving.")
            seats = tuple(s for s in table.seats if s != user_id)
            return _update_lobby(conn, table, seats, self._now())

        return await self._write(run)

    async def add_computer(self, table_id: int, user_id: int, level: str) -> TableRecord:
        """The host seats a computer player of ``level`` in the lobby."""

        def run(conn: Connection) -> TableRecord:
            table = _require(conn, table_id)
            if table.status != "lobby":
                raise TableError("This table has already started.")
            if user_id != table.host_id:
                raise TableError("Only the host can seat a computer player.")
            if table.engine.max_seats < 2:
                raise TableError(f"{table.engine.title} is played alone.")
            if len(table.seats) >= table.engine.max_seats:
                raise TableError("This table is full.")
            seat = computers.next_computer(level, table.seats)
            return _update_lobby(conn, table, (*table.seats, seat), self._now())

        return await self._write(run)

    async def remove_computer(self, table_id: int, user_id: int) -> TableRecord:
        """The host takes the last computer player seated in the lobby away again."""

        def run(conn: Connection) -> TableRecord:
            table = _require(conn, table_id)
            if table.status != "lobby":
                raise TableError("This table has already started.")
            if user_id != table.host_id:
                raise TableError("Only the host can remove a computer player.")
            seated = [uid for uid in table.seats if computers.is_computer(uid)]
            if not seated:
                raise TableError("There is no computer player at this table.")
            seats = tuple(uid for uid in table.seats if uid != seated[-1])
            return _update_lobby(conn, table, seats, self._now())

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
                    table = _require(conn, table_id)
                except CorruptTable:
                    continue  # answered where a person meets it; a computer just waits
                seat = table.engine.to_act(table.running_state())
                if seat is not None and computers.is_computer(table.seats[seat]):
                    waiting.append(table)
            return waiting

        return await self._read(run)

    async def start(self, table_id: int, user_id: int) -> TableRecord:
        def run(conn: Connection) -> TableRecord:
            table = _require(conn, table_id)
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
            deadline, remind_at = _move_deadlines(
                conn, table.time_control, moment, seats[first if first is not None else 0]
            )
            salt = table.salt or fairness.new_salt()  # a lobby opened before migration 012
            conn.execute(
                "UPDATE tables SET status = 'running', state = ?, version = version + 1,"
                " updated_at = ?, deadline = ?, remind_at = ?, salt = ? WHERE id = ?",
                (dumps(state), now, deadline, remind_at, salt, table.id),
            )
            _write_seats(conn, table.id, seats)
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
            table = _require(conn, table_id)
            if not table.is_open:
                raise TableError("This table is already closed.")
            now = self._now()
            _cancel(conn, table.id, now)
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
            _cancel(conn, int(row[0]), self._now())
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
                    found.append(_require(conn, int(table_id)))
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
            table = _require(conn, table_id)
            if (
                not table.is_open
                or table.deadline is None
                or table.deadline > now
                or table.ply != expected_ply
            ):
                return None
            if table.status == "lobby":
                _cancel(conn, table.id, now)
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
            table = _new_table(
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
                    table = _require(conn, int(table_id))
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


RESIGN: Action = {"type": "resign"}


def perform(
    game: Game, state: State, seat: int, action: Action, seed: int, ply: int
) -> tuple[State, list[Event]]:
    """One logged action: the table-level resignation, or a move through the game's rules with
    the chance of the table's scheme (engine/chance.py)."""
    if action == RESIGN:
        after, events = game.resign(state, seat)
        return chance.keep(state, after), events
    return chance.advance(game, state, seat, action, seed, ply)


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
            table = _require(conn, table_id)
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
    plan = _plan(_require(conn, table_id), user_id, action, expected_ply)
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
        deadline, remind_at = _move_deadlines(
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


def _new_table(
    conn: Connection,
    *,
    guild_id: int | None,
    channel_id: int,
    game: str,
    options: dict[str, JSON],
    seed: int,
    host_id: int,
    seats: tuple[int, ...],
    start: bool,
    moment: datetime,
    rematch_of: int | None = None,
    seating: Seating = "join",
    time_control: str = clock.NONE,
    forfeit_after: int = FORFEIT_AFTER,
) -> TableRecord:
    """Insert a lobby, or a started game, in a channel that has no open table. A lobby waits
    :data:`clock.LOBBY_WAIT` for its host to start it; a started game's first move has its
    clock's time."""
    existing = _open_table_in(conn, channel_id)
    if existing is not None:
        raise TableExists(existing)
    engine = get_game(game)
    clock.per_move(time_control)  # refuses an unknown control before anything is written
    state = chance.deal(engine, len(seats), options, seed) if start else None
    now = clock.stamp(moment)
    if start and state is not None:
        first = engine.to_act(state)
        deadline, remind_at = _move_deadlines(
            conn, time_control, moment, seats[first if first is not None else 0]
        )
    else:
        deadline, remind_at = clock.stamp(moment + clock.LOBBY_WAIT), None
    cur = conn.execute(
        "INSERT INTO tables (guild_id, channel_id, game, options, seed, host_id,"
        " status, state, created_at, updated_at, rematch_of, seating, time_control, deadline,"
        " remind_at, forfeit_after, salt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        " ?, ?)",
        (
            guild_id,
            channel_id,
            game,
            json.dumps(options),
            seed,
            host_id,
            "running" if start else "lobby",
            None if state is None else dumps(state),
            now,
            now,
            rematch_of,
            seating,
            time_control,
            deadline,
            remind_at,
            forfeit_after,
            fairness.new_salt(),
        ),
    )
    assert cur.lastrowid is not None
    _write_seats(conn, cur.lastrowid, seats)
    return _require(conn, cur.lastrowid)


def _load_table(conn: Connection, table_id: int) -> TableRecord | None:
    row = conn.execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone()
    return None if row is None else _record(row, _seats(conn, table_id))


def _newest(conn: Connection, table: TableRecord) -> TableRecord | None:
    """``table`` as stored now, read and decoded again only when its version moved on (every
    change of a table's row moves it: see migration 011)."""
    row = conn.execute("SELECT version FROM tables WHERE id = ?", (table.id,)).fetchone()
    if row is None:
        return None
    return table if int(row[0]) == table.version else _load_table(conn, table.id)


def _require(conn: Connection, table_id: int) -> TableRecord:
    table = _load_table(conn, table_id)
    if table is None:
        raise TableError("That table no longer exists.")
    return table


def _open_table_in(conn: Connection, channel_id: int) -> TableRecord | None:
    row = conn.execute(
        "SELECT * FROM tables WHERE channel_id = ? AND status IN ('lobby', 'running')",
        (channel_id,),
    ).fetchone()
    return None if row is None else _record(row, _seats(conn, row["id"]))


def _seats(conn: Connection, table_id: int) -> tuple[int, ...]:
    rows = conn.execute(
        "SELECT user_id FROM seats WHERE table_id = ? ORDER BY seat", (table_id,)
    ).fetchall()
    return tuple(int(row[0]) for row in rows)


def _write_seats(conn: Connection, table_id: int, seats: Sequence[int]) -> None:
    conn.execute("DELETE FROM seats WHERE table_id = ?", (table_id,))
    conn.executemany(
        "INSERT INTO seats (table_id, seat, user_id) VALUES (?, ?, ?)",
        [(table_id, n, user_id) for n, user_id in enumerate(seats)],
    )


def _update_lobby(
    conn: Connection, table: TableRecord, seats: tuple[int, ...], now: str
) -> TableRecord:
    conn.execute(
        "UPDATE tables SET version = version + 1, updated_at = ? WHERE id = ?", (now, table.id)
    )
    _write_seats(conn, table.id, seats)
    return replace(table, seats=seats, version=table.version + 1, updated_at=now)


def _move_deadlines(
    conn: Connection, control: str, moment: datetime, user_id: int
) -> tuple[str | None, str | None]:
    """The deadline and reminder of ``user_id``'s next move; a daily clock waits out their
    vacation first."""
    if not control.startswith("daily:"):
        return clock.deadlines(control, moment)
    return clock.deadlines(control, moment + players.vacation_left(conn, user_id, moment))


def _beat(conn: Connection, moment: datetime) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES ('heartbeat', ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (clock.stamp(moment),),
    )


def _cancel(conn: Connection, table_id: int, now: str) -> None:
    conn.execute(
        "UPDATE tables SET status = 'cancelled', version = version + 1, updated_at = ?,"
        " deadline = NULL, remind_at = NULL WHERE id = ?",
        (now, table_id),
    )


def _actions(conn: Connection, sql: str, params: tuple[Any, ...]) -> list[ActionRecord]:
    return [_action(row) for row in conn.execute(sql, params).fetchall()]


def _action(row: Any) -> ActionRecord:
    try:
        action = json.loads(row["action"])
        events = json.loads(row["events"])
        if not isinstance(action, dict) or not isinstance(events, list):
            raise TypeError("an action is an object and its events a list")
        return ActionRecord(
            table_id=int(row["table_id"]),
            ply=int(row["ply"]),
            seat=int(row["seat"]),
            user_id=int(row["user_id"]),
            action=action,
            events=events,
            created_at=row["created_at"],
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptTable(
            f"Move {row['ply']} of table {row['table_id']} could not be read from the database."
        ) from exc


def _record(row: Any, seats: tuple[int, ...]) -> TableRecord:
    try:
        game = get_game(row["game"])
        if len(seats) < (1 if row["state"] is None else game.min_seats):
            raise ValueError("the table's seats are missing")
        return TableRecord(
            id=row["id"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            game=row["game"],
            options=json.loads(row["options"]),
            seed=row["seed"],
            host_id=row["host_id"],
            seats=seats,
            status=row["status"],
            state=None if row["state"] is None else loads(row["state"], game),
            ply=row["ply"],
            version=row["version"],
            result=None if row["result"] is None else Result.from_json(json.loads(row["result"])),
            message_id=row["message_id"],
            rematch_of=row["rematch_of"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            seating=row["seating"],
            ping_message_id=row["ping_message_id"],
            time_control=row["time_control"],
            deadline=row["deadline"],
            remind_at=row["remind_at"],
            forfeit_after=row["forfeit_after"],
            salt=row["salt"],
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptTable(
            f"Table {row['id']} could not be read from the database; an admin can cancel it."
        ) from exc


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
