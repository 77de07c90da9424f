"""Computer seats through the fake Discord (issue 15): seated from the lobby by the host, moving
by themselves through the same transaction as a click, thinking in worker processes, unrated,
never messaged, and picking up their turn again after a restart."""

from __future__ import annotations

import random

import pytest

from storage import computers
from tests.e2e.moves import play_move, to_act
from tests.e2e.test_castles_e2e import refusal
from tests.e2e.test_kurth_e2e import open_kurth
from tests.e2e.world import World

pytestmark = pytest.mark.e2e

STEPS_MAX = 400


async def quiet(w: World) -> None:
    """Until the bot is done: the click's flow (which lets the computer move when it ends), the
    computer's thinking and moves, and what they sent."""
    await w.fake.settle()
    await w.running.computers.idle()
    await w.fake.settle()


async def open_lobby(w: World, command: str, **options: object) -> object:
    handle = await w.alice.slash(w.channel, f"play {command}", **options)
    assert handle.response_message is not None and not handle.ephemeral
    return handle.response_message


@pytest.mark.sqlite_only(
    "a whole game of thinking (30 s); the computer's storage path (its seat, its moves, a "
    "restart) runs on both in the other tests here"
)
async def test_a_game_against_the_computer_to_the_end(world: World) -> None:
    w = world
    lobby = await open_lobby(w, "castles-besieged")
    handle = await w.bob.click(w.fake.latest(lobby), "Add computer: easy")  # not the host
    assert refusal(handle) == "Only the host can seat a computer player."
    await w.alice.click(w.fake.latest(lobby), "Add computer: easy")
    await w.fake.settle()
    latest = w.fake.latest(lobby)
    assert "Computer 1 (easy)" in latest.text()
    assert all(b.disabled for b in latest.buttons() if b.label.startswith("Add computer"))
    await w.alice.click(latest, "Start")
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running" and computers.level_of(table.seats[1]) == "easy"
    rng = random.Random(7)
    computer_moves = 0
    for _ in range(STEPS_MAX):
        await quiet(w)
        table = await w.table_by_id(table.id)
        if table.status != "running":
            break
        assert to_act(table) == w.alice.id, "the computer did not take its turn"
        before = table.ply
        await play_move(w, table, rng)
        await quiet(w)
        computer_moves += (await w.table_by_id(table.id)).ply - before - 1
    assert table.status == "over", "the game did not end"
    assert computer_moves > 0
    log = await w.running.store.replay(table.id)
    assert log == table.state  # every move, the computer's too, is in the log
    results = await w.running.store.recent_results(w.guild.id, w.alice.id)
    assert results and not results[0].rated  # a game with a computer is not rated
    assert "Computer 1 (easy)" in w.public_text()
    assert "<@-" not in w.public_text()  # never a mention of the computer's seat id


async def test_several_computers_at_a_poker_table(world: World) -> None:
    w = world
    lobby = await open_lobby(w, "siege-tower-poker", start_chips=6, tower_height=3)
    await w.alice.click(w.fake.latest(lobby), "Add computer: normal")
    await w.alice.click(w.fake.latest(lobby), "Add computer: hard")
    await w.alice.click(w.fake.latest(lobby), "Add computer: easy")
    await w.alice.click(w.fake.latest(lobby), "Remove a computer")
    await w.fake.settle()
    table = await w.table()
    assert [computers.level_of(u) for u in table.seats] == [None, "normal", "hard"]
    await w.alice.click(w.fake.latest(lobby), "Start")
    await quiet(w)
    table = await w.table()
    # The computers played until it was Alice's turn (or the end).
    assert to_act(table) in (w.alice.id, None)
    names = w.public_text()
    assert "Computer 1 (normal)" in names and "Computer 2 (hard)" in names


async def test_a_computer_turn_resumes_after_a_restart(world: World) -> None:
    w = world
    store = w.running.store
    computer = computers.computer_id("normal", 1)
    table = await store.create_table(
        guild_id=w.guild.id,
        channel_id=w.channel.id,
        game="castles",
        host_id=w.alice.id,
        options={"dealer": 1},  # the second seat deals: the computer in seat 0 moves first
        seats=(computer, w.alice.id),
        start=True,
    )
    assert to_act(table) == computer
    await w.restart_bot()  # the bot finds the computer's turn waiting when it starts
    await quiet(w)
    moved = await w.table_by_id(table.id)
    assert moved.ply == 1 and to_act(moved) == w.alice.id


async def test_kurth_asks_the_computer_for_a_hint(world: World) -> None:
    w = world
    table, message = await open_kurth(w, w.alice, difficulty="easy")
    handle = await w.bob.click(message, "What would the computer do?")
    assert refusal(handle) == "You are not playing at this table."
    before = w.fake.latest(message).text()
    handle = await w.alice.click(message, "What would the computer do?")
    assert handle.ephemeral  # deferred ("thinking…") for Alice alone
    # The advice replaces the "thinking" answer once a worker process has thought (a second).
    # The click's flow waits for that process, which may first have to start: on a busy
    # machine that alone can take longer than the fake's usual 10 s wait for a flow to end.
    for _ in range(200):
        await w.fake.settle(timeout=120)
        advice = handle.response_message
        if advice is not None and advice.content:
            break
    assert advice is not None and advice.ephemeral_for == w.alice.id
    text = advice.text()
    assert text.startswith("💡 The computer would say: ")
    assert any(word in text for word in ("Move to", "Attack", "End the turn", "Cast", "Use"))
    # Advice changes nothing: the same position, the same table message.
    assert (await w.table_by_id(table.id)).ply == table.ply
    assert w.fake.latest(message).text() == before


async def test_a_computer_is_named_in_history_and_replay(world: World) -> None:
    """A finished game against a computer names it as everywhere else, never as a mention of
    its seat id (issue 25, item 3)."""
    w = world
    lobby = await open_lobby(w, "siege-1966", side="host_first")
    await w.alice.click(w.fake.latest(lobby), "Add computer: easy")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    table = await w.table()
    handle = await w.alice.click(w.table_message(table), "Resign")
    assert handle.response_message is not None
    await w.alice.click(handle.response_message, "Yes, resign")
    await w.fake.settle()
    assert (await w.table_by_id(table.id)).status == "over"
    history = (await w.alice.slash(w.channel, "siege history")).response_message
    assert history is not None
    assert "**Lost** vs 🤖 Computer 1 (easy) · 1 move · resigned" in history.text()
    replay = (await w.alice.click(history, f"Replay #{table.id}")).response_message
    assert replay is not None and "<@-" not in replay.text()
    assert "🤖 Computer 1 (easy)" in replay.text()
    # Its picture names it too, without the emoji the font cannot draw.
    assert "Castle (defender): 🤖 Computer 1 (easy)" in (replay.attachments[0].description or "")


async def test_a_computers_turn_reads_as_thinking_not_as_a_call(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nobody is told "it's your turn" when a computer is to act (issue 25, item 9)."""
    w = world
    hall = w.running.hall
    assert hall.computers is not None
    monkeypatch.setattr(hall.computers, "poke", lambda table: None)  # it does not move yet
    lobby = await open_lobby(w, "siege-1966", side="host_first")  # the computer defends: first
    await w.alice.click(w.fake.latest(lobby), "Add computer: easy")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    table = await w.table()
    assert computers.is_computer(to_act(table))
    shown = w.table_message(table).content or ""
    assert shown == "🤖 Computer 1 (easy) is thinking.", shown
    assert "your turn" not in shown


async def test_play_again_against_a_computer_starts_at_once(world: World) -> None:
    """A computer accepts a rematch at once, so a finished game against computers offers
    **Play again**, one click to the next game at the same level (issue 25, item 3)."""
    w = world
    lobby = await open_lobby(w, "siege-1966", side="host_first")
    await w.alice.click(w.fake.latest(lobby), "Add computer: hard")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    first = await w.table()
    handle = await w.alice.click(w.table_message(first), "Resign")
    assert handle.response_message is not None
    await w.alice.click(handle.response_message, "Yes, resign")
    await w.fake.settle()
    ended = w.table_message(await w.table_by_id(first.id))
    assert [b.label for b in ended.buttons()] == ["Play again"]
    await w.alice.click(ended, "Play again")
    await w.fake.settle()
    again = await w.table()
    assert again.id != first.id and again.status == "running"
    assert again.seats == first.seats  # the same computer, at the same level
    assert computers.level_of(again.seats[1]) == "hard"
    assert not any(
        "Accept" in b.label for m in w.fake.channel_messages(w.channel) for b in m.buttons()
    )
