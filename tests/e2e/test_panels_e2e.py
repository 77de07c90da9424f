"""Panels that tell the story (issue 14), end to end for every game: after an opponent's move, the
player's panel opens with what happened since their last turn; a card just drawn is marked; the
Siege (1966) panel shows the board turned to the mover with the chosen piece's destinations
ringed; every picture carries alt text that reads the position. Played by clicks and selects only,
through the fake Discord."""

from __future__ import annotations

import re
from typing import Any

import pytest

from engine import cards
from engine.knights import CROWNS, PIECE_NAMES, destinations
from presentation import get_renderer
from storage import TableRecord
from tests.e2e.test_castles_e2e import DEALER_BOB, dm_panel, lay_label
from tests.e2e.test_castles_e2e import open_game as open_castles
from tests.e2e.test_king_e2e import open_game as open_king
from tests.e2e.test_knights_e2e import destination_label, open_knights
from tests.e2e.test_kurth_e2e import open_kurth
from tests.e2e.test_towers_e2e import open_game as open_towers
from tests.e2e.world import World
from tests.fakecord import FakeMessage
from tests.fakecord.world import FakeUser

pytestmark = pytest.mark.e2e

SINCE = "**Since your last turn**\n"


def description(message: FakeMessage) -> str:
    assert message.embeds, f"{message!r} has no embed"
    return str(message.embeds[0].get("description") or "")


def since_lines(message: FakeMessage) -> list[str]:
    """The quoted lines the panel opens with ([] when it opens with something else)."""
    text = description(message)
    if not text.startswith(SINCE):
        return []
    lines = []
    for line in text[len(SINCE) :].split("\n"):
        if not line.startswith("> "):
            break
        lines.append(line[2:])
    return lines


async def expected_since(w: World, table: TableRecord, seat: int) -> list[str]:
    """The event lines of the actions after ``seat``'s last one, as the table words them."""
    records = await w.running.store.actions(table.id)
    mine = [i for i, r in enumerate(records) if r.seat == seat]
    after = records[mine[-1] + 1 :] if mine else records
    renderer = get_renderer(table.game)
    names = [f"<@{uid}>" for uid in table.seats]
    return [line for r in after for e in r.events if (line := renderer.event_line(e, names))]


def user_of(w: World, table: TableRecord, seat: int) -> FakeUser:
    users = {u.id: u for u in (w.alice, w.bob, w.carol, w.mod)}
    return users[table.seats[seat]]


def alt_texts(message: FakeMessage) -> list[str]:
    return [a.description or "" for a in message.attachments]


# -- Castles Besieged ------------------------------------------------------------------------


async def test_castles_panel_tells_the_opponents_moves_and_marks_the_new_card(
    world: World,
) -> None:
    w = world
    table, _ = await open_castles(w, dealer=DEALER_BOB)  # Alice (seat 1) moves first
    assert since_lines(dm_panel(w, w.alice, table)) == []  # nothing has happened yet
    # Alice lays her highest card from her DM panel.
    hand = table.running_state()["hands"][0]
    card = max(hand, key=cards.value)
    await w.alice.select(dm_panel(w, w.alice, table), lay_label(hand, card))
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    # The menu offers one entry per value: with two cards of that value, either may be laid.
    (laid_event,) = [e for e in (await w.running.store.actions(table.id))[-1].events]
    assert cards.value(laid_event["card"]) == cards.value(card)
    card = laid_event["card"]
    bob_panel = dm_panel(w, w.bob, table)
    laid = f"<@{w.alice.id}> laid **{cards.pretty(card)}**"
    assert since_lines(bob_panel)[0].startswith(laid), description(bob_panel)
    assert "Battle lines — left you" in bob_panel.text() and cards.pretty(card) in bob_panel.text()
    # The table picture says it in words too, naming the players as it draws them (issue 25).
    (alt,) = alt_texts(w.table_message(table))
    assert alt.startswith("Castles Besieged table.")
    assert f"Last move: alice laid {cards.pretty(card)} at position 1." in alt
    assert "Player 1" not in alt and "<@" not in alt
    assert f"1: {cards.pretty(card)} against castle" in alt
    # Bob draws; Alice's panel opens with that, then she attacks Bob's castle with her card.
    pile = len(table.running_state()["pile"])
    await w.bob.click(bob_panel, f"Draw ({pile} left)")
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    alice_panel = dm_panel(w, w.alice, table)
    assert since_lines(alice_panel) == [f"<@{w.bob.id}> drew a card ({pile - 1} left in the pile)."]
    attack = next(b.label for b in alice_panel.buttons() if b.label.startswith("Attack"))
    await w.alice.click(alice_panel, attack)
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    (line,) = since_lines(dm_panel(w, w.bob, table))
    assert re.fullmatch(
        rf"<@{w.alice.id}>'s \*\*.+\*\* attacked <@{w.bob.id}>'s castle: needed 7\+, "
        r"rolled \d \+ \d = \d+ — (a hit \(1/10\)!|missed\.)",
        line,
    ), line
    assert line == (await expected_since(w, table, 1))[0]
    # Bob draws again: the card he drew is marked as new in his panel when his turn comes back.
    state = table.running_state()
    drawn = state["pile"][0]
    await w.bob.click(dm_panel(w, w.bob, table), f"Draw ({len(state['pile'])} left)")
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    await w.alice.click(dm_panel(w, w.alice, table), f"Draw ({len(state['pile']) - 1} left)")
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    text = description(dm_panel(w, w.bob, table))
    marked = [line for line in text.split("\n") if "🆕" in line]
    assert marked == [f"**{cards.pretty(drawn)}** {_flavour(drawn)} 🆕 *just drawn*"], text
    assert since_lines(dm_panel(w, w.bob, table)) == [
        f"<@{w.alice.id}> drew a card ({len(state['pile']) - 2} left in the pile)."
    ]


def _flavour(card: str) -> str:
    from engine.castles import FLAVOUR

    return FLAVOUR[cards.value(card)]


# -- Siege the King --------------------------------------------------------------------------


async def test_king_panel_tells_the_opponents_play(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    # A seed whose game lasts past three told turns (an early Assassin can end one at once).
    table = await open_king(w, monkeypatch, seed=1)
    checked = 0
    told_a_play = False
    for _ in range(12):
        table = await w.table_by_id(table.id)
        state = table.running_state()
        seat = table.engine.to_act(state)
        if seat is None:
            break
        user = user_of(w, table, seat)
        panel = dm_panel(w, user, table)
        legal = table.engine.legal_actions(state, seat)
        wanted = await expected_since(w, table, seat) if state["phase"] == "play" else []
        if wanted and checked < 3:
            # The panel of the seat to act opens with the opponent's last turn, as the table
            # words it. (A first play that follows the other seat's hidden arrangement has
            # nothing to tell: who plays first is dealt.)
            assert since_lines(panel)[-len(wanted[-3:]) :] == wanted[-3:]
            told_a_play |= any(
                re.match(rf"<@{table.seats[1 - seat]}> (played|discarded) ", line)
                for line in since_lines(panel)
            )
            checked += 1
        # Defenders first: a long game has more turns to tell.
        index = next((i for i, a in enumerate(legal) if a.get("card", "").startswith("D")), 0)
        action = legal[index]
        if action["type"] == "arrange":
            await user.click(panel, "King on the left")
        elif action["type"] == "play":
            card = action["card"]
            stage = next(o.label for s in panel.selects() for o in s.options if o.value == card)
            await user.select(panel, stage)
            narrowed = w.fake.latest(panel)
            custom_id = f"sh:act:{table.id}:{table.ply}:{index}"
            if any(b.custom_id == custom_id for b in narrowed.buttons()):
                await user.click(narrowed, custom_id=custom_id)
            else:
                await user.select(narrowed, str(index))
        else:
            await user.click(panel, custom_id=f"sh:act:{table.id}:{table.ply}:{index}")
        await w.fake.settle()
    assert checked == 3 and told_a_play
    table = await w.table_by_id(table.id)
    (alt,) = alt_texts(w.table_message(table))
    assert alt.startswith("Siege the King table, turn ")
    assert "alice (" in alt and "bob (" in alt and "Last move: " in alt
    assert "Player 1" not in alt and "<@" not in alt


# -- Siege (1966) ----------------------------------------------------------------------------


async def test_knights_panel_shows_the_board_turned_to_the_mover_and_the_opponents_move(
    world: World,
) -> None:
    w = world
    table, _, _ = await open_knights(w, "host_second")  # Alice defends (seat 2)
    alice = dm_panel(w, w.alice, table)
    (alt,) = alt_texts(alice)
    assert alt.startswith("Siege (1966) board seen from the castle's (defender's) end.")
    (bob_alt,) = alt_texts(dm_panel(w, w.bob, table))
    assert bob_alt.startswith("Siege (1966) board seen from the attacker's end.")
    square = CROWNS[0]
    await w.alice.click(alice, f"Place the Commander on {square}")
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    bob = dm_panel(w, w.bob, table)
    assert since_lines(bob) == [f"<@{w.alice.id}> placed the Commander on **{square}**."]
    # Bob picks a piece: the picture rings its legal destinations, and says so in words.
    state = table.running_state()
    legal = table.engine.legal_actions(state, 0)
    action = next(a for a in legal if a["type"] == "move")
    before = bob.attachments[0].data
    piece = f"{PIECE_NAMES[state['pieces'][action['from']]]} on {action['from']}"
    await w.bob.select(bob, piece)
    staged = w.fake.latest(bob)
    (staged_alt,) = alt_texts(staged)
    targets = [t["to"] for t in destinations(state["pieces"], legal, action["from"])]
    assert f"where the {piece} can go: {', '.join(targets)}." in staged_alt
    assert "a dot on an empty square, a ring round a piece it can take" in staged_alt
    assert staged.attachments[0].data != before  # the destinations are drawn
    await w.bob.select(staged, destination_label(state, action))
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    notation = table.running_state()["last_move"]["notation"]
    alice = dm_panel(w, w.alice, table)
    assert since_lines(alice) == [f"<@{w.bob.id}> played **{notation}**."]
    (alt,) = alt_texts(alice)
    assert f"Last move: {notation}" in alt


# -- Siege (tower poker) -------------------------------------------------------------------------


async def test_towers_panel_tells_what_the_other_seats_did(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    players = [w.alice, w.bob, w.carol, w.mod]
    table = await open_towers(w, monkeypatch, 3, players)
    acted: set[int] = set()
    checked = 0
    for _ in range(10):
        table = await w.table_by_id(table.id)
        if table.status != "running":
            break
        state = table.running_state()
        seat = table.engine.to_act(state)
        assert seat is not None
        user = user_of(w, table, seat)
        if seat in acted:
            # Others have acted since this seat's last turn: its panel opens with them.
            panel = dm_panel(w, user, table)
            wanted = await expected_since(w, table, seat)
            shown = since_lines(panel)
            assert shown and shown[-1] == wanted[-1], (shown, wanted)
            checked += 1
        legal = table.engine.legal_actions(state, seat)
        kinds = [a["type"] for a in legal]
        pick = next((kinds.index(k) for k in ("check", "call", "decline_flip") if k in kinds), 0)
        await user.click(w.table_message(table), custom_id=f"sh:act:{table.id}:{table.ply}:{pick}")
        acted.add(seat)
        await w.fake.settle()
    assert checked >= 2
    (alt,) = alt_texts(w.table_message(await w.table_by_id(table.id)))
    assert alt.startswith("Tower poker table") and "alice: " in alt and "chips" in alt
    assert "Seat 1" not in alt and "<@" not in alt


# -- Siege at Kurth (solo) -------------------------------------------------------------------


async def test_kurth_panel_tells_the_citys_upkeep_after_a_turn(world: World) -> None:
    w = world
    table, message = await open_kurth(w, w.alice)
    (alt,) = alt_texts(message)
    assert alt.startswith("The city of Kurth, round 1 of 3, turn 1 of 12.")
    for _ in range(30):
        table = await w.table_by_id(table.id)
        state = table.running_state()
        legal = table.engine.legal_actions(state, 0)
        # Move while the turn allows it (a move ends the phase), then end the turn.
        kinds = [a["type"] for a in legal]
        index = next((kinds.index(k) for k in ("end_turn", "attack", "move") if k in kinds), 0)
        custom_id = f"sh:act:{table.id}:{table.ply}:{index}"
        await w.alice.click(w.table_message(table), custom_id=custom_id)
        await w.fake.settle()
        if legal[index]["type"] == "end_turn":
            break
    table = await w.table_by_id(table.id)
    opened = await w.alice.click(w.table_message(table), "My cards")
    panel = opened.response_message
    assert panel is not None and opened.ephemeral
    lines = since_lines(panel)
    wanted = await _last_record_lines(w, table)
    assert lines and lines[-1] == wanted[-1]
    assert any("upkeep" in line for line in lines), lines


async def _last_record_lines(w: World, table: TableRecord) -> list[str]:
    (record,) = await w.running.store.recent_actions(table.id, 1)
    renderer = get_renderer(table.game)
    names: list[Any] = [f"<@{uid}>" for uid in table.seats]
    return [line for e in record.events if (line := renderer.event_line(e, names))]
