"""Copy a SQLite database into an empty PostgreSQL database, then prove the copy by replaying every
game on it (``python -m storage copy --to postgresql://… [--db siege.db]``).

The SQLite file is first brought to the current schema (as the bot would at start, with its
automatic backup when that changes anything), so both databases have the same tables and
columns. Every table is copied with ``COPY … FROM STDIN`` in one PostgreSQL transaction: a copy
that fails leaves the target as empty as it was. The identity sequences then continue after the
highest copied id.

Verification reads both databases through the store: every table row, every stored state and
every action log must be equal, every running or finished game's log must replay (on PostgreSQL)
to the state stored there, and every other table must hold the same rows. A table SQLite cannot
read either (a damaged row) is copied as it is and counted, not replayed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from storage.database import DatabaseUnusable
from storage.pg_dialect import PgConnection
from storage.postgres import PgDatabase
from storage.records import CorruptTable
from storage.store import Store

#: Every table of the schema, each after the tables it refers to.
TABLES = (
    "tables",
    "seats",
    "actions",
    "players",
    "dm_panels",
    "results",
    "result_seats",
    "ratings",
    "guild_secrets",
    "daily_attempts",
    "meta",
    "offers",
    "offer_seats",
    "guild_departures",
    "seeks",
    "server_settings",
    "server_setting_changes",
    "cancel_offers",
    "tournaments",
    "tournament_entrants",
    "tournament_matches",
    "tournament_match_seats",
)
#: The order rows are read in (a table's primary key), so a rematch follows the game it repeats.
ORDER = {
    "tables": "id",
    "seats": "table_id, seat",
    "actions": "table_id, ply",
    "players": "user_id",
    "dm_panels": "table_id, user_id",
    "results": "table_id",
    "result_seats": "table_id, seat",
    "ratings": "guild_id, game, season, user_id",
    "guild_secrets": "guild_id",
    "daily_attempts": "table_id",
    "meta": "key",
    "offers": "id",
    "offer_seats": "offer_id, seat",
    "guild_departures": "guild_id",
    "seeks": "id",
    "server_settings": "guild_id, name",
    "server_setting_changes": "id",
    "cancel_offers": "id",
    "tournaments": "id",
    "tournament_entrants": "tournament_id, user_id",
    "tournament_matches": "id",
    "tournament_match_seats": "match_id, seat",
}
IDENTITIES = (
    "tables",
    "offers",
    "seeks",
    "server_setting_changes",
    "cancel_offers",
    "tournaments",
    "tournament_matches",
)


class CopyFailed(Exception):
    """The copy could not be made or does not match its source (one line)."""


@dataclass(frozen=True)
class CopyReport:
    rows: dict[str, int]
    replayed: int  # games whose log was replayed to their stored state
    unreadable: int  # tables SQLite cannot read either, copied as they are


async def copy_to_postgres(
    source: Path, url: str, say: Callable[[str], None] = lambda _: None
) -> CopyReport:
    """Copy ``source`` into the empty database at ``url`` and verify the copy."""
    if not source.is_file():
        raise DatabaseUnusable(source, "there is no database file there")
    lite = await Store.open(source)
    try:
        version = await lite.migrate()
        pg = await Store.open(url)
        try:
            if await pg.migrate() != version:
                raise CopyFailed(
                    f"the schema versions differ (SQLite {version}, PostgreSQL"
                    f" {await pg.schema_version()}): update Siege Hall on both sides first"
                )
            db = pg._db
            assert isinstance(db, PgDatabase)
            if await db.has_data():
                raise CopyFailed(f"{db.path} already has tables: copy into an empty database")
            say(f"copying {source} (schema {version}) to {db.path}")
            rows = await db.write(lambda conn: _copy(source, conn))
            for table in TABLES:
                say(f"  {table}: {rows[table]} rows")
            report = await verify(lite, pg, rows)
            say(f"verified: {report.replayed} games replayed, {report.unreadable} unreadable")
            return report
        finally:
            await pg.close()
    finally:
        await lite.close()


def _copy(source: Path, conn: PgConnection) -> dict[str, int]:
    counts: dict[str, int] = {}
    lite = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        for table in TABLES:
            columns = [row[1] for row in lite.execute(f"PRAGMA table_info({table})")]
            names = ", ".join(columns)
            count = 0
            with (
                conn.raw.cursor() as cur,
                cur.copy(f"COPY {table} ({names}) FROM STDIN") as copy,
            ):
                for row in lite.execute(f"SELECT {names} FROM {table} ORDER BY {ORDER[table]}"):
                    copy.write_row(row)
                    count += 1
            counts[table] = count
        for table in IDENTITIES:
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'),"
                f" coalesce((SELECT max(id) FROM {table}), 0) + 1, false)"
            )
    finally:
        lite.close()
    return counts


async def verify(lite: Store, pg: Store, rows: dict[str, int]) -> CopyReport:
    """Both databases hold the same rows, and every game replays to its stored state."""
    for table in TABLES:
        columns = [str(row[1]) for row in await _rows(lite, f"PRAGMA table_info({table})")]
        sql = f"SELECT {', '.join(columns)} FROM {table} ORDER BY {ORDER[table]}"
        theirs = await _rows(lite, sql)
        ours = await _rows(pg, sql)
        if len(theirs) != rows[table] or theirs != ours:
            raise CopyFailed(f"the copy of {table} differs from its source")
    replayed = unreadable = 0
    ids = [int(row[0]) for row in await _rows(lite, "SELECT id FROM tables ORDER BY id")]
    for table_id in ids:
        try:
            before = await lite.get_table(table_id)
        except CorruptTable:
            unreadable += 1
            continue
        after = await pg.get_table(table_id)
        if after != before or await pg.actions(table_id) != await lite.actions(table_id):
            raise CopyFailed(f"table {table_id} reads differently from the copy")
        if after is not None and after.state is not None:
            if await pg.replay(table_id) != after.state:
                raise CopyFailed(f"table {table_id}'s log does not replay to its stored state")
            replayed += 1
    return CopyReport(rows, replayed, unreadable)


async def _rows(store: Store, sql: str) -> list[tuple[Any, ...]]:
    return await store._db.read(lambda conn: [tuple(row) for row in conn.execute(sql).fetchall()])


__all__ = ["TABLES", "CopyFailed", "CopyReport", "copy_to_postgres", "verify"]
