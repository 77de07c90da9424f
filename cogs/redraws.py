"""Redraws: the work that follows a click's answer, queued behind every answer.

A move's flow answers its click first (editing the clicked message); what follows — the table
message when the click came from a panel, the other players' DM panels, the turn ping, the end
notice — is a :class:`Redraw` pushed here, and the flow ends. A few workers (``workers``) carry
the redraws out, so an overloaded process spends its time on answers and lets its redraws wait,
instead of starting every redraw at once and making every answer wait behind them all.

The queue holds at most one redraw per table: a table's pending redraw is merged into one (the
newest position; the player whose turn it now is), so a busy table costs one redraw however many
moves were made meanwhile, and the queue is bounded by the number of tables in play. A table is
redrawn by one worker at a time, in the order its moves were made.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord

from storage import TableRecord

log = logging.getLogger("siege.redraws")

#: Redraws carried out at once.
WORKERS = 8


@dataclass
class Redraw:
    """What is left to show after a change to ``table`` a click has answered."""

    table: TableRecord
    #: The player whose turn it has just become (a fresh DM panel, or a ping), if any.
    notify: int | None
    #: The click that made the change (its webhook may carry the ping), if any.
    via: discord.Interaction[Any] | None = None
    #: What the click's answer put on the table message (its fingerprint), if it did.
    shown: str | None = None
    #: Every change merged into this redraw, oldest first (each is reported once, in order).
    changes: list[TableRecord] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.changes:
            self.changes = [self.table]

    def merge(self, later: Redraw) -> Redraw:
        """This pending redraw and a later one of the same table, as one."""
        notify = later.notify
        if notify is None and self.notify is not None:
            # Still their turn after the later change: their fresh panel is still owed.
            state = later.table.state
            seat = later.table.engine.to_act(state) if state is not None else None
            if seat is not None and later.table.seats[seat] == self.notify:
                notify = self.notify
        return Redraw(
            table=later.table,
            notify=notify,
            via=later.via or self.via,
            shown=later.shown,
            changes=[*self.changes, *later.changes],
        )


class Redraws:
    """Carries out redraws with ``workers`` tasks, one pending redraw per table."""

    def __init__(self, run: Callable[[Redraw], Awaitable[None]], workers: int = WORKERS) -> None:
        self._run = run
        self.workers = workers
        self._pending: OrderedDict[int, Redraw] = OrderedDict()  # by table id, oldest first
        self._busy: set[int] = set()  # tables a worker is redrawing now
        #: Idle workers, each waiting on its own future: a push wakes one of them, not all
        #: (with one shared event every idle worker woke for every redraw, and all but one
        #: went back to sleep: some fifteen task steps a move for nothing).
        self._sleepers: deque[asyncio.Future[None]] = deque()
        self._tasks: list[asyncio.Task[None]] = []
        self._idle = asyncio.Event()
        self._idle.set()
        self.merged = 0  # redraws saved by merging

    def push(self, redraw: Redraw) -> None:
        """Queue ``redraw`` (merged into its table's pending one, if any)."""
        table_id = redraw.table.id
        pending = self._pending.get(table_id)
        if pending is not None:
            self.merged += 1
            self._pending[table_id] = pending.merge(redraw)
        else:
            self._pending[table_id] = redraw
        self._idle.clear()
        self._wake_one()
        if not self._tasks:
            self._tasks = [
                asyncio.get_running_loop().create_task(self._work(), name=f"redraws-{n}")
                for n in range(self.workers)
            ]

    @property
    def waiting(self) -> int:
        """Tables with a redraw waiting for a worker."""
        return len(self._pending)

    @property
    def busy(self) -> bool:
        """Whether a redraw is waiting or under way."""
        return bool(self._pending or self._busy)

    async def idle(self) -> None:
        """Wait until every queued redraw is done."""
        await self._idle.wait()

    def _next(self) -> Redraw | None:
        for table_id in self._pending:
            if table_id not in self._busy:
                self._busy.add(table_id)
                return self._pending.pop(table_id)
        return None

    def _runnable(self) -> bool:
        """Whether a pending redraw's table is free (at most ``workers`` tables are busy)."""
        return any(table_id not in self._busy for table_id in self._pending)

    def _wake_one(self) -> None:
        """Wake one idle worker, if one is idle (a busy one takes the next redraw itself
        when it is done)."""
        while self._sleepers:
            sleeper = self._sleepers.popleft()
            if not sleeper.done():
                sleeper.set_result(None)
                return

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            redraw = self._next()
            if redraw is None:
                if not self._pending and not self._busy:
                    self._idle.set()
                sleeper = loop.create_future()
                self._sleepers.append(sleeper)
                await sleeper
                continue
            if self._sleepers and self._runnable():
                self._wake_one()  # more than this worker's share to do: another one takes it
            try:
                await self._run(redraw)
            except Exception:
                log.exception("redraw of table %s failed", redraw.table.id)
            finally:
                # The worker takes the next redraw itself (its table's next one among them).
                self._busy.discard(redraw.table.id)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []


__all__ = ["WORKERS", "Redraw", "Redraws"]
