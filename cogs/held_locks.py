"""Locks by key that exist only while a flow holds or waits for them.

A lock kept for every table in play is an object the garbage collector walks at every full
collection, for each of a thousand tables, to guard a message that is drawn a few times a
minute; and a table that ends with a flow still holding its lock cannot drop it without letting
a second flow in beside the first. Here a key's lock is made when a flow first asks for it and
dropped when the last flow that held or waited for it is done, so only the tables being drawn
right now have one, and every flow on a key is still in the same lock, in the order they came.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class HeldLocks:
    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: dict[int, int] = {}  # by key: the flows holding or waiting for its lock

    @contextlib.asynccontextmanager
    async def hold(self, key: int) -> AsyncIterator[None]:
        """Hold ``key``'s lock for the body (waiting for the flows before it)."""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        self._users[key] = self._users.get(key, 0) + 1
        try:
            async with lock:
                yield
        finally:
            left = self._users[key] - 1
            if left:
                self._users[key] = left
            else:
                del self._users[key]
                del self._locks[key]

    def __len__(self) -> int:
        """The keys with a lock now (held or waited for)."""
        return len(self._locks)
