"""Sentences a player reads, checked through the fake Discord (issue 25, item 9)."""

from __future__ import annotations

import pytest

from tests.e2e.test_castles_e2e import refusal
from tests.e2e.world import World

pytestmark = pytest.mark.e2e


async def test_quiet_hours_written_wrong_are_explained(world: World) -> None:
    w = world
    handle = await w.alice.slash(w.channel, "siege settings", quiet_hours="late")
    assert refusal(handle) == (
        "Quiet hours are a start and an end hour, like 22-8 (10 pm to 8 am your time), or off."
    )
    handle = await w.alice.slash(w.channel, "siege settings", quiet_hours="8-8")
    assert "two different hours" in refusal(handle)


async def test_the_guide_says_how_to_post_the_rules(world: World) -> None:
    w = world
    handle = await w.alice.slash(w.channel, "siege help")
    assert handle.response_message is not None
    assert "(add `show:True` to post them for the channel)" in handle.response_message.text()


async def test_a_challenged_player_is_named_on_the_table_picture(world: World) -> None:
    """Bob never clicked anything before the game his challenge opened: the picture still
    names him, not "Player 2" (issue 25, item 5)."""
    w = world
    await w.alice.slash(w.channel, "siege challenge", user=w.bob, game="castles")
    await w.fake.settle()
    (invite,) = [m for m in w.bob.dms() if "challenges you" in m.text()]
    await w.bob.click(invite, "Accept")
    await w.fake.settle()
    table = await w.table()
    (picture,) = w.table_message(table).attachments
    alt = picture.description or ""
    assert "alice" in alt and "bob" in alt and "Player 2" not in alt
