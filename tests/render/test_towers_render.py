"""The tower poker renderer on engine views: the table picture, embeds, controls and words."""

from __future__ import annotations

import io
import random
from typing import Any

import discord
from PIL import Image

from cogs.components import layout
from cogs.flow import Parts
from cogs.sheets import as_embed
from engine.rules import Action, Event, Result, State
from engine.towers import GAME
from presentation.base import ActionButton, ActionSelect, BackButton, Control, Sheet, StageSelect
from presentation.towers import CATEGORY_WORDS, RENDERER, hand_name, hand_words, pretty
from presentation.towers_table import WIDTH, image_height
from tests.fakecord.limits import check_components, check_embeds

# Long mentions (18-digit ids), as on Discord.
NAMES = [f"<@{123456789012345670 + i}>" for i in range(7)]
RECENT_MAX = 5


def random_states(seats: int, seed: int, **options: Any) -> list[tuple[State, list[Event]]]:
    """Every position of a seeded random game (with an occasional leave), and its events."""
    rng = random.Random(seed)
    state = GAME.setup(seats, options, rng)
    states: list[tuple[State, list[Event]]] = [(state, [])]
    while GAME.result(state) is None and len(states) < 400:
        seat = GAME.to_act(state)
        assert seat is not None
        legal = GAME.legal_actions(state, seat)
        stay = [a for a in legal if a["type"] != "leave"]
        action = rng.choice(legal if rng.random() < 0.01 else stay)
        state, events = GAME.apply(state, seat, action, rng)
        states.append((state, events))
    return states


def all_states() -> list[tuple[State, list[Event]]]:
    found = []
    for seats in range(2, 8):
        found += random_states(seats, seats * 11, start_chips=12, tower_height=4)
    found += random_states(7, 99, start_chips=40, tower_height=6, ante=2)
    return found


STATES = all_states()


def expand(view: dict[str, Any], legal: list[Action]) -> list[tuple[int, str]]:
    """Every action index a panel offers, through its stages too, with its label."""
    offered: list[tuple[int, str]] = []

    def collect(controls: list[Control]) -> list[str]:
        stages = []
        for control in controls:
            if isinstance(control, ActionButton):
                offered.append((control.index, control.label))
            elif isinstance(control, ActionSelect):
                offered.extend((c.index, c.label) for c in control.choices)
            elif isinstance(control, StageSelect):
                stages += [c.key for c in control.choices]
        return stages

    for stage in collect(RENDERER.panel_controls(view, legal)):
        controls = RENDERER.panel_controls(view, legal, stage)
        assert any(isinstance(c, BackButton) for c in controls)
        assert not collect(controls)
    return offered


def fits(embed: Sheet, controls: list[Control]) -> None:
    assert check_embeds([as_embed(embed).to_dict()]) == []
    extra: list[discord.ui.Item[Any]] = [
        discord.ui.Button(label="My hand"),
        discord.ui.Button(label="Resign"),
    ]
    extra.append(
        discord.ui.Button(label="Open the table", url="https://discord.com/channels/1/2/3")
    )
    rows = layout(123456789012345678, 9999, controls, extra).to_components()
    assert check_components(rows, v2=False) == []
    shown = sum(1 for row in rows for _ in row["components"])
    menus = sum(
        -(-len(c.choices) // 25) for c in controls if isinstance(c, ActionSelect | StageSelect)
    )
    plain = sum(1 for c in controls if not isinstance(c, ActionSelect | StageSelect))
    assert shown == plain + menus + len(extra)  # nothing dropped


def test_pictures_for_many_states_including_seven_seats() -> None:
    sizes = set()
    for i, (state, _) in enumerate(STATES[::7]):
        png = RENDERER.table_image(GAME.view(state, None))
        assert png is not None and png.startswith(b"\x89PNG")
        image = Image.open(io.BytesIO(png))
        if state["result"] is None:
            assert image.size == (WIDTH, image_height(state["seats"])), i
        else:  # the result banner above the table
            assert image.width == WIDTH and image.height > image_height(state["seats"]), i
        sizes.add(state["seats"])
        assert len(png) < 1_000_000
    assert sizes == set(range(2, 8))


def test_embeds_and_controls_stay_within_discord_limits() -> None:
    for state, events in STATES:
        names = NAMES[: state["seats"]]
        recent = [line for e in events if (line := RENDERER.event_line(e, names))][-RECENT_MAX:]
        public = GAME.view(state, None)
        to_act = GAME.to_act(state)
        legal = GAME.legal_actions(state, to_act) if to_act is not None else []
        table = RENDERER.table_embed(public, names, recent)
        fits(table, RENDERER.table_controls(public, legal))
        for seat in range(state["seats"]):
            view = GAME.view(state, seat)
            mine = legal if seat == to_act else []
            embed = RENDERER.panel_embed(view, names)
            fits(embed, RENDERER.panel_controls(view, mine))
            for stage in ("leave", "fold"):
                if mine and any(a["type"] == stage for a in mine):
                    fits(embed, RENDERER.panel_controls(view, mine, stage))
        assert Parts(embed=table).embed is table


def test_panel_controls_are_one_to_one_with_legal_actions() -> None:
    checked = 0
    for state, _ in STATES:
        seat = GAME.to_act(state)
        if seat is None:
            continue
        legal = GAME.legal_actions(state, seat)
        offered = expand(GAME.view(state, seat), legal)
        indices = [i for i, _ in offered]
        assert sorted(indices) == list(range(len(legal))), (legal, offered)
        table = RENDERER.table_controls(GAME.view(state, None), legal)
        on_table = [c.index for c in table if isinstance(c, ActionButton)]
        public_kinds = {"check", "bet", "call", "raise", "fold", "buy_flip", "decline_flip"}
        assert sorted(on_table) == [i for i, a in enumerate(legal) if a["type"] in public_kinds]
        checked += 1
    assert checked > 500


def test_amount_labels_say_what_the_engine_then_takes() -> None:
    seen: set[str] = set()
    for state, _ in STATES:
        seat = GAME.to_act(state)
        if seat is None:
            continue
        legal = GAME.legal_actions(state, seat)
        for control in RENDERER.table_controls(GAME.view(state, None), legal):
            assert isinstance(control, ActionButton)
            action = legal[control.index]
            after, _ = GAME.apply(state, seat, action, random.Random(1))
            if after["hand_no"] != state["hand_no"] or after["result"] is not None:
                continue  # the hand ended (a show pays out, the next antes): amounts move on
            paid = after["in_pot"][seat] - state["in_pot"][seat]
            paid += after["fees"] - state["fees"]
            kind = action["type"]
            seen.add(kind)
            label = control.label
            if kind == "call":
                assert label in (f"Call {paid}", f"Call {paid} (all-in)")
                assert label.endswith("(all-in)") == (after["chips"][seat] == 0)
            elif kind == "bet":
                assert label == f"Bet {paid}"
            elif kind == "raise":
                assert label == f"Raise to {state['round_bets'][seat] + paid}"
            elif kind == "buy_flip":
                assert label == f"Buy flip — {paid}"
            else:
                assert paid == 0 and label in ("Check", "Fold", "No flip")
    assert {"check", "bet", "call", "raise", "fold", "buy_flip", "decline_flip"} <= seen


def test_fold_asks_only_when_checking_is_possible() -> None:
    state = next(s for s, _ in STATES if s["phase"] == "betting" and s["bet_level"] == 0)
    view = GAME.view(state, state["to_act"])
    # The engine never offers both; a legal list that did gets Fold behind a confirmation.
    legal: list[Action] = [{"type": "check"}, {"type": "bet"}, {"type": "fold"}, {"type": "leave"}]
    labels = [c.label for c in RENDERER.table_controls(view, legal) if isinstance(c, ActionButton)]
    assert "Fold" not in labels and "Check" in labels
    first = RENDERER.panel_controls(view, legal)
    stages = [c for c in first if isinstance(c, StageSelect)]
    assert [k.key for k in stages[0].choices] == ["fold", "leave"]
    second = RENDERER.panel_controls(view, legal, "fold")
    assert [c.index for c in second if isinstance(c, ActionButton)] == [2]
    # With a bet to call, Fold is a plain button.
    state = next(s for s, _ in STATES if s["phase"] == "betting" and s["bet_level"] > 0)
    seat = state["to_act"]
    legal = GAME.legal_actions(state, seat)
    labels = [
        c.label
        for c in RENDERER.panel_controls(GAME.view(state, seat), legal)
        if isinstance(c, ActionButton)
    ]
    assert "Fold" in labels


def hidden_from(state: State, seat: int | None) -> set[str]:
    """Cards of other seats' hands that ``seat`` may not see: not its own, not face up, not
    burned, not shown (a code can be in two places: two decks)."""
    others = {c for x, hand in enumerate(state["hands"]) if x != seat for c in hand}
    public = set(state["face_up"]) | {state["burned"]} if state["burned"] else set(state["face_up"])
    for show in state["shows"]:
        public |= {c for hand in show["hands"] if hand for c in hand}
        public |= set(show["face_up"]) | {show["burned"]}
    own = set(state["hands"][seat]) if seat is not None else set()
    return others - public - own


def test_no_panel_or_table_text_shows_another_seats_cards() -> None:
    for state, events in STATES:
        names = NAMES[: state["seats"]]
        recent = [line for e in events if (line := RENDERER.event_line(e, names))]
        table = RENDERER.table_embed(GAME.view(state, None), names, recent)
        text = "\n".join([str(table.description), *[f.value or "" for f in table.fields]])
        for card in hidden_from(state, None):
            assert pretty(card) not in text, (card, text)
        for seat in range(state["seats"]):
            view = GAME.view(state, seat)
            embed = RENDERER.panel_embed(view, names)
            legal = GAME.legal_actions(state, seat)
            labels = [label for _, label in expand(view, legal)] if legal else []
            text = "\n".join([str(embed.description), *[f.value or "" for f in embed.fields]])
            text += "\n".join(labels)
            for card in hidden_from(state, seat):
                assert pretty(card) not in text, (seat, card, text)
            for card in view["hand"]:
                assert pretty(card) in str(embed.description)


def test_the_best_hand_in_words() -> None:
    assert hand_words(["KS", "KD", "7H", "2C"], ["7C"]) == (
        "Two pair, kings and sevens, with the tower 7♣"
    )
    assert hand_words(["AS", "AH", "AD", "XB"], ["AC"]) == "Five of a kind, aces, with the tower A♣"
    assert hand_words(["2S", "3S", "4S", "5S"], ["AS"]) == (
        "Straight flush, five high, with the tower A♠"
    )
    assert hand_words(["KS", "KD", "KH", "7C"], ["7D"]) == (
        "Full house, kings over sevens, with the tower 7♦"
    )
    assert hand_words(["9S", "9D", "2C", "4H"], ["JD"]) == "Pair of nines, with the tower J♦"
    assert hand_words(["9S", "XR"], ["2C", "4H", "JD"]).endswith("with the towers 2♣, 4♥ and J♦")
    assert pretty("TH") == "10♥" and pretty("XB") == "🃏 black joker"


def test_every_event_has_a_line_and_the_show_names_its_pots() -> None:
    kinds: set[str] = set()
    for _, events in STATES:
        for event in events:
            line = RENDERER.event_line(event, NAMES)
            if event["type"] not in ("flip_offered", "hand_ended", "game_ended"):
                assert line, event
                kinds.add(event["type"])
            if event["type"] == "shown" and len(event["pots"]) > 1:
                assert "side pot 1" in str(line)
    assert {"shown", "tower_flipped", "called", "folded", "hand_started"} <= kinds
    result = Result((0, 2), "towers_exhausted", (30, 0, 30))
    assert RENDERER.result_line(result, NAMES[:3]) == (
        f"{NAMES[0]} and {NAMES[2]} share the win: the towers are empty. "
        f"Chips: {NAMES[0]} 30, {NAMES[1]} 0, {NAMES[2]} 30."
    )


def test_a_show_names_each_hand_as_the_panel_does() -> None:
    """The table's show lines name the hand ("Pair of jacks"), in the engine's category."""
    named = 0
    for state, _ in STATES:
        view = GAME.view(state, None)
        last = view["summary"]["last_hand"] or {}
        lines = RENDERER._show_lines(view, NAMES[: state["seats"]])
        for show in view.get("shows") or []:
            if last.get("hand_no") != show["hand_no"] or not last.get("categories"):
                continue
            for seat, hand in enumerate(show["hands"]):
                category = last["categories"][seat]
                if hand is None or not category:
                    continue
                name = hand_name([*hand, *(show["tower"][seat] or [])])
                assert name.startswith(CATEGORY_WORDS[category]) or (
                    category == "pair" and name.startswith("Pair of")
                )
                assert any(line.endswith(f" — {name}") for line in lines), (name, lines)
                named += 1
    assert named > 0
