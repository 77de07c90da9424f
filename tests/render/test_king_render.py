"""Siege the King's Discord renderer, on engine views only: the table, the panel, the controls
and the event lines. Positions come from the spec's worked examples (stacked deals) and from
seeded random games."""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import discord

from cogs.components import SELECT_MAX_OPTIONS, layout
from cogs.sheets import as_embed
from cogs.siege import rules_pages
from engine.king import CARD_ORDER, GAME, card_name
from engine.rules import Event, Result, State, rng_for
from presentation import get_renderer
from presentation.base import (
    ActionButton,
    ActionSelect,
    BackButton,
    Control,
    Sheet,
    StageSelect,
)
from presentation.king import RENDERER

ROOT = Path(__file__).parents[2]
NAMES = ["<@101>", "<@202>"]
LEFT = ["KING", "THRONE", "THRONE"]
MIDDLE = ["THRONE", "KING", "THRONE"]
RIGHT = ["THRONE", "THRONE", "KING"]
CARD_NAMES = {code: card_name(code) for code in CARD_ORDER}


# -- building positions ------------------------------------------------------------------------


def start(
    hands: list[list[str]],
    pile: list[str],
    castles: tuple[list[str], list[str]] = (LEFT, RIGHT),
    *,
    first: int = 0,
    specials: bool = True,
) -> State:
    stack = {"first": first, "hands": hands, "pile": pile}
    state = GAME.setup(2, {"specials": specials}, rng_for(1, "setup"), stack)
    for seat in (0, 1):
        state, _ = act(state, seat, {"type": "arrange", "order": castles[seat]})
    return state


def act(state: State, seat: int, action: dict[str, Any]) -> tuple[State, list[Event]]:
    return GAME.apply(state, seat, action, rng_for(1, state["turn"]))


def lines(events: list[Event]) -> list[str]:
    return [line for e in events if (line := RENDERER.event_line(e, NAMES)) is not None]


def random_states(games: int = 12) -> Iterator[State]:
    """Every position of some seeded random games, with and without the special cards."""
    for n in range(games):
        rng = random.Random(n)
        state = GAME.setup(2, {"specials": n % 3 != 2}, rng_for(n, "setup"))
        ply = 0
        yield state
        while GAME.result(state) is None:
            seat = GAME.to_act(state)
            assert seat is not None
            action = rng.choice(GAME.legal_actions(state, seat))
            state, _ = GAME.apply(state, seat, action, rng_for(n, ply))
            ply += 1
            yield state


def column_lines(description: str, header: str) -> list[str]:
    """The three column lines under a side's header line."""
    text = description.split("\n")
    at = next(i for i, line in enumerate(text) if line.startswith(header))
    return text[at + 1 : at + 4]


def field(embed: Sheet, name: str) -> str:
    values = [f.value for f in embed.fields if f.name == name]
    assert len(values) == 1, f"no single field {name!r} in {[f.name for f in embed.fields]}"
    return str(values[0])


def indices(controls: list[Control]) -> list[int]:
    found = []
    for control in controls:
        if isinstance(control, ActionButton):
            found.append(control.index)
        elif isinstance(control, ActionSelect):
            found.extend(choice.index for choice in control.choices)
    return found


def stage_keys(controls: list[Control]) -> list[str]:
    return [c.key for s in controls if isinstance(s, StageSelect) for c in s.choices]


def embed_text(embed: Sheet) -> str:
    parts = [embed.title or "", embed.description or ""]
    parts += [f"{f.name}\n{f.value}" for f in embed.fields]
    return "\n".join(parts)


def names_in(text: str) -> set[str]:
    """The card codes whose names appear in a text."""
    return {
        code
        for code, name in CARD_NAMES.items()
        if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text)
    }


# -- the table ---------------------------------------------------------------------------------

SEED_EXAMPLE = (
    [["A4", "D1", "D2", "A7", "W3"], ["D5", "A1", "A2", "D7", "W4"]],
    ["D3", "A3"],
)


def test_registered_as_the_king_renderer() -> None:
    assert get_renderer("king") is RENDERER


def test_table_shows_each_column_with_value_and_cards() -> None:
    state = start(*SEED_EXAMPLE)
    state, _ = act(state, 0, {"type": "play", "card": "A4", "column": [1, 2]})
    state, _ = act(state, 1, {"type": "play", "card": "D5", "column": [1, 2]})
    state, _ = act(state, 0, {"type": "play", "card": "W3", "column": [1, 0]})
    embed = RENDERER.table_embed(GAME.view(state, None), NAMES, ["a recent line"])
    text = embed.description or ""
    assert text.startswith("**Turn 4** · draw pile **32** · discard pile **0**")
    assert column_lines(text, f"🏰 {NAMES[0]} · 5 cards in hand") == [
        "`Left  ` 🂠 **10**",
        "`Middle` 🂠 **10**",
        "`Right ` 🂠 **10**",
    ]
    assert column_lines(text, f"🏰 {NAMES[1]} · 5 cards in hand") == [
        "`Left  ` 🂠 **7** · −W3",
        "`Middle` 🂠 **10**",
        "`Right ` 🂠 **11** · −4 +5",
    ]
    assert text.endswith(f"▶️ {NAMES[1]} to play.")
    assert field(embed, "Recent") == "a recent line"
    # Hands are private: no card of either hand is named on the table.
    assert names_in(text) == set()


def test_table_never_names_a_castle_card_before_it_is_revealed() -> None:
    checked = 0
    for state in random_states():
        view = GAME.view(state, None)
        description = RENDERER.table_embed(view, NAMES, []).description or ""
        # Only the drawn Assassin is named on the board (it never joins a hand).
        drawn = {"ASSASSIN"} if view["summary"]["phase"] == "assassinate" else set()
        assert names_in(description) == drawn
        over = view["result"] is not None
        for seat in (0, 1):
            rows = column_lines(description, f"🏰 {NAMES[seat]} ·")
            for i, line in enumerate(rows):
                castle = view["summary"]["columns"][seat][i]["castle"]
                if castle is None:
                    assert "🂠" in line and not re.search("King|Throne|👑|🪑", line), line
                    checked += 1
                elif castle == "KING":
                    assert "👑 King" in line and (over or "closed" not in line)
                else:
                    assert "🪑 Throne" in line
        if over:
            # Every castle card is shown once the game is over.
            assert description.count("👑 King") == 2
            assert description.count("🪑 Throne") == 4
    assert checked > 1000


def test_renders_depend_only_on_what_the_viewer_may_know() -> None:
    """Two states that differ only in a seat's hand and unrevealed castle order look the same to
    the other seat and to the table (OpenSpiel's information-state contract, through the
    renderer)."""
    compared = 0
    for state in random_states(6):
        if state["phase"] not in ("play", "assassinate"):
            continue
        for hidden in (0, 1):
            other = _disguise(state, hidden)
            if other is None:
                continue
            viewer = 1 - hidden
            for seat in (None, viewer):
                a, b = GAME.view(state, seat), GAME.view(other, seat)
                if seat is None:
                    before = RENDERER.table_embed(a, NAMES, [])
                    after = RENDERER.table_embed(b, NAMES, [])
                else:
                    before = RENDERER.panel_embed(a, NAMES)
                    after = RENDERER.panel_embed(b, NAMES)
                assert before == after
            compared += 1
    assert compared > 100


def _disguise(state: State, seat: int) -> State | None:
    """The same position with ``seat``'s hand swapped for pile cards and its King moved to
    another face-down place, or None when nothing can change."""
    other = copy.deepcopy(state)
    hand = other["hands"][seat]
    pile = other["pile"]
    swap = [c for c in pile if c != "ASSASSIN"][: len(hand)]
    if not hand or len(swap) < len(hand) or sorted(swap) == sorted(hand):
        return None
    for card in swap:
        pile.remove(card)
    other["pile"] = hand + pile
    other["hands"][seat] = swap
    hidden = [i for i in range(3) if not other["revealed"][seat][i]]
    order = other["castles"][seat]
    if len(hidden) >= 2:
        a, b = hidden[0], hidden[1]
        order[a], order[b] = order[b], order[a]
    return other


def test_table_status_during_arrange_assassin_and_end() -> None:
    state = GAME.setup(2, {}, rng_for(1, "setup"))
    text = RENDERER.table_embed(GAME.view(state, None), NAMES, []).description or ""
    assert f"▶️ {NAMES[0]} is arranging their castle" in text
    assert "Turn 1" in text
    state = _assassin_position()
    text = RENDERER.table_embed(GAME.view(state, None), NAMES, []).description or ""
    assert f"🗡️ {NAMES[0]} drew the Assassin and chooses which of {NAMES[1]}'s columns" in text


# -- the panel ---------------------------------------------------------------------------------


def test_panel_lists_the_hand_and_the_owners_castle() -> None:
    state = start(*SEED_EXAMPLE, castles=(MIDDLE, RIGHT))
    embed = RENDERER.panel_embed(GAME.view(state, 0), NAMES)
    assert embed.description == "\n".join(
        [
            "**Your hand** (5)",
            "⚔️ Attacker 4",
            "⚔️ Attacker 7",
            "🛡️ Defender 1",
            "🛡️ Defender 2",
            "🪓 Warrior 3",
        ]
    )
    mine = field(embed, "Your castle (only you see your King)")
    assert mine.split("\n") == [
        "`Left  ` 🪑 Throne **10**",
        "`Middle` 👑 King **10**",
        "`Right ` 🪑 Throne **10**",
    ]
    theirs = field(embed, "Their castle")
    assert theirs.split("\n")[0] == f"{NAMES[1]} · 5 cards in hand"
    assert not re.search("King|Throne|👑|🪑", theirs)
    assert field(embed, "Your turn") == "Pick a card to play, then where it goes."
    # Bob's panel: his own hand and castle, never Alice's.
    bob = RENDERER.panel_embed(GAME.view(state, 1), NAMES)
    assert names_in(bob.description or "") == {"D5", "A1", "A2", "D7", "W4"}
    assert not re.search("King|Throne", field(bob, "Their castle"))
    assert field(bob, "Waiting") == f"{NAMES[0]} is to act."


def test_arrange_panel_offers_the_three_places_for_the_king() -> None:
    state = GAME.setup(2, {}, rng_for(1, "setup"))
    view = GAME.view(state, 0)
    embed = RENDERER.panel_embed(view, NAMES)
    assert "dealt once both castles are arranged" in (embed.description or "")
    assert field(embed, "Your castle (only you see your King)").startswith("Not arranged yet")
    legal = GAME.legal_actions(state, 0)
    controls = RENDERER.panel_controls(view, legal)
    assert [(c.label, c.index) for c in controls if isinstance(c, ActionButton)] == [
        ("King on the left", 0),
        ("King in the middle", 1),
        ("King on the right", 2),
    ]
    assert RENDERER.table_controls(GAME.view(state, None), legal) == []
    state, events = act(state, 0, legal[2])
    assert lines(events) == [f"{NAMES[0]} arranged their castle."]
    mine = field(
        RENDERER.panel_embed(GAME.view(state, 0), NAMES), "Your castle (only you see your King)"
    )
    assert "`Right ` 👑 King **10**" in mine
    # The table learns only that a castle was arranged.
    text = RENDERER.table_embed(GAME.view(state, None), NAMES, lines(events)).description or ""
    assert "King" not in text.replace("Siege the King", "")


def test_playing_is_two_steps_card_then_column() -> None:
    state = start(*SEED_EXAMPLE)
    view = GAME.view(state, 0)
    legal = GAME.legal_actions(state, 0)
    first = RENDERER.panel_controls(view, legal)
    assert len(first) == 1 and isinstance(first[0], StageSelect)
    assert [(c.label, c.key, c.description) for c in first[0].choices] == [
        ("Attacker 4", "A4", "Onto any of their columns"),
        ("Attacker 7", "A7", "Onto any of their columns"),
        ("Defender 1", "D1", "Onto any of your columns"),
        ("Defender 2", "D2", "Onto any of your columns"),
        ("Warrior 3", "W3", "Onto any column, yours or theirs"),
    ]
    second = RENDERER.panel_controls(view, legal, "A7")
    assert isinstance(second[-1], BackButton)
    buttons = [c for c in second if isinstance(c, ActionButton)]
    assert [b.label for b in buttons] == [
        "Attacker 7 → their left (10)",
        "Attacker 7 → their middle (10)",
        "Attacker 7 → their right (10)",
    ]
    assert all(
        legal[b.index] == {"type": "play", "card": "A7", "column": [1, i]}
        for i, b in enumerate(buttons)
    )
    warrior = RENDERER.panel_controls(view, legal, "W3")
    assert [c.label for c in warrior if isinstance(c, ActionButton)] == [
        "Warrior 3 → your left (10)",
        "Warrior 3 → your middle (10)",
        "Warrior 3 → your right (10)",
        "Warrior 3 → their left (10)",
        "Warrior 3 → their middle (10)",
        "Warrior 3 → their right (10)",
    ]
    # An unknown or stale stage shows the first step again.
    assert RENDERER.panel_controls(view, legal, "JUDGE") == first


def test_two_copies_show_once_with_a_count_and_closed_columns_are_not_offered() -> None:
    state = start([["A5", "A5", "D1", "D2", "D3"], ["A1", "A2", "D4", "D5", "D6"]], ["A6"])
    state, _ = act(state, 0, {"type": "play", "card": "A5", "column": [1, 1]})
    state, _ = act(state, 1, {"type": "play", "card": "A1", "column": [0, 0]})
    state, _ = act(state, 0, {"type": "play", "card": "A5", "column": [1, 1]})
    assert state["open"][1][1] is False  # Bob's middle Throne fell and closed
    view = GAME.view(state, 1)
    legal = GAME.legal_actions(state, 1)
    controls = RENDERER.panel_controls(view, legal)
    (menu,) = [c for c in controls if isinstance(c, StageSelect)]
    defender = next(c for c in menu.choices if c.key == "D4")
    assert defender.description == "Onto your left or right"
    staged = RENDERER.panel_controls(view, legal, "D4")
    labels = [c.label for c in staged if isinstance(c, ActionButton | BackButton)]
    assert labels == ["Defender 4 → your left (10)", "Defender 4 → your right (10)", "Back"]
    text = RENDERER.table_embed(GAME.view(state, None), NAMES, []).description or ""
    assert "`Middle` 🪑 Throne · closed" in column_lines(text, f"🏰 {NAMES[1]} ·")
    state2 = start([["A5", "A5", "D1", "D2", "D3"], ["A1", "A2", "D4", "D5", "D6"]], ["A6"])
    view2 = GAME.view(state2, 0)
    menu2 = RENDERER.panel_controls(view2, GAME.legal_actions(state2, 0))[0]
    assert isinstance(menu2, StageSelect) and menu2.choices[0].label == "Attacker 5 ×2"


def test_judge_second_step_lists_each_card_on_the_columns() -> None:
    state = start(
        [["JUDGE", "SORC", "D3", "A4", "D1"], ["A2", "A6", "D4", "D5", "D6"]], ["A1", "A3", "A5"]
    )
    state, _ = act(state, 0, {"type": "play", "card": "D3", "column": [0, 0]})
    state, _ = act(state, 1, {"type": "play", "card": "A2", "column": [0, 0]})
    view = GAME.view(state, 0)
    legal = GAME.legal_actions(state, 0)
    first = RENDERER.panel_controls(view, legal)
    (menu,) = [c for c in first if isinstance(c, StageSelect)]
    judge = next(c for c in menu.choices if c.key == "JUDGE")
    assert judge.description == "Remove one of 2 cards on the columns"
    sorcerer = next(c for c in menu.choices if c.key == "SORC")
    assert sorcerer.description == "Clear your left"
    second = RENDERER.panel_controls(view, legal, "JUDGE")
    (select,) = [c for c in second if isinstance(c, ActionSelect)]
    assert [(c.label, c.description) for c in select.choices] == [
        ("Your left: Defender 3", "bottom card of a column worth 11"),
        ("Your left: Attacker 2", "top card of a column worth 11"),
    ]
    assert [legal[c.index]["target"] for c in select.choices] == [0, 1]
    assert isinstance(second[-1], BackButton)
    # The Judge's removal, then the Sorcerer's clearing, in the table's words.
    state, events = act(state, 0, legal[select.choices[1].index])
    assert lines(events) == [
        f"⚖️ {NAMES[0]}'s Judge removed Attacker 2 from their own left column (now 13)."
    ]
    state, _ = act(state, 1, {"type": "play", "card": "A6", "column": [0, 1]})
    state, events = act(state, 0, {"type": "play", "card": "SORC", "column": [0, 1]})
    assert lines(events) == [
        f"🔮 {NAMES[0]}'s Sorcerer cleared their own middle column: one card gone, back to 10."
    ]


def test_panel_controls_offer_exactly_the_legal_actions() -> None:
    positions = 0
    for state in random_states():
        seat = GAME.to_act(state)
        if seat is None:
            continue
        view = GAME.view(state, seat)
        legal = GAME.legal_actions(state, seat)
        first = RENDERER.panel_controls(view, legal)
        offered = indices(first)
        plays = {a["card"] for a in legal if a["type"] == "play"}
        assert sorted(stage_keys(first)) == sorted(plays)
        for key in stage_keys(first):
            staged = RENDERER.panel_controls(view, legal, key)
            assert isinstance(staged[-1], BackButton)
            found = indices(staged)
            assert found and all(legal[i]["card"] == key for i in found)
            offered += found
        # Every legal action is offered exactly once, and nothing else.
        assert sorted(offered) == list(range(len(legal)))
        table = RENDERER.table_controls(GAME.view(state, None), legal)
        assert all(legal[i]["type"] == "assassinate" for i in indices(table))
        positions += 1
    assert positions > 300


def test_embeds_and_controls_fit_discord_limits() -> None:
    longest = [
        "🛠️ <@123456789012345678>'s Artisan stopped the Assassin <@876543210987654321> drew: "
        "both discarded."
    ] * 5
    for state in random_states(8):
        seat = GAME.to_act(state)
        views = [GAME.view(state, s) for s in (0, 1)]
        embeds = [RENDERER.table_embed(GAME.view(state, None), NAMES, longest)]
        embeds += [RENDERER.panel_embed(v, NAMES) for v in views]
        for embed in embeds:
            assert len(as_embed(embed)) <= 6000 and len(embed.description or "") <= 4096
            assert len(embed.title or "") <= 256 and len(embed.fields) <= 25
            assert all(
                len(f.value or "") <= 1024 and len(f.name or "") <= 256 for f in embed.fields
            )
        if seat is None:
            continue
        legal = GAME.legal_actions(state, seat)
        first = RENDERER.panel_controls(views[seat], legal)
        for controls in [first] + [
            RENDERER.panel_controls(views[seat], legal, k) for k in stage_keys(first)
        ]:
            _check_controls(controls)


def _check_controls(controls: list[Control]) -> None:
    for control in controls:
        if isinstance(control, ActionButton | BackButton):
            assert len(control.label) <= 80
        elif isinstance(control, ActionSelect | StageSelect):
            assert len(control.placeholder) <= 150
            for choice in control.choices:
                assert len(choice.label) <= 80
                assert choice.description is None or len(choice.description) <= 100
    # Laid out with the panel's Resign and link buttons, everything fits five rows.
    extra: list[discord.ui.Item[Any]] = [
        discord.ui.Button(label="Resign", custom_id="x"),
        discord.ui.Button(label="Open the table", url="https://discord.com/channels/1/2/3"),
    ]
    rows = layout(1, 1, controls, extra).to_components()
    laid = [component for row in rows for component in row["components"]]
    selects = [component for component in laid if component["type"] == 3]
    menus = [c for c in controls if isinstance(c, ActionSelect | StageSelect)]
    wanted = sum(len(c.choices) for c in menus)
    assert sum(len(s["options"]) for s in selects) == wanted, "a menu was dropped for lack of room"
    assert all(len(s["options"]) <= SELECT_MAX_OPTIONS for s in selects)
    buttons = sum(1 for c in controls if isinstance(c, ActionButton | BackButton))
    assert len(laid) == len(extra) + buttons + len(selects), "a button was dropped"
    assert len(rows) <= 5


# -- the Assassin --------------------------------------------------------------------------------


def _assassin_position() -> State:
    """Spec 10.4 up to the Assassin's draw: seat 0 must choose one of seat 1's columns."""
    state = start(
        [["A5", "D1", "D2", "D3", "D4"], ["A1", "A2", "A3", "D5", "D6"]],
        ["ASSASSIN", "A6", "D7"],
        (LEFT, MIDDLE),
    )
    state, events = act(state, 0, {"type": "play", "card": "A5", "column": [1, 0]})
    assert f"🗡️ {NAMES[0]} drew the Assassin!" in lines(events)
    assert state["phase"] == "assassinate"
    return state


def test_assassin_asks_its_drawer_for_a_column_on_the_panel_and_the_table() -> None:
    state = _assassin_position()
    legal = GAME.legal_actions(state, 0)
    view = GAME.view(state, 0)
    labels = ["Strike their left column", "Strike their middle column", "Strike their right column"]
    for controls in (
        RENDERER.panel_controls(view, legal),
        RENDERER.table_controls(GAME.view(state, None), legal),
    ):
        assert [(c.label, c.index) for c in controls if isinstance(c, ActionButton)] == [
            (label, i) for i, label in enumerate(labels)
        ]
        assert len(controls) == 3
    embed = RENDERER.panel_embed(view, NAMES)
    assert field(embed, "Your turn") == "You drew the Assassin: pick the enemy column it strikes."
    state, events = act(state, 0, legal[0])
    assert lines(events) == [
        f"🗡️ The Assassin struck {NAMES[1]}'s left column: only a Throne. "
        "The column is closed, one card discarded."
    ]
    text = RENDERER.table_embed(GAME.view(state, None), NAMES, []).description or ""
    assert column_lines(text, f"🏰 {NAMES[1]} ·")[0] == "`Left  ` 🪑 Throne · closed"


def test_assassin_finding_the_king_ends_the_game() -> None:
    state = _assassin_position()
    state, events = act(state, 0, {"type": "assassinate", "column": 1})
    assert lines(events) == [
        f"🗡️ The Assassin struck {NAMES[1]}'s middle column: {NAMES[1]}'s King was hiding there! 👑"
    ]
    result = GAME.result(state)
    assert result is not None
    assert RENDERER.result_line(result, NAMES) == (
        f"🏆 {NAMES[0]}'s Assassin found {NAMES[1]}'s King and wins!"
    )


def test_artisan_lines_for_a_judge_and_for_the_assassin() -> None:
    # Spec 10.5: the Judge is cancelled; its play gets no line of its own.
    state = start(
        [["JUDGE", "A4", "D1", "D2", "D3"], ["ARTISAN", "A1", "A2", "D4", "D6"]],
        ["D7", "A7", "D8", "A8"],
        (LEFT, RIGHT),
    )
    state, _ = act(state, 0, {"type": "play", "card": "A4", "column": [1, 2]})
    state, _ = act(state, 1, {"type": "play", "card": "D6", "column": [1, 2]})
    state, events = act(state, 0, {"type": "play", "card": "JUDGE", "column": [1, 2], "target": 1})
    assert lines(events) == [
        f"🛠️ {NAMES[1]}'s Artisan cancelled {NAMES[0]}'s Judge: both discarded."
    ]
    # The Artisan stops an Assassin drawn by the other seat.
    state = start(
        [["A5", "D1", "D2", "D3", "D4"], ["ARTISAN", "A1", "A2", "D5", "D6"]],
        ["ASSASSIN", "A6", "D7"],
    )
    state, events = act(state, 0, {"type": "play", "card": "A5", "column": [1, 0]})
    assert lines(events)[-2:] == [
        f"🗡️ {NAMES[0]} drew the Assassin!",
        f"🛠️ {NAMES[1]}'s Artisan stopped the Assassin {NAMES[0]} drew: both discarded.",
    ]
    # Discarding the Artisan is a button of the first step.
    state = start(
        [["A5", "D1", "D2", "D3", "D4"], ["ARTISAN", "A1", "A2", "D5", "D6"]], ["A6"], first=1
    )
    view = GAME.view(state, 1)
    legal = GAME.legal_actions(state, 1)
    buttons = [c for c in RENDERER.panel_controls(view, legal) if isinstance(c, ActionButton)]
    assert [b.label for b in buttons] == ["Discard the Artisan (draw a new card)"]
    assert legal[buttons[0].index] == {"type": "discard", "card": "ARTISAN"}
    state, events = act(state, 1, legal[buttons[0].index])
    assert lines(events) == [f"{NAMES[1]} discarded the Artisan."]


# -- matches and reveals -------------------------------------------------------------------------


def test_match_lines_say_what_was_cleared() -> None:
    # Spec 10.2: opposite roles, same value.
    state = start(*SEED_EXAMPLE, (LEFT, RIGHT))
    state, _ = act(state, 0, {"type": "play", "card": "D2", "column": [0, 0]})
    state, events = act(state, 1, {"type": "play", "card": "A2", "column": [0, 0]})
    assert lines(events) == [
        f"{NAMES[1]} played Attacker 2 on {NAMES[0]}'s left column (now 10).",
        f"✨ {NAMES[1]}'s Attacker 2 cancelled Defender 2: both cleared from "
        f"{NAMES[0]}'s left column (now 10).",
    ]
    # Spec 10.3: 5 = 3 + 2.
    state = start(
        [["D2", "D5", "A6", "A7", "W3"], ["A3", "A1", "D6", "D7", "W4"]], ["D4", "A8", "D8"]
    )
    state, _ = act(state, 0, {"type": "play", "card": "D2", "column": [0, 0]})
    state, _ = act(state, 1, {"type": "play", "card": "A3", "column": [0, 0]})
    state, events = act(state, 0, {"type": "play", "card": "D5", "column": [0, 0]})
    assert lines(events) == [
        f"{NAMES[0]} played Defender 5 on their own left column (now 14).",
        f"✨ {NAMES[0]}'s 5 matched 3 + 2: three cards cleared from {NAMES[0]}'s left column "
        "(now 10).",
    ]
    # A Warrior says which way it counts.
    state, events = act(state, 1, {"type": "play", "card": "W4", "column": [0, 1]})
    assert lines(events)[0] == (
        f"{NAMES[1]} played Warrior 4 on {NAMES[0]}'s middle column as an attacker (now 6)."
    )


def test_siege_reveals_a_throne_then_the_king() -> None:
    # Spec 10.6: a siege finds the King.
    state = start(
        [["A8", "A3", "D1", "D2", "D3"], ["D4", "D5", "A1", "A2", "W6"]],
        ["D6", "A6", "D7"],
        (LEFT, MIDDLE),
    )
    state, _ = act(state, 0, {"type": "play", "card": "A8", "column": [1, 1]})
    state, _ = act(state, 1, {"type": "play", "card": "A1", "column": [0, 0]})
    state, events = act(state, 0, {"type": "play", "card": "A3", "column": [1, 1]})
    assert lines(events) == [
        f"{NAMES[0]} played Attacker 3 on {NAMES[1]}'s middle column (now −1).",
        f"💥 {NAMES[1]}'s middle column fell to 0 or below: {NAMES[1]}'s King was hiding there! 👑",
    ]
    result = GAME.result(state)
    assert result is not None
    assert RENDERER.result_line(result, NAMES) == f"🏆 {NAMES[0]} found {NAMES[1]}'s King and wins!"
    view = GAME.view(state, None)
    embed = RENDERER.table_embed(view, NAMES, [])
    text = embed.description or ""
    assert text.startswith("**2 turns played**")
    assert column_lines(text, f"🏰 {NAMES[1]} ·") == [
        "`Left  ` 🪑 Throne **10**",
        "`Middle` 👑 King **−1** · −8 −3",
        "`Right ` 🪑 Throne **10**",
    ]
    assert "▶️" not in text and embed.colour == 0x2E9D5B
    # A siege on a Throne closes the column and says how many cards went.
    state = start(
        [["A8", "A3", "D1", "D2", "D3"], ["D4", "D5", "A1", "A2", "W6"]],
        ["D6", "A6", "D7"],
        (LEFT, LEFT),
    )
    state, _ = act(state, 0, {"type": "play", "card": "A8", "column": [1, 1]})
    state, _ = act(state, 1, {"type": "play", "card": "A1", "column": [0, 0]})
    state, events = act(state, 0, {"type": "play", "card": "A3", "column": [1, 1]})
    assert lines(events)[-1] == (
        f"💥 {NAMES[1]}'s middle column fell to 0 or below: only a Throne. "
        "The column is closed, two cards discarded."
    )


def test_opening_lines_and_result_lines() -> None:
    state = GAME.setup(2, {}, rng_for(3, "setup"))
    state, _ = GAME.apply(state, 0, GAME.legal_actions(state, 0)[0], rng_for(3, 0))
    state, events = GAME.apply(state, 1, GAME.legal_actions(state, 1)[0], rng_for(3, 1))
    said = lines(events)
    first = state["first"]
    assert said[0] == f"{NAMES[1]} arranged their castle."
    assert said[1].startswith(f"{NAMES[first]} goes first ({NAMES[0]} drew ")
    assert said[2] == "Five cards dealt to each player; 35 in the pile."
    assert len(said) == 3  # no line for drawing or ending a turn
    checks = {
        Result((1,), "own_king_fallen"): f"🏆 {NAMES[0]}'s own King column fell: {NAMES[1]} wins!",
        Result((0,), "resigned"): f"🏳️ {NAMES[1]} resigned; {NAMES[0]} wins.",
        Result((1,), "stalemate"): f"🤝 Stalemate: {NAMES[1]} wins on the King columns.",
        Result((), "draw"): "🤝 A draw: equal King columns and as many open columns.",
    }
    for result, line in checks.items():
        assert RENDERER.result_line(result, NAMES) == line
    compared = {
        "type": "castles_compared",
        "cause": "no_cards",
        "king_values": [7, 12],
        "open_columns": [2, 3],
    }
    assert RENDERER.event_line(compared, NAMES) == (
        f"No cards left to play: King columns compared, {NAMES[0]} 7 against {NAMES[1]} 12 "
        "(open columns 2–3)."
    )


def test_rules_document_fits_discord() -> None:
    text = (ROOT / "docs" / "rules" / "king.md").read_text(encoding="utf-8")
    assert all(len(chunk) <= 4096 for chunk in text.strip().split("\n\n"))
    pages = rules_pages("Siege the King", text)
    assert pages and all(len(p.description or "") <= 4096 for p in pages)
    assert sum(len(p) for p in pages) <= 6000 * 10
    assert "My hand" in text and "specials" in text
