"""How games end, through the fake Discord (issue 25): nobody dodges a loss. A lobby's Cancel
clicked on a started game is refused; a game is aborted only before every player has moved,
then ends by an agreed cancel offer (a computer declines); a moderator confirms a cancel, which
the table, its replay and its export record; an abandoned game without a clock is claimed after
three days (the test moves the clock); and a loss on time reads as one, not as a resignation."""

from __future__ import annotations

import json
import random

import pytest

from storage.endings import claimable_at
from tests.e2e.moves import play_move
from tests.e2e.test_castles_e2e import DEALER_BOB, dm_panel, open_game, refusal
from tests.e2e.test_clock_e2e import sweep, with_clock
from tests.e2e.test_computer_e2e import quiet
from tests.e2e.world import World
from tests.pg import raw_connect

pytestmark = pytest.mark.e2e


def draw(pile: int) -> str:
    return f"Draw ({pile} left)"


def said(w: World, words: str) -> list[str]:
    return [m.text() for m in w.fake.channel_messages(w.channel) if words in m.text()]


def stored(w: World, sql: str, params: tuple[object, ...]) -> list[tuple[object, ...]]:
    conn = raw_connect(w.database)
    try:
        return [tuple(row) for row in conn.execute(sql, params).fetchall()]
    finally:
        conn.close()


async def test_stale_lobby_cancel_and_leave_are_refused(world: World) -> None:
    w = world
    handle = await w.alice.slash(w.channel, "play castles-besieged", dealer=DEALER_BOB)
    lobby = handle.response_message
    assert lobby is not None
    await w.bob.click(lobby, "Join")
    old_copy = w.fake.latest(lobby)  # the lobby as it looked with both seats taken
    await w.alice.click(old_copy, "Start")
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running"

    # Before this fix the host's click cancelled the running game without a word.
    handle = await w.alice.click(old_copy, "Cancel")
    assert "The game has started, so the lobby's Cancel no longer applies" in refusal(handle)
    handle = await w.bob.click(old_copy, "Leave")
    assert refusal(handle) == "The game has started; use Resign to leave it."
    assert (await w.table_by_id(table.id)).status == "running"

    confirm = (await w.bob.click(w.table_message(table), "Resign")).response_message
    assert confirm is not None
    await w.bob.click(confirm, "Yes, resign")
    await w.fake.settle()
    handle = await w.alice.click(old_copy, "Cancel")
    assert refusal(handle) == "This table is closed already."
    handle = await w.bob.click(old_copy, "Leave")
    assert "nothing to leave" in refusal(handle)
    assert (await w.table_by_id(table.id)).status == "over"


async def test_abort_before_every_move_then_an_agreed_end(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    handle = await w.carol.slash(w.channel, "siege cancel")  # neither playing nor moderating
    assert "Only the players at this table, or a moderator" in refusal(handle)
    await w.alice.click(message, draw(38))  # Alice has moved, Bob has not: Bob may abort
    await w.fake.settle()
    handle = await w.bob.slash(w.channel, "siege cancel")
    assert not handle.ephemeral and "aborted table" in (handle.response_message.content or "")
    await w.fake.settle()
    aborted = await w.table_by_id(table.id)
    assert (aborted.status, aborted.ending, aborted.ended_by) == ("cancelled", "aborted", w.bob.id)
    assert "Aborted by" in w.table_message(aborted).text()
    assert "Aborted by" in dm_panel(w, w.alice, aborted).text()
    assert stored(w, "SELECT count(*) FROM results WHERE table_id = ?", (table.id,)) == [(0,)]

    table, message = await open_game(w, dealer=DEALER_BOB)
    await w.alice.click(message, draw(38))
    await w.bob.click(w.table_message(table), draw(37))
    await w.fake.settle()
    # Every player has moved: the host's cancel is an offer now, not an end (before this fix
    # it closed the game at once, unrated, whoever was losing).
    handle = await w.alice.slash(w.channel, "siege cancel")
    offer = handle.response_message
    assert offer is not None and not handle.ephemeral
    assert "offers to cancel" in offer.text() and f"<@{w.bob.id}>" in offer.text()
    assert (await w.table_by_id(table.id)).status == "running"
    handle = await w.alice.slash(w.channel, "siege cancel")
    assert "already offered" in refusal(handle)
    handle = await w.alice.click(offer, "Accept: cancel the game")
    assert refusal(handle) == "You have already answered this offer."
    await w.bob.click(offer, "Decline: play on")
    await w.fake.settle()
    assert "declined" in w.fake.latest(offer).text()
    assert (await w.table_by_id(table.id)).status == "running"

    handle = await w.bob.slash(w.channel, "siege cancel")
    offer = handle.response_message
    assert offer is not None
    await w.alice.click(offer, "Accept: cancel the game")
    await w.fake.settle()
    agreed = await w.table_by_id(table.id)
    assert (agreed.status, agreed.ending, agreed.ended_by) == ("cancelled", "agreed", w.bob.id)
    assert "Ended by agreement" in w.table_message(agreed).text()
    assert "closed by agreement" in w.fake.latest(offer).text()
    handle = await w.alice.click(offer, "Accept: cancel the game")  # the old offer
    assert "already accepted" in refusal(handle)


async def test_a_moderators_cancel_is_confirmed_announced_and_recorded(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    await w.alice.click(message, draw(38))
    await w.bob.click(w.table_message(table), draw(37))
    await w.fake.settle()
    handle = await w.mod.slash(w.channel, "siege cancel")
    confirm = handle.response_message
    assert confirm is not None and handle.ephemeral and "while it is being played" in confirm.text()
    assert (await w.table_by_id(table.id)).status == "running"  # nothing until confirmed
    await w.mod.click(confirm, "Yes, cancel the game")
    await w.fake.settle()
    closed = await w.table_by_id(table.id)
    assert (closed.status, closed.ending, closed.ended_by) == ("cancelled", "moderator", w.mod.id)
    assert said(w, "a moderator, cancelled table") and f"<@{w.mod.id}>" in said(w, "moderator")[0]
    assert f"Cancelled by a moderator, <@{w.mod.id}>" in w.table_message(closed).text()
    handle = await w.mod.click(confirm, "Yes, cancel the game")  # a second click
    assert "over already" in refusal(handle)

    # The table's replay and export keep it.
    opened = await w.alice.click(w.table_message(closed), "Replay")
    replay = opened.response_message
    assert replay is not None and opened.ephemeral
    await w.alice.click(replay, "⏭")  # to the last step
    await w.fake.settle()
    last = w.fake.latest(replay)
    assert "the end, after 2 moves" in last.text() and "Cancelled by a moderator" in last.text()
    exported = await w.alice.click(last, "Export script")
    assert exported.response_message is not None
    (attachment,) = exported.response_message.attachments
    assert json.loads(attachment.data)["dealt"]["ending"] == "moderator"


async def test_a_computer_declines_an_agreed_end(world: World) -> None:
    w = world
    lobby = await w.alice.slash(w.channel, "play castles-besieged", dealer=DEALER_BOB)
    message = lobby.response_message
    assert message is not None
    await w.alice.click(w.fake.latest(message), "Add computer: easy")
    await w.alice.click(w.fake.latest(message), "Start")
    await quiet(w)
    table = await w.table()
    await w.alice.click(w.table_message(table), draw(38))
    await quiet(w)
    table = await w.table_by_id(table.id)
    assert table.ply >= 2  # the computer has moved too
    handle = await w.alice.slash(w.channel, "siege cancel")
    text = refusal(handle)
    assert "Computer 1 (easy) declines" in text and "Resign" in text
    assert (await w.table_by_id(table.id)).status == "running"


async def test_an_abandoned_game_without_a_clock_is_claimed(world: World) -> None:
    w = world
    clock = await with_clock(w)
    table, message = await open_game(w, dealer=DEALER_BOB)
    assert table.time_control == "none"
    await w.alice.click(message, draw(38))  # now Bob is to move, and goes away
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    at = claimable_at(table)
    assert at is not None

    handle = await w.alice.slash(w.channel, "siege claim")
    text = refusal(handle)
    assert text.startswith("Not yet") and "<t:" in text and ":R>" in text
    handle = await w.bob.slash(w.channel, "siege claim")
    assert "It is your move" in refusal(handle)
    assert not [b for b in w.table_message(table).buttons() if b.label == "Claim the win"]

    clock.advance(days=2, hours=23)
    assert await sweep(w) == 0
    assert "Not yet" in refusal(await w.alice.slash(w.channel, "siege claim"))
    clock.advance(hours=1)  # three days since Bob's turn began
    assert await sweep(w) == 1
    (notice,) = said(w, "You may claim the game")
    assert f"<@{w.alice.id}>" in notice and f"<@{w.bob.id}> has not moved" in notice
    table = await w.table_by_id(table.id)
    assert [b.label for b in dm_panel(w, w.alice, table).buttons()].count("Claim the win") == 1
    assert "Claim the win" not in [b.label for b in dm_panel(w, w.bob, table).buttons()]
    await w.alice.click(w.table_message(table), "Claim the win")
    await w.fake.settle()
    over = await w.table_by_id(table.id)
    assert over.status == "over" and over.result is not None
    assert [over.seats[s] for s in over.result.winners] == [w.alice.id]
    assert (over.ending, over.ended_by) == ("claim", w.alice.id)
    assert said(w, "claimed table") and "forfeits" in said(w, "claimed table")[0]
    shown = w.table_message(over)
    assert "abandoned the game" in (shown.content or "") and "resigned" not in shown.text()
    # Rated as the forfeit it is.
    assert stored(w, "SELECT rated, ending FROM results WHERE table_id = ?", (over.id,)) == [
        (1, "claim")
    ]
    history = (await w.bob.slash(w.channel, "siege history")).response_message
    assert history is not None and "claimed: abandoned" in history.text()


async def test_a_loss_on_time_reads_as_one(world: World) -> None:
    w = world
    clock = await with_clock(w)
    handle = await w.alice.slash(
        w.channel, "play castles-besieged", dealer=DEALER_BOB, time_control="daily:1"
    )
    lobby = handle.response_message
    assert lobby is not None
    await w.bob.click(lobby, "Join")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    table = await w.table()
    for _ in range(2):  # an automatic move, then the forfeit
        clock.advance(days=1, seconds=1)
        await sweep(w)
        table = await w.table_by_id(table.id)
        if table.status == "running" and table.seats[table.running_state()["to_act"]] == w.bob.id:
            await play_move(w, table, random.Random(1))
            await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.status == "over"
    shown = w.table_message(table)
    # Before this fix: "🏳️ alice resigned; bob wins." and "Decided by: a resignation."
    assert (shown.content or "").startswith(f"⏰ <@{w.alice.id}> ran out of time and forfeited")
    assert "Decided by: a forfeit on the clock." in shown.text()
    assert "resign" not in shown.text()
    (picture,) = shown.attachments  # the picture's result banner says it too (its alt text)
    assert "ran out of time" in (picture.description or "")
    assert "resign" not in (picture.description or "")
    assert (table.ending, table.ended_by) == ("time", w.alice.id)
    for player in (w.alice, w.bob):
        (end,) = [m.text() for m in player.dms() if m.text().startswith("🏁")]
        assert "ran out of time and forfeited" in end and "resigned" not in end
    assert stored(w, "SELECT ending FROM results WHERE table_id = ?", (table.id,)) == [("time",)]
    history = (await w.bob.slash(w.channel, "siege history")).response_message
    assert history is not None and "a forfeit on time" in history.text()
