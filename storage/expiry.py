"""What is open until a moment (offers, seeks, cancel offers): the rows whose time is up.

Each of those tables keeps ``status`` ('open' while it waits) and ``expires_at``; the sweeper
closes the due ones in batches, each process those of its own shards.
"""

from __future__ import annotations

from datetime import datetime

from storage import clock
from storage.database import Connection
from storage.shards import Shards
from storage.shards import condition as shard_condition


def expire_due(
    conn: Connection,
    table: str,
    moment: datetime,
    limit: int,
    shards: Shards | None = None,
    *,
    joined: str = "",
) -> list[int]:
    """Mark ``expired`` at most ``limit`` open rows of ``table`` whose time is up (oldest
    first; with ``shards``: of servers on those shards) and return their ids. ``joined`` is a
    join that gives the server's ``guild_id`` to a table that keeps none (as ``t.guild_id``)."""
    now = clock.stamp(moment)
    mine, params = shard_condition(shards, "t.guild_id" if joined else "guild_id")
    rows = conn.execute(
        f"SELECT x.id FROM {table} AS x {joined} WHERE x.status = 'open'"
        f" AND x.expires_at <= ?{mine} ORDER BY x.expires_at LIMIT ?",
        (now, *params, limit),
    ).fetchall()
    ids = [int(row[0]) for row in rows]
    conn.executemany(
        f"UPDATE {table} SET status = 'expired', updated_at = ? WHERE id = ?",
        [(now, row_id) for row_id in ids],
    )
    return ids


__all__ = ["expire_due"]
