"""Computer seats on Discord: a computer thinks in a worker process, off the event loop, and
moves through the same per-action transaction as a click (``Store.act``).

A computer is given its seat's view only (:func:`engine.ai.choose`), never the state. Its turn is
taken as soon as the previous change is committed (:meth:`Computers.poke`); the clockwork's sweep
calls :meth:`Computers.resume` too, so a turn interrupted by a restart is taken again (by the
process serving the table's server, when processes share Discord's shards).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import random
import time
from collections.abc import Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from cogs.flow import Redrawing
from engine import ai
from engine.rules import Action, RuleError
from storage import StaleAction, Store, TableError, TableRecord, computers
from storage.shards import Shards

log = logging.getLogger("siege.computer")

#: The longest a computer thinks about one move (the terminal gives it the same).
THINKING_SECONDS = ai.THINKING_SECONDS


def think(
    game_key: str,
    view: Mapping[str, Any],
    seat: int,
    level: str,
    seed: int,
    options: Mapping[str, Any],
    seconds: float = THINKING_SECONDS,
) -> Action:
    """One computer move, in a worker process: the engine is pure, so the time cap is ours."""
    began = time.monotonic()
    return ai.choose(
        game_key,
        view,
        seat,
        level,
        random.Random(seed),
        options=options,
        deadline=lambda: time.monotonic() - began > seconds,
    )


def advise(
    game_key: str, view: Mapping[str, Any], seat: int, seed: int, options: Mapping[str, Any]
) -> str:
    """A game's hint (Siege at Kurth's), in a worker process: the hard choice and why, as one
    sentence."""
    began = time.monotonic()
    _, why = ai.hint(
        game_key,
        view,
        seat,
        random.Random(seed),
        options=options,
        deadline=lambda: time.monotonic() - began > THINKING_SECONDS,
    )
    return why


def default_executor() -> Executor:
    """Worker processes for thinking: all cores but one (at least one), started fresh (spawn),
    since forking a process with database threads running is not safe."""
    workers = max(1, (os.cpu_count() or 2) - 1)
    return ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))


class Computers:
    """Takes the turns of the computer seats of every table."""

    def __init__(
        self,
        hall: Redrawing,
        store: Store,
        executor: Executor | None = None,
        shards: Shards | None = None,
    ) -> None:
        self.hall = hall
        self.store = store
        self._executor = executor
        #: The shards this process serves (``None``: every one): it resumes their tables only.
        self.shards = shards
        self._tasks: dict[int, asyncio.Task[None]] = {}

    @property
    def executor(self) -> Executor:
        if self._executor is None:
            self._executor = default_executor()
        return self._executor

    def poke(self, table: TableRecord) -> None:
        """After a committed change: if a computer is to act at ``table``, let it move."""
        if table.status != "running" or table.state is None:
            return
        seat = table.engine.to_act(table.state)
        if seat is None or not computers.is_computer(table.seats[seat]):
            return
        running = self._tasks.get(table.id)
        if running is not None and not running.done():
            return  # its loop sees the new ply itself
        self._tasks[table.id] = asyncio.create_task(self._play(table.id))

    async def resume(self) -> int:
        """Every table of this process's servers waiting for a computer (after a restart):
        returns how many were poked."""
        waiting = await self.store.computer_turns(shards=self.shards)
        for table in waiting:
            self.poke(table)
        return len(waiting)

    async def _play(self, table_id: int) -> None:
        """Move for the computers of one table while one of them is to act."""
        try:
            while True:
                table = await self.store.get_table(table_id)
                if table is None or table.status != "running" or table.state is None:
                    return
                seat = table.engine.to_act(table.state)
                if seat is None or not computers.is_computer(table.seats[seat]):
                    return
                after = await self._move(table, seat)
                if after is None:
                    return
                await self.hall.redraw_after(after, table.seats[seat])
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("computer turn failed at table %s", table_id)
        finally:
            self._tasks.pop(table_id, None)

    async def _move(self, table: TableRecord, seat: int) -> TableRecord | None:
        user = table.seats[seat]
        level = computers.level_of(user) or "normal"
        state = table.running_state()
        view = table.engine.view(state, seat)
        seed = random.Random(f"{table.seed}:computer:{table.ply}").randrange(2**63)
        loop = asyncio.get_running_loop()
        try:
            action = await loop.run_in_executor(
                self.executor, think, table.game, view, seat, level, seed, table.options
            )
        except Exception:
            # A computer must never stall a game: the first legal move, and a log line.
            log.exception("computer at table %s could not think; taking a plain move", table.id)
            action = table.engine.legal_actions(state, seat)[0]
        try:
            after, _ = await self.store.act(table.id, user, action, table.ply)
        except StaleAction:
            return None  # the table moved on meanwhile (a resignation, a timeout)
        except (TableError, RuleError) as exc:
            log.error("computer move refused at table %s ply %s: %s", table.id, table.ply, exc)
            return None
        log.debug("computer (%s) moved at table %s ply %s", level, table.id, table.ply)
        return after

    async def hint(self, table: TableRecord, seat: int) -> str:
        """What the computer would do in ``seat``'s place at ``table``, as a sentence."""
        view = table.engine.view(table.running_state(), seat)
        seed = random.Random(f"{table.seed}:hint:{table.ply}").randrange(2**63)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self.executor, advise, table.game, view, seat, seed, table.options
        )

    async def idle(self) -> None:
        """Wait until no computer is thinking or moving (tests; a clean stop)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks.values()), return_exceptions=True)

    async def close(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        await asyncio.gather(*self._tasks.values(), return_exceptions=True)
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)


__all__ = ["THINKING_SECONDS", "Computers", "default_executor", "think"]
