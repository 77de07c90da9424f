"""Every interaction answered or deferred in time (:mod:`cogs.deadline`), through the fake.

The slowness is injected, never slept: a picture or a storage call waits on an event the test
sets, and the guard's clock (the time of day) is moved by hand past the budget. The fake Discord
fails a test whose interaction has no first answer within its 3 seconds (10062), so every test
here would fail if the guard did not defer.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.e2e.test_castles_e2e import DEALER_BOB, _draw_label, open_game
from tests.e2e.world import World
from tests.fakecord.interactions import (
    DEFERRED_CHANNEL_MESSAGE,
    DEFERRED_UPDATE_MESSAGE,
    UPDATE_MESSAGE,
    InteractionHandle,
)

pytestmark = pytest.mark.e2e


class DayClock:
    """The time of day in seconds, as ``time.time``, plus what the test moved it by."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


class Held:
    """An awaitable made to wait: ``entered`` once a flow reaches it, on its way once the test
    calls ``release``."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.released = asyncio.Event()
        self.calls = 0

    def wrap(self, call: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def held(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            self.entered.set()
            await self.released.wait()
            return await call(*args, **kwargs)

        return held

    def release(self) -> None:
        self.released.set()


async def past_the_budget(w: World, held: Held, action: Awaitable[InteractionHandle]) -> Any:
    """Run ``action`` (a click or a command) while ``held`` keeps its flow waiting, move the
    guard's clock 2.5 s on, and return the interaction's handle once it has its first answer;
    then let the flow go on and wait for the bot to finish."""
    clock = DayClock()
    w.running.hall.deadline.clock = clock
    pending = asyncio.ensure_future(action)
    await held.entered.wait()
    clock.advance(2.5)
    assert await w.running.hall.deadline.check() == 1
    handle = await pending
    held.release()
    await w.fake.settle()
    w.running.hall.deadline.clock = time.time  # the time of day again, for what follows
    return handle


async def test_a_slow_picture_is_deferred_then_shown(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    held = Held()
    pictures = w.running.hall.pictures
    monkeypatch.setattr(pictures, "render_keyed", held.wrap(pictures.render_keyed))
    click = w.alice.click(message, _draw_label(table.running_state()))
    handle = await past_the_budget(w, held, click)
    assert handle.response_type == DEFERRED_UPDATE_MESSAGE
    moved = await w.table_by_id(table.id)
    assert moved.ply == table.ply + 1
    assert len(await w.running.store.actions(table.id)) == table.ply + 1  # counted once
    shown = w.table_message(moved)
    (picture,) = shown.attachments
    assert picture.filename == f"castles-{table.id}-{moved.ply}.png"
    assert shown.id == message.id and not handle.followups  # the clicked table, edited
    assert w.running.hall.deadline.counts["deferred"] == 1


async def test_a_slow_storage_call_is_deferred_then_answered(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    held = Held()
    store = w.running.store
    monkeypatch.setattr(store, "act", held.wrap(store.act))
    click = w.alice.click(message, _draw_label(table.running_state()))
    handle = await past_the_budget(w, held, click)
    assert handle.response_type == DEFERRED_UPDATE_MESSAGE
    assert held.calls == 1
    moved = await w.table_by_id(table.id)
    assert moved.ply == table.ply + 1
    assert len(await store.actions(table.id)) == table.ply + 1
    assert _draw_label(moved.running_state()) in [b.label for b in w.table_message(moved).buttons()]
    # The next click, quick again, is answered directly.
    after = await w.bob.click(w.table_message(moved), _draw_label(moved.running_state()))
    assert after.response_type == UPDATE_MESSAGE
    await w.fake.settle()


async def test_a_slow_command_gets_a_placeholder_that_becomes_the_table(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    held = Held()
    store = w.running.store
    monkeypatch.setattr(store, "create_table", held.wrap(store.create_table))
    command = w.alice.slash(w.channel, "play castles-besieged")
    handle = await past_the_budget(w, held, command)
    assert handle.response_type == DEFERRED_CHANNEL_MESSAGE and not handle.ephemeral
    lobby = handle.response_message
    assert lobby is not None and not lobby.loading
    table = await w.table()
    assert table.message_id == lobby.id  # the placeholder is the table now
    assert "Join" in [b.label for b in lobby.buttons()]
    await w.bob.click(lobby, "Join")  # and it works as a table
    await w.fake.settle()
    assert (await w.table()).seats == (w.alice.id, w.bob.id)


async def test_a_slow_private_command_is_deferred_privately(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    held = Held()
    store = w.running.store
    monkeypatch.setattr(store, "turns_of", held.wrap(store.turns_of))
    handle = await past_the_budget(w, held, w.alice.slash(w.channel, "siege turns"))
    assert handle.response_type == DEFERRED_CHANNEL_MESSAGE and handle.ephemeral
    answer = handle.response_message
    assert answer is not None and not answer.loading and answer.embeds


async def test_a_slow_refusal_after_a_public_placeholder_is_private(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    await w.alice.slash(w.channel, "play castles-besieged")
    await w.fake.settle()
    held = Held()
    store = w.running.store
    monkeypatch.setattr(store, "create_table", held.wrap(store.create_table))
    command = w.bob.slash(w.channel, "play castles-besieged")
    handle = await past_the_budget(w, held, command)
    assert handle.response_type == DEFERRED_CHANNEL_MESSAGE
    placeholder = handle.response_message
    assert placeholder is not None and placeholder.deleted  # nothing left in the channel
    (refusal,) = handle.followups
    assert refusal.ephemeral and "already has an open" in str(refusal.content)


async def test_quick_answers_are_not_deferred(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    handle = await w.alice.click(message, _draw_label(table.running_state()))
    assert handle.response_type == UPDATE_MESSAGE
    await w.fake.settle()
    counts = w.running.hall.deadline.counts
    assert counts["deferred"] == 0 and counts["answered"] >= 4  # new, join, start, draw
    assert await w.running.hall.deadline.check() == 0


@pytest.mark.sqlite_only("about the picture processes at start-up, not about storage")
async def test_a_click_while_the_picture_processes_warm_up_is_answered_at_once(
    world: World,
) -> None:
    w = world
    handle = await w.alice.slash(w.channel, "play castles-besieged", dealer=DEALER_BOB)
    assert handle.response_message is not None
    await w.bob.click(handle.response_message, "Join")
    await w.fake.settle()
    lobby = w.fake.latest(handle.response_message)
    # A fresh bot with a picture process that is still starting (held cold by the test).
    w.picture_processes = 1
    bot = await w.restart_bot()
    pictures = bot.hall.pictures
    assert pictures._pool is not None
    await pictures.warmed()
    (worker,) = pictures._pool.workers
    warming = asyncio.get_running_loop().create_future()
    worker.ready = warming  # however quick the real one was, still starting
    assert not pictures.is_warm
    start = await w.alice.click(lobby, "Start")
    assert start.response_type == UPDATE_MESSAGE  # answered, not even deferred
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running"
    assert pictures.drawn >= 1 and pictures.in_threads == pictures.drawn
    warming.set_result(None)  # once up, the processes draw
    in_threads = pictures.in_threads
    await w.alice.click(w.table_message(table), _draw_label(table.running_state()))
    await w.fake.settle()
    assert pictures.in_threads == in_threads and pictures.drawn > in_threads


async def test_answers_go_ahead_of_redraws_and_a_tables_redraws_merge(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    table, _ = await open_game(w, dealer=DEALER_BOB)
    hall = w.running.hall
    held = Held()
    monkeypatch.setattr(hall.panels, "refresh_panels", held.wrap(hall.panels.refresh_panels))
    users = {u.id: u for u in (w.alice, w.bob)}
    answers = []
    for _ in range(3):
        # Each move is answered at once, though the redraw of the first is still held.
        now = await w.table_by_id(table.id)
        mover = users[now.seats[now.running_state()["to_act"]]]
        handle = await mover.click(
            w.table_message(now), _draw_label(now.running_state()), settle_first=False
        )
        answers.append(handle.response_type)
        await held.entered.wait()
    assert answers == [UPDATE_MESSAGE] * 3
    for _ in range(1000):  # the last flow queues its redraw just after its answer
        if hall.redraws.merged:
            break
        await asyncio.sleep(0.005)
    assert held.calls == 1 and hall.redraws.waiting == 1 and hall.redraws.merged == 1
    held.release()
    await w.fake.settle()
    assert held.calls == 2  # the second and third moves were redrawn as one
    moved = await w.table_by_id(table.id)
    assert moved.ply == table.ply + 3
    panels = {
        user: [m for m in user.dms() if f"Table #{table.id}" in m.text()] for user in users.values()
    }
    assert all(len(mine) == 1 for mine in panels.values())  # one panel each
    (panel,) = panels[users[moved.seats[moved.running_state()["to_act"]]]]
    assert _draw_label(moved.running_state()) in [b.label for b in panel.buttons()]


async def test_a_slow_rematch_click_keeps_the_offer_it_posted(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    await w.alice.click(message, "Resign")
    await w.fake.settle()
    confirm = [m for m in w.alice.view(w.channel) if "Resign this game?" in m.text()][-1]
    await w.alice.click(confirm, "Yes, resign")
    await w.fake.settle()
    over = await w.table_by_id(table.id)
    held = Held()
    store = w.running.store
    monkeypatch.setattr(store, "offer_rematch", held.wrap(store.offer_rematch))
    asked = await past_the_budget(w, held, w.alice.click(w.table_message(over), "Rematch"))
    assert asked.response_type == DEFERRED_UPDATE_MESSAGE
    (offer,) = asked.followups  # the offer, posted once the answer was ready
    assert not offer.ephemeral and "every player has accepted" in offer.text()
    assert "Rematch" in [b.label for b in w.table_message(over).buttons()]  # table untouched
    # Bob says yes with Rematch too: the game starts and the offer's message (not the table's)
    # is closed.
    await w.bob.click(w.table_message(over), "Rematch")
    await w.fake.settle()
    rematch = await w.table()
    assert rematch.status == "running" and rematch.rematch_of == table.id
    assert "Everyone accepted" in w.fake.latest(offer).text()
    assert "Everyone accepted" not in w.fake.latest(message).text()


async def test_clicks_beyond_the_flows_at_once_wait_their_turn_deferred_in_time(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An overloaded process runs a bounded number of flows (``Guard.admission``); a click that
    has to wait for its turn is still deferred within its budget, then answered when its turn
    comes, and nothing it asked for is lost."""
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    guard = w.running.hall.guard
    guard.admission = asyncio.Semaphore(1)  # one flow at a time: the click's move holds it
    held = Held()
    store = w.running.store
    monkeypatch.setattr(store, "act", held.wrap(store.act))
    turns_asked: list[int] = []
    turns_of = store.turns_of

    async def counted_turns_of(user_id: int, *args: Any, **kwargs: Any) -> Any:
        turns_asked.append(user_id)
        return await turns_of(user_id, *args, **kwargs)

    monkeypatch.setattr(store, "turns_of", counted_turns_of)
    clock = DayClock()
    w.running.hall.deadline.clock = clock
    click = asyncio.ensure_future(w.alice.click(message, _draw_label(table.running_state())))
    await held.entered.wait()
    command = asyncio.ensure_future(w.bob.slash(w.channel, "siege turns"))
    for _ in range(1000):  # until Bob's flow waits for the one place (or plainly does not)
        if guard.queued or turns_asked:
            break
        await asyncio.sleep(0)
    assert guard.queued == 1 and not turns_asked and not command.done()
    clock.advance(2.5)
    assert await w.running.hall.deadline.check() == 2  # the held move and the waiting command
    handle = await command
    assert handle.response_type == DEFERRED_CHANNEL_MESSAGE and handle.ephemeral
    assert not turns_asked  # deferred while it waited: its work has not started
    moved_handle = await click
    assert moved_handle.response_type == DEFERRED_UPDATE_MESSAGE
    held.release()
    await w.fake.settle()
    w.running.hall.deadline.clock = time.time
    assert turns_asked == [w.bob.id]
    answer = handle.response_message
    assert answer is not None and not answer.loading and answer.embeds
    moved = await w.table_by_id(table.id)
    assert moved.ply == table.ply + 1
    assert guard.queued == 1
