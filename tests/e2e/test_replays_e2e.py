"""Replays you can watch (issue 25, item 7), end to end through the fake Discord: every step shows
the table picture of its position with alt text naming the players, the hands are labelled by
player ("bob's hand", never "Your hand"), a resignation is shown as the ending, not as one more
move, and a move list (a select menu, 25 moves to a page, with buttons for the pages before and
after) jumps to any move."""

from __future__ import annotations

import random

import pytest

from cogs.replays import PAGE_SIZE
from tests.e2e.test_castles_e2e import DEALER_BOB, open_game
from tests.e2e.world import World
from tests.fakecord import FakeMessage
from tests.fakecord.world import FakeUser

pytestmark = pytest.mark.e2e


def title(message: FakeMessage) -> str:
    return str(message.embeds[0].get("title") or "")


def picture_alt(message: FakeMessage) -> str:
    (attachment,) = message.attachments
    assert attachment.data.startswith(b"\x89PNG")
    assert message.embeds[0].get("image", {}).get("url") == f"attachment://{attachment.filename}"
    return attachment.description or ""


def move_list(message: FakeMessage) -> list[tuple[str, str, bool]]:
    """The move list's options: (value, label, chosen)."""
    (menu,) = [s for s in message.selects() if s.custom_id.startswith("sh:rjump:")]
    return [(o.value, o.label, bool(o.default)) for o in menu.options]


async def open_replay(w: World, user: FakeUser, tid: int) -> FakeMessage:
    history = (await user.slash(w.channel, "siege history", user=w.bob)).response_message
    assert history is not None
    opened = await user.click(history, f"Replay #{tid}")
    assert opened.ephemeral and opened.response_message is not None
    return opened.response_message


async def play_long_game(w: World, moves: int) -> int:
    """A castles game of ``moves`` legal moves (chosen at random, made through the store), then
    Bob resigns at his table button. Its table id."""
    table, _ = await open_game(w, dealer=DEALER_BOB)
    rng = random.Random(7)
    store = w.running.store
    for _ in range(moves):
        state = table.running_state()
        seat = table.engine.to_act(state)
        assert seat is not None, "the game ended before the resignation"
        legal = table.engine.legal_actions(state, seat)
        table, _ = await store.act(table.id, table.seats[seat], rng.choice(legal), table.ply)
    handle = await w.bob.click(w.table_message(table), "Resign")
    assert handle.response_message is not None
    await w.bob.click(handle.response_message, "Yes, resign")
    await w.fake.settle()
    over = await w.table_by_id(table.id)
    assert over.status == "over" and over.result is not None and over.result.reason == "resigned"
    return over.id


async def test_every_step_shows_the_table_picture_and_the_end_is_the_ending(
    world: World,
) -> None:
    w = world
    tid = await play_long_game(w, 3)
    replay = await open_replay(w, w.carol, tid)  # a spectator: the game is over
    assert title(replay) == f"Replay of table #{tid} — move 0 of 3"
    alt = picture_alt(replay)
    assert alt.startswith("Castles Besieged table.") and "alice" in alt and "bob" in alt
    text = replay.text()
    assert "alice's hand" in text and "bob's hand" in text
    assert "Your hand" not in text and "your" not in text.lower().replace("your daily", "")
    seen = {replay.attachments[0].data}
    for step in (1, 2, 3):
        await w.carol.click(replay, "▶")
        await w.fake.settle()
        replay = w.fake.latest(replay)
        assert title(replay) == f"Replay of table #{tid} — move {step} of 3"
        assert "alice" in picture_alt(replay)
        seen.add(replay.attachments[0].data)
    assert len(seen) > 1  # the picture follows the steps
    # The resignation is the ending, not a fourth move.
    await w.carol.click(replay, "▶")
    await w.fake.settle()
    end = w.fake.latest(replay)
    assert title(end) == f"Replay of table #{tid} — the end, after 3 moves"
    (result,) = [f for f in end.embeds[0]["fields"] if f["name"] == "Result"]
    assert "bob resigned" in result["value"] and "of 4" not in end.text()
    assert "Game over" in picture_alt(end)  # the final picture: the result banner
    assert [b.disabled for b in end.buttons() if b.label in ("▶", "⏭")] == [True, True]
    options = move_list(end)
    assert options[-1][0] == "4" and options[-1][1].startswith("4. The end: ")
    assert options[-1][2]  # the step shown is the one chosen


async def test_the_move_list_jumps_to_any_move_in_pages_of_25(world: World) -> None:
    w = world
    moves = PAGE_SIZE + 8
    tid = await play_long_game(w, moves)
    replay = await open_replay(w, w.alice, tid)
    first = move_list(replay)
    assert len(first) == PAGE_SIZE and first[0][:2] == ("0", "Start: the deal")
    assert [v for v, _, _ in first] == [str(k) for k in range(PAGE_SIZE)]
    assert all(len(label) <= 100 for _, label, _ in first)
    assert first[1][1].startswith("1. alice ")  # moves named by player, not by mention
    earlier, later = (b for b in replay.buttons() if "moves" in (b.label or ""))
    assert earlier.disabled and not later.disabled
    # Jump from the list.
    await w.alice.select(replay, "17", custom_id=f"sh:rjump:{tid}:0")
    await w.fake.settle()
    replay = w.fake.latest(replay)
    assert title(replay) == f"Replay of table #{tid} — move 17 of {moves}"
    assert ("17", True) in [(v, chosen) for v, _, chosen in move_list(replay)]
    # The next page: the rest of the game and its ending; the step shown stays.
    await w.alice.click(replay, "Later moves ▶")
    await w.fake.settle()
    replay = w.fake.latest(replay)
    assert title(replay) == f"Replay of table #{tid} — move 17 of {moves}"
    second = move_list(replay)
    assert [v for v, _, _ in second] == [str(k) for k in range(PAGE_SIZE, moves + 2)]
    assert second[-1][1].startswith(f"{moves + 1}. The end: ")
    earlier, later = (b for b in replay.buttons() if "moves" in (b.label or ""))
    assert not earlier.disabled and later.disabled
    await w.alice.select(replay, str(moves + 1), custom_id=f"sh:rjump:{tid}:1")
    await w.fake.settle()
    replay = w.fake.latest(replay)
    assert title(replay) == f"Replay of table #{tid} — the end, after {moves} moves"
    # A forged value is refused with a sentence and changes nothing.
    handle = await w.alice.select(replay, "x", custom_id=f"sh:rjump:{tid}:1", forged=True)
    assert handle.ephemeral and "out of date" in str(handle.response_message.content)
