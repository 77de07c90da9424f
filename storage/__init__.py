"""Siege Hall's persistence layer (SQLite through aiosqlite). SQL stays inside this package."""

from __future__ import annotations

from storage.store import (
    RESIGN,
    ActionRecord,
    CorruptTable,
    DmMode,
    Seating,
    StaleAction,
    Store,
    TableError,
    TableExists,
    TableRecord,
)

__all__ = [
    "RESIGN",
    "ActionRecord",
    "CorruptTable",
    "DmMode",
    "Seating",
    "StaleAction",
    "Store",
    "TableError",
    "TableExists",
    "TableRecord",
]
