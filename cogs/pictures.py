"""Pictures drawn off the event loop and kept by what they show.

Drawing a board and encoding it as PNG takes milliseconds of CPU: on the event loop that would
hold up every other table's click for as long. :class:`Pictures` runs the renderer in worker
processes (``PICTURE_PROCESSES``, one by default: the drawing then runs on another core and never
competes with the event loop for the GIL), or in a worker thread (``asyncio.to_thread``) with
none, and keeps the last pictures in an LRU keyed by the game and a digest of the arguments (the
view and what it marks), so a position drawn once — the table re-rendered for a panel click, a
repost, a second flow racing the first, a thousand new tables showing the same empty rows — is
not drawn again. Two flows asking for the same picture at once share one drawing.

A process pool that breaks (a worker killed) is replaced by threads for the rest of the run,
with one warning: a picture is never lost to it. A freshly started worker takes a second or more
(longer on a busy machine) to import Pillow and the renderers: until every worker has, pictures
are drawn in threads, so a click in the bot's first seconds never waits for a cold process.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import multiprocessing
import pickle
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import orjson

PICTURES_KEPT = 512  # about 15–35 KB each

log = logging.getLogger("siege.pictures")

T = TypeVar("T")


def picture_key(game: str, args: tuple[Any, ...]) -> tuple[str, str]:
    """What a picture shows, as a key: the game and a digest of the renderer's arguments."""
    text = orjson.dumps(args, default=str, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return game, hashlib.blake2b(text, digest_size=16).hexdigest()


def _ready() -> bool:
    """A worker's first task: import the renderers (so the first picture is not kept waiting)."""
    import presentation  # noqa: F401

    return True


class Pictures:
    def __init__(self, kept: int = PICTURES_KEPT, processes: int = 0) -> None:
        self.kept = kept
        self.processes = processes
        self._pool: ProcessPoolExecutor | None = None
        self._warming: list[Future[bool]] = []  # each worker's first task (see _ready)
        self._report: asyncio.Task[None] | None = None
        self._done: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._drawing: dict[tuple[str, str], asyncio.Future[Any]] = {}
        self.drawn = 0  # pictures actually drawn
        self.reused = 0  # pictures served from the cache or from a drawing under way
        self.in_threads = 0  # pictures drawn in a thread while the processes were warming up

    async def render(self, game: str, draw: Callable[..., T], *args: Any) -> T:
        """``draw(*args)`` in a worker thread, or the picture it drew before for the same
        arguments."""
        key = picture_key(game, args)
        if key in self._done:
            self._done.move_to_end(key)
            self.reused += 1
            kept: T = self._done[key]
            return kept
        pending = self._drawing.get(key)
        if pending is not None:
            self.reused += 1
            shared: T = await asyncio.shield(pending)
            return shared
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._drawing[key] = future
        try:
            picture = await self._draw(draw, args)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: a flow that did not wait for it logs nothing
            raise
        finally:
            self._drawing.pop(key, None)
        self.drawn += 1
        future.set_result(picture)
        self._done[key] = picture
        if len(self._done) > self.kept:
            self._done.popitem(last=False)
        return picture

    def start(self) -> None:
        """Start the worker processes now (at start-up, not at the first click)."""
        if self.processes > 0 and self._pool is None:
            # Spawned, not forked: the bot has database threads running.
            self._pool = ProcessPoolExecutor(
                self.processes, mp_context=multiprocessing.get_context("spawn")
            )
            self._warming = [self._pool.submit(_ready) for _ in range(self.processes)]
            with contextlib.suppress(RuntimeError):  # no event loop: nobody to tell
                self._report = asyncio.get_running_loop().create_task(self._report_warm())

    def warming_note(self) -> str:
        """What is still warming up, for the bot's "ready" line ("" when nothing is)."""
        if self._pool is None or self.is_warm:
            return ""
        return (
            f"; the picture processes ({self.processes}) are still starting, pictures are "
            "drawn in threads until they are up"
        )

    async def _report_warm(self) -> None:
        began = time.monotonic()
        try:
            await self.warmed()
        except Exception as exc:  # a broken pool: the first picture sent there falls back
            log.warning("the picture processes did not start (%r); pictures use threads", exc)
            return
        log.info("picture processes up (%s) after %.1f s", self.processes, time.monotonic() - began)

    @property
    def is_warm(self) -> bool:
        """Whether the worker processes are up and have imported the renderers."""
        return self._pool is not None and all(future.done() for future in self._warming)

    async def warmed(self) -> None:
        """Wait until the worker processes are warm (at once without any)."""
        if self._warming:
            await asyncio.gather(*(asyncio.wrap_future(f) for f in self._warming))

    async def _draw(self, draw: Callable[..., T], args: tuple[Any, ...]) -> T:
        self.start()
        if self._pool is not None and not self.is_warm:
            self.in_threads += 1  # not kept waiting while a process starts
        elif self._pool is not None:
            try:
                drawn: T = await asyncio.get_running_loop().run_in_executor(self._pool, draw, *args)
                return drawn
            except BrokenProcessPool:
                log.warning("the picture processes broke; pictures are drawn in threads from now")
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool, self.processes = None, 0
            except pickle.PicklingError:  # a drawing that cannot travel: drawn here instead
                log.debug("picture %r drawn in a thread: it cannot be sent to a process", draw)
        return await asyncio.to_thread(draw, *args)

    def close(self) -> None:
        if self._report is not None:
            self._report.cancel()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


__all__ = ["Pictures", "picture_key"]
