"""Siege (1966, ``knights``) end to end: the real bot, through the fake Discord, by clicks only.

A whole game is played to a real result with a simple seeded policy (captures first, the
Commander above all) by selects in the players' DM panels, one move from the ephemeral panel;
after every action the table message must carry exactly one board PNG, named for the ply and
shown as the embed's image, with the text board and the last move's notation in the embed.
"""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from PIL import Image

from engine.knights import PIECE_NAMES
from presentation.knights_board import text_board
from storage import TableRecord
from tests.e2e.test_castles_e2e import dm_panel, refusal
from tests.e2e.world import World
from tests.fakecord import FakeMessage
from tests.fakecord.world import FakeUser

pytestmark = pytest.mark.e2e

POLICY_SEED = 2  # a game of about twenty actions with captures by both sides
DECISIVE = {"commander_captured", "knights_eliminated"}
TAKEN = {"N": "a Knight", "D": "a Defender", "C": "the Commander"}


async def open_knights(w: World, side: str) -> tuple[TableRecord, FakeMessage, FakeMessage]:
    """Alice opens a Siege table choosing ``side``, Bob joins, Alice starts: the running table,
    its message and the last lobby snapshot."""
    handle = await w.alice.slash(w.channel, "play siege-1966", side=side)
    lobby = handle.response_message
    assert lobby is not None and not handle.ephemeral
    await w.bob.click(lobby, "Join")
    lobby = w.fake.latest(lobby)
    await w.alice.click(lobby, "Start")
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running"
    return table, w.table_message(table), lobby


def player(w: World, table: TableRecord, seat: int) -> FakeUser:
    return {w.alice.id: w.alice, w.bob.id: w.bob}[table.seats[seat]]


def choose(state: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> int:
    """The policy: take the Commander if possible, else any capture, else anything."""
    pieces = state["pieces"]
    captures = [i for i, a in enumerate(legal) if a["type"] == "move" and a["to"] in pieces]
    commander = [i for i in captures if pieces[legal[i]["to"]] == "C"]
    return rng.choice(commander or captures or list(range(len(legal))))


def destination_label(state: dict[str, Any], action: dict[str, Any]) -> str:
    taken = state["pieces"].get(action["to"])
    return f"{action['to']} ✕ captures {TAKEN[taken]}" if taken else str(action["to"])


def check_table(w: World, table: TableRecord, seen: set[str]) -> None:
    """The table message after an action: one fresh PNG as the embed image, the text board and
    the last move in the embed, and the right person called to act."""
    message = w.table_message(table)
    assert len(message.attachments) == 1, message.attachments
    picture = message.attachments[0]
    assert picture.filename == f"knights-{table.id}-{table.ply}.png"
    assert picture.filename not in seen, "the picture must change with every action"
    seen.add(picture.filename)
    image = Image.open(io.BytesIO(picture.data))
    image.load()
    assert image.format == "PNG" and image.width > 400
    assert len(message.embeds) == 1
    embed = message.embeds[0]
    assert embed["image"]["url"] == f"attachment://{picture.filename}"
    game = table.engine
    state = table.running_state()
    assert text_board(game.view(state, None)) in embed["description"]
    last = state["last_move"]
    text = message.text()
    if last is None:
        assert table.ply == 0 and "places the Commander on a crown: d6 or e6" in text
    elif last["type"] == "moved":
        assert f"**{last['notation']}**" in text  # in the recent moves
        assert f"Last move: {last['notation']}" in embed["description"]
    else:
        assert f"placed the Commander on **{last['square']}**" in text
    assert f"turn {table.ply + (table.status != 'over')} ·" in text
    to_act = game.to_act(state)
    if to_act is not None:
        assert message.content == f"<@{table.seats[to_act]}>, it's your turn."
        labels = [b.label for b in message.buttons()]
        assert labels[-2:] == ["My moves", "Resign"] and "My hand" not in labels


async def move_in_panel(
    w: World,
    user: FakeUser,
    panel: FakeMessage,
    state: dict[str, Any],
    legal: list[dict[str, Any]],
    action: dict[str, Any],
) -> tuple[FakeMessage, FakeMessage]:
    """Play a move by its two selects on a panel: the piece, then the destination. Returns the
    panel as it was at each step (for stale checks)."""
    pieces = state["pieces"]
    movable = sorted({a["from"] for a in legal if a["type"] == "move"})
    (first,) = panel.selects()
    assert [o.value for o in first.options] == movable  # only pieces with a legal move
    piece = f"{PIECE_NAMES[pieces[action['from']]]} on {action['from']}"
    await user.select(panel, piece)
    second = w.fake.latest(panel)
    (menu,) = second.selects()
    wanted = [str(i) for i, a in enumerate(legal) if a.get("from") == action["from"]]
    assert [o.value for o in menu.options] == wanted  # only its legal destinations
    assert any(b.label == "Back to the pieces" for b in second.buttons())
    await user.select(second, destination_label(state, action))
    return panel, second


async def test_a_full_game_to_a_result_by_selects(world: World) -> None:
    w = world
    table, message, lobby = await open_knights(w, "host_second")
    # The lobby said which side the host plays; the defender (seat 2) is the host, Alice.
    assert "The host plays **the defending castle**" in lobby.text()
    assert table.seats == (w.bob.id, w.alice.id)
    assert message.content == f"<@{w.alice.id}>, it's your turn."
    assert "You play **the defending castle**." in dm_panel(w, w.alice, table).text()
    assert "You play **the attacking Knights**." in dm_panel(w, w.bob, table).text()
    seen: set[str] = set()
    check_table(w, table, seen)

    rng = random.Random(POLICY_SEED)
    used_ephemeral = False
    stale: tuple[int, FakeMessage, FakeMessage] | None = None
    stale_refused = False
    for _ in range(120):
        table = await w.table_by_id(table.id)
        if table.status == "over":
            break
        game = table.engine
        state = table.running_state()
        seat = game.to_act(state)
        assert seat is not None
        user = player(w, table, seat)
        legal = game.legal_actions(state, seat)
        action = legal[choose(state, legal, rng)]
        panel = dm_panel(w, user, table)
        if action["type"] == "place_commander":
            # The defender's placement: a button in her panel.
            await user.click(panel, f"Place the Commander on {action['square']}")
        elif not used_ephemeral and user is w.bob:
            # One move from the table's ephemeral panel.
            opened = await user.click(w.table_message(table), "My moves")
            ephemeral = opened.response_message
            assert ephemeral is not None and ephemeral.ephemeral_for == user.id
            await move_in_panel(w, user, ephemeral, state, legal, action)
            used_ephemeral = True
        elif stale is None and user is w.alice:
            # One of Alice's moves from an ephemeral panel, kept to be clicked again once stale
            # (her DM panel is replaced by a fresh message when her turn comes back).
            opened = await user.click(w.table_message(table), "My moves")
            ephemeral = opened.response_message
            assert ephemeral is not None and ephemeral.ephemeral_for == user.id
            steps = await move_in_panel(w, user, ephemeral, state, legal, action)
            stale = (table.ply, *steps)
        else:
            await move_in_panel(w, user, panel, state, legal, action)
        await w.fake.settle()
        table = await w.table_by_id(table.id)
        check_table(w, table, seen)
        if stale is not None and table.ply == stale[0] + 2:
            # Alice's panels from before Bob's reply are refused politely, and change nothing.
            _, pieces_panel, destinations_panel = stale
            old_move = destinations_panel.selects()[0].options[0].value
            handle = await w.alice.select(destinations_panel, old_move)
            assert refusal(handle) == "That button is out of date: the game has moved on."
            old_piece = pieces_panel.selects()[0].options[0].value
            handle = await w.alice.select(pieces_panel, old_piece)
            assert refusal(handle) == "That menu is out of date: the game has moved on."
            assert (await w.table_by_id(table.id)).ply == table.ply
            stale_refused = True

    assert used_ephemeral and stale_refused
    assert table.status == "over" and table.result is not None
    assert table.result.reason in DECISIVE
    state = table.running_state()
    assert state["captured"]["knights"] + state["captured"]["defenders"] > 0
    final = w.table_message(table)
    if table.result.reason == "knights_eliminated":
        assert "castle holds: all four Knights were captured" in final.content
    else:
        assert "Knights captured the Commander" in final.content
    assert [b.label for b in final.buttons()] == ["Rematch"]
    for user in (w.alice, w.bob):
        panel = dm_panel(w, user, table)
        assert "Game over" in panel.text() and panel.selects() == []


async def test_random_side_and_placement_from_the_table(world: World) -> None:
    w = world
    table, message, lobby = await open_knights(w, "random")
    assert "Drawn at random when the game starts." in lobby.text()
    assert set(table.seats) == {w.alice.id, w.bob.id}
    attacker, defender = player(w, table, 0), player(w, table, 1)
    assert message.content == f"<@{defender.id}>, it's your turn."
    assert "You play **the defending castle**." in dm_panel(w, defender, table).text()
    assert "You play **the attacking Knights**." in dm_panel(w, attacker, table).text()
    seen: set[str] = set()
    check_table(w, table, seen)
    # The placement is public, so the table offers it too; only the defender may take it.
    handle = await attacker.click(message, "Place the Commander on e6")
    assert refusal(handle) == "It is not your turn."
    await defender.click(message, "Place the Commander on e6")
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.running_state()["pieces"]["e6"] == "C"
    check_table(w, table, seen)
    # The attacker's panel now lists the four Knights; the defender's has nothing to choose.
    assert [o.label for o in dm_panel(w, attacker, table).selects()[0].options] == [
        "Knight on b0",
        "Knight on d0",
        "Knight on e0",
        "Knight on g0",
    ]
    assert dm_panel(w, defender, table).selects() == []
    # Back from a chosen piece shows the pieces again.
    panel = dm_panel(w, attacker, table)
    await attacker.select(panel, "Knight on g0")
    chosen = w.fake.latest(panel)
    assert [o.label for o in chosen.selects()[0].options] == ["e1", "f2", "h2"]
    await attacker.click(chosen, "Back to the pieces")
    assert w.fake.latest(panel).selects()[0].placeholder == "Choose a piece to move…"
