"""The Siege (``knights``) renderer on engine views: embeds, the two-step move panel, words."""

from __future__ import annotations

import io
import random
from typing import Any

from PIL import Image

from cogs.components import ROWS_MAX, SELECT_MAX_OPTIONS, layout
from cogs.sheets import as_embed
from engine.knights import GAME
from engine.rules import Result
from presentation import get_renderer, playable_games
from presentation.base import (
    ActionButton,
    ActionSelect,
    BackButton,
    Control,
    Sheet,
    StageSelect,
    Style,
)
from presentation.knights import RENDERER

RNG = random.Random(0)  # never drawn from: there is no chance in Siege
NAMES = ["<@101>", "<@202>"]
EMBED_TOTAL_MAX = 6000
# Spec 10.2: the Knight on b4 threatens c6 and d5, so the defender's turn is free.
THREAT = [(0, "d0", "c2"), (1, "f6", "g6"), (0, "c2", "b4")]
# The same, then the Knight takes the Defender on c6 (a capture to mark).
CAPTURE = [*THREAT, (1, "g6", "g5"), (0, "b4", "c6")]


def play(moves: list[tuple[int, str, str]], crown: str = "d6") -> dict[str, Any]:
    state = GAME.setup(2, {}, RNG)
    state, _ = GAME.apply(state, 1, {"type": "place_commander", "square": crown}, RNG)
    for seat, from_sq, to_sq in moves:
        state, _ = GAME.apply(state, seat, {"type": "move", "from": from_sq, "to": to_sq}, RNG)
    return state


def to_act(state: dict[str, Any]) -> int:
    seat = GAME.to_act(state)
    assert seat is not None
    return seat


def random_states(games: int, seed: int) -> list[dict[str, Any]]:
    """Every position of a few seeded random games, the start and the ends included."""
    rng = random.Random(seed)
    states = []
    for _ in range(games):
        state = GAME.setup(2, {}, RNG)
        states.append(state)
        while GAME.result(state) is None:
            seat = to_act(state)
            state, _ = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)), RNG)
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


def only(controls: list[Control], kind: type) -> Any:
    found = [c for c in controls if isinstance(c, kind)]
    assert len(found) == 1, controls
    return found[0]


def test_registered_with_sides_and_a_board_game_panel_button() -> None:
    assert "knights" in playable_games()
    assert get_renderer("knights") is RENDERER
    assert GAME.about.sides == ("the attacking Knights", "the defending castle")
    assert RENDERER.panel_label == "My moves"


def test_table_embed_has_the_text_board_turn_and_counts() -> None:
    state = play(CAPTURE)
    view = GAME.view(state, None)
    recent = ["<@101> played **Nb4xc6**, capturing a Defender."]
    embed = RENDERER.table_embed(view, NAMES, recent)
    embed_fits(embed)
    text = embed.description or ""
    assert "```\n    a b c d e f g h\n 6  ~ . N C ^ * . ~" in text
    assert "Knights: b0, c6, e0, g0 (0 captured)" in text
    assert "Defenders: **3** on the board, 1 captured · Commander on d6" in text
    assert "Opening rule: 2 of 4 defender turns left." in text
    assert "▶️ <@202> (the defending castle) to move." in text
    assert "Last move: Nb4xc6" in text
    assert [f.name for f in embed.fields] == ["Recent moves"]
    assert "Nb4xc6" in (embed.fields[0].value or "")


def test_table_embed_at_placement_and_with_a_restricted_turn() -> None:
    start = GAME.view(GAME.setup(2, {}, RNG), None)
    text = RENDERER.table_embed(start, NAMES, []).description or ""
    assert "▶️ <@202> (the defending castle) places the Commander on a crown: d6 or e6." in text
    assert "Commander not placed yet" in text
    assert RENDERER.table_embed(start, NAMES, []).fields == []
    restricted = GAME.view(play([(0, "d0", "c2")]), None)
    text = RENDERER.table_embed(restricted, NAMES, []).description or ""
    assert "4 of 4 defender turns left — this turn a Defender must step off its dot." in text
    assert "Moves without a capture: 1/80" in text


def test_embeds_fit_discord_limits_in_random_games() -> None:
    for state in random_states(6, seed=3):
        view = GAME.view(state, None)
        embed_fits(RENDERER.table_embed(view, NAMES, ["x" * 150] * 5))
        for seat in (0, 1):
            embed_fits(RENDERER.panel_embed(GAME.view(state, seat), NAMES))


def test_table_image_is_a_png_of_the_board() -> None:
    data = RENDERER.table_image(GAME.view(play(CAPTURE), None))
    assert data is not None
    image = Image.open(io.BytesIO(data))
    image.load()
    assert image.format == "PNG" and image.width > 400 and image.height > 400
    other = RENDERER.table_image(GAME.view(play(THREAT), None))
    assert other is not None and other != data


def test_placement_buttons_on_the_table_and_the_panel() -> None:
    state = GAME.setup(2, {}, RNG)
    legal = GAME.legal_actions(state, 1)
    for controls in (
        RENDERER.table_controls(GAME.view(state, None), legal),
        RENDERER.panel_controls(GAME.view(state, 1), legal),
    ):
        assert all(isinstance(c, ActionButton) for c in controls)
        buttons = [c for c in controls if isinstance(c, ActionButton)]
        assert [(b.label, legal[b.index]["square"]) for b in buttons] == [
            ("Place the Commander on d6", "d6"),
            ("Place the Commander on e6", "e6"),
        ]
    panel = RENDERER.panel_embed(GAME.view(state, 1), NAMES)
    assert "Place your Commander on a crown: d6 or e6." in str(panel.fields[-1].value)


def test_table_offers_no_moves_only_the_panel_does() -> None:
    state = play([])
    legal = GAME.legal_actions(state, 0)
    assert RENDERER.table_controls(GAME.view(state, None), legal) == []
    assert RENDERER.panel_controls(GAME.view(state, 0), legal) != []


def test_pieces_step_lists_only_pieces_with_a_legal_move() -> None:
    # Spec 10.1: a restricted turn; only the four Defenders on dots may move, not the Commander.
    state = play([(0, "d0", "c2")])
    legal = GAME.legal_actions(state, 1)
    controls = RENDERER.panel_controls(GAME.view(state, 1), legal)
    select = only(controls, StageSelect)
    assert [c.key for c in select.choices] == ["c6", "d5", "e5", "f6"]
    assert [c.label for c in select.choices] == [
        "Defender on c6",
        "Defender on d5",
        "Defender on e5",
        "Defender on f6",
    ]
    assert select.choices[0].description == "3 moves: b5, b6, c5"
    assert "Opening rule" in select.placeholder
    assert not any(isinstance(c, (ActionSelect, BackButton)) for c in controls)
    # The attacker at the start: all four Knights.
    start = play([])
    legal = GAME.legal_actions(start, 0)
    select = only(RENDERER.panel_controls(GAME.view(start, 0), legal), StageSelect)
    assert [c.label for c in select.choices] == [
        "Knight on b0",
        "Knight on d0",
        "Knight on e0",
        "Knight on g0",
    ]


def test_destination_step_lists_only_legal_squares_with_captures_marked() -> None:
    state = play(CAPTURE)
    seat = to_act(state)
    legal = GAME.legal_actions(state, seat)
    view = GAME.view(state, seat)
    pieces = only(RENDERER.panel_controls(view, legal), StageSelect)
    assert "Can capture on c6" in str(pieces.choices[0].description)  # the Defender on d5
    controls = RENDERER.panel_controls(view, legal, "d5")
    select = only(controls, ActionSelect)
    only(controls, BackButton)
    assert not any(isinstance(c, StageSelect) for c in controls)
    assert select.placeholder == "Move the Defender on d5 to…"
    wanted = sorted(a["to"] for a in legal if a["type"] == "move" and a["from"] == "d5")
    assert sorted(legal[c.index]["to"] for c in select.choices) == wanted
    assert all(legal[c.index]["from"] == "d5" for c in select.choices)
    labels = {legal[c.index]["to"]: c for c in select.choices}
    assert labels["c6"].label == "c6 ✕ captures a Knight"
    assert labels["c6"].description == "Dd5xc6 · castle dot square"
    assert labels["c4"].label == "c4" and labels["c4"].description == "Dd5-c4 · castle square"
    assert labels["e6"].description == "Dd5-e6 · crown square"
    # A Knight's capture of the Commander is named too.
    over = play([(0, "d0", "e2"), (1, "e5", "f5"), (0, "e2", "d4"), (1, "f6", "g6")], "e6")
    legal = GAME.legal_actions(over, 0)
    select = only(RENDERER.panel_controls(GAME.view(over, 0), legal, "d4"), ActionSelect)
    assert "e6 ✕ captures the Commander" in [c.label for c in select.choices]


def test_a_stage_that_cannot_move_shows_the_pieces_again() -> None:
    state = play([(0, "d0", "c2")])
    legal = GAME.legal_actions(state, 1)
    view = GAME.view(state, 1)
    fresh = RENDERER.panel_controls(view, legal)
    assert RENDERER.panel_controls(view, legal, "d6") == fresh  # the Commander, restricted
    assert RENDERER.panel_controls(view, legal, "zz") == fresh


def test_forced_pass_is_a_button() -> None:
    view = GAME.view(play([]), 0)
    legal: list[dict[str, Any]] = [{"type": "pass"}]
    for controls in (
        RENDERER.table_controls(view, legal),
        RENDERER.panel_controls(view, legal),
    ):
        assert controls == [ActionButton("Pass (no legal move)", 0, Style.PRIMARY)]


async def test_two_steps_cover_every_legal_move_and_fit_the_layout() -> None:
    for state in random_states(4, seed=11):
        if GAME.result(state) is not None:
            continue
        seat = to_act(state)
        legal = GAME.legal_actions(state, seat)
        view = GAME.view(state, seat)
        controls = RENDERER.panel_controls(view, legal)
        reached: list[int] = [c.index for c in controls if isinstance(c, ActionButton)]
        stages = [c for c in controls if isinstance(c, StageSelect)]
        for stage in stages:
            for choice in stage.choices:
                second = RENDERER.panel_controls(view, legal, choice.key)
                reached += [c.index for c in only(second, ActionSelect).choices]
                assert_fits(second)
        assert_fits(controls)
        assert sorted(reached) == list(range(len(legal)))


def assert_fits(controls: list[Control]) -> None:
    for control in controls:
        if isinstance(control, (ActionSelect, StageSelect)):
            assert 0 < len(control.choices) <= SELECT_MAX_OPTIONS
            for choice in control.choices:
                assert len(choice.label) <= 80
                assert choice.description is None or len(choice.description) <= 100
    rows = layout(1, 0, controls).to_components()
    assert sum(len(row["components"]) for row in rows) == len(controls)
    assert 0 < len(rows) <= ROWS_MAX


def test_panel_embed_says_side_turn_and_opening_rule() -> None:
    restricted = play([(0, "d0", "c2")])
    embed = RENDERER.panel_embed(GAME.view(restricted, 1), NAMES)
    embed_fits(embed)
    assert "You play **the defending castle**." in str(embed.description)
    assert "```" in str(embed.fields[0].value)  # the text board, for DMs without the picture
    assert embed.fields[-1].name == "Your turn"
    assert "move a Defender off its dot" in str(embed.fields[-1].value)
    waiting = RENDERER.panel_embed(GAME.view(restricted, 0), NAMES)
    assert "You play **the attacking Knights**." in str(waiting.description)
    assert waiting.fields[-1].name == "Waiting"
    assert waiting.fields[-1].value == "<@202> (the defending castle) is to move."


def test_event_lines_use_the_notation() -> None:
    state = GAME.setup(2, {}, RNG)
    lines = []
    actions = [(1, {"type": "place_commander", "square": "d6"})] + [
        (seat, {"type": "move", "from": f, "to": t}) for seat, f, t in CAPTURE
    ]
    for seat, action in actions:
        state, events = GAME.apply(state, seat, action, RNG)
        lines += [RENDERER.event_line(e, NAMES) for e in events]
    assert lines == [
        "<@202> placed the Commander on **d6**.",
        "<@101> played **Nd0-c2**.",
        "<@202> played **Df6-g6** (opening rule).",
        "<@101> played **Nc2-b4**.",
        "<@202> played **Dg6-g5**.",
        "<@101> played **Nb4xc6**, capturing a Defender.",
    ]
    assert RENDERER.event_line({"type": "passed", "seat": 0}, NAMES) == (
        "<@101> had no legal move and passed."
    )
    assert RENDERER.event_line({"type": "resigned", "seat": 1}, NAMES) == "<@202> resigned."
    ended = {"type": "game_ended", "winners": [0], "reason": "commander_captured"}
    assert RENDERER.event_line(ended, NAMES) is None


def test_result_lines_for_every_end() -> None:
    lines = {
        reason: RENDERER.result_line(Result(winners, reason), NAMES)
        for winners, reason in [
            ((0,), "commander_captured"),
            ((1,), "knights_eliminated"),
            ((), "no_moves"),
            ((), "repetition"),
            ((), "no_capture"),
        ]
    }
    assert lines == {
        "commander_captured": "🏆 <@101>'s Knights captured the Commander: the attack wins.",
        "knights_eliminated": "🏆 <@202>'s castle holds: all four Knights were captured.",
        "no_moves": "🤝 Draw: neither side had a legal move.",
        "repetition": "🤝 Draw: the same position came up for the third time.",
        "no_capture": "🤝 Draw: 80 moves in a row without a capture.",
    }
    assert RENDERER.result_line(Result((1,), "resigned"), NAMES) == (
        "🏳️ <@101> resigned; <@202> wins."
    )
    assert RENDERER.result_line(Result((0,), "resigned"), NAMES) == (
        "🏳️ <@202> resigned; <@101> wins."
    )


def test_result_lines_from_real_endings() -> None:
    # Every reason the engine's random games reach has its own line (no generic fallback).
    seen = {}
    for state in random_states(30, seed=5):
        result = GAME.result(state)
        if result is not None:
            seen[result.reason] = RENDERER.result_line(result, NAMES)
    assert {"commander_captured", "knights_eliminated"} <= set(seen)
    fallbacks = {f"🏆 {name} wins." for name in NAMES} | {"🤝 The game ended in a draw."}
    assert not fallbacks & set(seen.values())
    over = GAME.view(random_states(1, seed=5)[-1], None)
    embed = RENDERER.table_embed(over, NAMES, [])
    embed_fits(embed)
    assert "▶️" not in str(embed.description) and "Opening rule" not in str(embed.description)
