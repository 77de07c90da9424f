"""Siege Hall's persistence layer (SQLite through aiosqlite, or PostgreSQL through psycopg). SQL
stays inside this package."""

from __future__ import annotations

from storage.database import DatabaseUnusable
from storage.outage import StorageUnavailable
from storage.records import (
    RESIGN,
    ActionRecord,
    CorruptTable,
    DmMode,
    DmTarget,
    Seating,
    StaleAction,
    StoreBusy,
    TableError,
    TableExists,
    TableRecord,
    Timeout,
)
from storage.results import Standing
from storage.store import Store

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
