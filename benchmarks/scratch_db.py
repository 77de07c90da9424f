"""Building benchmark databases: a migrated empty file, and a connection tuned for bulk writes.

The bulk connection uses ``synchronous = NORMAL`` for build speed only; the rows it writes are
the same as the store's (each benchmark checks that before it builds).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from storage import Store


def fast_connection(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = NORMAL")  # build speed only; the rows are the same
    return conn


async def new_database(path: Path) -> int:
    """A migrated database at ``path``; its schema version."""
    store = await Store.open(path)
    try:
        return await store.migrate()
    finally:
        await store.close()
