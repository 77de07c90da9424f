"""discord.py's per-route rate-limit buckets, pruned when 15 seconds go by without their use.

discord.py keeps one :class:`discord.http.Ratelimit` per route and channel (``HTTPClient._buckets``,
keyed by Discord's bucket hash, or the route, and the channel, server or webhook), each with an
``asyncio.Lock`` and a ``deque``; it drops them only once it holds 256 or more, and then only
those unused for five minutes. A bot with a thousand tables in play holds thousands of them:
in a load run of 1,000 tables they were half of what every full garbage collection walked, and
the pauses of the event loop grew with them.

:func:`prune_idle_buckets` drops the buckets unused for :data:`IDLE_SECONDS` that hold nothing
back: no request out or waiting, no window still running (``expires`` in the future), none
asleep on a 429. A dropped bucket's next request starts a fresh one, as its first request did:
Discord's headers on that answer restore the limit (a new bucket lets one request through at a
time until they do). Nothing a bucket knows is lost that way (its window is over), so the idle
time is short: with a minute, a thousand tables just opened kept 6,000 buckets (18,000 objects,
a full collection of 45 ms) for two minutes; with 15 seconds what is kept follows the requests
of the last seconds, not the tables in play. ``HTTPClient._bucket_hashes`` (route to Discord's
hash) has one entry per route, not per channel, and is left alone. :class:`BucketPruner` runs
it every :data:`PRUNE_EVERY` seconds on the bot's loop (a pass over 6,000 buckets takes a few
milliseconds).

discord.py also walks every bucket itself, each time it makes a new one once it holds 256
(``HTTPClient._try_clear_expired_ratelimits``). With the buckets pruned at 15 seconds a table
that moves less often than that makes a new bucket at nearly every move, so at 1,000 tables in
play every move walked the buckets of the last seconds (2,900 calls a move): 3.8 of the 4.8 ms
a move that 1,000 tables cost more than 100 under cProfile. :func:`leave_clearing_to_pruner`
turns that walk off on the bot's HTTP client (the pruner's passes do its work, and more often);
the pruner repeats it at each pass, as the HTTP client is made anew when the bot logs in again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, MutableMapping
from typing import Any

log = logging.getLogger("siege.buckets")

#: A bucket unused this long (seconds, the event loop's clock) is dropped.
IDLE_SECONDS = 15.0
#: How often the buckets are looked over (seconds).
PRUNE_EVERY = 5.0


def is_idle(bucket: Any, now: float, idle: float = IDLE_SECONDS) -> bool:
    """Whether ``bucket`` (a ``discord.http.Ratelimit``) was last used ``idle`` seconds or more
    before ``now`` and holds nothing back (no request out or waiting, no running window)."""
    last = getattr(bucket, "_last_request", None)
    if last is None or now - last < idle:
        return False
    if getattr(bucket, "outgoing", 0) or getattr(bucket, "_pending_requests", None):
        return False
    sleeping = getattr(bucket, "_sleeping", None)
    if sleeping is not None and sleeping.locked():
        return False
    expires = getattr(bucket, "expires", None)
    return expires is None or expires <= now


def prune_idle_buckets(
    buckets: MutableMapping[str, Any], now: float, idle: float = IDLE_SECONDS
) -> int:
    """Drop the idle buckets (see :func:`is_idle`) from ``buckets``; returns how many keys went.
    (One bucket may sit under two keys, its route's and its Discord hash's: both go.)"""
    gone = [key for key, bucket in buckets.items() if is_idle(bucket, now, idle)]
    for key in gone:
        del buckets[key]
    return len(gone)


def _pruned_elsewhere() -> None:
    """discord.py's ``_try_clear_expired_ratelimits`` once :class:`BucketPruner` does its work."""


def leave_clearing_to_pruner(client: Any) -> bool:
    """Turn off discord.py's own walk over every bucket at each new one on ``client``'s HTTP
    client (the pruner drops idle buckets instead); False where this discord.py has no such walk.
    """
    http = getattr(client, "http", None)
    if http is None or not hasattr(http, "_try_clear_expired_ratelimits"):
        return False
    if vars(http).get("_try_clear_expired_ratelimits") is not _pruned_elsewhere:
        http._try_clear_expired_ratelimits = _pruned_elsewhere
    return True


class BucketPruner:
    """Prunes ``client.http._buckets`` every ``every`` seconds on the running loop.

    ``buckets`` gives the dict to prune (discord.py's, read again each time: the HTTP client is
    made anew when the bot logs in again) and ``clock`` the time on the loop's clock;
    ``each_pass``, if given, runs before each pass (the bot's: :func:`leave_clearing_to_pruner`)."""

    def __init__(
        self,
        buckets: Callable[[], MutableMapping[str, Any] | None],
        clock: Callable[[], float],
        every: float = PRUNE_EVERY,
        idle: float = IDLE_SECONDS,
        each_pass: Callable[[], object] | None = None,
    ) -> None:
        self.buckets = buckets
        self.each_pass = each_pass
        self.clock = clock
        self.every = every
        self.idle = idle
        self.pruned = 0  # bucket keys dropped since the start
        self._task: asyncio.Task[None] | None = None

    def prune(self) -> int:
        """One pass now; how many keys were dropped."""
        if self.each_pass is not None:
            self.each_pass()
        buckets = self.buckets()
        if not buckets:
            return 0
        gone = prune_idle_buckets(buckets, self.clock(), self.idle)
        self.pruned += gone
        if gone:
            log.debug("dropped %s idle rate-limit buckets, %s kept", gone, len(buckets))
        return gone

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.every)
            try:
                self.prune()
            except Exception:  # discord.py changed its insides: keep the bot, say so once
                log.exception("could not prune discord.py's rate-limit buckets; no longer trying")
                return

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None


def http_buckets(client: Any) -> MutableMapping[str, Any] | None:
    """discord.py's bucket dict of ``client`` (``None`` where this discord.py has none)."""
    with contextlib.suppress(AttributeError):
        buckets: MutableMapping[str, Any] = client.http._buckets
        return buckets
    return None


__all__ = [
    "IDLE_SECONDS",
    "PRUNE_EVERY",
    "BucketPruner",
    "http_buckets",
    "is_idle",
    "leave_clearing_to_pruner",
    "prune_idle_buckets",
]
