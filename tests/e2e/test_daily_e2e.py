"""The daily challenge end to end: two players of one server start today's Siege at Kurth in
their own threads, see the same first upkeep, finish, and read the day's board; a second start
the same day is practice and says so."""

from __future__ import annotations

import pytest

from tests.e2e.test_castles_e2e import refusal
from tests.e2e.world import World
from tests.fakecord import FakeMessage
from tests.fakecord.world import FakeChannel, FakeUser

pytestmark = pytest.mark.e2e


async def start_daily(
    w: World, user: FakeUser, where: FakeChannel, **options: str
) -> tuple[FakeMessage, str]:
    """``user`` starts the daily game in ``where``: the table message and the private note."""
    handle = await user.slash(where, "siege daily start", **options)
    table_message = handle.response_message
    assert table_message is not None and not handle.ephemeral
    await w.fake.settle()
    notes = handle.followups
    assert len(notes) == 1 and notes[0].ephemeral_for == user.id, "scored or practice, privately"
    return table_message, notes[0].text()


async def resign(w: World, user: FakeUser, where: FakeChannel) -> None:
    table = await w.table(where)
    handle = await user.click(w.table_message(table), "Resign")
    assert handle.response_message is not None
    await user.click(handle.response_message, "Yes, resign")
    await w.fake.settle()
    assert (await w.table_by_id(table.id)).status == "over"


def upkeep(message: FakeMessage) -> str:
    """The facts of the first upkeep as the table shows them (the city and this turn's cards),
    without what names the table or the player (footer, picture file, mention)."""
    personal = ("Table #", ".png", "<@", "sha256")
    return "\n".join(
        line for line in message.text().splitlines() if not any(p in line for p in personal)
    )


async def test_two_players_share_the_days_draws_and_a_board(world: World) -> None:
    w = world
    alice_room = w.fake.create_thread(w.channel, "alice daily", 11)
    bob_room = w.fake.create_thread(w.channel, "bob daily", 11)
    alice_table, alice_note = await start_daily(w, w.alice, alice_room)
    bob_table, bob_note = await start_daily(w, w.bob, bob_room)
    assert "**scored**" in alice_note and "**scored**" in bob_note
    assert upkeep(alice_table) == upkeep(bob_table)  # the same cards and markers for everyone
    assert "Turn **1** of 12" in upkeep(alice_table)
    first = await w.table(alice_room)
    second = await w.table(bob_room)
    assert first.seed == second.seed and first.state == second.state

    await resign(w, w.alice, alice_room)
    _, again = await start_daily(w, w.alice, alice_room)
    assert "**practice**" in again
    await resign(w, w.alice, alice_room)
    await resign(w, w.bob, bob_room)

    handle = await w.carol.slash(w.channel, "siege daily board")
    board = handle.response_message
    assert board is not None and not handle.ephemeral
    lines = [line for line in board.text().splitlines() if line.startswith("**")]
    assert len(lines) == 2  # the practice game is not on the board
    assert lines[0].startswith("**1.** alice") and lines[1].startswith("**2.** bob")
    assert "fell" in lines[0]
    harder = await w.carol.slash(w.channel, "siege daily board", difficulty="advanced")
    assert harder.response_message is not None
    assert "No scored game finished yet" in harder.response_message.text()
    bad = await w.carol.slash(w.channel, "siege daily board", day="yesterday")
    assert "2026-11-25" in refusal(bad)


async def test_a_daily_game_needs_a_free_channel(world: World) -> None:
    w = world
    await w.alice.slash(w.channel, "play castles-besieged")
    handle = await w.bob.slash(w.channel, "siege daily start")
    assert "Start a thread" in refusal(handle)


async def test_the_solo_games_board_ranks_best_scores_and_wins(world: World) -> None:
    w = world
    await start_daily(w, w.alice, w.channel)
    await resign(w, w.alice, w.channel)
    handle = await w.bob.slash(w.channel, "siege leaderboard", game="kurth")
    board = handle.response_message
    assert board is not None and not handle.ephemeral
    text = board.text()
    assert "best defenders" in text and "not rated" in text
    assert "**1.** alice — best **0**, 0 won of 1" in text  # on the normal board
    assert text.count("No finished game yet.") == 2  # easy and advanced
