"""DMs that open again are noticed (issue 25, item 10): a player whose DMs were closed is tried
by DM again as they act, at most once a day, and gets their panel there again without a word;
a try that fails says nothing more."""

from __future__ import annotations

import pytest

from tests.counting import count_calls
from tests.e2e.test_castles_e2e import DEALER_BOB, _draw_label, dm_panel, open_game
from tests.e2e.test_clock_e2e import with_clock
from tests.e2e.world import World

pytestmark = pytest.mark.e2e


async def both_draw(w: World, table_id: int) -> None:
    """Alice draws, then Bob draws from the table message."""
    for user in (w.alice, w.bob):
        table = await w.table_by_id(table_id)
        await user.click(w.table_message(table), _draw_label(table.running_state()))
        await w.fake.settle()


def turn_pings(w: World) -> list[str]:
    """The turn pings standing in the channel (each replaces the last)."""
    return [
        m.content
        for m in w.fake.channel_messages(w.channel)
        if "your turn at table" in m.content and not m.deleted
    ]


def notices(w: World) -> list[str]:
    return [m.content for m in w.fake.channel_messages(w.channel) if "direct messages" in m.content]


async def test_reopened_dms_are_noticed_as_the_player_acts(world: World) -> None:
    w = world
    clock = await with_clock(w)
    store = w.running.store
    w.bob.dms_closed = True
    table, _ = await open_game(w, dealer=DEALER_BOB)
    assert len(notices(w)) == 1 and await store.dm_mode(w.bob.id) == "closed"

    await both_draw(w, table.id)  # Bob acts: tried again, still closed, nothing said
    assert w.bob.dms() == [] and len(notices(w)) == 1
    assert await store.dm_mode(w.bob.id) == "closed"

    w.bob.dms_closed = False  # Bob opens his DMs
    await both_draw(w, table.id)  # the same day: not tried again yet
    assert w.bob.dms() == [] and await store.dm_mode(w.bob.id) == "closed"

    clock.advance(days=1, seconds=1)
    await both_draw(w, table.id)  # a day later, as he acts: his panel is back in his DMs
    assert await store.dm_mode(w.bob.id) == "on"
    table = await w.table_by_id(table.id)
    assert "Your hand" in dm_panel(w, w.bob, table).text()
    assert len(notices(w)) == 1  # without a word in the channel

    await both_draw(w, table.id)  # and it stays there, kept up to date
    table = await w.table_by_id(table.id)
    assert f"Table #{table.id}" in dm_panel(w, w.bob, table).text()


async def test_dms_found_closed_by_a_move_get_the_turn_ping_in_the_same_redraw(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The turn ping goes by what drawing the panels just found (one read of how each seat is
    reached per move): a player whose DMs close mid-game is pinged in the channel by the very
    move that found them closed."""
    w = world
    table, _ = await open_game(w, dealer=DEALER_BOB)
    store = w.running.store
    reads = count_calls(monkeypatch, store, "delivery_targets")
    # Alice draws; the turn passes to Bob, whose DMs are open: one read for panels and ping.
    table = await w.table_by_id(table.id)
    await w.alice.click(w.table_message(table), _draw_label(table.running_state()))
    await w.fake.settle()
    assert len(reads) == 1
    assert turn_pings(w) == []  # his fresh DM panel notifies him

    w.bob.dms_closed = True  # Bob closes his DMs mid-game
    table = await w.table_by_id(table.id)
    await w.bob.click(w.table_message(table), _draw_label(table.running_state()))
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    await w.alice.click(w.table_message(table), _draw_label(table.running_state()))
    await w.fake.settle()
    assert await store.dm_mode(w.bob.id) == "closed"
    (ping,) = turn_pings(w)
    assert ping.startswith(f"<@{w.bob.id}>, it's your turn at table #{table.id}")
    assert len(reads) == 3  # one per move
