"""Pictures are drawn in a worker thread, so two flows that redraw one table can finish their
drawings in either order: the table must still end on the newest position, never on the older
picture of a flow that was slower to draw it."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

import pytest

from cogs.render import get_renderer
from tests.e2e.test_castles_e2e import open_game
from tests.e2e.world import World

pytestmark = pytest.mark.e2e


async def test_a_slow_older_picture_never_lands_after_a_newer_one(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    table, _ = await open_game(w)
    hall = w.running.hall
    store = w.running.store
    renderer = get_renderer("castles")
    draw = renderer.table_image
    entered, gate = threading.Event(), threading.Event()
    slow_ply = table.ply + 1

    def held_back(view: dict[str, Any], last_events: Sequence[dict[str, Any]] = ()) -> bytes:
        # The position after the first move is drawn slowly: the worker waits for the gate.
        if view["summary"]["pile"] == len(table.running_state()["pile"]) - 1 and not gate.is_set():
            entered.set()
            gate.wait(10)
        return draw(view, last_events)

    monkeypatch.setattr(renderer, "table_image", held_back)

    async def play_first_legal() -> Any:
        current = await w.table_by_id(table.id)
        seat = current.engine.to_act(current.running_state())
        assert seat is not None
        action = current.engine.legal_actions(current.running_state(), seat)[0]
        moved, _ = await store.act(table.id, current.seats[seat], action, current.ply)
        return moved

    first = await play_first_legal()
    assert first.ply == slow_ply
    slow = asyncio.create_task(hall.refresh_table(first))  # draws ply+1: held in its thread
    assert await asyncio.to_thread(entered.wait, 10)
    second = await play_first_legal()
    fast = asyncio.create_task(hall.refresh_table(second))
    await asyncio.sleep(0)  # the second flow is waiting (or would already have sent)
    gate.set()
    assert await slow and await fast
    await w.fake.settle()
    shown = w.table_message(await w.table_by_id(table.id))
    names = [a.filename for a in shown.attachments]
    assert names == [f"castles-{table.id}-{second.ply}.png"], names
