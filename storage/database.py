"""The SQLite file behind the store: two connections, each owned by one aiosqlite thread, and a
third on the event loop's own thread.

- The **writer** runs every change as one call on its thread: ``BEGIN IMMEDIATE``, the caller's
  function (load, check, write), ``COMMIT`` — or ``ROLLBACK`` if the function raised. The whole
  transaction is one trip to the thread, so a cancelled coroutine can never leave a transaction
  open (the thread finishes what it started) and no other coroutine can see a write before it
  commits. Commits use ``synchronous = FULL``: an acknowledged action survives a power loss.
  Writes that queue up while the writer is busy share its next trip and commit (group commit),
  each in a savepoint of its own; bookkeeping that nobody waits for goes with the next trip
  (:mod:`storage.group_commit`).
- The **reader** (``query_only``) serves every read, each on one snapshot. In WAL mode it never
  waits for the writer and only ever sees committed data.
- The **near reader** (``query_only``, no busy timeout) serves the few reads by key of a move's
  hot path (:meth:`Database.read_near`) on the event loop's thread: a trip to a thread and back
  costs more CPU than such a read. Whatever would make it wait is read by the reader instead.

:meth:`Database.open` checks the file before anything else uses it (the folder exists, the path is
a file, it is a SQLite database whose header and schema read, and it can be written) and answers
every problem with :class:`DatabaseUnusable`, a one-line sentence naming the path and the cause,
leaving no connection or thread behind.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any, Protocol, TypeVar

import aiosqlite

from storage import migration, outage
from storage.group_commit import GroupCommit

T = TypeVar("T")

log = logging.getLogger("siege.storage")


class Cursor(Protocol):
    """What a statement gives back, on either database (``sqlite3.Cursor`` is one)."""

    @property
    def rowcount(self) -> int: ...

    @property
    def lastrowid(self) -> int | None: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    """The calls a transaction function makes, on either database: ``sqlite3.Connection`` has
    them, and so has :class:`storage.pg_dialect.PgConnection`. Rows read by position and by name."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Cursor: ...

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> Cursor: ...


BUSY_TIMEOUT_MS = 5000
#: DROP COLUMN and MATERIALIZED common table expressions (used by the migrations).
MIN_SQLITE = (3, 35, 0)


class DatabaseUnusable(Exception):
    """The database file cannot be used at all (start-up refuses to go on)."""

    def __init__(self, path: str | Path, cause: str) -> None:
        super().__init__(f"cannot use the database at {path}: {cause}")
        self.path = str(path)
        self.cause = cause


class DatabaseBusy(Exception):
    """Another process held the write lock for longer than the busy timeout."""


def on_thread(conn: aiosqlite.Connection, fn: Callable[[sqlite3.Connection], T]) -> Any:
    """Run ``fn(sqlite3_connection)`` on the thread that owns ``conn``, as one queued call.

    aiosqlite's public calls are one statement each; a transaction that loads, checks and writes
    would be several trips, with other coroutines' statements free to run between them. Its
    ``_execute`` (present since aiosqlite 0.1) queues any callable on the connection's thread;
    this is the one place that reaches for it.
    """
    raw: sqlite3.Connection = conn._conn
    return conn._execute(fn, raw)  # type: ignore[no-untyped-call]


def _check_path(path: Path) -> None:
    if str(path) == ":memory:":
        return
    folder = path.parent
    if not folder.exists():
        raise DatabaseUnusable(path, f"the folder {folder} does not exist")
    if not folder.is_dir():
        raise DatabaseUnusable(path, f"{folder} is not a folder")
    if path.is_dir():
        raise DatabaseUnusable(path, "it is a folder, not a database file")
    if path.exists() and not path.is_file():
        raise DatabaseUnusable(path, "it is not a regular file")


def _check_empty(path: Path) -> None:
    """A file of zero bytes is a new database to SQLite. Where the folder shows earlier use (a
    copy taken before a migration, or a write-ahead log) it is more likely a database truncated
    by accident: refused, so that nothing is written over what may still be recovered. Alone, it
    is used as a new database, with a warning naming it.

    The traces are looked for before the size is read: a process creating the file writes its
    header before its log exists, so a file seen empty after its log is really empty."""
    if str(path) == ":memory:":
        return
    wal = path.with_name(path.name + "-wal")
    traces = sorted(p.name for p in path.parent.glob(f"{path.stem}-before-v*{path.suffix}"))
    if wal.exists():
        traces.append(wal.name)
    try:
        empty = path.stat().st_size == 0
    except FileNotFoundError:
        return
    if not empty:
        return
    if traces:
        raise DatabaseUnusable(
            path,
            f"the file is empty (0 bytes), but {', '.join(traces)} beside it show earlier use: "
            "it looks truncated by accident; restore a copy (see the README), or move the file "
            "away to start a new database",
        )
    log.warning("the database file %s is empty (0 bytes): starting it as a new database", path)


def _cause(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    lowered = text.lower()
    if "not a database" in lowered:
        return "the file is not a SQLite database (damaged, or some other kind of file)"
    if "malformed" in lowered or "corrupt" in lowered:
        return f"the file is damaged ({text})"
    if "readonly" in lowered or "read-only" in lowered:
        return "the file (or its folder) is read-only; Siege Hall must be able to write it"
    if "unable to open" in lowered:
        return "the file cannot be opened (check the path and its permissions)"
    if "locked" in lowered or "busy" in lowered:
        return "another program holds it locked"
    return text


def _prepare_writer(conn: sqlite3.Connection) -> None:
    """Settings and checks on the writer's thread, before anything else touches the file.
    At start-up the write lock is waited for as long as another process's migration may hold
    it (storage/migration.py); the busy timeout of play applies from the end of this."""
    conn.execute(f"PRAGMA busy_timeout = {migration.MIGRATION_WAIT_MS}")
    mode = migration.wal_mode(conn)
    if mode is None or str(mode[0]).lower() != "wal":
        raise sqlite3.OperationalError(f"could not switch to WAL mode (got {mode})")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = FULL")
    # Reading the schema proves a SQLite file whose header and schema are sound; SQLite itself
    # refuses a file shorter than its header says (truncated). A whole-file check would read
    # every page on every start (half a second warm, seconds cold, at 10,000 games): that is
    # `python -m storage check`, for the operator to run; a damaged page found later answers
    # for its own table only.
    conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    # A read-only file (or folder) opens and reads fine; only a write says so. Rewriting the
    # schema version with its own value is a real write that changes nothing. It is read under
    # the lock: read before, another process's migration could commit in between and be undone.
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        conn.execute(f"PRAGMA user_version = {int(version)}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")


def _prepare_reader(conn: sqlite3.Connection) -> None:
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA query_only = ON")


def _is_busy(exc: sqlite3.OperationalError) -> bool:
    """Whether SQLite refused because another connection holds the file (not a failure)."""
    return "locked" in str(exc) or "busy" in str(exc)


def _near_reader(path: Path) -> sqlite3.Connection:
    """The connection :meth:`Database.read_near` reads with, on the event loop's thread: it
    never waits for a lock (a busy file is read on the reader's thread instead)."""
    conn = sqlite3.connect(str(path), isolation_level=None)
    try:
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA busy_timeout = 0")
        conn.execute("PRAGMA query_only = ON")
    except BaseException:
        conn.close()
        raise
    return conn


def _in_transaction(fn: Callable[[sqlite3.Connection], T], begin: str) -> Callable[..., T]:
    def run(conn: sqlite3.Connection) -> T:
        conn.execute(begin)
        try:
            result = fn(conn)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        return result

    return run


def _commit_group(
    batch: list[Callable[[sqlite3.Connection], Any]],
    memo: dict[Any, Any],
    before_commit: Callable[[], None],
    conn: sqlite3.Connection,
) -> list[tuple[bool, Any]]:
    """One transaction for a group of writes, each in its own savepoint: a write that raises
    is rolled back alone and its error returned in its place. Commits once at the end, after
    ``before_commit`` (which may still refuse the whole group). Anything rolled back empties
    ``memo`` (what the writes remembered may not have happened)."""
    outcomes: list[tuple[bool, Any]] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        if len(batch) == 1:  # alone: the transaction is its savepoint
            (fn,) = batch
            try:
                outcomes.append((True, fn(conn)))
            except Exception as exc:
                memo.clear()
                if conn.in_transaction:  # (SQLite ends it itself on a full disk, an I/O error)
                    conn.execute("ROLLBACK")
                return [(False, exc)]
        else:
            for fn in batch:
                conn.execute("SAVEPOINT one_write")
                try:
                    value = fn(conn)
                except Exception as exc:
                    memo.clear()
                    if not conn.in_transaction:  # SQLite rolled all of it back (a full disk):
                        raise  # every write of the group fails, none is acknowledged
                    conn.execute("ROLLBACK TO one_write")
                    conn.execute("RELEASE one_write")
                    outcomes.append((False, exc))
                else:
                    conn.execute("RELEASE one_write")
                    outcomes.append((True, value))
        before_commit()
        conn.execute("COMMIT")
    except BaseException:
        memo.clear()
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return outcomes


async def _connect(
    path: Path, prepare: Callable[[sqlite3.Connection], None]
) -> aiosqlite.Connection:
    conn = await aiosqlite.connect(str(path), isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        await on_thread(conn, prepare)
    except BaseException:
        await conn.close()
        raise
    return conn


class Database(GroupCommit):
    """The writer and the reader of one SQLite file. Create with :meth:`open`."""

    def __init__(
        self,
        path: Path,
        writer: aiosqlite.Connection,
        reader: aiosqlite.Connection,
        near: sqlite3.Connection | None = None,
    ):
        super().__init__(str(path))
        self.path = path
        #: A third connection, on the event loop's own thread, for :meth:`read_near`.
        self._near = near
        self._wal = outage.WalWatch(path)
        self._writer = writer
        self._reader = reader
        #: For write functions only (they run one at a time on the writer's thread): what they
        #: want to remember between writes. Emptied whenever a write or a commit fails, so what
        #: is in it was committed; a write must still check it against the file (another
        #: process may have changed the file since).
        self.memo: dict[Any, Any] = {}

    @classmethod
    async def open(cls, path: str | Path) -> Database:
        path = Path(path)
        if sqlite3.sqlite_version_info < MIN_SQLITE:
            need = ".".join(map(str, MIN_SQLITE))
            raise DatabaseUnusable(path, f"SQLite {sqlite3.sqlite_version} is older than {need}")
        _check_path(path)
        _check_empty(path)
        try:
            writer = await _connect(path, _prepare_writer)
        except (sqlite3.Error, OSError) as exc:
            raise DatabaseUnusable(path, _cause(exc)) from None
        try:
            reader = await _connect(path, _prepare_reader)
        except (sqlite3.Error, OSError) as exc:
            await writer.close()
            raise DatabaseUnusable(path, _cause(exc)) from None
        except BaseException:
            await writer.close()
            raise
        try:
            near = _near_reader(path)
        except (sqlite3.Error, OSError) as exc:
            await reader.close()
            await writer.close()
            raise DatabaseUnusable(path, _cause(exc)) from None
        return cls(path, writer, reader, near)

    async def close(self) -> None:
        """Finish what is queued, then close both connections (the writer last)."""
        await self.flush_later()
        self.close_later()
        while self._drain is not None and not self._drain.done():  # each group starts the next
            await asyncio.shield(self._drain)
        try:
            if self._near is not None:
                self._near.close()
                self._near = None
            await self._reader.close()
        finally:
            await self._writer.close()

    async def write(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``fn`` in a write transaction on the writer's thread: committed if it returns,
        rolled back if it raises, and this returns only once the commit is on disk.

        Group commit: writes that arrive while the writer is busy go together in its next trip,
        one transaction with a savepoint each, so one fsync covers them all and a write that
        raises rolls back alone. An idle writer takes a write straight away, without a hop
        through the drain task. Safe to cancel: a write that reached the writer's thread runs
        whole or not at all.
        """
        return await super().write(fn)

    async def _trip(self, batch: list[Callable[[Any], Any]]) -> list[tuple[bool, Any]]:
        """One group on the writer's thread; each write's outcome, or the whole group's error
        when the transaction itself failed (then nothing of it committed)."""
        if self._wal.lost is not None:  # writes stopped: the file is not touched again
            return [(False, outage.Unavailable(self._wal.lost))] * len(batch)
        try:
            outcomes: list[tuple[bool, Any]] = await on_thread(
                self._writer, partial(_commit_group, batch, self.memo, self._wal.check)
            )
        except sqlite3.OperationalError as exc:
            error: Exception = exc
            if _is_busy(exc):
                error = DatabaseBusy(str(exc))
            return [(False, error)] * len(batch)
        except Exception as exc:
            return [(False, exc)] * len(batch)
        return outcomes

    async def read(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn`` on one consistent snapshot, on the reader's thread."""
        try:
            result: T = await on_thread(self._reader, _in_transaction(fn, "BEGIN"))
        except sqlite3.OperationalError as exc:
            if outage.is_unavailable(exc):
                raise self.health.failed(exc) from None
            raise
        return result

    #: The store's migrations for this database (``storage/migrations``).
    migrations_folder = "migrations"

    async def read_near(self, fn: Callable[[sqlite3.Connection], T]) -> T:
        """``fn`` on one consistent snapshot, on the event loop's own thread: for a read of a
        few rows by key on a move's hot path (a table by id, its newest version, its last
        actions), where the hop to the reader's thread and back costs more CPU than the read.
        Nothing long goes here: it holds up every other table while it runs. It never waits for
        a lock: a file another process holds in a way that would make it wait (a checkpoint
        restarting the log, a migration) is read on the reader's thread instead."""
        near = self._near
        if near is None:
            return await self.read(fn)
        try:
            return _in_transaction(fn, "BEGIN")(near)
        except sqlite3.OperationalError as exc:
            if _is_busy(exc):
                return await self.read(fn)
            if outage.is_unavailable(exc):
                raise self.health.failed(exc) from None
            raise

    async def schema_version(self) -> int:
        return int(await self.scalar("PRAGMA user_version"))

    async def migrate(self, migrations: list[tuple[int, str]], after: migration.After) -> int:
        """Every migration newer than the file's version, and ``after``, in one transaction
        under the write lock, the file copied first if it has data (storage/migration.py)."""
        self.memo.clear()  # a migration may change anything
        run = partial(
            migration.migrate,
            path=self.path,
            migrations=migrations,
            after=after,
            busy_timeout_ms=BUSY_TIMEOUT_MS,
        )
        try:
            version: int = await on_thread(self._writer, run)
        except migration.Refused as exc:
            raise DatabaseUnusable(self.path, exc.cause) from None
        except sqlite3.OperationalError as exc:  # the lock, the disk...
            raise DatabaseUnusable(self.path, _cause(exc)) from None
        return version

    async def has_data(self) -> bool:
        return bool(await self.scalar("SELECT EXISTS (SELECT 1 FROM tables)"))

    async def backup(self, destination: str | Path) -> None:
        """A consistent copy of the live database (SQLite's online backup API)."""
        destination = Path(destination)
        _check_path(destination)

        def run(conn: sqlite3.Connection) -> None:
            target = sqlite3.connect(str(destination))
            try:
                conn.backup(target)
            finally:
                target.close()

        await on_thread(self._reader, run)

    async def integrity_check(self) -> list[str]:
        """SQLite's full ``integrity_check``: ``["ok"]``, or the problems it found (some damage
        stops the check itself, which is then the problem reported)."""
        try:
            return await self.read(
                lambda conn: [str(row[0]) for row in conn.execute("PRAGMA integrity_check")]
            )
        except sqlite3.DatabaseError as exc:
            return [f"the check could not finish: {exc}"]

    async def scalar(self, sql: str, params: Iterable[Any] = ()) -> Any:
        """The first column of the first row (``None`` when there is none)."""

        def run(conn: sqlite3.Connection) -> Any:
            row = conn.execute(sql, tuple(params)).fetchone()
            return None if row is None else row[0]

        return await self.read(run)


__all__ = [
    "BUSY_TIMEOUT_MS",
    "Connection",
    "Cursor",
    "Database",
    "DatabaseBusy",
    "DatabaseUnusable",
    "on_thread",
]
