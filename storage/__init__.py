"""Siege Hall's persistence layer (SQLite through aiosqlite, or PostgreSQL through psycopg). SQL
stays inside this package."""

from __future__ import annotations

from storage.outage import StorageUnavailable
from storage.store import (
    RESIGN,
    ActionRecord,
    CorruptTable,
    DatabaseUnusable,
    DmMode,
    DmTarget,
    Seating,
    StaleAction,
    Standing,
    Store,
    StoreBusy,
    TableError,
    TableExists,
    TableRecord,
    Timeout,
)

__all__ = [
    "RESIGN",
    "ActionRecord",
    "CorruptTable",
    "DatabaseUnusable",
    "DmMode",
    "DmTarget",
    "Seating",
    "StaleAction",
    "Standing",
    "StorageUnavailable",
    "Store",
    "StoreBusy",
    "TableError",
    "TableExists",
    "TableRecord",
    "Timeout",
]
