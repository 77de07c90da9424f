"""The schema: the numbered migrations (``storage/migrations/``, or ``storage/migrations_pg/``
for PostgreSQL), what they need backfilled, and backups.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from storage import results
from storage.base import StoreBase
from storage.database import Connection
from storage.records import (
    CorruptTable,
    require,
)

#: The schema version that added results and ratings (games finished before it are backfilled).
RESULTS_SCHEMA = 5


def _migrations(kind: str = "migrations") -> list[tuple[int, str]]:
    """The numbered SQL files of ``storage/<kind>/`` (``migrations``, or ``migrations_pg`` for
    PostgreSQL), in order."""
    folder = resources.files("storage") / kind
    found = []
    for entry in folder.iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:3].isdigit():
            found.append((int(name[:3]), entry.read_text(encoding="utf-8")))
    return sorted(found)


class Schema(StoreBase):
    """The schema version, migrations and backups."""

    async def schema_version(self) -> int:
        return await self._db.schema_version()

    async def migrate(self) -> int:
        """Apply every migration newer than the schema version and backfill what they need, all
        in one transaction under the migration lock (storage/migration.py); returns the new
        version. A SQLite database with tables in it is first copied beside itself."""
        return await self._db.migrate(_migrations(self._db.migrations_folder), _after_migration)

    async def backup(self, destination: str | Path) -> None:
        """Copy the live database to ``destination`` (consistent even mid-write)."""
        await self._db.backup(destination)


def _after_migration(conn: Connection, old: int, new: int) -> None:
    """In the migration's transaction: results for games that finished before results were
    recorded (schema 5), read with today's code once every migration has run."""
    if not old < RESULTS_SCHEMA <= new:
        return
    rows = conn.execute(
        "SELECT id FROM tables WHERE status = 'over' AND id NOT IN"
        " (SELECT table_id FROM results) ORDER BY updated_at, id"
    ).fetchall()
    for (table_id,) in rows:
        try:
            table = require(conn, table_id)
        except CorruptTable:
            continue  # unreadable: it stays out of the boards
        if table.result is None:
            continue
        results.record(
            conn,
            table_id=table.id,
            guild_id=table.guild_id,
            game=table.game,
            seats=table.seats,
            result=table.result,
            plies=table.ply,
            ended_at=table.updated_at,
        )


__all__ = ["RESULTS_SCHEMA", "Schema"]
