"""Snowflake ids and timestamps for the fake Discord.

Ids are realistic 64-bit Discord snowflakes: the high bits hold the milliseconds since the Discord
epoch *now*, and a counter makes them strictly increasing even within one millisecond.  They have
to be close to the real clock because discord.py derives ``created_at`` from them (and
``Interaction.is_expired()`` compares that with ``utcnow()``).
"""

from __future__ import annotations

import datetime
import time

DISCORD_EPOCH_MS = 1420070400000


class SnowflakeFactory:
    """Hands out strictly increasing, time-based snowflakes."""

    def __init__(self) -> None:
        self._last = 0

    def next(self) -> int:
        now_ms = int(time.time() * 1000)
        candidate = (now_ms - DISCORD_EPOCH_MS) << 22
        self._last = max(self._last + 1, candidate)
        return self._last

    def next_on_shard(self, shard_id: int, count: int) -> int:
        """The next snowflake of a guild on shard ``shard_id`` of ``count`` (Discord:
        ``(guild_id >> 22) % count``): its millisecond moves on (at most ``count - 1`` ms
        ahead of the clock) until it falls on that shard."""
        candidate = self.next()
        while (candidate >> 22) % count != shard_id:
            candidate = ((candidate >> 22) + 1) << 22
        self._last = candidate
        return candidate


def snowflake_datetime(snowflake: int) -> datetime.datetime:
    """The creation time encoded in ``snowflake``."""
    ms = (snowflake >> 22) + DISCORD_EPOCH_MS
    return datetime.datetime.fromtimestamp(ms / 1000, tz=datetime.UTC)


def iso(moment: datetime.datetime) -> str:
    """Discord's ISO-8601 timestamp format (``2024-01-01T12:00:00.000000+00:00``)."""
    return moment.astimezone(datetime.UTC).isoformat(timespec="microseconds")


def iso_now() -> str:
    return iso(datetime.datetime.now(tz=datetime.UTC))


def snowflake_iso(snowflake: int) -> str:
    return iso(snowflake_datetime(snowflake))
