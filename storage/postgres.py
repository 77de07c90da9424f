"""The PostgreSQL database behind the store, chosen by ``DATABASE_URL=postgresql://…``.

The store's transactions are plain synchronous functions ``fn(conn)`` that load, check and write
with sqlite3-style calls (``conn.execute(sql, params).fetchone()``, ``rowcount``, ``lastrowid``).
Here they run on threads that each own one psycopg connection, through
:class:`~storage.pg_dialect.PgConnection`, which speaks the same few calls and translates the SQL
in one place (storage/pg_dialect.py). One body of SQL-using code serves both databases. As on
SQLite, a process writes on one connection, in the order its writes were asked for (the bot
relies on that: a panel's new message id never lands before the old one's), and reads on others
(a small pool), each on one snapshot.

Why psycopg 3 (synchronous) rather than asyncpg: a transaction here is one synchronous function
of several statements. psycopg runs each statement on the thread that already runs the function;
asyncpg would send every statement from that thread to the event loop and back (two thread hops a
statement, queued behind Discord's traffic on the loop), for no gain.

Exactly once, also across processes: every write runs as a ``SERIALIZABLE`` transaction, so it
behaves as if it ran alone, as SQLite's single writer lock made it. Two clicks at one ply, two
sweepers on one deadline, two processes making one server's daily secret: PostgreSQL lets one
commit and fails the other with a serialization failure; that transaction is run again from the
start, sees what committed, and answers as SQLite would (a stale click, nothing due any more).
Reads run on one ``REPEATABLE READ`` snapshot each. The SQLite writer's group commit and its memo
of hot tables do not apply: each write is its own transaction, and the memo is off
(:attr:`PgDatabase.memo` is ``None``); several processes write side by side.

Errors keep the store's contract: a constraint is ``sqlite3.IntegrityError``, a lock held past the
busy timeout is :class:`~storage.database.DatabaseBusy`, anything else from the server is
``sqlite3.OperationalError`` (never the plain ``DatabaseError`` that means a damaged SQLite file).
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import psycopg

from storage import outage
from storage.database import DatabaseBusy, DatabaseUnusable
from storage.group_commit import GroupCommit
from storage.pg_dialect import Conflict, PgConnection, connect, translate_error

T = TypeVar("T")

#: Connections (and threads) per process that read; reads run side by side.
POOL_SIZE = 4
#: Connections that write, per process: one keeps a process's writes in the order asked.
WRITERS = 1
#: How often a write is tried again after a serialization failure or a deadlock before the store
#: answers "busy" (a failure means another transaction committed: the next try usually decides).
MAX_TRIES = 64
SCHEMES = ("postgresql://", "postgres://")
#: The tables whose ids the database makes (SQLite's ``lastrowid``; here ``RETURNING id``).
BACKUP_REFUSAL = (
    "it is a PostgreSQL database: back it up with pg_dump (see the README), not this command"
)
CHECK_REFUSAL = (
    "it is a PostgreSQL database: the server checks its own pages (use pg_amcheck), not this"
    " command"
)
_MIGRATE_LOCK = 0x5136E_4A11  # the advisory lock key that serialises migrations


def is_url(target: object) -> bool:
    """Whether a database setting names a PostgreSQL server rather than a SQLite file.

    >>> is_url("postgresql://bot@db/siege"), is_url("siege.db")
    (True, False)
    """
    return isinstance(target, str) and target.startswith(SCHEMES)


def redact(url: str) -> str:
    """The URL without its password, for messages and logs.

    >>> redact("postgresql://bot:hunter2@db:5432/siege")
    'postgresql://bot:***@db:5432/siege'
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def _run_group(conn: PgConnection, batch: list[Callable[[PgConnection], Any]]) -> list[Any]:
    """Writes queued together, in order: one SERIALIZABLE transaction with each write in a
    savepoint of its own (one that raises is rolled back alone and its error returned in its
    place), one commit. After a conflict the whole group runs again from the start."""
    alone = len(batch) == 1  # then the transaction is its savepoint
    for attempt in range(MAX_TRIES):
        _begin(conn, "BEGIN ISOLATION LEVEL SERIALIZABLE")
        outcomes: list[tuple[bool, Any]] = []
        try:
            for fn in batch:
                if not alone:
                    conn.execute("SAVEPOINT one_write")
                try:
                    value = fn(conn)
                except Conflict:
                    raise
                except Exception as exc:
                    if alone:
                        _roll_back(conn)
                        return [(False, exc)]
                    conn.execute("ROLLBACK TO SAVEPOINT one_write")
                    conn.execute("RELEASE SAVEPOINT one_write")
                    outcomes.append((False, exc))
                else:
                    if not alone:
                        conn.execute("RELEASE SAVEPOINT one_write")
                    outcomes.append((True, value))
            conn.execute("COMMIT")
        except Conflict:
            _roll_back(conn)  # (a conflict found at COMMIT has rolled back already)
            # Another transaction committed; let the crowd thin before trying again.
            time.sleep(random.uniform(0, 0.001 * min(attempt + 1, 20)))
            continue
        except BaseException:
            _roll_back(conn)
            raise
        return outcomes
    return [(False, DatabaseBusy(f"gave up after {MAX_TRIES} conflicting tries"))] * len(batch)


class _NotStarted(outage.Unavailable):
    """The connection was found dead at a transaction's BEGIN: nothing of it ran."""


def _begin(conn: PgConnection, sql: str) -> None:
    """Start a transaction; a connection that turns out dead there (the server restarted, or
    dropped it) raises :class:`_NotStarted`, so the caller may run it on a new one."""
    try:
        conn.execute(sql)
    except outage.Unavailable as exc:
        if conn.raw.closed:
            raise _NotStarted(str(exc)) from exc
        raise


def _as_busy(exc: Exception) -> Exception:
    """A lock held past the busy timeout answers as :class:`DatabaseBusy`, as on SQLite."""
    if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
        return DatabaseBusy(str(exc))
    return exc


def _run_read(conn: PgConnection, fn: Callable[[PgConnection], T]) -> T:
    _begin(conn, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    try:
        result = fn(conn)
    finally:
        _roll_back(conn)
    return result


def _roll_back(conn: PgConnection) -> None:
    """End the transaction under way, if any (a connection the server dropped has none: it is
    made again for the next call)."""
    status = conn.raw.info.transaction_status
    if status in (psycopg.pq.TransactionStatus.INTRANS, psycopg.pq.TransactionStatus.INERROR):
        conn.execute("ROLLBACK")


class PgDatabase(GroupCommit):
    """A pool of connections to one PostgreSQL database. Create with :meth:`open`."""

    #: The store's migrations for this database (``storage/migrations_pg``).
    migrations_folder = "migrations_pg"
    #: Writes here are their own transactions: there is no writer memo (see the module doc).
    memo: dict[Any, Any] | None = None
    writes_later = False  # (see GroupCommit.writes_later)

    def __init__(self, url: str, pool_size: int = POOL_SIZE) -> None:
        self.url = url
        self.path = redact(url)
        self._local = threading.local()
        self._connections: list[PgConnection] = []
        self._lock = threading.Lock()
        # Writes go one at a time, in the order they were asked for, as on SQLite: two writes of
        # one process (a panel's message id, then its replacement's) never swap places.
        self._writer = ThreadPoolExecutor(WRITERS, thread_name_prefix="siege-pg-write")
        self._pool = ThreadPoolExecutor(pool_size, thread_name_prefix="siege-pg-read")
        self._inflight: set[asyncio.Future[Any]] = set()
        super().__init__(self.path)

    @classmethod
    async def open(cls, url: str, pool_size: int = POOL_SIZE) -> PgDatabase:
        """Connect (one connection now, the rest as the pool needs them). Raises
        :class:`DatabaseUnusable` with one line naming the server when that fails."""
        db = cls(url, pool_size)
        try:
            refusal = await db.read(_cannot_write)
        except (sqlite3.Error, psycopg.Error, OSError, outage.StorageUnavailable) as exc:
            await db.close()
            cause = getattr(exc, "cause", None) or " ".join(str(exc).split()) or type(exc).__name__
            raise DatabaseUnusable(db.path, f"cannot connect ({cause})") from None
        except BaseException:
            await db.close()
            raise
        if refusal is not None:  # found at start, as a read-only SQLite file is
            await db.close()
            raise DatabaseUnusable(db.path, refusal)
        return db

    def _connection(self) -> PgConnection:
        conn: PgConnection | None = getattr(self._local, "conn", None)
        if conn is None or conn.raw.closed:
            try:
                conn = connect(self.url)
            except psycopg.Error as exc:
                raise translate_error(exc) from exc
            self._local.conn = conn
            with self._lock:
                self._connections.append(conn)
        return conn

    async def _on_pool(
        self,
        run: Callable[[PgConnection, Any], T],
        fn: Any,
        pool: ThreadPoolExecutor | None = None,
    ) -> T:
        def call() -> T:
            try:
                return run(self._connection(), fn)
            except _NotStarted:  # a connection the server dropped meanwhile: once more, anew
                try:
                    return run(self._connection(), fn)
                except _NotStarted as again:
                    raise outage.Unavailable(str(again)) from None

        future = asyncio.get_running_loop().run_in_executor(pool or self._pool, call)
        self._inflight.add(future)
        future.add_done_callback(self._inflight.discard)
        # Safe to cancel: the thread runs the transaction whole (or not at all) regardless.
        return await future

    async def write(self, fn: Callable[[Any], T]) -> T:
        """``fn`` in a SERIALIZABLE transaction: committed if it returns, rolled back if it
        raises; run again from the start when it conflicted with another transaction.

        Group commit, as on SQLite: writes that arrive while the writer is busy go together in
        its next trip (one transaction, a savepoint each, one commit), in the order they came.
        """
        return await super().write(fn)

    def _failure(self, error: Exception) -> Exception:
        return super()._failure(_as_busy(error))

    async def _trip(self, batch: list[Callable[[Any], Any]]) -> list[tuple[bool, Any]]:
        try:
            outcomes: list[tuple[bool, Any]] = await self._on_pool(_run_group, batch, self._writer)
        except Exception as exc:  # the transaction itself failed: nothing of it committed
            return [(False, exc)] * len(batch)
        return outcomes

    async def read(self, fn: Callable[[Any], T]) -> T:
        """``fn`` on one consistent snapshot."""
        try:
            return await self._on_pool(_run_read, fn)
        except outage.Unavailable as exc:
            raise self.health.failed(exc) from None

    async def read_near(self, fn: Callable[[Any], T]) -> T:
        """As :meth:`read` (a PostgreSQL read is a trip to the server whatever the thread)."""
        return await self.read(fn)

    async def scalar(self, sql: str, params: Iterable[Any] = ()) -> Any:
        def run(conn: PgConnection) -> Any:
            row = conn.execute(sql, tuple(params)).fetchone()
            return None if row is None else row[0]

        return await self.read(run)

    async def close(self) -> None:
        """Finish what is under way, then close every connection."""
        await asyncio.sleep(0)  # writes scheduled just before the close reach the pool first
        await self.flush_later()
        self.close_later()
        while True:
            pending: set[asyncio.Future[Any]] = set(self._inflight)
            if self._drain is not None and not self._drain.done():
                pending.add(self._drain)
            if not pending:
                break
            await asyncio.wait(pending)
        await asyncio.to_thread(self._writer.shutdown, True)
        await asyncio.to_thread(self._pool.shutdown, True)
        for conn in self._connections:
            conn.raw.close()

    # -- the schema ------------------------------------------------------------------------------

    async def schema_version(self) -> int:
        def run(conn: PgConnection) -> int:
            return _version(conn)

        return await self.read(run)

    async def migrate(
        self, migrations: list[tuple[int, str]], after: Callable[[Any, int, int], None]
    ) -> int:
        """Every migration newer than the database's version, then ``after``, in one
        transaction under an advisory lock taken before the version is read: two processes
        starting together migrate once (the second waits, then finds it done), and a failure
        anywhere leaves the database as it was."""
        failed: list[int] = []

        def run(conn: PgConnection) -> int:
            conn.execute("SELECT pg_advisory_xact_lock(?)", (_MIGRATE_LOCK,))
            conn.execute("CREATE TABLE IF NOT EXISTS siege_schema (version INTEGER NOT NULL)")
            current = _version(conn)
            pending = [(n, sql) for n, sql in migrations if n > current]
            if not pending:
                return current
            for number, sql in pending:
                failed[:] = [number]
                conn.script(sql)
            failed.clear()
            after(conn, current, pending[-1][0])
            conn.execute("DELETE FROM siege_schema")
            conn.execute("INSERT INTO siege_schema (version) VALUES (?)", (pending[-1][0],))
            return pending[-1][0]

        try:
            return await self._on_pool(_run_migration, run, self._writer)
        except sqlite3.Error as exc:
            what = f"migration {failed[0]:03d} failed" if failed else "the migration failed"
            raise DatabaseUnusable(
                self.path, f"{what} ({exc}); the database is unchanged"
            ) from None

    async def has_data(self) -> bool:
        return bool(await self.scalar("SELECT EXISTS (SELECT 1 FROM tables)"))

    async def backup(self, destination: object) -> None:
        raise DatabaseUnusable(self.path, BACKUP_REFUSAL)

    async def integrity_check(self) -> list[str]:
        raise DatabaseUnusable(self.path, CHECK_REFUSAL)


def _run_migration(conn: PgConnection, fn: Callable[[PgConnection], int]) -> int:
    _begin(conn, "BEGIN")
    try:
        version = fn(conn)
        conn.execute("COMMIT")
    except BaseException:
        _roll_back(conn)
        raise
    return version


def _cannot_write(conn: PgConnection) -> str | None:
    """Why Siege Hall could not write this database (``None``: it can)."""
    if conn.execute("SELECT pg_is_in_recovery()").fetchone()[0]:
        return "the server is a read-only standby; Siege Hall must be able to write"
    row = conn.execute(
        "SELECT to_regclass('tables') IS NULL OR (has_table_privilege('tables', 'INSERT')"
        " AND has_table_privilege('tables', 'UPDATE'))"  # (one call is true if ANY is held)
    ).fetchone()
    if not row[0]:
        return "its user may not write the tables; Siege Hall must be able to write"
    return None


def _version(conn: PgConnection) -> int:
    found = conn.execute("SELECT to_regclass('siege_schema') IS NOT NULL").fetchone()
    if not found[0]:
        return 0
    row = conn.execute("SELECT max(version) FROM siege_schema").fetchone()
    return 0 if row is None or row[0] is None else int(row[0])


__all__ = ["POOL_SIZE", "PgDatabase", "is_url", "redact"]
