"""Pictures drawn in worker processes (``PICTURE_PROCESSES``, the default outside the tests):
the table shows them, and a worker killed mid-run costs no picture (threads take over)."""

from __future__ import annotations

import io
import logging
import os
import signal

import pytest
from PIL import Image

from tests.e2e.test_castles_e2e import DEALER_BOB, _draw_label, open_game
from tests.e2e.world import World

pytestmark = pytest.mark.e2e


async def move_from_table(w: World, table_id: int) -> bytes:
    """The player to act draws from the table message; the table's picture after it."""
    table = await w.table_by_id(table_id)
    users = {u.id: u for u in (w.alice, w.bob)}
    mover = users[table.seats[table.running_state()["to_act"]]]
    await mover.click(w.table_message(table), _draw_label(table.running_state()))
    await w.fake.settle()
    moved = await w.table_by_id(table_id)
    assert moved.ply == table.ply + 1
    (picture,) = w.table_message(moved).attachments
    assert picture.filename == f"castles-{table_id}-{moved.ply}.png"
    return picture.data


@pytest.mark.sqlite_only("about where pictures are drawn, not about storage")
async def test_pictures_come_from_worker_processes_and_survive_a_killed_worker(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    w = world
    w.picture_processes = 1
    await w.restart_bot()
    pictures = w.running.hall.pictures
    await pictures.warmed()  # (until then pictures are drawn in threads)
    table, _ = await open_game(w, dealer=DEALER_BOB)
    png = await move_from_table(w, table.id)
    assert Image.open(io.BytesIO(png)).format == "PNG"
    pool = pictures._pool
    assert pool is not None and pictures.drawn >= 2
    workers = [worker.process for worker in pool.workers]
    assert workers and all(p.pid not in (None, os.getpid()) for p in workers)
    assert pictures.in_threads < pictures.drawn  # some came from the process
    # A worker dies (the kernel's OOM killer, say): the next picture is drawn all the same.
    for worker in workers:
        os.kill(worker.pid, signal.SIGKILL)  # type: ignore[arg-type]
        worker.join(5)
    with caplog.at_level(logging.WARNING, logger="siege.pictures"):
        png = await move_from_table(w, table.id)
    assert Image.open(io.BytesIO(png)).format == "PNG"
    assert pictures._pool is None and pictures.processes == 0  # threads from now on
    assert any("picture processes broke" in r.getMessage() for r in caplog.records)
    png = await move_from_table(w, table.id)
    assert Image.open(io.BytesIO(png)).format == "PNG"
