"""cogs.picture_workers: drawings sent to picture processes through pipes the event loop reads
and writes, without helper threads."""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import pickle
import platform
import resource
import threading
from collections.abc import AsyncIterator

import pytest

from cogs import picture_workers
from cogs.picture_workers import IN_FLIGHT, Unsendable, WorkerLost, Workers
from cogs.pictures import Pictures


def where(tag: str) -> tuple[str, int]:
    return tag, os.getpid()


def faults_of_large_buffers(rounds: int, size: int) -> int:
    """The page faults of making four buffers of ``size`` bytes, each written whole, and
    freeing them, ``rounds`` times (as a picture makes its pixels, their rows and the PNG)."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(rounds):
        buffers = [b"\x01" * size for _ in range(4)]
        del buffers
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def refuse(why: str) -> bytes:
    raise ValueError(why)


class Unpicklable(Exception):
    def __reduce__(self) -> tuple[object, ...]:
        raise TypeError("not this one")


def refuse_oddly() -> bytes:
    raise Unpicklable("odd")


@pytest.fixture
async def workers() -> AsyncIterator[Workers]:
    pool = Workers(1)
    await pool.start()
    await pool.warmed()
    yield pool
    pool.close()


async def test_drawings_go_to_the_process_in_order_and_come_back_without_threads(
    workers: Workers,
) -> None:
    threads = threading.active_count()
    asked = [asyncio.ensure_future(workers.draw(where, (f"t{k}",))) for k in range(5)]
    await asyncio.sleep(0)  # each call sent or queued
    # The one it draws and the next, already in its pipe; the others wait their turn.
    assert len(workers.workers[0].drawings) == IN_FLIGHT == 2
    found = await asyncio.gather(*asked)
    assert [tag for tag, _ in found] == [f"t{k}" for k in range(5)]
    (pid,) = {pid for _, pid in found}
    assert pid == workers.workers[0].process.pid != os.getpid()
    assert threading.active_count() == threads  # no helper thread was started for them


async def test_a_drawing_that_raises_reaches_its_caller_and_the_process_goes_on(
    workers: Workers,
) -> None:
    with pytest.raises(ValueError, match="no such board"):
        await workers.draw(refuse, ("no such board",))
    with pytest.raises(RuntimeError, match="odd"):  # an exception that cannot travel, in words
        await workers.draw(refuse_oddly, ())
    assert (await workers.draw(where, ("after",)))[0] == "after"
    with pytest.raises(Unsendable):
        await workers.draw(lambda: b"", ())  # a local function cannot travel
    assert workers.broken is None


async def test_a_killed_process_fails_its_drawing_and_those_after_it(workers: Workers) -> None:
    (worker,) = workers.workers
    blocked = asyncio.ensure_future(workers.draw(where, ("first",)))
    waiting = asyncio.ensure_future(workers.draw(where, ("second",)))
    worker.process.kill()
    worker.process.join(5)
    # Drawn before the kill, or lost with the process: nothing hangs.
    outcomes = await asyncio.gather(blocked, waiting, return_exceptions=True)
    for outcome, tag in zip(outcomes, ("first", "second"), strict=True):
        assert isinstance(outcome, WorkerLost) or outcome == (tag, worker.process.pid)
    with pytest.raises(WorkerLost):  # sent to the dead process, or refused as broken
        await workers.draw(where, ("third",))
    assert workers.broken is not None
    with pytest.raises(WorkerLost):
        await workers.draw(where, ("fourth",))


async def test_a_process_that_dies_while_starting_leaves_pictures_to_threads(
    caplog: pytest.LogCaptureFixture,
) -> None:
    pictures = Pictures(processes=1)
    pictures.start()
    assert pictures._starting is not None and pictures._report is not None
    await asyncio.shield(pictures._starting)  # started, still importing the renderers
    assert pictures._pool is not None
    (worker,) = pictures._pool.workers
    assert not worker.ready.done() and "still starting" in pictures.warming_note()
    worker.process.kill()
    with caplog.at_level(logging.WARNING, logger="siege.pictures"):
        await pictures._report
    assert any("did not start" in r.getMessage() for r in caplog.records)
    assert pictures._pool is None and pictures.processes == 0
    assert pictures.warming_note() == ""
    assert await pictures.render("castles", where, "drawn") == ("drawn", os.getpid())
    pictures.close()


PAGES_PER_BUFFER = (1 << 20) // 4096


async def test_a_process_keeps_freed_picture_memory_for_the_next_picture(
    workers: Workers,
) -> None:
    """With glibc, a worker's freed megabyte buffers stay in its heap: making them again faults
    no page in (by default glibc gave them back and they were faulted in anew, 256 faults a
    buffer: about 20,000 here)."""
    (worker,) = workers.workers
    on_glibc = platform.libc_ver()[0] == "glibc"
    assert worker.keeps_memory is on_glibc
    await workers.draw(faults_of_large_buffers, (2, 1 << 20))  # the heap grows once
    faults = await workers.draw(faults_of_large_buffers, (20, 1 << 20))
    if on_glibc:  # (elsewhere the C library decides; the pictures are drawn all the same)
        assert faults < PAGES_PER_BUFFER  # 80 buffers in less than one buffer's pages


def test_keeping_freed_memory_is_refused_without_a_tunable_malloc(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class NoMallopt:  # a C library without glibc's mallopt (musl, macOS)
        def __init__(self, name: str | None) -> None:
            assert name is None  # the process's own symbols

    monkeypatch.setattr(ctypes, "CDLL", NoMallopt)
    assert picture_workers.keep_freed_memory() is False


async def test_a_process_that_cannot_keep_memory_is_named_in_the_log(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    pool = Workers(1)
    await pool.start()
    (worker,) = pool.workers
    with caplog.at_level(logging.INFO, logger="siege.pictures"):
        worker.received(pickle.dumps((True, False)))  # as a worker without mallopt says it
    assert worker.ready.done() and worker.keeps_memory is False
    assert any("keep freed memory" in r.getMessage() for r in caplog.records)
    pool.close()
