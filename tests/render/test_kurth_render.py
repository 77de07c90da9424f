"""The Siege at Kurth renderer on engine views: the city picture, embeds, controls and words."""

from __future__ import annotations

import io
import random
from typing import Any

import discord
from PIL import Image

from cogs.components import ROWS_MAX, layout
from cogs.sheets import as_embed
from engine.kurth import GAME, LOCATION_NAMES, LOCATIONS, SPECIALS, SPELLS
from engine.rules import Event, Result
from presentation import get_renderer, playable_games
from presentation.base import ActionButton, ActionSelect, Control, Sheet
from presentation.kurth import RENDERER
from presentation.kurth_board import image_size

NAMES = ["<@101>"]
EMBED_TOTAL_MAX = 6000
BUTTON_LABEL_MAX = 80


def play(
    pile: list[str],
    dice: list[int],
    actions: list[dict[str, Any]],
    difficulty: str = "normal",
    seed: int = 7,
) -> tuple[dict[str, Any], list[Event]]:
    """A stacked game (as the spec's worked examples set it up); the state and every event."""
    rng = random.Random(seed)
    state = GAME.setup(1, {"difficulty": difficulty}, rng, {"pile": pile, "dice": dice})
    events: list[Event] = []
    for action in actions:
        state, new = GAME.apply(state, 0, action, rng)
        events += new
    return state, events


def random_states(games: int, seed: int) -> list[dict[str, Any]]:
    """Every position of a few seeded random games on each difficulty, starts and ends included."""
    rng = random.Random(seed)
    states = []
    for n in range(games):
        difficulty = ("easy", "normal", "advanced")[n % 3]
        state = GAME.setup(1, {"difficulty": difficulty}, rng)
        states.append(state)
        while GAME.result(state) is None:
            state, _ = GAME.apply(state, 0, rng.choice(GAME.legal_actions(state, 0)), rng)
            states.append(state)
    return states


def embed_fits(embed: Sheet) -> None:
    assert len(as_embed(embed)) <= EMBED_TOTAL_MAX
    assert embed.title is not None and len(embed.title) <= 256
    assert embed.description is not None and len(embed.description) <= 4096
    assert len(embed.fields) <= 25
    for field in embed.fields:
        assert field.name is not None and len(field.name) <= 256
        assert field.value is not None and 0 < len(field.value) <= 1024


def indexes(controls: list[Control]) -> list[int]:
    found: list[int] = []
    for control in controls:
        if isinstance(control, ActionButton):
            found.append(control.index)
        else:
            assert isinstance(control, ActionSelect)
            found += [choice.index for choice in control.choices]
    return found


def buttons(controls: list[Control]) -> list[str]:
    return [c.label for c in controls if isinstance(c, ActionButton)]


def test_registered_as_a_solo_game_with_a_cards_panel() -> None:
    assert "kurth" in playable_games()
    assert get_renderer("kurth") is RENDERER
    assert GAME.about.sides == ()
    assert RENDERER.panel_label == "My cards"


def test_city_image_renders_for_many_random_states() -> None:
    seen = set()
    for state in random_states(9, seed=5)[::3]:
        data = RENDERER.table_image(GAME.view(state, None))
        assert data is not None
        image = Image.open(io.BytesIO(data))
        image.load()
        assert image.format == "PNG" and image.size == image_size()
        assert 600 <= image.width <= 1200 and 600 <= image.height <= 1200
        assert len(data) < 1024 * 1024
        seen.add(data)
    assert len(seen) > 10  # the picture follows the game


def test_embeds_fit_and_carry_the_facts_in_text() -> None:
    for state in random_states(9, seed=8):
        view = GAME.view(state, None)
        summary = view["summary"]
        recent = ["x" * 200] * 5
        embed = RENDERER.table_embed(view, NAMES, recent)
        embed_fits(embed)
        panel = RENDERER.panel_embed(GAME.view(state, 0), NAMES)
        embed_fits(panel)
        text = embed.description or ""
        assert f"Round **{summary['round']}** of 3 · Turn **{summary['turn']}** of 12" in text
        assert f"Spirit **{summary['spirit']}**/12" in text
        assert f"Mana **{summary['mana']}**/15" in text
        assert f"Overrun **{summary['overrun']}** of {summary['overrun_limit']}" in text
        assert ("Passage (Armory ↔ Barracks) **open**" in text) == summary["passage_open"]
        for key in LOCATIONS:
            markers = summary["markers"][key]
            assert f"{LOCATION_NAMES[key]}: {markers} marker" in text
        here = LOCATION_NAMES[summary["location"]]
        assert f"{here}: {summary['markers'][summary['location']]} marker" in text
        assert text.count("you are here") == 1
        assert text.count("· protected") == len(summary["protected"])
        cards = next(f for f in embed.fields if f.name and f.name.startswith("This turn's cards"))
        for card in view["hand"]:
            assert f"{card['name']}** ({card['code']})" in (cards.value or "")
            spell = SPELLS[card["spell"]]
            assert f"**{spell.name}** ({spell.cost} mana)" in (cards.value or "")
            assert f"**{SPECIALS[card['special']].name}** (" in (cards.value or "")
            assert card["name"] in "".join(f.name or "" for f in panel.fields)
        if view["result"] is not None:
            assert embed.fields[0].name == "What decided it"


def test_controls_map_to_legal_actions_one_to_one_and_fit_the_layout() -> None:
    checked = 0
    for state in random_states(9, seed=13):
        if GAME.result(state) is not None:
            continue
        legal = GAME.legal_actions(state, 0)
        view = GAME.view(state, None)
        controls = RENDERER.table_controls(view, legal)
        assert sorted(indexes(controls)) == list(range(len(legal)))
        assert RENDERER.panel_controls(GAME.view(state, 0), legal) == controls
        for label in buttons(controls):
            assert len(label) <= BUTTON_LABEL_MAX
        for control in controls:
            if not isinstance(control, ActionButton):
                continue
            action = legal[control.index]
            if action["type"] == "special":
                cost = SPECIALS[action["name"]].cost
                want = f" — {cost} spirit" if cost else " — free"
                assert control.label.endswith(want), control.label
            elif action["type"] == "cast":
                assert control.label.endswith(f" — {SPELLS[action['spell']].cost} mana")
        extra: list[discord.ui.Item[Any]] = [
            discord.ui.Button(label="My cards"),
            discord.ui.Button(label="Resign"),
        ]
        rows = layout(1, 1, controls, extra).to_components()
        wards = sum(isinstance(c, ActionSelect) for c in controls)
        laid = sum(len(row["components"]) for row in rows)
        assert laid == len(buttons(controls)) + wards + len(extra)
        assert len(rows) <= ROWS_MAX
        checked += 1
    assert checked > 100


def test_example_1_first_turn_buttons_with_costs() -> None:
    state, _ = play(["K1", "K6", "K9", "K2", "K3", "K4"], [3, 3], [])
    legal = GAME.legal_actions(state, 0)
    controls = RENDERER.table_controls(GAME.view(state, None), legal)
    assert buttons(controls) == [
        "Move to Wardens' Hall (0 markers)",
        "Move to Armory (6 markers)",
        "Move to Merchant Quarter (0 markers)",
        "Forced March — 1 spirit",
        "Arcane Surge — 1 spirit",
        "Mistwalk — 2 mana",
    ]
    assert all(isinstance(c, ActionButton) for c in controls)
    embed = RENDERER.table_embed(GAME.view(state, None), NAMES, [])
    cards = embed.fields[0].value or ""
    assert "**1. The Gate Falls** (K1) — Main Gate · R2 B1 M0" in cards
    assert "✨ **Flame Lance** (2 mana): +2 to this turn's attack" in cards
    assert "⚡ **Forced March** (1 spirit): move 1 to 5 clockwise ✅ now" in cards
    assert "**3. Breakthrough** (K9) — Main Gate or Temple (card 3 places no markers)" in cards
    assert "Upkeep: R 6 to Main Gate +6, Armory +6 · siege strength +4 · mana +2" in cards
    assert "▶️ <@101>: **move** 1 to 3 locations clockwise." in (embed.description or "")
    march = {"type": "special", "name": "forced_march"}
    state, events = play(["K1", "K6", "K9", "K2", "K3", "K4"], [3, 3], [march])
    embed = RENDERER.table_embed(GAME.view(state, None), NAMES, [])
    assert "**move** — Forced March: move 1 to 5 clockwise." in (embed.description or "")
    assert RENDERER.event_line(events[0], NAMES) == (
        "⚡ Forced March (−1 spirit, 11 left): this move can reach Wardens' Hall, Armory, "
        "Merchant Quarter, Main Gate, Temple."
    )
    labels = buttons(RENDERER.table_controls(GAME.view(state, None), GAME.legal_actions(state, 0)))
    assert labels[:5] == [
        "Move to Wardens' Hall (0 markers)",
        "Move to Armory (6 markers)",
        "Move to Merchant Quarter (0 markers)",
        "Move to Main Gate (6 markers)",
        "Move to Temple (0 markers)",
    ]


def test_attack_button_ward_menu_and_the_roll_written_out() -> None:
    # Example 2: 5 markers at the Merchant Quarter, strength 3 + 3 = 6; 2 + 3 = 5 loses 2 spirit.
    move = {"type": "move", "to": "merchant_quarter"}
    state, _ = play(["K1", "K2", "K6"], [2, 3], [move])
    legal = GAME.legal_actions(state, 0)
    controls = RENDERER.table_controls(GAME.view(state, None), legal)
    assert buttons(controls)[0] == "Attack 5 markers — strength 6 (beaten: −2 spirit)"
    (ward,) = [c for c in controls if isinstance(c, ActionSelect)]
    assert ward.placeholder.startswith("Ward of Stone — 3 mana")
    assert [c.label for c in ward.choices] == [LOCATION_NAMES[k] for k in LOCATIONS]
    assert all(
        legal[c.index]["location"] == k for c, k in zip(ward.choices, LOCATIONS, strict=True)
    )
    state, events = play(["K1", "K2", "K6"], [2, 3], [move, {"type": "attack"}])
    lines = [RENDERER.event_line(e, NAMES) for e in events]
    assert (
        "🎲 Attack at the Merchant Quarter: 2 + 3 = **5** against strength 6 — beaten: "
        "2 spirit lost (spirit 10)."
    ) in lines
    embed = RENDERER.table_embed(GAME.view(state, None), NAMES, [])
    so_far = next(f for f in embed.fields if f.name == "This turn so far")
    assert "🎲 Roll: 2 + 3 = **5** against strength 6: beaten." in (so_far.value or "")
    assert buttons(RENDERER.table_controls(GAME.view(state, None), GAME.legal_actions(state, 0)))[
        :2
    ] == ["End turn", "Arcane Surge — 1 spirit"]


def test_example_1_doubles_and_example_4_fates_favor() -> None:
    actions = [
        {"type": "move", "to": "armory"},
        {"type": "cast", "spell": "thunderclap"},
        {"type": "attack"},
    ]
    _, events = play(["K1", "K6", "K9", "K2", "K3", "K4"], [3, 3], actions)
    lines = [RENDERER.event_line(e, NAMES) for e in events]
    assert "✨ Cast Thunderclap (−4 mana, 4 left): attack bonus now +4." in lines
    assert (
        "🎲 Attack at the Armory: 3 + 3 + 4 bonus = **10** against strength 8 — won: 4 markers "
        "removed (2 left). Doubles: the passage opens for the next move."
    ) in lines
    actions = [
        {"type": "move", "to": "armory"},
        {"type": "cast", "spell": "flame_lance"},
        {"type": "attack"},
        {"type": "special", "name": "arcane_surge"},
    ]
    state, _ = play(["K6", "K11", "K1"], [1, 2, 6], actions)
    legal = GAME.legal_actions(state, 0)
    assert buttons(RENDERER.table_controls(GAME.view(state, None), legal)) == [
        "End turn",
        "Fate's Favor: re-roll die 1 (a 1) — 1 mana",
        "Fate's Favor: re-roll die 2 (a 2) — 1 mana",
    ]
    state, events = play(
        ["K6", "K11", "K1"],
        [1, 2, 6],
        [*actions, {"type": "cast", "spell": "fates_favor", "die": 0}],
    )
    line = RENDERER.event_line(events[-1], NAMES)
    assert line == (
        "🍀 Fate's Favor re-rolled die 1: 1 → 6. 6 + 2 + 2 bonus = **10** against strength 6 — "
        "won: 4 markers removed (1 left)."
    )


def test_special_actions_and_upkeep_lines() -> None:
    actions = [
        {"type": "cast", "spell": "ward_of_stone", "location": "main_gate"},
        {"type": "move", "to": "armory"},
        {"type": "special", "name": "barricade"},
        {"type": "end_turn"},
    ]
    state, events = play(["K2", "K8", "K5", "K9", "K10", "K4"], [6, 6], actions)
    lines = [RENDERER.event_line(e, NAMES) for e in events]
    assert (
        "✨ Cast Ward of Stone (−3 mana, 5 left): the Main Gate is protected from the next upkeep."
    ) in lines
    assert "🚶 Moved from Citadel to Armory: no markers, no attack." in lines
    assert (
        "⚡ Barricade (−2 spirit, 10 left): the Armory is protected from the next upkeep." in lines
    )
    assert (
        "🃏 Turn 2 upkeep: K9, K10, K4 — Main Gate protected, Armory protected; siege strength "
        "+4; mana +3 (now 8)."
    ) in lines
    embed = RENDERER.table_embed(GAME.view(state, None), NAMES, [])
    assert "Upkeep: R 4 to Main Gate protected: +0, Armory protected: +0" in (
        embed.fields[0].value or ""
    )


def test_the_end_shows_result_score_and_what_decided_it() -> None:
    # Example 5: three locations overrun on advanced.
    actions = [
        {"type": "move", "to": "armory"},
        {"type": "end_turn"},
        {"type": "move", "to": "main_gate"},
        {"type": "end_turn"},
        {"type": "move", "to": "temple"},
        {"type": "end_turn"},
    ]
    pile = ["K10", "K2", "K1", "K12", "K11", "K6", "K5", "K7", "K9"]
    state, _ = play(pile, [], actions, difficulty="advanced")
    result = GAME.result(state)
    assert result is not None
    view = GAME.view(state, None)
    embed = RENDERER.table_embed(view, NAMES, [])
    embed_fits(embed)
    assert embed.fields[0].name == "What decided it"
    assert embed.fields[0].value == (
        "At the end of turn 3, 3 locations held 8 or more markers (Wardens' Hall, Merchant "
        "Quarter, Barracks): Advanced loses at 3. Score 0."
    )
    assert "This turn so far" not in [f.name for f in embed.fields]
    assert RENDERER.result_line(result, NAMES) == (
        "🔥 Kurth has fallen: too many locations were overrun. <@101> scores 0."
    )
    won = Result((0,), "relieved", (87,))
    assert RENDERER.result_line(won, NAMES) == (
        "🏆 <@101> held Kurth for all 12 turns: the city is relieved! Score **87**."
    )
    broken = Result((), "spirit_broken", (0,))
    assert "spirit is broken" in RENDERER.result_line(broken, NAMES)
    resigned, events = GAME.resign(play([], [], [])[0], 0)
    assert RENDERER.event_line(events[0], NAMES) == "🏳️ <@101> resigned."
    assert RENDERER.event_line(events[-1], NAMES) is None
    embed = RENDERER.table_embed(GAME.view(resigned, None), NAMES, [])
    assert embed.fields[0].value == "You resigned on turn 1 of 12. Score 0."


def test_a_won_game_explains_its_score() -> None:
    for state in random_states(30, seed=21):
        result = GAME.result(state)
        if result is None or not result.winners:
            continue
        summary = GAME.summary(state)
        embed = RENDERER.table_embed(GAME.view(state, None), NAMES, [])
        decided = embed.fields[0].value or ""
        assert decided.startswith("You held out through turn 12 with")
        assert result.scores is not None
        held = 8 - summary["overrun"]
        assert (
            f"Score **{result.scores[0]}** = 10 × {summary['spirit']} spirit + "
            f"{summary['mana']} mana + 2 × {held} locations not overrun."
        ) in decided
        assert 10 * summary["spirit"] + summary["mana"] + 2 * held == result.scores[0]
        return
    raise AssertionError("no random game was won")
