"""Races between flows and clicks on one table.

Pictures are drawn in a worker thread, so two flows that redraw one table can finish their
drawings in either order: the table must still end on the newest position, never on the older
picture of a flow that was slower to draw it. And a message can be deleted while a click on it
is on its way (a DM panel replaced by a fresh one, a table message a moderator removed): the
move still counts and the player is told where to look."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

import pytest

from cogs.moves import PANEL_REPLACED, TABLE_GONE
from presentation import get_renderer
from tests.e2e.test_castles_e2e import DEALER_BOB, _draw_label, dm_panel, open_game
from tests.e2e.world import World
from tests.fakecord import FakeMessage

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

    def held_back(
        view: dict[str, Any],
        last_events: Sequence[dict[str, Any]] = (),
        names: Sequence[str] = (),
    ) -> bytes:
        # The position after the first move is drawn slowly: the worker waits for the gate.
        if view["summary"]["pile"] == len(table.running_state()["pile"]) - 1 and not gate.is_set():
            entered.set()
            gate.wait(10)
        return draw(view, last_events, names)

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


async def click_deleted_on_the_way(
    w: World, monkeypatch: pytest.MonkeyPatch, drawing: str, message: FakeMessage, table: Any
) -> Any:
    """Alice clicks Draw on ``message``, which is deleted after the click reached the bot and
    before it answers (while the hall's ``drawing`` method, "flow.method", draws the answer)."""
    owner, drawing = drawing.split(".")
    hall = getattr(w.running.hall, owner)
    draw = getattr(hall, drawing)

    async def deleted_meanwhile(*args: Any, **kwargs: Any) -> Any:
        w.fake.delete_message(w.fake.latest(message))
        return await draw(*args, **kwargs)

    monkeypatch.setattr(hall, drawing, deleted_meanwhile)
    handle = await w.alice.click(message, _draw_label(table.running_state()))
    monkeypatch.setattr(hall, drawing, draw)
    await w.fake.settle()
    return handle


async def test_a_click_on_a_panel_deleted_on_the_way_counts_and_says_so(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    table, _ = await open_game(w, dealer=DEALER_BOB)  # Alice moves first
    panel = dm_panel(w, w.alice, table)
    handle = await click_deleted_on_the_way(w, monkeypatch, "panels.panel_parts", panel, table)
    assert handle.ephemeral and handle.response_message is not None
    assert handle.response_message.content == PANEL_REPLACED
    moved = await w.table_by_id(table.id)
    assert moved.ply == table.ply + 1  # the move counted, once
    assert not w.fake.violations
    # Bob's turn: his panel and the table show it; Alice keeps one panel (a fresh one later).
    await w.bob.click(dm_panel(w, w.bob, moved), _draw_label(moved.running_state()))
    await w.fake.settle()
    assert (await w.table_by_id(table.id)).ply == table.ply + 2
    assert len([m for m in w.alice.dms() if f"Table #{table.id}" in m.text()]) == 1


async def test_a_click_on_a_table_message_deleted_on_the_way_reposts_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    handle = await click_deleted_on_the_way(w, monkeypatch, "tables.table_parts", message, table)
    assert handle.ephemeral and handle.response_message is not None
    assert handle.response_message.content == TABLE_GONE
    moved = await w.table_by_id(table.id)
    assert moved.ply == table.ply + 1 and moved.message_id != message.id
    reposted = w.table_message(moved)
    assert not reposted.deleted and f"castles-{table.id}-{moved.ply}.png" in reposted.text()
    assert not w.fake.violations
