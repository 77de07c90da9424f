"""A click's interaction is freed when its flow ends, by reference counting alone.

discord.py's interaction and its response refer to each other; left so, every click's
interaction (with its parsed message) waited for a garbage collection, and under load the full
collections that walked thousands of them paused the bot for tens of milliseconds."""

from __future__ import annotations

import gc

import discord
import pytest

from tests.e2e.test_castles_e2e import DEALER_BOB, _draw_label, open_game
from tests.e2e.world import World

pytestmark = pytest.mark.e2e


def interactions_alive() -> int:
    return sum(isinstance(o, discord.Interaction) for o in gc.get_objects())


async def test_moves_leave_no_interaction_for_the_collector(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    gc.collect()
    gc.disable()  # only reference counting frees anything from here
    try:
        before = interactions_alive()
        handle = await w.alice.click(message, _draw_label(table.running_state()))
        assert handle.record.responded_at is not None
        await w.alice.click(w.fake.latest(message), "My hand")
        await w.fake.settle()
        assert interactions_alive() == before
    finally:
        gc.enable()


async def test_what_the_bot_cached_on_connecting_is_frozen_at_ready(world: World) -> None:
    """The servers and channels discord.py cached before "ready" are out of the collector's
    sight (gc.freeze): full collections do not walk them."""
    guild = world.running.get_guild(world.guild.id)
    assert guild is not None
    assert not any(o is guild for o in gc.get_objects())
