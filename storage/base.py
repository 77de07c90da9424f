"""What every part of the store stands on: the database (SQLite or PostgreSQL), the clock, and
the one way in for reads and writes. Each concern of ``storage/`` (reading, lobby, playing,
clocks, offers, daily, results, players, schema) is a class on :class:`StoreBase` beside its SQL;
:class:`storage.store.Store` is all of them together.

A write is one transaction on the writer (:meth:`Database.write`); a read goes to a read-only
connection. Either way a damaged page of a SQLite file answers as an unreadable table
(:class:`CorruptTable`, a refusal an admin can act on), and a database another program keeps
locked as :class:`StoreBusy`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Hashable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self, TypeVar

from storage import clock
from storage.database import Connection, Database, DatabaseBusy
from storage.postgres import PgDatabase, is_url
from storage.records import BUSY, DAMAGED, Clock, CorruptTable, StoreBusy
from storage.tails import KeptTails

T = TypeVar("T")


def utc_now() -> datetime:
    return datetime.now(UTC)


def is_damage(exc: sqlite3.DatabaseError) -> bool:
    """SQLite raises its plain ``DatabaseError`` for a damaged page ("database disk image is
    malformed"); locks, constraints and misuse raise subclasses."""
    return type(exc) is sqlite3.DatabaseError


class StoreBase:
    """The database and the clock. Create with :meth:`open`; close with :meth:`close`."""

    def __init__(self, db: Database | PgDatabase, clock: Clock = utc_now) -> None:
        self._db = db
        self._clock = clock
        #: Each table's last logged actions; see Reading.log_tail.
        self._tails = KeptTails()

    @classmethod
    async def open(cls, path: str | Path, *, clock: Clock = utc_now) -> Self:
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

    def now(self) -> datetime:
        """The store's clock (the one deadlines are kept by)."""
        return self._moment()

    async def _write(self, fn: Callable[[Connection], T]) -> T:
        try:
            return await self._db.write(fn)
        except DatabaseBusy:
            raise StoreBusy(BUSY) from None
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):  # locked, constraint, misuse...
                raise
            raise CorruptTable(DAMAGED) from exc

    async def _write_later(
        self, key: Hashable, fn: Callable[[Connection], None], value: Any
    ) -> None:
        """Bookkeeping nobody waits for: with the writer's next trip where the database writes
        later (:meth:`GroupCommit.write_later`, SQLite), else now, as :meth:`_write`."""
        if self._db.writes_later:
            self._db.write_later(key, fn, value)
        else:
            await self._write(fn)

    async def _read(self, fn: Callable[[Connection], T]) -> T:
        """A read of table rows: a damaged page of the file answers as an unreadable table
        (a defined refusal an admin can act on), not as an unexpected error."""
        try:
            return await self._db.read(fn)
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):  # locked, constraint, misuse...
                raise
            raise CorruptTable(DAMAGED) from exc

    async def _read_near(self, fn: Callable[[Connection], T]) -> T:
        """As :meth:`_read`, on the event loop's own thread (:meth:`Database.read_near`): only
        for a few rows read by key on a move's hot path."""
        try:
            return await self._db.read_near(fn)
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            raise CorruptTable(DAMAGED) from exc

    async def _execute(self, sql: str, params: tuple[Any, ...]) -> None:
        def run(conn: Connection) -> None:
            conn.execute(sql, params)

        await self._write(run)


__all__ = ["StoreBase", "is_damage", "utc_now"]
