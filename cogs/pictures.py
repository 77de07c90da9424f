"""Pictures drawn off the event loop and kept by what they show.

Drawing a board and encoding it as PNG takes milliseconds of CPU: on the event loop that would
hold up every other table's click for as long. :class:`Pictures` runs the renderer in worker
processes (``PICTURE_PROCESSES``, one by default: the drawing then runs on another core and never
competes with the event loop for the GIL), or in a worker thread (``asyncio.to_thread``) with
none, and keeps the last pictures in an LRU keyed by the game and a digest of the arguments (the
view and what it marks), so a position drawn once — the table re-rendered for a panel click, a
repost, a second flow racing the first, a thousand new tables showing the same empty rows — is
not drawn again. Two flows asking for the same picture at once share one drawing.

The processes are reached through pipes the event loop reads and writes itself
(:mod:`cogs.picture_workers`), not through a process pool's helper threads. A process that dies
(a worker killed) is replaced by threads for the rest of the run, with one warning: a picture is
never lost to it. A freshly started worker takes a second or more (longer on a busy machine) to
import Pillow and the renderers: until every worker has, pictures are drawn in threads, so a
click in the bot's first seconds never waits for a cold process.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

import orjson

from cogs.picture_workers import Unsendable, WorkerLost, Workers

PICTURES_KEPT = 512  # about 15–35 KB each

log = logging.getLogger("siege.pictures")

T = TypeVar("T")


def picture_key(game: str, args: tuple[Any, ...]) -> tuple[str, str]:
    """What a picture shows, as a key: the game and a digest of the renderer's arguments."""
    text = orjson.dumps(args, default=str, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    return game, hashlib.blake2b(text, digest_size=16).hexdigest()


class Pictures:
    def __init__(self, kept: int = PICTURES_KEPT, processes: int = 0) -> None:
        self.kept = kept
        self.processes = processes
        self._pool: Workers | None = None
        self._starting: asyncio.Task[None] | None = None
        self._report: asyncio.Task[None] | None = None
        self._done: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._drawing: dict[tuple[str, str], asyncio.Future[Any]] = {}
        self.drawn = 0  # pictures actually drawn
        self.reused = 0  # pictures served from the cache or from a drawing under way
        self.in_threads = 0  # pictures drawn in a thread while the processes were warming up

    async def render(self, game: str, draw: Callable[..., T], *args: Any) -> T:
        """``draw(*args)`` in a worker thread, or the picture it drew before for the same
        arguments."""
        picture, _ = await self.render_keyed(game, draw, *args)
        return picture

    async def render_keyed(self, game: str, draw: Callable[..., T], *args: Any) -> tuple[T, str]:
        """:meth:`render`, and what identifies the picture: the drawing function and the
        digest of its arguments (a message's fingerprint takes it in place of the picture's
        bytes: hashing 30 KB of PNG cost 26 us a table message)."""
        key = picture_key(game, args)
        drawing = getattr(draw, "__qualname__", None) or type(draw).__qualname__
        print_ = f"{getattr(draw, '__module__', '')}.{drawing}:{key[0]}:{key[1]}"
        if key in self._done:
            self._done.move_to_end(key)
            self.reused += 1
            kept: T = self._done[key]
            return kept, print_
        pending = self._drawing.get(key)
        if pending is not None:
            self.reused += 1
            shared: T = await asyncio.shield(pending)
            return shared, print_
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
        return picture, print_

    def start(self) -> None:
        """Start the worker processes now (at start-up, not at the first click); on a running
        event loop (without one there is nothing to start them on: pictures use threads)."""
        if self.processes > 0 and self._pool is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._pool = Workers(self.processes)
            self._starting = loop.create_task(self._pool.start())
            self._report = loop.create_task(self._report_warm())

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
        except Exception as exc:  # threads from now on, as when a process dies later
            log.warning("the picture processes did not start (%r); pictures use threads", exc)
            if self._pool is not None:
                self._pool.close()
                self._pool, self.processes = None, 0
            return
        log.info("picture processes up (%s) after %.1f s", self.processes, time.monotonic() - began)

    @property
    def is_warm(self) -> bool:
        """Whether the worker processes are up and have imported the renderers."""
        return (
            self._pool is not None
            and self._starting is not None
            and self._starting.done()
            and self._pool.is_warm
        )

    async def warmed(self) -> None:
        """Wait until the worker processes are warm (at once without any)."""
        if self._starting is not None:
            await asyncio.shield(self._starting)
        if self._pool is not None:
            await self._pool.warmed()

    async def _draw(self, draw: Callable[..., T], args: tuple[Any, ...]) -> T:
        self.start()
        if self._pool is not None and not self.is_warm:
            self.in_threads += 1  # not kept waiting while a process starts
        elif self._pool is not None:
            try:
                drawn: T = await self._pool.draw(draw, args)
                return drawn
            except WorkerLost:
                log.warning("the picture processes broke; pictures are drawn in threads from now")
                self._pool.close()
                self._pool, self.processes = None, 0
            except Unsendable as exc:  # a drawing that cannot travel: drawn here instead
                log.debug(
                    "picture %r drawn in a thread: it cannot be sent to a process (%s)", draw, exc
                )
        return await asyncio.to_thread(draw, *args)

    def close(self) -> None:
        for task in (self._report, self._starting):
            if task is not None:
                task.cancel()
        if self._pool is not None:
            self._pool.close()
            self._pool = None


__all__ = ["Pictures", "picture_key"]
