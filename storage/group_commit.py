"""The write queue both databases share (:class:`GroupCommit`): group commit, and writes that
may wait for the next trip.

- **Group commit.** A write runs at once when the writer is idle; writes that arrive while it is
  busy go together in its next trip, in the order they came (:data:`MAX_GROUP` at most), each
  with its own outcome. A subclass says how one trip runs (SQLite: one transaction on its
  writer's thread, a savepoint each; PostgreSQL: the same on its writer connection).
- **Writes that may wait** (:meth:`GroupCommit.write_later`). Some rows are bookkeeping, not
  anybody's action: the id of the DM that holds a player's panel, written after the DM was sent.
  Nobody waits for them, and a trip of their own (a hop to the writer's thread and back, a
  commit, an fsync) cost about as much as the move that caused them. Such a write is kept in
  memory, by a key, and goes with the writer's next trip, ahead of that trip's own writes; if
  no trip comes within :data:`LATER_SECONDS` it takes one of its own. A later write for the same
  key replaces one not yet taken (the newest value is the only one that matters).

  Until it is known committed, its value is answered by :meth:`GroupCommit.unwritten`: the
  store's reads of those rows look there first, so this process never reads an older value
  than the one it wrote. What a crash loses is at most the last second of them: for a DM
  panel, the bot then edits the panel it knew before (or finds it gone and sends a new one).
  A later write that fails is tried once more with the next trip, then dropped with a warning.

  On SQLite only (:attr:`GroupCommit.writes_later`): on PostgreSQL the DM panel is written at
  once and the redraw waits for it, as before (measured: a redraw that did not wait sent its
  reads ahead of the next clicks' in the reading threads, and at 1,000 tables offered 200/s
  half the clicks were deferred).
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

from storage import outage

T = TypeVar("T")

log = logging.getLogger("siege.storage")

#: The most writes one group commit takes (bounds one transaction's length).
MAX_GROUP = 128
#: The longest a write that may wait is kept before it takes a trip of its own.
LATER_SECONDS = 1.0
#: How often a later write is tried (with the trips it rides along) before it is dropped.
LATER_TRIES = 2

Outcome = tuple[bool, Any]


@dataclass
class _Later:
    fn: Callable[[Any], Any]
    value: Any
    tries: int = 0


def _nothing(conn: Any) -> None:
    """A write of nothing: the trip that carries later writes when no other write comes."""


class GroupCommit(ABC):
    """Group commit and later writes (see the module doc). A subclass implements
    :meth:`_trip`."""

    #: The most writes one trip takes.
    max_group = MAX_GROUP
    #: Whether bookkeeping is written later (:meth:`write_later`). PostgreSQL says no: there a
    #: read waits its turn in the reading threads, and a redraw that no longer waited for its
    #: panel's write sent more reads ahead of the next clicks' (1,000 tables offered 200/s:
    #: half the clicks were deferred, against none).
    writes_later = True

    def __init__(self, name: str) -> None:
        #: Outages of the database: logged once each, answered as StorageUnavailable.
        self.health = outage.Health(name)
        self._queue: list[tuple[Callable[[Any], Any], asyncio.Future[Any]]] = []
        self._drain: asyncio.Future[None] | None = None
        self._busy = False  # a trip of the writer is under way (writes queue for the next)
        #: Later writes waiting for a trip, by key.
        self._later: dict[Hashable, _Later] = {}
        #: Every later write not yet known committed, the newest by key (what reads see).
        self._unwritten: dict[Hashable, _Later] = {}
        self._later_timer: asyncio.TimerHandle | None = None
        self._later_trip: asyncio.Future[None] | None = None

    @abstractmethod
    async def _trip(self, batch: list[Callable[[Any], Any]]) -> list[Outcome]:
        """One group, one transaction: each write's outcome, or the whole group's error."""

    def _failure(self, error: Exception) -> Exception:
        """What a failed write raises to its caller: the database being unavailable (a full
        disk, a server down) is the defined StorageUnavailable, anything else itself."""
        if outage.is_unavailable(error):
            return self.health.failed(error)
        return error

    # -- writes that wait for their outcome ----------------------------------------------------

    async def write(self, fn: Callable[[Any], T]) -> T:
        if self._busy:
            done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._queue.append((fn, done))
            queued: T = await done
            return queued
        self._busy = True
        taken = self._take_later()
        try:
            outcomes = await self._trip([*(later.fn for _, later in taken), fn])
        except BaseException:  # cancelled: its later writes go with the next trip
            self._settle_later(taken, None)
            raise
        finally:
            self._next_group()
        self._settle_later(taken, outcomes)
        ok, value = outcomes[-1]
        if not ok:
            raise self._failure(value)
        self.health.ok()
        result: T = value
        return result

    def _next_group(self) -> None:
        """After a trip: start the drain for what queued meanwhile, or mark the writer idle."""
        if self._queue:
            self._drain = asyncio.ensure_future(self._drain_queue())
        else:
            self._busy = False

    async def _drain_queue(self) -> None:
        batch = self._queue[: self.max_group]
        del self._queue[: self.max_group]
        taken = self._take_later()
        try:
            outcomes = await self._trip([*(later.fn for _, later in taken), *(f for f, _ in batch)])
        except asyncio.CancelledError:  # the loop is shutting down: nobody waits any more
            self._settle_later(taken, None)
            for _, done in batch + self._queue:
                done.cancel()
            self._queue.clear()
            self._busy = False
            raise
        self._settle_later(taken, outcomes)
        for (_, done), (ok, value) in zip(batch, outcomes[len(taken) :], strict=True):
            if done.done():  # the caller was cancelled; the write went through regardless
                continue
            if ok:
                self.health.ok()
                done.set_result(value)
            else:
                done.set_exception(self._failure(value))
        self._next_group()

    # -- writes that may wait ------------------------------------------------------------------

    def write_later(self, key: Hashable, fn: Callable[[Any], Any], value: Any) -> None:
        """Write ``fn`` with the writer's next trip (within :data:`LATER_SECONDS`); until it is
        committed, :meth:`unwritten` answers ``value`` for ``key``. Returns at once (on the
        event loop)."""
        later = _Later(fn, value)
        self._later[key] = later
        self._unwritten[key] = later
        if self._later_timer is None:
            loop = asyncio.get_running_loop()
            self._later_timer = loop.call_later(LATER_SECONDS, self._later_alone)

    def unwritten(self, key: Hashable, default: Any = None) -> Any:
        """The value of the newest later write for ``key`` not yet known committed, else
        ``default``."""
        later = self._unwritten.get(key)
        return default if later is None else later.value

    def has_unwritten(self, key: Hashable) -> bool:
        return key in self._unwritten

    async def flush_later(self) -> None:
        """Commit the later writes now (before a close)."""
        if self._later:
            await self.write(_nothing)

    def _later_alone(self) -> None:
        """No trip came for the later writes in time: they take one of their own."""
        self._later_timer = None
        if self._later and (self._later_trip is None or self._later_trip.done()):
            self._later_trip = asyncio.ensure_future(self._carry_later())

    async def _carry_later(self) -> None:
        try:
            await self.write(_nothing)
        except Exception as exc:  # each later write was settled (and logged) by the trip
            log.debug("a trip for later writes failed: %r", exc)

    def _take_later(self) -> list[tuple[Hashable, _Later]]:
        taken = list(self._later.items())
        self._later.clear()
        if self._later_timer is not None:
            self._later_timer.cancel()
            self._later_timer = None
        return taken

    def _settle_later(
        self, taken: list[tuple[Hashable, _Later]], outcomes: list[Outcome] | None
    ) -> None:
        """After a trip that carried ``taken`` (``outcomes`` None: its end is unknown, it was
        cancelled): forget what committed; what failed goes with the next trip, once."""
        for i, (key, later) in enumerate(taken):
            ok, error = (False, None) if outcomes is None else outcomes[i]
            newest = self._unwritten.get(key) is later
            if ok or not newest:
                if newest:
                    del self._unwritten[key]
                continue
            later.tries += 1
            if later.tries >= LATER_TRIES:
                log.warning("a later write (%r) was dropped: %r", key, error)
                del self._unwritten[key]
            elif key not in self._later:
                self._later[key] = later
        if self._later and self._later_timer is None:
            loop = asyncio.get_running_loop()
            self._later_timer = loop.call_later(LATER_SECONDS, self._later_alone)

    def close_later(self) -> None:
        """Stop the timer (the store is closing, after :meth:`flush_later`)."""
        if self._later_timer is not None:
            self._later_timer.cancel()
            self._later_timer = None


__all__ = ["LATER_SECONDS", "MAX_GROUP", "GroupCommit"]
