"""When the database cannot be written or reached at all: a full disk, a PostgreSQL server that is
down or restarting, a SQLite write-ahead log deleted under the writer.

Such a failure is not a bug of the request that met it, and not damage to a table: it is the
defined answer :class:`StorageUnavailable` ("nothing changed, try again"), which the hall turns
into one ephemeral sentence and counts in its metrics. :class:`Health` (one per database) writes
one log line when an outage starts and one when a request gets through again, instead of a
traceback per click; play resumes by itself as soon as the disk has room or the server is back
(each request tries the database afresh).
"""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

log = logging.getLogger("siege.storage")

UNAVAILABLE = (
    "The game database is unavailable right now (the operator has been told); nothing changed. "
    "Try again in a moment."
)

#: SQLite's result codes for a database that cannot be written (or read) at all right now.
_SQLITE_UNAVAILABLE = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_CANTOPEN", "SQLITE_READONLY")


class StorageUnavailable(Exception):
    """The database could not be reached or written; nothing changed (the transaction rolled
    back, or never began). The message is the sentence a player gets."""

    def __init__(self, cause: str) -> None:
        super().__init__(UNAVAILABLE)
        #: What the database said, for the log (never shown to a player).
        self.cause = cause


class Unavailable(sqlite3.OperationalError):
    """A driver error that means "the database is unreachable or cannot write" (PostgreSQL's
    connection failures, a WAL deleted under the SQLite writer), as the store's sqlite3-style
    errors carry it until :meth:`Health.failed` turns it into :class:`StorageUnavailable`."""


def is_unavailable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database is unavailable rather than that the request was wrong.

    >>> is_unavailable(Unavailable("server closed the connection")), is_unavailable(ValueError())
    (True, False)
    """
    if isinstance(exc, Unavailable | StorageUnavailable):
        return True
    if isinstance(exc, OSError):
        return True
    name = getattr(exc, "sqlite_errorname", None)
    if isinstance(exc, sqlite3.Error) and isinstance(name, str):
        return name.startswith(_SQLITE_UNAVAILABLE)
    # Python built without error names: the messages SQLite gives these codes.
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and (
        "disk is full" in text or "disk i/o error" in text or "unable to open" in text
    )


class Health:
    """Whether a database is in an outage, and the two log lines that mark one."""

    def __init__(self, name: str) -> None:
        self.name = name
        #: Requests refused since the outage began (0: no outage).
        self.refused = 0

    @property
    def is_down(self) -> bool:
        return self.refused > 0

    def failed(self, exc: BaseException) -> StorageUnavailable:
        """The answer for a request that met ``exc``; logs the first of an outage."""
        if isinstance(exc, StorageUnavailable):
            cause = exc.cause
        else:
            cause = " ".join(str(exc).split()) or type(exc).__name__
        if self.refused == 0:
            log.error(
                "database %s unavailable (%s): requests are answered 'nothing changed, try "
                "again' until it is back",
                self.name,
                cause,
            )
        self.refused += 1
        return StorageUnavailable(cause)

    def ok(self) -> None:
        """A request got through: ends an outage, if there was one."""
        if self.refused:
            log.warning(
                "database %s available again (%d requests refused meanwhile)",
                self.name,
                self.refused,
            )
            self.refused = 0


class WalWatch:
    """Notices the SQLite write-ahead log being deleted (or replaced) under the running writer.

    SQLite goes on writing to the log it has open, so commits would still succeed, and every one
    of them would be lost at the next restart: nothing can prevent that, but one ``stat`` before
    each commit notices it. From then on writes stop (each is refused as unavailable, nothing is
    acknowledged) until the bot is restarted and the operator has looked at the file."""

    def __init__(self, database: Path) -> None:
        self.wal = database.with_name(database.name + "-wal")
        self.identity = _identity(self.wal)
        #: Why writes stopped (None: they have not).
        self.lost: str | None = None

    def check(self) -> None:
        """On the writer's thread, before a commit: raises :class:`Unavailable` if the log the
        writer has open is no longer the file at its path."""
        if self.lost is not None:
            raise Unavailable(self.lost)
        now = _identity(self.wal)
        if self.identity is None:  # not made yet when the database was opened
            self.identity = now
        elif now != self.identity:
            what = "deleted" if now is None else "replaced"
            self.lost = (
                f"its write-ahead log {self.wal} was {what} while the bot was writing; writes "
                "stop so that no move is acknowledged and then lost: stop the bot, check the "
                "file (python -m storage check) and start it again"
            )
            raise Unavailable(self.lost)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        return None
    return stat.st_dev, stat.st_ino
