"""A game added by its own files alone (issue 24): Siege Sticks, a test-only game of a few dozen
lines (``tests/toy``), registered by this module and played through the fake Discord from
``/play`` to the end, then found in ``/siege history`` and replayed. Nothing outside
``tests/toy`` names it: its command, options, lobby, table, buttons, result, history and
replay all come from its declaration and its renderer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cogs.guide import help_embed
from tests.e2e.test_castles_e2e import refusal
from tests.e2e.world import World
from tests.fakecord import SchemaMismatch
from tests.toy import registered

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def sticks() -> Iterator[None]:
    with registered():  # before the world's bot starts and builds its commands
        yield


async def test_a_registered_game_plays_from_play_to_replay(world: World) -> None:
    w = world
    command = w.guild.commands.chat_input("play")
    assert command is not None
    (sub,) = [o for o in command["options"] if o["name"] == "siege-sticks"]
    assert sub["description"] == "Siege Sticks: two players: take the last stone, take the gate"
    stones = {o["name"]: o for o in sub["options"]}["stones"]
    assert (stones["min_value"], stones["max_value"]) == (3, 30)
    assert "`/play siege-sticks`" in str(help_embed().description)

    with pytest.raises(SchemaMismatch):  # Discord itself refuses a number out of range
        await w.alice.slash(w.channel, "play siege-sticks", stones=31)
    handle = await w.alice.slash(w.channel, "play siege-sticks", stones=5)
    lobby = handle.response_message
    assert lobby is not None and not handle.ephemeral
    assert "Siege Sticks — a table is open" in lobby.text()
    assert "Stones: **5** (3–30)" in lobby.text()
    await w.bob.click(w.fake.latest(lobby), "Join")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    table = await w.table()
    assert table.game == "sticks" and table.status == "running"

    # Alice takes 1 (4 left), Bob 3 (1 left), Alice the last: she storms the gate.
    message = w.fake.latest(lobby)
    for user, label in ((w.alice, "Take 1"), (w.bob, "Take 3")):
        await user.click(message, label)
        await w.fake.settle()
        message = w.fake.latest(message)
    assert "**1** stones before the gate" in message.text()
    assert f"<@{w.bob.id}> took 3; 1 left." in message.text()
    wrong = await w.bob.click(message, "Take 1")
    assert refusal(wrong) == "It is not your turn."
    await w.alice.click(message, "Take 1")
    await w.fake.settle()
    final = w.fake.latest(message)
    assert f"🏰 <@{w.alice.id}> took the gate." in final.text()
    finished = await w.table_by_id(table.id)
    assert finished.status == "over"

    handle = await w.bob.slash(w.channel, "siege history")
    history = handle.response_message
    assert history is not None
    assert "**Lost** vs alice" in history.text() and "Siege Sticks" in history.text()
    opened = await w.bob.click(history, f"Replay #{table.id}")
    replay = opened.response_message
    assert replay is not None and opened.ephemeral
    assert f"Replay of table #{table.id} — move 0 of 3" in replay.text()
    assert "**5** stones before the gate" in replay.text()
    await w.bob.click(replay, "⏭")
    await w.fake.settle()
    last = w.fake.latest(replay)
    assert "the end, after 3 moves" in last.text() and "**0** stones before the gate" in last.text()
