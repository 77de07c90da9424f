"""Siege at Kurth (``kurth``) end to end: the real bot, through the fake Discord, by clicks only.

The solo game starts at once from ``/play game:kurth``; the whole turn is played from
buttons (and the Ward of Stone menu) on the table message, which after every action carries one
fresh city PNG as its embed image and the same facts in text. The outcome of each attack is on
the table before the turn is ended; the end shows the result, the score and what decided it.
"""

from __future__ import annotations

import io
import random
from typing import Any

import pytest
from PIL import Image

from engine.kurth import LOCATION_NAMES, LOCATIONS
from presentation.kurth_board import image_size
from storage import TableRecord
from tests.e2e.test_castles_e2e import dm_panel, refusal
from tests.e2e.world import World
from tests.fakecord import FakeMessage, SchemaMismatch
from tests.fakecord.world import FakeUser

pytestmark = pytest.mark.e2e

POLICY_SEED = 9


async def open_kurth(w: World, user: FakeUser, **options: str) -> tuple[TableRecord, FakeMessage]:
    """``user`` starts a solo game: the running table and its message (no lobby)."""
    handle = await user.slash(w.channel, "play siege-at-kurth", **options)
    message = handle.response_message
    assert message is not None and not handle.ephemeral
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running" and table.seats == (user.id,) and table.ply == 0
    assert message.id == table.message_id
    return table, w.table_message(table)


def act_indexes(message: FakeMessage, table: TableRecord) -> list[int]:
    """The legal-list indexes the table message offers (buttons and menu options)."""
    prefix = f"sh:act:{table.id}:{table.ply}:"
    found = [
        int(b.custom_id[len(prefix) :])
        for b in message.buttons()
        if b.custom_id and b.custom_id.startswith(prefix)
    ]
    for select in message.selects():
        assert select.custom_id.startswith(f"sh:pick:{table.id}:{table.ply}:")
        found += [int(o.value) for o in select.options]
    return found


def check_table(w: World, table: TableRecord, seen: set[str]) -> FakeMessage:
    """The table after an action: one fresh PNG as the embed image, the facts in text, and
    exactly one control per legal action."""
    message = w.table_message(table)
    assert len(message.attachments) == 1, message.attachments
    picture = message.attachments[0]
    assert picture.filename == f"kurth-{table.id}-{table.ply}.png"
    assert picture.filename not in seen, "the picture must change with every action"
    seen.add(picture.filename)
    image = Image.open(io.BytesIO(picture.data))
    image.load()
    assert image.format == "PNG" and image.size == image_size()
    (embed,) = message.embeds
    assert embed["image"]["url"] == f"attachment://{picture.filename}"
    state = table.running_state()
    summary = table.engine.summary(state)
    text = message.text()
    assert f"turn {summary['turn']} ·" in text
    assert f"Turn **{summary['turn']}** of 12" in text
    assert f"Spirit **{summary['spirit']}**/12" in text and f"Mana **{summary['mana']}**/15" in text
    for key in LOCATIONS:
        assert f"{LOCATION_NAMES[key]}: {summary['markers'][key]} marker" in text
    for code in summary["cards"]:
        assert f"({code})" in text
    if table.status == "running":
        assert message.content == f"<@{table.seats[0]}>, it's your turn."
        legal = table.engine.legal_actions(state, 0)
        assert sorted(act_indexes(message, table)) == list(range(len(legal)))
        labels = [b.label for b in message.buttons()]
        assert labels[-3:] == ["My cards", "What would the computer do?", "Resign"]
    return message


def choose(summary: dict[str, Any], legal: list[dict[str, Any]], rng: random.Random) -> int:
    """A simple defender: attack when owed (with a spell now and then), go where the markers
    are, protect the fullest location sometimes, re-roll a lost attack, end the turn."""
    by_type: dict[str, list[int]] = {}
    for i, action in enumerate(legal):
        kind = action["type"] if action["type"] != "cast" else action["spell"]
        by_type.setdefault(kind, []).append(i)
    markers = summary["markers"]
    roll = summary["roll"]
    if "fates_favor" in by_type and roll is not None and not roll["won"]:
        return by_type["fates_favor"][rng.randrange(2)]
    for spell in ("thunderclap", "flame_lance", "banish"):
        if spell in by_type and rng.random() < 0.5:
            return by_type[spell][0]
    if "ward_of_stone" in by_type and rng.random() < 0.3:
        return max(by_type["ward_of_stone"], key=lambda i: markers[legal[i]["location"]])
    if "special" in by_type and rng.random() < 0.2:
        return rng.choice(by_type["special"])
    if "attack" in by_type:
        return by_type["attack"][0]
    if "move" in by_type:
        return max(by_type["move"], key=lambda i: (markers[legal[i]["to"]], rng.random()))
    return by_type["end_turn"][0]


async def take(
    w: World, user: FakeUser, message: FakeMessage, table: TableRecord, index: int
) -> None:
    """Take legal action ``index`` from ``message``: its button, or its option in the menu."""
    custom_id = f"sh:act:{table.id}:{table.ply}:{index}"
    if any(b.custom_id == custom_id for b in message.buttons()):
        await user.click(message, custom_id=custom_id)
    else:
        await user.select(message, str(index))


async def test_a_full_solo_game_to_the_end_by_clicks(world: World) -> None:
    w = world
    table, message = await open_kurth(w, w.alice, difficulty="easy")
    assert table.options["difficulty"] == "easy"
    assert "Siege at Kurth — Easy" in message.text()
    assert "My cards" in [b.label for b in message.buttons()]
    # No lobby: no Join or Start anywhere; the DM panel shows the three cards in full.
    assert not {"Join", "Start"} & {b.label for b in message.buttons()}
    panel = dm_panel(w, w.alice, table)
    for code in table.running_state()["cards"]:
        assert f"({code})" in panel.text()
    seen: set[str] = set()
    check_table(w, table, seen)
    rng = random.Random(POLICY_SEED)
    attacks_seen = 0
    from_panel = False
    for _ in range(400):
        table = await w.table_by_id(table.id)
        if table.status == "over":
            break
        state = table.running_state()
        summary = table.engine.summary(state)
        legal = table.engine.legal_actions(state, 0)
        index = choose(summary, legal, rng)
        action = legal[index]
        if action["type"] == "end_turn" and summary["roll"] is not None:
            # The turn's outcome is written out before the next upkeep.
            roll = summary["roll"]
            text = w.table_message(table).text()
            assert f"= **{roll['total']}** against strength {roll['strength']}" in text
            assert ("— won" in text) if roll["won"] else ("spirit lost" in text)
            attacks_seen += 1
        if not from_panel and summary["turn"] == 2:
            # One action from the DM panel, which offers the same choices.
            source = dm_panel(w, w.alice, table)
            from_panel = True
        else:
            source = w.table_message(table)
        await take(w, w.alice, source, table, index)
        await w.fake.settle()
        table = await w.table_by_id(table.id)
        assert table.ply == len(seen), "every click must count"
        check_table(w, table, seen)
    assert table.status == "over" and table.result is not None
    assert from_panel and attacks_seen > 0
    final = w.table_message(table)
    text = final.text()
    result = table.result
    assert "What decided it" in text and "Score" in text
    if result.winners:
        assert result.reason == "relieved" and result.scores is not None
        assert f"the city is relieved! Score **{result.scores[0]}**" in final.content
    else:
        assert "Kurth has fallen" in final.content and "Score 0" in text
    assert [b.label for b in final.buttons()] == ["Rematch"]
    panel = dm_panel(w, w.alice, table)
    assert "Game over" in panel.text() and panel.selects() == []
    # Rematch: a new solo game at once, on the same difficulty.
    await w.alice.click(final, "Rematch")
    await w.fake.settle()
    again = await w.table()
    assert again.id != table.id and again.status == "running" and again.seats == (w.alice.id,)
    assert again.options["difficulty"] == "easy"


async def test_a_restart_in_the_middle_of_a_turn(world: World) -> None:
    w = world
    table, message = await open_kurth(w, w.alice)
    assert table.options["difficulty"] == "normal"
    legal = table.engine.legal_actions(table.running_state(), 0)
    moves = [i for i, a in enumerate(legal) if a["type"] == "move"]
    await take(w, w.alice, message, table, moves[-1])
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.ply == 1
    before = w.table_message(table)
    await w.restart_bot()
    # The buttons of the message sent before the restart still work.
    state = table.running_state()
    legal = table.engine.legal_actions(state, 0)
    compulsory = next(i for i, a in enumerate(legal) if a["type"] in ("attack", "end_turn"))
    await take(w, w.alice, before, table, compulsory)
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.ply == 2
    seen: set[str] = set()
    check_table(w, table, seen)
    # And so do the DM panel's, after a second restart.
    await w.restart_bot()
    state = table.running_state()
    legal = table.engine.legal_actions(state, 0)
    step = next(i for i, a in enumerate(legal) if a["type"] in ("attack", "end_turn", "move"))
    await take(w, w.alice, dm_panel(w, w.alice, table), table, step)
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.ply == 3
    check_table(w, table, seen)


async def test_refusals(world: World) -> None:
    w = world
    with pytest.raises(SchemaMismatch):  # another game's option is not even offered
        await w.alice.slash(w.channel, "play castles-besieged", difficulty="easy")
    with pytest.raises(SchemaMismatch):
        await w.alice.slash(w.channel, "play siege-at-kurth", dealer="random")
    table, message = await open_kurth(w, w.alice, difficulty="advanced")
    assert "Advanced" in message.text()
    handle = await w.bob.slash(w.channel, "play siege-at-kurth")
    assert refusal(handle).startswith("This channel already has an open Siege at Kurth table")
    legal = table.engine.legal_actions(table.running_state(), 0)
    # Someone else clicking the solo player's buttons is refused, and nothing changes.
    handle = await w.bob.click(message, custom_id=f"sh:act:{table.id}:0:0")
    assert refusal(handle) == "You are not playing at this table."
    handle = await w.carol.click(message, "My cards")
    assert refusal(handle) == "You are not playing at this table."
    handle = await w.bob.click(message, "Resign")
    assert refusal(handle) == "You are not playing at this table."
    assert (await w.table_by_id(table.id)).ply == 0
    # The player's own panel from the table, with the same choices.
    opened = await w.alice.click(message, "My cards")
    ephemeral = opened.response_message
    assert ephemeral is not None and ephemeral.ephemeral_for == w.alice.id
    assert "Your cards — Siege at Kurth" in ephemeral.text()
    assert sorted(act_indexes(ephemeral, table)) == list(range(len(legal)))
    # A button from before the move is out of date once the move counted.
    moves = [i for i, a in enumerate(legal) if a["type"] == "move"]
    await take(w, w.alice, message, table, moves[0])
    await w.fake.settle()
    handle = await w.alice.click(message, custom_id=f"sh:act:{table.id}:0:{moves[-1]}")
    assert refusal(handle) == "That button is out of date: the game has moved on."
    assert (await w.table_by_id(table.id)).ply == 1
    # Resigning ends the game as a loss, with the reason on the table.
    table = await w.table_by_id(table.id)
    opened = await w.alice.click(w.table_message(table), "Resign")
    assert opened.response_message is not None
    await w.alice.click(opened.response_message, "Yes, resign")
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.status == "over" and table.result is not None
    final = w.table_message(table)
    assert "resigned: Kurth has fallen. Score 0." in final.content
    assert "You resigned on turn 1 of 12. Score 0." in final.text()


async def test_solo_tables_in_a_thread_beside_the_channel(world: World) -> None:
    w = world
    table, _ = await open_kurth(w, w.alice)
    thread = w.fake.create_thread(w.channel, "bob's siege", 11)
    handle = await w.bob.slash(thread, "play siege-at-kurth", difficulty="easy")
    message = handle.response_message
    assert message is not None and not handle.ephemeral
    await w.fake.settle()
    other = await w.table(thread)
    assert other.id != table.id and other.status == "running" and other.seats == (w.bob.id,)
    legal = other.engine.legal_actions(other.running_state(), 0)
    await take(w, w.bob, w.table_message(other), other, 0)
    await w.fake.settle()
    assert (await w.table_by_id(other.id)).ply == 1
    assert legal[0]["type"] == "move"
    assert (await w.table_by_id(table.id)).ply == 0
