"""SQLite persistence for Siege Hall tables: lobby, games, the action log and DM panels.

One aiosqlite connection per :class:`Store`, WAL mode and a busy timeout. Every change is one
``BEGIN IMMEDIATE`` transaction; a game action writes the new state, its log row and the ply bump
together, guarded by a ply check so two attempts at the same ply apply exactly once (also across
processes sharing the file). Schema changes are the numbered plain-SQL files in
``storage/migrations/``, tracked by ``PRAGMA user_version``.

The store takes and returns engine types; SQL stays inside this package.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import aiosqlite

from engine import get_game
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
    rng_for,
)

BUSY_TIMEOUT_MS = 5000
DmMode = Literal["on", "off", "closed"]
Seating = Literal["join", "random", "host_first", "host_second"]
Status = Literal["lobby", "running", "over", "cancelled"]


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
class ActionRecord:
    table_id: int
    ply: int
    seat: int
    user_id: int
    action: Action
    events: list[Event]
    created_at: str


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _migrations() -> list[tuple[int, str]]:
    folder = resources.files("storage") / "migrations"
    found = []
    for entry in folder.iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:3].isdigit():
            found.append((int(name[:3]), entry.read_text(encoding="utf-8")))
    return sorted(found)


class Store:
    """The one gateway to the database. Create with :meth:`open`; close with :meth:`close`."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self._conn = conn
        self._write_lock = asyncio.Lock()

    @classmethod
    async def open(cls, path: str | Path) -> Store:
        conn = await aiosqlite.connect(str(path), isolation_level=None)
        conn.row_factory = sqlite3.Row
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        await conn.execute("PRAGMA journal_mode = WAL")
        await conn.execute("PRAGMA foreign_keys = ON")
        await conn.execute("PRAGMA synchronous = NORMAL")
        return cls(conn)

    async def close(self) -> None:
        await self._conn.close()

    async def schema_version(self) -> int:
        async with self._conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    async def migrate(self) -> int:
        """Apply every migration newer than ``PRAGMA user_version``; returns the new version."""
        current = await self.schema_version()
        for number, sql in _migrations():
            if number <= current:
                continue
            async with self._transaction() as conn:
                # executescript would COMMIT our transaction; run statement by statement.
                for statement in _split_sql(sql):
                    await conn.execute(statement)
                await conn.execute(f"PRAGMA user_version = {number}")
            current = number
        return current

    @asynccontextmanager
    async def _transaction(self) -> AsyncIterator[aiosqlite.Connection]:
        async with self._write_lock:
            await self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
            else:
                await self._conn.execute("COMMIT")

    # -- reading -----------------------------------------------------------------------------

    async def get_table(self, table_id: int) -> TableRecord | None:
        return await self._fetch_one("SELECT * FROM tables WHERE id = ?", (table_id,))

    async def open_table_in(self, channel_id: int) -> TableRecord | None:
        return await self._fetch_one(
            "SELECT * FROM tables WHERE channel_id = ? AND status IN ('lobby', 'running')",
            (channel_id,),
        )

    async def actions(self, table_id: int) -> list[ActionRecord]:
        async with self._conn.execute(
            "SELECT * FROM actions WHERE table_id = ? ORDER BY ply", (table_id,)
        ) as cur:
            rows = await cur.fetchall()
        return [_action(r) for r in rows]

    async def recent_actions(self, table_id: int, limit: int) -> list[ActionRecord]:
        """The last ``limit`` logged actions of a table, oldest first."""
        async with self._conn.execute(
            "SELECT * FROM actions WHERE table_id = ? ORDER BY ply DESC LIMIT ?",
            (table_id, limit),
        ) as cur:
            rows = await cur.fetchall()
        return [_action(r) for r in reversed(list(rows))]

    async def open_tables_of(self, user_id: int) -> list[TableRecord]:
        """Open tables where this user holds a seat."""
        async with self._conn.execute(
            "SELECT * FROM tables WHERE status IN ('lobby', 'running') AND EXISTS"
            " (SELECT 1 FROM json_each(tables.seats) WHERE json_each.value = ?)",
            (user_id,),
        ) as cur:
            rows = await cur.fetchall()
        return [_record(r) for r in rows]

    async def replay(self, table_id: int) -> State:
        """Rebuild a table's state from its seed and action log (it equals the stored state)."""
        table = await self._require(table_id)
        game = table.engine
        state = game.setup(len(table.seats), table.options, rng_for(table.seed, "setup"))
        for record in await self.actions(table_id):
            state, _ = perform(game, state, record.seat, record.action, table.seed, record.ply)
        return state

    async def _fetch_one(self, sql: str, params: tuple[Any, ...]) -> TableRecord | None:
        async with self._conn.execute(sql, params) as cur:
            row = await cur.fetchone()
        return None if row is None else _record(row)

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
    ) -> TableRecord:
        """Open a lobby (the host takes the first seat), or with ``start`` a running game."""
        engine = get_game(game)
        opts = resolve_options(engine, options)
        seed = random.SystemRandom().randrange(2**62) if seed is None else seed
        seat_ids = tuple(seats) if seats is not None else (host_id,)
        state = None
        if start:
            state = engine.setup(len(seat_ids), opts, rng_for(seed, "setup"))
        now = _now()
        try:
            async with self._transaction() as conn:
                cur = await conn.execute(
                    "INSERT INTO tables (guild_id, channel_id, game, options, seed, host_id,"
                    " seats, status, state, created_at, updated_at, rematch_of, seating)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        guild_id,
                        channel_id,
                        game,
                        json.dumps(opts),
                        seed,
                        host_id,
                        json.dumps(list(seat_ids)),
                        "running" if start else "lobby",
                        None if state is None else dumps(state),
                        now,
                        now,
                        rematch_of,
                        seating,
                    ),
                )
                table_id = cur.lastrowid
        except sqlite3.IntegrityError:
            existing = await self.open_table_in(channel_id)
            if existing is None:  # pragma: no cover - the index is the only constraint here
                raise
            raise TableExists(existing) from None
        assert table_id is not None
        return await self._require(table_id)

    async def set_message(self, table_id: int, message_id: int | None) -> None:
        async with self._transaction() as conn:
            await conn.execute(
                "UPDATE tables SET message_id = ? WHERE id = ?", (message_id, table_id)
            )

    async def set_ping(self, table_id: int, message_id: int | None) -> None:
        """Remember (or forget) the channel message pinging the player to act."""
        async with self._transaction() as conn:
            await conn.execute(
                "UPDATE tables SET ping_message_id = ? WHERE id = ?", (message_id, table_id)
            )

    async def join(self, table_id: int, user_id: int) -> TableRecord:
        async with self._transaction():
            table = await self._require(table_id)
            if table.status != "lobby":
                raise TableError("This table has already started; you can watch it.")
            if user_id in table.seats:
                raise TableError("You already have a seat at this table.")
            if len(table.seats) >= table.engine.max_seats:
                raise TableError("This table is full.")
            return await self._update_lobby(table, (*table.seats, user_id))

    async def leave(self, table_id: int, user_id: int) -> TableRecord:
        async with self._transaction():
            table = await self._require(table_id)
            if table.status != "lobby":
                raise TableError("The game has started; use Resign to leave it.")
            if user_id not in table.seats:
                raise TableError("You do not have a seat at this table.")
            if user_id == table.host_id:
                raise TableError("You host this table: cancel it instead of leaving.")
            return await self._update_lobby(table, tuple(s for s in table.seats if s != user_id))

    async def _update_lobby(self, table: TableRecord, seats: tuple[int, ...]) -> TableRecord:
        await self._conn.execute(
            "UPDATE tables SET seats = ?, version = version + 1, updated_at = ? WHERE id = ?",
            (json.dumps(list(seats)), _now(), table.id),
        )
        return await self._require(table.id)

    async def start(self, table_id: int, user_id: int) -> TableRecord:
        async with self._transaction() as conn:
            table = await self._require(table_id)
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
            state = engine.setup(len(seats), table.options, rng_for(table.seed, "setup"))
            await conn.execute(
                "UPDATE tables SET status = 'running', state = ?, seats = ?,"
                " version = version + 1, updated_at = ? WHERE id = ?",
                (dumps(state), json.dumps(list(seats)), _now(), table.id),
            )
            return await self._require(table.id)

    async def cancel(self, table_id: int) -> TableRecord:
        async with self._transaction() as conn:
            table = await self._require(table_id)
            if not table.is_open:
                raise TableError("This table is already closed.")
            await conn.execute(
                "UPDATE tables SET status = 'cancelled', version = version + 1, updated_at = ?"
                " WHERE id = ?",
                (_now(), table.id),
            )
            return await self._require(table.id)

    async def close_channel(self, channel_id: int) -> int | None:
        """Cancel the open table of a channel without reading it (a deleted channel, or a row
        too damaged to load). Returns the closed table's id, if there was one."""
        async with self._transaction() as conn:
            async with conn.execute(
                "SELECT id FROM tables WHERE channel_id = ? AND status IN ('lobby', 'running')",
                (channel_id,),
            ) as cur:
                row = await cur.fetchone()
            if row is None:
                return None
            await conn.execute(
                "UPDATE tables SET status = 'cancelled', version = version + 1, updated_at = ?"
                " WHERE id = ?",
                (_now(), row[0]),
            )
            return int(row[0])

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
        async with self._transaction() as conn:
            table = await self._require(table_id)
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
            if action is not RESIGN and action != RESIGN:
                # A seat held twice (a solo table) acts as whichever of its seats is to act.
                to_act = game.to_act(state)
                if to_act is not None and to_act != seat and table.seats[to_act] == user_id:
                    seat = to_act
            new_state, events = perform(game, state, seat, action, table.seed, table.ply)
            result = game.result(new_state)
            now = _now()
            cur = await conn.execute(
                "UPDATE tables SET state = ?, ply = ply + 1, version = version + 1,"
                " status = ?, result = ?, updated_at = ? WHERE id = ? AND ply = ?",
                (
                    dumps(new_state),
                    "running" if result is None else "over",
                    None if result is None else json.dumps(result.to_json()),
                    now,
                    table.id,
                    table.ply,
                ),
            )
            if cur.rowcount != 1:
                raise StaleAction("That button is out of date: the game has moved on.")
            await conn.execute(
                "INSERT INTO actions (table_id, ply, seat, user_id, action, events, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (table.id, table.ply, seat, user_id, json.dumps(action), json.dumps(events), now),
            )
            return await self._require(table.id), events

    # -- players and DM panels -----------------------------------------------------------------

    async def dm_mode(self, user_id: int) -> DmMode:
        async with self._conn.execute(
            "SELECT dm_mode FROM players WHERE user_id = ?", (user_id,)
        ) as cur:
            row = await cur.fetchone()
        mode: DmMode = "on" if row is None else row["dm_mode"]
        return mode

    async def set_dm_mode(self, user_id: int, mode: DmMode) -> None:
        async with self._transaction() as conn:
            await conn.execute(
                "INSERT INTO players (user_id, dm_mode) VALUES (?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET dm_mode = excluded.dm_mode",
                (user_id, mode),
            )

    async def dm_panel(self, table_id: int, user_id: int) -> tuple[int, int] | None:
        """The (DM channel id, message id) of a player's panel for a table, if one was sent."""
        async with self._conn.execute(
            "SELECT channel_id, message_id FROM dm_panels WHERE table_id = ? AND user_id = ?",
            (table_id, user_id),
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else (int(row[0]), int(row[1]))

    async def set_dm_panel(
        self, table_id: int, user_id: int, channel_id: int, message_id: int
    ) -> None:
        async with self._transaction() as conn:
            await conn.execute(
                "INSERT INTO dm_panels (table_id, user_id, channel_id, message_id)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (table_id, user_id) DO UPDATE SET"
                " channel_id = excluded.channel_id, message_id = excluded.message_id",
                (table_id, user_id, channel_id, message_id),
            )

    async def forget_dm_panel(self, table_id: int, user_id: int) -> None:
        async with self._transaction() as conn:
            await conn.execute(
                "DELETE FROM dm_panels WHERE table_id = ? AND user_id = ?", (table_id, user_id)
            )


RESIGN: Action = {"type": "resign"}


def perform(
    game: Game, state: State, seat: int, action: Action, seed: int, ply: int
) -> tuple[State, list[Event]]:
    """One logged action: the table-level resignation, or a move through the game's rules."""
    if action == RESIGN:
        return game.resign(state, seat)
    return game.apply(state, seat, action, rng_for(seed, ply))


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


def _action(row: sqlite3.Row) -> ActionRecord:
    return ActionRecord(
        table_id=row["table_id"],
        ply=row["ply"],
        seat=row["seat"],
        user_id=row["user_id"],
        action=json.loads(row["action"]),
        events=json.loads(row["events"]),
        created_at=row["created_at"],
    )


def _record(row: sqlite3.Row) -> TableRecord:
    try:
        game = get_game(row["game"])
        return TableRecord(
            id=row["id"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            game=row["game"],
            options=json.loads(row["options"]),
            seed=row["seed"],
            host_id=row["host_id"],
            seats=tuple(int(s) for s in json.loads(row["seats"])),
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
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptTable(
            f"Table {row['id']} could not be read from the database; an admin can cancel it."
        ) from exc


def _split_sql(script: str) -> list[str]:
    """Statements of a migration file (comments dropped; no ';' inside literals here)."""
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


__all__ = [
    "RESIGN",
    "ActionRecord",
    "CorruptTable",
    "DmMode",
    "RuleError",
    "StaleAction",
    "Store",
    "TableError",
    "TableExists",
    "TableRecord",
    "perform",
]
