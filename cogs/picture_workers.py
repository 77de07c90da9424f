"""The processes that draw pictures, each reached by a pair of pipes the event loop reads and
writes itself.

``concurrent.futures.ProcessPoolExecutor`` hands each task to a feeder thread and each result to
a manager thread, and both take the GIL from the event loop to do it: about 0.4 ms of the bot's
CPU for every picture (``benchmarks/table_load.py`` prints the bot's CPU by thread). Here a
drawing is pickled on the loop and written to the worker's request pipe through an asyncio
transport, and the result comes back through a read transport on the loop: no thread at all.
A worker has at most :data:`IN_FLIGHT` drawings at once (the one it draws and the next, already
in its pipe, so it never waits for the loop between two); the rest wait in order for the first
worker with room.

A worker keeps the memory a picture freed for the next one (:func:`keep_freed_memory`: glibc
gave it back to the system and the next picture faulted it in again, half a picture's CPU).

A worker that dies (its result pipe closes) fails the drawing it had and every drawing after
it with :class:`WorkerLost`: :class:`cogs.pictures.Pictures` then draws in threads.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import multiprocessing
import os
import pickle
import struct
from collections import deque
from collections.abc import Callable
from functools import partial
from multiprocessing.connection import Connection
from typing import Any

log = logging.getLogger("siege.pictures")

_HEADER = struct.Struct("!I")  # each message: its length, then its pickle
#: Drawings sent to one worker at once: the one it draws, and the next one waiting in its pipe.
IN_FLIGHT = 2


class WorkerLost(Exception):
    """A picture process died (killed, out of memory): its drawing was not made."""


class Unsendable(Exception):
    """A drawing that cannot be pickled for a process (a local function, say)."""


# -- In the worker process -----------------------------------------------------------------------


def _read_exactly(fd: int, n: int) -> bytes | None:
    chunks = []
    while n:
        chunk = os.read(fd, min(n, 1 << 20))
        if not chunk:
            return None  # the bot closed the pipe: it is stopping
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


#: glibc's ``mallopt`` parameters (malloc.h) and the values a worker sets.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
#: Blocks up to this size come from the heap and stay there once freed (a picture's buffers are
#: 0.3-1.5 MB; glibc's own threshold starts at 128 KB).
KEEP_BLOCKS_UP_TO = 16 << 20
#: Free memory at the heap's top that is kept rather than given back to the system.
KEEP_FREE_UP_TO = 64 << 20


def keep_freed_memory() -> bool:
    """Ask glibc's malloc to keep a picture's large buffers for the next picture; whether it
    could (not glibc, say: then nothing changes).

    By default glibc hands blocks this size to the system when they are freed (``mmap`` /
    ``munmap``, and trimming the heap's top), so every picture faulted its pages in again:
    about 290 page faults a Castles picture, half its CPU time (1.08 ms a picture in a loop;
    0.57 ms with this). A worker keeps the few MB it peaks at instead."""
    try:
        # The process's own symbols, the C library's among them (no search for its file).
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # not there (musl, macOS); no CDLL(None)
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    kept_blocks = mallopt(_M_MMAP_THRESHOLD, KEEP_BLOCKS_UP_TO)
    return bool(kept_blocks and mallopt(_M_TRIM_THRESHOLD, KEEP_FREE_UP_TO))


def serve(requests: Connection, results: Connection) -> None:
    """A worker's life: keep freed memory for the next picture (:func:`keep_freed_memory`),
    import the renderers, say so, then draw what comes until the pipe closes. A drawing that
    raises sends its exception back (or, when that cannot be pickled, a RuntimeError saying
    what it was)."""
    kept = keep_freed_memory()
    import presentation  # noqa: F401  (the first picture is not kept waiting for the imports)

    rfd, wfd = requests.fileno(), results.fileno()
    ready = pickle.dumps((True, kept))  # the bot logs a worker that could not keep its memory
    _write_all(wfd, _HEADER.pack(len(ready)) + ready)
    while True:
        header = _read_exactly(rfd, _HEADER.size)
        if header is None:
            return
        body = _read_exactly(rfd, _HEADER.unpack(header)[0])
        if body is None:
            return
        try:
            draw, args = pickle.loads(body)
            outcome: tuple[bool, Any] = (True, draw(*args))
        except Exception as exc:
            outcome = (False, exc)
        try:
            payload = pickle.dumps(outcome)
        except Exception as exc:
            payload = pickle.dumps((False, RuntimeError(f"{outcome[1]!r} ({exc})")))
        _write_all(wfd, _HEADER.pack(len(payload)) + payload)


# -- In the bot ----------------------------------------------------------------------------------


class _Results(asyncio.Protocol):
    """Splits a worker's result pipe into its messages."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while len(self.buffer) >= _HEADER.size:
            (n,) = _HEADER.unpack_from(self.buffer)
            if len(self.buffer) < _HEADER.size + n:
                return
            message = bytes(self.buffer[_HEADER.size : _HEADER.size + n])
            del self.buffer[: _HEADER.size + n]
            self.worker.received(message)

    def connection_lost(self, exc: Exception | None) -> None:
        self.worker.lost()


class Worker:
    """One picture process, with the drawings sent to it and not yet back (oldest first)."""

    def __init__(self, pool: Workers, process: multiprocessing.process.BaseProcess) -> None:
        self.pool = pool
        self.process = process
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.drawings: deque[asyncio.Future[Any]] = deque()
        self.requests: asyncio.WriteTransport | None = None
        self.results: asyncio.ReadTransport | None = None
        self.alive = True
        #: Whether the process could keep its freed memory (:func:`keep_freed_memory`); known
        #: once it is ready.
        self.keeps_memory: bool | None = None

    @property
    def has_room(self) -> bool:
        return self.alive and self.ready.done() and len(self.drawings) < IN_FLIGHT

    def send(self, message: bytes, done: asyncio.Future[Any]) -> None:
        assert self.requests is not None and self.has_room
        self.drawings.append(done)
        self.requests.write(_HEADER.pack(len(message)) + message)

    def received(self, message: bytes) -> None:
        ok, value = pickle.loads(message)
        if not self.ready.done():  # the first message says the worker is up
            self.keeps_memory = bool(value)
            if not self.keeps_memory:
                log.info(
                    "picture process %s: malloc cannot be told to keep freed memory (not "
                    "glibc?); a picture may cost up to twice the CPU",
                    self.process.pid,
                )
            self.ready.set_result(None)
        elif self.drawings:  # results come back in the order the drawings were sent
            done = self.drawings.popleft()
            if not done.done():
                if ok:
                    done.set_result(value)
                else:
                    done.set_exception(value)
        self.pool.has_room(self)

    def lost(self) -> None:
        if not self.alive:
            return
        self.alive = False
        error = WorkerLost(f"picture process {self.process.pid} ended")
        if not self.ready.done():
            self.ready.set_exception(error)
            self.ready.exception()  # retrieved: whoever waits for it is told through the pool
        while self.drawings:
            done = self.drawings.popleft()
            if not done.done():
                done.set_exception(error)
        self.pool.died(error)

    def close(self) -> None:
        self.alive = False
        for transport in (self.requests, self.results):
            if transport is not None:
                transport.close()
        if self.process.is_alive():
            self.process.kill()


class Workers:
    """``count`` picture processes, started with :meth:`start` (on the event loop)."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.workers: list[Worker] = []
        self._waiting: deque[tuple[bytes, asyncio.Future[Any]]] = deque()
        self.broken: Exception | None = None

    async def start(self) -> None:
        """Start the processes (spawned, not forked: the bot has database threads running)
        and connect their pipes; they are usable once :meth:`warmed` returns."""
        context = multiprocessing.get_context("spawn")
        loop = asyncio.get_running_loop()
        for _ in range(self.count):
            to_worker, from_bot = context.Pipe(duplex=False)  # (reader, writer) pairs
            from_worker, to_bot = context.Pipe(duplex=False)
            process = context.Process(
                target=serve, args=(to_worker, to_bot), daemon=True, name="siege-pictures"
            )
            process.start()
            to_worker.close()  # the worker's ends: it has its own copies now
            to_bot.close()
            worker = Worker(self, process)
            writes = os.fdopen(os.dup(from_bot.fileno()), "wb", buffering=0)
            reads = os.fdopen(os.dup(from_worker.fileno()), "rb", buffering=0)
            from_bot.close()
            from_worker.close()
            worker.requests, _ = await loop.connect_write_pipe(asyncio.Protocol, writes)
            worker.results, _ = await loop.connect_read_pipe(partial(_Results, worker), reads)
            self.workers.append(worker)

    @property
    def is_warm(self) -> bool:
        return bool(self.workers) and all(w.ready.done() for w in self.workers)

    async def warmed(self) -> None:
        await asyncio.gather(*(asyncio.shield(w.ready) for w in self.workers))

    async def draw(self, draw: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        """``draw(*args)`` in the first idle worker (pickled here: a
        :class:`pickle.PicklingError` if it cannot travel), :class:`WorkerLost` if one died."""
        if self.broken is not None:
            raise WorkerLost(str(self.broken))
        try:
            message = pickle.dumps((draw, args))
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            raise Unsendable(str(exc)) from exc
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        free = [w for w in self.workers if w.has_room]
        if free and not self._waiting:
            min(free, key=lambda w: len(w.drawings)).send(message, done)
        else:
            self._waiting.append((message, done))
        return await done

    def has_room(self, worker: Worker) -> None:
        """A worker took a result back (or came up): give it the next waiting drawings."""
        while self._waiting and worker.has_room:
            message, done = self._waiting.popleft()
            if not done.done():  # (a caller that gave up: skipped)
                worker.send(message, done)

    def died(self, error: Exception) -> None:
        """One process died: the pool is broken (the caller falls back to threads) and every
        drawing waiting for it fails the same way."""
        self.broken = error
        while self._waiting:
            _, done = self._waiting.popleft()
            if not done.done():
                done.set_exception(error)

    def close(self) -> None:
        for worker in self.workers:
            worker.close()
        self.workers.clear()
        error = WorkerLost("the picture processes were stopped")
        while self._waiting:
            _, done = self._waiting.popleft()
            if not done.done():
                done.set_exception(error)


__all__ = [
    "IN_FLIGHT",
    "Unsendable",
    "Worker",
    "WorkerLost",
    "Workers",
    "keep_freed_memory",
    "serve",
]
