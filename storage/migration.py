"""Schema migrations of a SQLite file: under the write lock, in one transaction, copied first.

:meth:`storage.database.Database.migrate` runs :func:`migrate` as one call on the writer's
thread, so that:

- the write lock (``BEGIN IMMEDIATE``) is taken **before** the schema version is read: a second
  process starting on the same file waits for the first to finish and then finds nothing to do,
  instead of running migration 001 over tables the first has just made;
- every pending migration, the work on the data they need (the results of games finished before
  schema 5, see ``Store.migrate``) and the new ``user_version`` commit together or not at all:
  a kill at any point leaves the file at its old version, and the next start does all of it;
- a file with data is first copied beside itself (``siege-before-vN.db``), under the same lock so
  the copy is exactly what the migration starts from. The copy is written to a ``.partial`` name
  and renamed when complete: a full disk (or any failure) removes the partial copy and its
  journal and refuses (:class:`Refused`, which the database turns into ``DatabaseUnusable``),
  the original untouched.

PostgreSQL does the same under an advisory lock (:meth:`storage.postgres.PgDatabase.migrate`).
"""

from __future__ import annotations

import errno
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: How long a second process starting on the same file waits for the first one's migration
#: (a copy and a backfill of a large file take a while) before it gives up.
MIGRATION_WAIT_MS = 120_000


class Refused(Exception):
    """The migration cannot be done; ``cause`` says why, in words for the operator."""

    def __init__(self, cause: str) -> None:
        super().__init__(cause)
        self.cause = cause


#: What runs after the migrations, in their transaction: ``after(conn, old, new)``.
After = Callable[[Any, int, int], None]


#: Seconds between two tries at WAL mode while another process holds the file (at start-up).
WAL_RETRY = 0.05


def wal_mode(conn: sqlite3.Connection) -> Any:
    """Switch the file to WAL mode. SQLite answers "database is locked" at once, without its
    busy timeout, while another process holds the lock this change needs (two processes starting
    on one new file: the other is switching it or migrating); so it is tried again until the
    migration wait is over."""
    deadline = time.monotonic() + MIGRATION_WAIT_MS / 1000
    while True:
        try:
            return conn.execute("PRAGMA journal_mode = WAL").fetchone()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc).lower() or time.monotonic() > deadline:
                raise
            time.sleep(WAL_RETRY)


def backup_path(path: Path, version: int) -> Path:
    """Where the automatic copy taken before migrating to ``version`` goes.

    >>> backup_path(Path("/data/siege.db"), 4)
    PosixPath('/data/siege-before-v4.db')
    """
    return path.with_name(f"{path.stem}-before-v{version}{path.suffix}")


def statements(script: str) -> list[str]:
    """A SQL script cut into its statements (a trigger's body stays whole), so that they run
    one by one inside a transaction of ours (``executescript`` would commit it first).

    >>> script = "CREATE TABLE t (a);\\nCREATE TRIGGER g AFTER UPDATE ON t BEGIN SELECT 1; END;"
    >>> [text.strip() for text in statements(script + "\\n-- the end")]
    ['CREATE TABLE t (a);', 'CREATE TRIGGER g AFTER UPDATE ON t BEGIN SELECT 1; END;']
    """
    found: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            found.append(pending)
            pending = ""
    return [text for text in found if _has_code(text)]


def migrate(
    conn: sqlite3.Connection,
    path: Path,
    migrations: Sequence[tuple[int, str]],
    after: After,
    busy_timeout_ms: int,
) -> int:
    """On the writer's thread: lock, read the version, copy the file if it has data, apply
    every newer migration and ``after``, commit. Returns the version the file is at."""
    conn.execute(f"PRAGMA busy_timeout = {MIGRATION_WAIT_MS}")
    try:
        conn.execute("BEGIN IMMEDIATE")
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
    try:
        current = int(conn.execute("PRAGMA user_version").fetchone()[0])
        pending = [(n, sql) for n, sql in migrations if n > current]
        if not pending:
            conn.execute("COMMIT")
            return current
        if current > 0 and conn.execute("SELECT EXISTS (SELECT 1 FROM tables)").fetchone()[0]:
            copy_before(path, backup_path(path, pending[-1][0]))
        for number, sql in pending:
            try:
                for statement in statements(sql):
                    conn.execute(statement)
            except sqlite3.Error as exc:
                raise Refused(
                    f"migration {number:03d} failed ({exc}); the file is unchanged"
                ) from None
        after(conn, current, pending[-1][0])
        conn.execute(f"PRAGMA user_version = {int(pending[-1][0])}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return pending[-1][0]


def copy_before(path: Path, copy: Path) -> None:
    """A consistent copy of ``path`` (committed data; the caller holds the write lock) at
    ``copy``, or :class:`Refused` with nothing of the copy left behind."""
    partial = copy.with_name(copy.name + ".partial")
    try:
        source = sqlite3.connect(str(path))
        try:
            target = sqlite3.connect(str(partial))
            try:
                source.backup(target)
            finally:
                target.close()
        finally:
            source.close()
        os.replace(partial, copy)
    except (sqlite3.Error, OSError) as exc:
        for leftover in _files_of(partial):
            leftover.unlink(missing_ok=True)
        raise Refused(
            f"could not copy it to {copy} before migrating ({_why(exc)}); the database is "
            "unchanged and no partial copy is left",
        ) from None


def _files_of(database: Path) -> list[Path]:
    return [database.with_name(database.name + tail) for tail in ("", "-journal", "-wal", "-shm")]


def _why(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return "the disk is full"
    if getattr(exc, "sqlite_errorname", None) == "SQLITE_FULL":
        return "the disk is full"
    return " ".join(str(exc).split()) or type(exc).__name__


def _has_code(statement: str) -> bool:
    """Whether a piece of a script is more than comments and blanks."""
    lines = (line.split("--", 1)[0] for line in statement.splitlines())
    return any(line.strip(" \t;") for line in lines)
