"""Which Discord shards a bot process serves, and so which tables it acts on.

Discord puts a server on shard ``(guild_id >> 22) % shard_count``; direct messages come on shard
0. A process started with ``SHARD_COUNT``/``SHARD_IDS`` only receives the events of its shards,
so its periodic jobs (deadline sweeps, reminders, expired offers, computer turns after a restart)
pick only the tables of its servers: two processes never both announce one table's timeout.
A table without a server (``guild_id`` NULL) belongs to shard 0, as DMs do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Shards:
    """Shards ``ids`` of ``count``.

    >>> Shards(2, (1,)).owns(1 << 22), Shards(2, (1,)).owns(2 << 22), Shards(2, (0,)).owns(None)
    (True, False, True)
    """

    count: int
    ids: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.count < 1 or not self.ids or any(not 0 <= i < self.count for i in self.ids):
            raise ValueError(f"shards {self.ids} of {self.count}")

    @classmethod
    def of(cls, count: int, ids: Iterable[int] | None = None) -> Shards:
        """Shards ``ids`` (default: every one) of ``count``."""
        return cls(count, tuple(sorted(set(range(count) if ids is None else ids))))

    @staticmethod
    def shard_of(guild_id: int | None, count: int) -> int:
        """The shard Discord sends a server's events on (DMs, ``None``: shard 0)."""
        return 0 if guild_id is None else (guild_id >> 22) % count

    def owns(self, guild_id: int | None) -> bool:
        return self.shard_of(guild_id, self.count) in self.ids

    @property
    def serves_all(self) -> bool:
        return len(self.ids) == self.count

    @property
    def has_dms(self) -> bool:
        """Whether this process gets direct messages (shard 0)."""
        return 0 in self.ids

    def sql(self, column: str = "guild_id") -> tuple[str, tuple[int, ...]]:
        """A condition on ``column`` (a server id) that holds for this process's rows, and its
        parameters: SQLite and PostgreSQL both compute the shard (``>>``, ``%``)."""
        marks = ", ".join("?" for _ in self.ids)
        return f"COALESCE(({column} >> 22) % ?, 0) IN ({marks})", (self.count, *self.ids)


def condition(shards: Shards | None, column: str = "guild_id") -> tuple[str, tuple[int, ...]]:
    """``" AND <condition>"`` and its parameters, or nothing for a process serving every shard."""
    if shards is None or shards.serves_all:
        return "", ()
    text, params = shards.sql(column)
    return f" AND {text}", params


__all__ = ["Shards", "condition"]
