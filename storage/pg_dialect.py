"""The store's sqlite3-style calls on a psycopg connection: the SQL dialect in one place
(:func:`translate`), rows that read by name, errors as the sqlite3 classes the store answers
for, and :class:`PgConnection` itself. :mod:`storage.postgres` runs transactions on these
connections.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any

import psycopg
from psycopg import errors as pg_errors

from storage import database, outage

#: The tables whose ids are made by the database (an INSERT into them returns its id).
_ID_TABLES = ("tables", "offers", "seeks", "cancel_offers", "tournaments", "tournament_matches")

_INDEXED_BY = re.compile(r"\s+INDEXED BY \w+", re.IGNORECASE)
_CROSS_JOIN = re.compile(r"\bCROSS JOIN\b", re.IGNORECASE)
_INSERT_ID = re.compile(r"^\s*INSERT INTO (\w+)\b", re.IGNORECASE)


@lru_cache(maxsize=1024)
def translate(sql: str) -> tuple[str, bool]:
    """The store's SQLite SQL as PostgreSQL runs it, and whether it returns a new row's id.

    ``?`` becomes ``%s`` (outside string literals; a literal ``%`` is doubled), SQLite's
    ``INDEXED BY`` hints go, ``CROSS JOIN … ON`` (SQLite's join-order hint) is a plain ``JOIN``,
    and an ``INSERT`` into a table with a made id gets ``RETURNING id`` (SQLite's lastrowid).

    >>> translate("SELECT id FROM t INDEXED BY t_i WHERE a = ? AND b LIKE 'x:%'")
    ("SELECT id FROM t WHERE a = %s AND b LIKE 'x:%%'", False)
    >>> translate("INSERT INTO offers (kind) VALUES (?)")
    ('INSERT INTO offers (kind) VALUES (%s) RETURNING id', True)
    """
    out: list[str] = []
    quoted = False
    for char in sql:
        if char == "'":
            quoted = not quoted
        if char == "%":
            out.append("%%")
        elif char == "?" and not quoted:
            out.append("%s")
        else:
            out.append(char)
    text = _CROSS_JOIN.sub("JOIN", _INDEXED_BY.sub("", "".join(out)))
    found = _INSERT_ID.match(text)
    returns_id = (
        found is not None and found.group(1).lower() in _ID_TABLES and "RETURNING" not in text
    )
    if returns_id:
        text += " RETURNING id"
    return text, returns_id


class Row(tuple[Any, ...]):
    """A result row that reads by position and by column name, as ``sqlite3.Row`` does."""

    _names: dict[str, int]

    def __new__(cls, values: Sequence[Any], names: dict[str, int]) -> Row:
        row = super().__new__(cls, values)
        row._names = names
        return row

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._names[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._names)


def _row_factory(cursor: Any) -> Callable[[Sequence[Any]], Row]:
    names = {column.name: n for n, column in enumerate(cursor.description or ())}
    return lambda values: Row(values, names)


class Conflict(sqlite3.OperationalError):
    """A serialization failure or deadlock: the transaction is run again from the start."""


def translate_error(exc: psycopg.Error) -> Exception:
    """The sqlite3 exception class the store answers for a PostgreSQL error."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, pg_errors.SerializationFailure | pg_errors.DeadlockDetected):
        return Conflict(text)
    if isinstance(exc, pg_errors.LockNotAvailable):
        return sqlite3.OperationalError(f"database is locked ({text})")
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return outage.Unavailable(text)  # the server is down, restarting, or dropped us
    if isinstance(exc, psycopg.IntegrityError):
        return sqlite3.IntegrityError(text)
    if isinstance(exc, psycopg.DataError):
        return sqlite3.DataError(text)
    if isinstance(exc, psycopg.ProgrammingError):
        return sqlite3.ProgrammingError(text)
    return sqlite3.OperationalError(text)


class PgCursor:
    """What ``conn.execute`` returns: the rows, ``rowcount`` and ``lastrowid``."""

    def __init__(self, rows: list[Row], rowcount: int, lastrowid: int | None) -> None:
        self._rows = rows
        self._next = 0
        self.rowcount = rowcount
        self.lastrowid = lastrowid

    def fetchone(self) -> Any:
        if self._next >= len(self._rows):
            return None
        self._next += 1
        return self._rows[self._next - 1]

    def fetchall(self) -> list[Any]:
        rest = self._rows[self._next :]
        self._next = len(self._rows)
        return rest

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class PgConnection:
    """A psycopg connection behind the sqlite3 calls the store's functions make."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.raw = conn

    def execute(self, sql: str, parameters: Iterable[Any] = (), /) -> PgCursor:
        text, returns_id = translate(sql)
        try:
            cur = self.raw.execute(text, tuple(parameters))
            rows: list[Row] = cur.fetchall() if cur.description is not None else []
        except psycopg.Error as exc:
            raise translate_error(exc) from exc
        lastrowid = int(rows[0][0]) if returns_id and rows else None
        return PgCursor(rows, cur.rowcount, lastrowid)

    def executemany(self, sql: str, seq_of_parameters: Iterable[Iterable[Any]], /) -> PgCursor:
        text, _ = translate(sql)
        batch = [tuple(params) for params in seq_of_parameters]
        if not batch:
            return PgCursor([], 0, None)
        try:
            with self.raw.cursor() as cur:
                cur.executemany(text, batch)
                count = cur.rowcount
        except psycopg.Error as exc:
            raise translate_error(exc) from exc
        return PgCursor([], count, None)

    def script(self, sql: str) -> None:
        """Several statements at once (a migration), with no parameters."""
        try:
            self.raw.execute(sql.encode())
        except psycopg.Error as exc:
            raise translate_error(exc) from exc


def connect(url: str) -> PgConnection:
    """One connection as the store uses it: autocommit (the store says BEGIN and COMMIT), rows
    that read by name, and a lock wait as long as SQLite's busy timeout."""
    conn = psycopg.connect(url, autocommit=True, row_factory=_row_factory)
    conn.execute(f"SET lock_timeout = {int(database.BUSY_TIMEOUT_MS)}")
    conn.execute("SET TIME ZONE 'UTC'")
    return PgConnection(conn)


__all__ = [
    "Conflict",
    "PgConnection",
    "PgCursor",
    "Row",
    "connect",
    "translate",
    "translate_error",
]
