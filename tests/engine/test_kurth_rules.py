"""Rule tests for Siege at Kurth, in-process (``engine.kurth`` imported directly, so they run
whether or not the game is in the registry).

The contract is ``/work/shared/spec/kurth.md``; section numbers below refer to it. Every table
entry, spell and special action has a test here. States are built from ``GAME.setup`` and then
arranged by :func:`position` (the current cards, markers, tracks, phase); the twelve action cards
stay accounted for. The end of the file holds the conformance :func:`kurth_checker` and the
random-playout properties: the action deck is conserved, the pile's order never shows in a view,
a summary, the legal list or an event, and every game ends.
"""

from __future__ import annotations

import doctest
import importlib
import random
import types
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.kurth
from engine.kurth import (
    CARDS,
    DECK,
    GAME,
    LOCATION_CARDS,
    LOCATIONS,
    SPECIALS,
    SPELLS,
    final_score,
    markers_removed,
    reachable,
    siege_strength,
    spirit_loss,
)
from engine.rules import Result, RuleError, SetupError, State, dumps, loads, rng_for

if TYPE_CHECKING:
    from tests.engine.test_conformance import Checker

SEED = 4321
Action = dict[str, Any]

ATTACK: Action = {"type": "attack"}
END: Action = {"type": "end_turn"}


def move(to: str) -> Action:
    return {"type": "move", "to": to}


def special(name: str) -> Action:
    return {"type": "special", "name": name}


def cast(spell: str, **fields: Any) -> Action:
    return {"type": "cast", "spell": spell, **fields}


def position(
    cards: tuple[str, str, str] = ("K1", "K2", "K3"),
    *,
    markers: Mapping[str, int] | None = None,
    location: str = "citadel",
    spirit: int = 12,
    mana: int = 6,
    phase: str = "move",
    passage_open: bool = False,
    protected: Iterable[str] = (),
    bonus_strength: int | None = None,
    bonus: int = 0,
    dice: Iterable[int] = (),
    difficulty: str = "normal",
    turn: int = 1,
) -> State:
    """A state in the middle of turn ``turn``: these current cards (their R, B and M; B may be
    overridden), the pile and discard sized for the turn, and exactly these tracks."""
    state = GAME.setup(1, {"difficulty": difficulty}, rng_for(SEED, "setup"), {"dice": list(dice)})
    rest = [c for c in DECK if c not in cards]
    in_round = (turn - 1) % 4
    current = [CARDS[c] for c in cards]
    counts = [0] * len(LOCATIONS)
    for key, count in (markers or {}).items():
        counts[LOCATIONS.index(key)] = count
    state.update(
        cards=list(cards),
        discard=rest[: 3 * in_round],
        pile=rest[3 * in_round :],
        turn=turn,
        round=(turn - 1) // 4 + 1,
        markers=counts,
        location=LOCATIONS.index(location),
        spirit=spirit,
        mana=mana,
        phase=phase,
        passage_open=passage_open,
        protected=sorted(LOCATIONS.index(p) for p in protected),
        reinforcements=sum(c.reinforcements for c in current),
        bonus_strength=sum(c.bonus for c in current) if bonus_strength is None else bonus_strength,
        mana_boost=sum(c.mana for c in current),
        placed=[{"location": "citadel", "added": 0}, {"location": "citadel", "added": 0}],
        bonus=bonus,
    )
    return state


def play(state: State, action: Action, ply: int = 0) -> State:
    """Apply an action that must be accepted (and listed); the input must stay untouched."""
    assert action in GAME.legal_actions(state, 0), f"{action} is not listed"
    before = dumps(state)
    new, _events = GAME.apply(state, 0, action, rng_for(SEED, ply))
    assert dumps(state) == before
    return new


def events_of(state: State, action: Action) -> list[dict[str, Any]]:
    _new, events = GAME.apply(state, 0, action, rng_for(SEED, 0))
    return events


def refusal(state: State, action: Any, seat: int = 0) -> str:
    """Apply an action that must be refused; return the message. Nothing may change."""
    before = dumps(state)
    with pytest.raises(RuleError) as info:
        GAME.apply(state, seat, action, rng_for(SEED, 0))
    assert dumps(state) == before
    message = str(info.value)
    assert message.strip()
    return message


def summary(state: State) -> dict[str, Any]:
    return GAME.summary(state)


def legal(state: State) -> list[Action]:
    return GAME.legal_actions(state, 0)


def kinds(state: State, kind: str) -> list[str]:
    """The listed specials (names) or casts (spell keys) or moves (destinations)."""
    field = {"special": "name", "cast": "spell", "move": "to"}[kind]
    return [a[field] for a in legal(state) if a["type"] == kind]


def markers(state: State) -> dict[str, int]:
    found: dict[str, int] = summary(state)["markers"]
    return found


def result_json(state: State) -> dict[str, Any] | None:
    result = GAME.result(state)
    return None if result is None else result.to_json()


# -- 2. Components -------------------------------------------------------------------------------


def test_eight_locations_on_four_cards_in_clockwise_order() -> None:
    assert LOCATIONS == (
        "citadel",
        "wardens_hall",
        "armory",
        "merchant_quarter",
        "main_gate",
        "temple",
        "barracks",
        "granary",
    )
    assert LOCATION_CARDS == (
        ("citadel", "wardens_hall"),
        ("armory", "merchant_quarter"),
        ("main_gate", "temple"),
        ("barracks", "granary"),
    )


SPEC_CARDS: dict[str, tuple[tuple[str, ...], int, int, int, str, str]] = {
    "K1": (("main_gate",), 2, 1, 0, "flame_lance", "forced_march"),
    "K2": (("merchant_quarter",), 1, 1, 1, "ward_of_stone", "hold_fast"),
    "K3": (("temple",), 1, 0, 2, "fates_favor", "meditate"),
    "K4": (("granary",), 1, 1, 1, "banish", "counter_march"),
    "K5": (("barracks",), 1, 2, 0, "thunderclap", "barricade"),
    "K6": (("armory",), 2, 1, 1, "mistwalk", "arcane_surge"),
    "K7": (("wardens_hall",), 1, 1, 2, "flame_lance", "hold_fast"),
    "K8": (("citadel",), 1, 0, 1, "ward_of_stone", "barricade"),
    "K9": (("main_gate", "temple"), 2, 2, 1, "thunderclap", "forced_march"),
    "K10": (("merchant_quarter", "armory"), 1, 1, 1, "mistwalk", "meditate"),
    "K11": (("barracks", "granary"), 1, 1, 1, "fates_favor", "counter_march"),
    "K12": (("wardens_hall", "main_gate"), 1, 1, 1, "banish", "arcane_surge"),
}


@pytest.mark.parametrize("code", DECK)
def test_action_card_contents(code: str) -> None:
    card = CARDS[code]
    where = tuple(LOCATIONS[i] for i in card.locations)
    got = (where, card.reinforcements, card.bonus, card.mana, card.spell, card.special)
    assert got == SPEC_CARDS[code]


def test_spell_and_special_costs_and_windows() -> None:
    assert {k: (s.cost, sorted(s.window)) for k, s in SPELLS.items()} == {
        "flame_lance": (2, ["attack"]),
        "thunderclap": (4, ["attack"]),
        "ward_of_stone": (3, ["attack", "done", "move"]),
        "mistwalk": (2, ["move"]),
        "banish": (4, ["attack"]),
        "fates_favor": (1, ["done"]),
    }
    assert {k: (s.cost, sorted(s.window)) for k, s in SPECIALS.items()} == {
        "forced_march": (1, ["move"]),
        "hold_fast": (0, ["move"]),
        "counter_march": (1, ["move"]),
        "arcane_surge": (1, ["attack", "done", "move"]),
        "barricade": (2, ["attack", "done", "move"]),
        "meditate": (1, ["attack", "done", "move"]),
    }


# -- 2. The tables, entry by entry ---------------------------------------------------------------

SIEGE_FORCE = [
    # markers, A/S, spirit lost on a failed attack
    (1, 1, 1),
    (2, 2, 1),
    (3, 2, 1),
    (4, 3, 1),
    (5, 3, 2),  # the original's own data point: 5 markers = A/S 3
    (6, 4, 2),
    (7, 4, 2),
    (8, 5, 3),
    (9, 5, 3),
    (10, 6, 3),
    (11, 6, 4),
    (12, 6, 4),
    (30, 6, 4),
]


@pytest.mark.parametrize(("count", "strength", "loss"), SIEGE_FORCE)
def test_siege_force_table_entry(count: int, strength: int, loss: int) -> None:
    assert siege_strength(count) == strength
    assert spirit_loss(count) == loss
    # In play: B = 12 makes every attack fail, so the spirit loss shows as well.
    state = position(markers={"armory": count}, bonus_strength=12, dice=[1, 2])
    state = play(state, move("armory"))
    assert summary(state)["strength"] == strength + 12
    state = play(state, ATTACK)
    roll = summary(state)["roll"]
    assert roll == {"dice": [1, 2], "bonus": 0, "total": 3, "strength": strength + 12, "won": False}
    assert summary(state)["spirit"] == 12 - loss
    assert markers(state)["armory"] == count


@pytest.mark.parametrize("count", [1, 2, 3, 4, 5, 8, 11, 20])
def test_table_strength_plus_bonus_strength_is_the_total(count: int) -> None:
    state = position(("K9", "K5", "K1"), markers={"temple": count})  # B = 2 + 2 + 1
    assert summary(state)["bonus_strength"] == 5
    state = play(state, move("armory"))
    assert summary(state)["strength"] == 0  # no markers at the Armory
    state = position(("K9", "K5", "K1"), markers={"armory": count}, dice=[6, 6])
    state = play(state, move("armory"))
    assert summary(state)["strength"] == siege_strength(count) + 5
    assert summary(play(state, ATTACK))["roll"]["strength"] == siege_strength(count) + 5


ATTACK_ROLL = [
    # total attack roll, markers removed
    (2, 1),
    (3, 1),
    (4, 1),
    (5, 1),
    (6, 2),
    (7, 2),
    (8, 3),
    (9, 3),
    (10, 4),
    (11, 4),
    (12, 5),
    (13, 5),
    (14, 5),
    (16, 5),
]


@pytest.mark.parametrize(("total", "removed"), ATTACK_ROLL)
def test_attack_roll_table_entry(total: int, removed: int) -> None:
    assert markers_removed(total) == removed
    # 10 markers (A/S 6) when the total can beat them, else 3 markers (A/S 2); B = 0.
    count = 10 if total >= 6 else 3
    dice_total = min(total, 12)
    dice = [dice_total // 2, dice_total - dice_total // 2]
    state = position(
        markers={"armory": count}, bonus_strength=0, bonus=total - dice_total, dice=dice
    )
    state = play(state, move("armory"))
    state = play(state, ATTACK)
    assert summary(state)["roll"]["total"] == total
    assert summary(state)["roll"]["won"] is True
    assert markers(state)["armory"] == count - removed
    assert summary(state)["spirit"] == 12


def test_a_won_attack_never_removes_more_markers_than_are_there() -> None:
    state = position(markers={"armory": 2}, bonus_strength=0, dice=[6, 6])
    state = play(play(state, move("armory")), ATTACK)
    assert markers(state)["armory"] == 0
    assert summary(state)["strength"] == 0


# -- 4. Setup and options ------------------------------------------------------------------------


def test_setup_runs_turn_one_upkeep() -> None:
    state = GAME.setup(1, {}, rng_for(SEED, "setup"), {"pile": ["K1", "K6", "K9"]})
    s = summary(state)
    assert s["difficulty"] == "normal" and s["overrun_limit"] == 4
    assert (s["round"], s["turn"], s["phase"], s["location"]) == (1, 1, "move", "citadel")
    assert (s["spirit"], s["mana"], s["passage_open"]) == (12, 8, False)
    assert s["cards"] == ["K1", "K6", "K9"] and s["pile"] == 9
    assert (s["reinforcements"], s["bonus_strength"], s["mana_boost"]) == (6, 4, 2)
    assert s["placed"] == [
        {"location": "main_gate", "added": 6},
        {"location": "armory", "added": 6},
    ]
    assert s["markers"]["main_gate"] == 6 and s["markers"]["armory"] == 6
    assert sum(s["markers"].values()) == 12
    assert s["protected"] == [] and s["roll"] is None and s["special_used"] is None
    assert s["spells_cast_this_turn"] == [] and s["overrun"] == 0
    assert GAME.to_act(state) == 0 and GAME.result(state) is None


@pytest.mark.parametrize(("difficulty", "limit"), [("easy", 5), ("normal", 4), ("advanced", 3)])
def test_difficulty_option(difficulty: str, limit: int) -> None:
    state = GAME.setup(1, {"difficulty": difficulty}, rng_for(SEED, "setup"))
    assert summary(state)["difficulty"] == difficulty
    assert summary(state)["overrun_limit"] == limit


def test_stacked_pile_goes_on_top_and_the_rest_is_shuffled_by_the_seed() -> None:
    named = ["K12", "K3", "K7", "K5"]
    orders = set()
    for seed in range(8):
        state = GAME.setup(1, {}, rng_for(seed, "setup"), {"pile": named})
        assert state["cards"] == named[:3]
        assert state["pile"][0] == "K5"
        assert sorted(state["cards"] + state["pile"]) == sorted(DECK)
        orders.add(tuple(state["pile"]))
    assert len(orders) > 1
    again = GAME.setup(1, {}, rng_for(3, "setup"), {"pile": named})
    assert again == GAME.setup(1, {}, rng_for(3, "setup"), {"pile": named})


@pytest.mark.parametrize(
    ("seats", "options", "stack", "named"),
    [
        (0, {}, {}, "1"),
        (2, {}, {}, "1"),
        (1, {"variant": "x"}, {}, "variant"),
        (1, {"difficulty": "hard"}, {}, "difficulty"),
        (1, {"difficulty": None}, {}, "difficulty"),
        (1, {}, {"hands": []}, "hands"),
        (1, {}, {"pile": None}, "pile"),
        (1, {}, {"pile": ["K13"]}, "K13"),
        (1, {}, {"pile": ["AS"]}, "AS"),
        (1, {}, {"pile": [1]}, "1"),
        (1, {}, {"pile": ["K1", "K2", "K1"]}, "twice"),
        (1, {}, {"dice": None}, "dice"),
        (1, {}, {"dice": [0]}, "dice"),
        (1, {}, {"dice": [7]}, "dice"),
        (1, {}, {"dice": [1.0]}, "dice"),
        (1, {}, {"dice": [True]}, "dice"),
        (1, {}, {"dice": ["3"]}, "dice"),
    ],
)
def test_setup_refuses_malformed_scripts(
    seats: int, options: dict[str, Any], stack: dict[str, Any], named: str
) -> None:
    with pytest.raises(SetupError) as info:
        GAME.setup(seats, options, rng_for(SEED, "setup"), stack)
    assert named in str(info.value)


def test_a_full_stacked_pile_fixes_round_one_only() -> None:
    order = ["K3", "K1", "K2", "K6", "K5", "K4", "K9", "K8", "K7", "K12", "K11", "K10"]
    state = GAME.setup(1, {}, rng_for(SEED, "setup"), {"pile": order})
    assert state["cards"] + state["pile"] == order


# -- 5. Decisions: phases and the legal list -------------------------------------------------------


def test_end_turn_is_never_legal_before_the_move_nor_while_an_attack_is_owed() -> None:
    state = position(markers={"armory": 3})
    assert END not in legal(state) and ATTACK not in legal(state)
    assert "move" in refusal(state, END)
    assert "Move first" in refusal(state, ATTACK)
    state = play(state, move("armory"))
    assert summary(state)["phase"] == "attack"
    assert END not in legal(state) and ATTACK in legal(state)
    assert "attack" in refusal(state, END)
    assert "already moved" in refusal(state, move("main_gate"))


def test_moving_to_an_empty_location_leaves_nothing_compulsory() -> None:
    state = play(position(), move("wardens_hall"))
    assert summary(state)["phase"] == "done"
    assert legal(state)[0] == END and ATTACK not in legal(state)
    assert "no siege markers" in refusal(state, ATTACK)


def test_end_turn_is_asked_for_even_when_it_is_the_only_legal_action() -> None:
    state = play(position(("K1", "K7", "K9")), move("armory"))
    assert legal(state) == [END]


def test_attack_once_only() -> None:
    state = position(markers={"armory": 9}, dice=[1, 1])
    state = play(play(state, move("armory")), ATTACK)
    assert summary(state)["phase"] == "done"
    assert "already attacked" in refusal(state, ATTACK)


def test_legal_order_is_moves_attack_end_specials_then_casts() -> None:
    state = position(("K6", "K8", "K2"), mana=15, markers={"armory": 2})
    assert legal(state) == [
        move("wardens_hall"),
        move("armory"),
        move("merchant_quarter"),
        special("hold_fast"),
        special("arcane_surge"),
        special("barricade"),
        *[cast("ward_of_stone", location=key) for key in LOCATIONS],
        cast("mistwalk"),
    ]


@pytest.mark.parametrize(
    "action",
    [
        {"type": "fly"},
        {"type": "move"},
        {"type": "move", "to": "atlantis"},
        {"type": "move", "to": "armory", "steps": 2},
        {"type": "move", "to": 2},
        {"type": "special", "name": "teleport"},
        {"type": "special"},
        {"type": "cast", "spell": "fireball"},
        {"type": "cast"},
        {"type": "cast", "spell": "ward_of_stone"},
        {"type": "cast", "spell": "ward_of_stone", "location": "atlantis"},
        {"type": "cast", "spell": "ward_of_stone", "location": "armory", "die": 0},
        {"type": "end_turn", "now": True},
        "move",
        None,
    ],
)
def test_malformed_actions_are_refused(action: Any) -> None:
    state = position(("K1", "K2", "K3"))
    refusal(state, action)


def test_a_die_given_as_true_or_a_float_is_not_die_one() -> None:
    state = position(("K3", "K1", "K2"), markers={"armory": 2}, dice=[1, 2])
    state = play(play(state, move("armory")), ATTACK)
    assert cast("fates_favor", die=1) in legal(state)
    refusal(state, cast("fates_favor", die=True))
    refusal(state, cast("fates_favor", die=1.0))
    refusal(state, cast("fates_favor", die=2))
    refusal(state, cast("fates_favor"))


def test_only_seat_zero_acts_and_nothing_after_the_end() -> None:
    state = position()
    assert GAME.legal_actions(state, 1) == []
    assert "not your turn" in refusal(state, move("armory"), seat=1)
    over, _ = GAME.resign(state, 0)
    assert GAME.legal_actions(over, 0) == []
    assert "over" in refusal(over, move("armory"))


def test_a_refused_action_rolls_no_die() -> None:
    state = position(("K3", "K1", "K2"), markers={"armory": 2}, dice=[1, 2, 5])
    state = play(state, move("armory"))
    refusal(state, cast("fates_favor", die=0))  # not before the attack
    assert state["dice"] == [1, 2, 5]
    state = play(state, ATTACK)
    assert summary(state)["roll"]["dice"] == [1, 2]


# -- 6.1 Upkeep ------------------------------------------------------------------------------------


def upkeep_from(
    cards: list[str],
    *,
    markers_before: Mapping[str, int] | None = None,
    protected: Iterable[str] = (),
    mana: int = 6,
) -> State:
    """The state after ending turn 1 (in the Citadel, nothing owed) when the next deal is
    ``cards``; the current cards are three others."""
    current = tuple(c for c in DECK if c not in cards)[:3]
    state = position(
        (current[0], current[1], current[2]),
        markers=markers_before,
        phase="done",
        protected=protected,
        mana=mana,
    )
    state["pile"] = [*cards, *(c for c in DECK if c not in cards and c not in current)]
    return play(state, END)


def test_upkeep_gives_the_full_r_to_card_one_and_card_two_and_none_to_card_three() -> None:
    state = upkeep_from(["K5", "K3", "K6"])  # R = 1 + 1 + 2
    s = summary(state)
    assert s["turn"] == 2 and s["reinforcements"] == 4
    assert s["markers"]["barracks"] == 4 and s["markers"]["temple"] == 4
    assert s["markers"]["armory"] == 0
    assert s["placed"] == [{"location": "barracks", "added": 4}, {"location": "temple", "added": 4}]
    assert (s["bonus_strength"], s["mana_boost"], s["mana"]) == (3, 3, 9)


def test_upkeep_same_location_twice_receives_r_twice() -> None:
    state = upkeep_from(["K1", "K9", "K2"])
    s = summary(state)
    # K1 puts R = 5 on the Main Gate; K9 then picks the Temple (0 markers against 5).
    assert s["markers"]["main_gate"] == 5 and s["markers"]["temple"] == 5
    state = upkeep_from(["K6", "K10", "K3"], markers_before={"merchant_quarter": 9})
    # K6: Armory +4; K10: Armory 4 < Merchant Quarter 9, so the Armory again.
    assert summary(state)["markers"]["armory"] == 8
    assert summary(state)["placed"] == [
        {"location": "armory", "added": 4},
        {"location": "armory", "added": 4},
    ]


def test_or_card_picks_the_location_with_fewer_markers() -> None:
    state = upkeep_from(["K12", "K3", "K2"], markers_before={"wardens_hall": 2, "main_gate": 1})
    assert summary(state)["placed"][0] == {"location": "main_gate", "added": 3}
    assert markers(state)["main_gate"] == 4 and markers(state)["wardens_hall"] == 2


def test_or_card_tie_goes_to_the_first_named_location() -> None:
    state = upkeep_from(["K11", "K3", "K2"], markers_before={"barracks": 2, "granary": 2})
    assert summary(state)["placed"][0] == {"location": "barracks", "added": 3}


def test_protected_or_choice_gets_nothing_and_the_other_location_nothing_either() -> None:
    state = upkeep_from(
        ["K10", "K3", "K2"], markers_before={"merchant_quarter": 3}, protected=["armory"]
    )
    s = summary(state)
    assert s["placed"][0] == {"location": "armory", "added": 0}
    assert s["markers"]["armory"] == 0 and s["markers"]["merchant_quarter"] == 3
    assert s["protected"] == []


def test_a_protected_location_receives_nothing_for_one_upkeep_only() -> None:
    state = upkeep_from(["K5", "K3", "K2"], protected=["barracks", "temple"])
    s = summary(state)
    assert s["placed"] == [{"location": "barracks", "added": 0}, {"location": "temple", "added": 0}]
    assert sum(s["markers"].values()) == 0 and s["protected"] == []
    state = play(play(state, move("wardens_hall")), END)
    assert summary(state)["protected"] == []


def test_mana_boost_is_capped_at_fifteen() -> None:
    state = upkeep_from(["K7", "K3", "K2"], mana=12)  # M = 2 + 2 + 1
    assert summary(state)["mana"] == 15 and summary(state)["mana_boost"] == 5


def test_upkeep_resets_the_turn_records_and_keeps_the_passage() -> None:
    state = position(("K6", "K1", "K3"), markers={"armory": 3}, dice=[4, 4])
    state = play(state, special("arcane_surge"))
    state = play(state, move("armory"))
    state = play(state, cast("flame_lance"))
    state = play(state, ATTACK)
    assert summary(state)["passage_open"] is True
    state = play(state, END)
    s = summary(state)
    assert s["phase"] == "move" and s["roll"] is None and s["special_used"] is None
    assert s["spells_cast_this_turn"] == [] and s["passage_open"] is True
    assert state["bonus"] == 0


# -- 6.2 Movement ----------------------------------------------------------------------------------

ORDINARY_MOVES = {
    "citadel": ("wardens_hall armory merchant_quarter", "barracks granary"),
    "wardens_hall": ("armory merchant_quarter main_gate", "barracks granary citadel"),
    "armory": ("merchant_quarter main_gate temple", "granary citadel wardens_hall"),
    "merchant_quarter": ("main_gate temple barracks", "armory"),
    "main_gate": ("temple barracks granary", "armory merchant_quarter"),
    "temple": ("barracks granary citadel", "armory merchant_quarter main_gate"),
    "barracks": ("granary citadel wardens_hall", "merchant_quarter main_gate temple"),
    "granary": ("citadel wardens_hall armory", "barracks"),
}


def by_index(keys: Iterable[str]) -> list[str]:
    return sorted(keys, key=LOCATIONS.index)


@pytest.mark.parametrize("start", LOCATIONS)
def test_ordinary_moves_match_the_spec_table(start: str) -> None:
    closed, extra = (words.split() for words in ORDINARY_MOVES[start])
    assert reachable(start, False) == by_index(closed)
    assert reachable(start, True) == by_index(closed + extra)
    state = position(("K2", "K3", "K8"), location=start)
    assert kinds(state, "move") == by_index(closed)
    state = position(("K2", "K3", "K8"), location=start, passage_open=True)
    assert kinds(state, "move") == by_index(closed + extra)


def test_forced_march_moves_one_to_five_clockwise() -> None:
    state = position(("K1", "K2", "K3"), location="temple")
    state = play(state, special("forced_march"))
    assert summary(state)["spirit"] == 11 and summary(state)["special_used"] == "forced_march"
    assert kinds(state, "move") == by_index(
        ["barracks", "granary", "citadel", "wardens_hall", "armory"]
    )


def test_forced_march_with_the_passage_may_end_where_it_started() -> None:
    state = position(("K1", "K2", "K3"), location="citadel", passage_open=True)
    state = play(state, special("forced_march"))
    assert "citadel" in kinds(state, "move")
    state = play(state, move("citadel"))
    assert summary(state)["location"] == "citadel" and summary(state)["passage_open"] is False


def test_counter_march_moves_one_to_three_counter_clockwise() -> None:
    state = play(position(("K4", "K2", "K3"), location="wardens_hall"), special("counter_march"))
    assert summary(state)["spirit"] == 11
    assert kinds(state, "move") == by_index(["citadel", "granary", "barracks"])
    state = position(("K4", "K2", "K3"), location="barracks", passage_open=True)
    state = play(state, special("counter_march"))
    assert kinds(state, "move") == by_index(
        ["temple", "main_gate", "merchant_quarter", "wardens_hall", "citadel", "granary"]
    )
    state = position(("K4", "K2", "K3"), location="temple", passage_open=True)
    state = play(state, special("counter_march"))
    assert kinds(state, "move") == by_index(["main_gate", "merchant_quarter", "armory", "barracks"])


def test_hold_fast_stays_put_even_with_the_passage_open() -> None:
    state = position(
        ("K2", "K1", "K3"), location="armory", passage_open=True, markers={"armory": 1}
    )
    state = play(state, special("hold_fast"))
    assert summary(state)["spirit"] == 12  # it costs nothing
    assert kinds(state, "move") == ["armory"]
    state = play(state, move("armory"))
    assert summary(state)["phase"] == "attack"
    assert summary(state)["passage_open"] is False


def test_a_move_out_of_reach_is_refused() -> None:
    state = position(("K2", "K3", "K8"), location="citadel")
    assert "cannot reach" in refusal(state, move("temple"))
    assert "cannot reach" in refusal(state, move("citadel"))


def test_every_move_removes_the_passage_marker() -> None:
    state = position(("K2", "K3", "K8"), location="citadel", passage_open=True)
    state = play(state, move("wardens_hall"))  # the hop was not used
    assert summary(state)["passage_open"] is False


# -- 6.3 The attack --------------------------------------------------------------------------------


def test_a_tie_wins_the_attack() -> None:
    state = position(markers={"armory": 4}, bonus_strength=1, dice=[1, 3])  # S = 3 + 1
    state = play(play(state, move("armory")), ATTACK)
    assert summary(state)["roll"] == {
        "dice": [1, 3],
        "bonus": 0,
        "total": 4,
        "strength": 4,
        "won": True,
    }
    assert markers(state)["armory"] == 3


def test_doubles_open_the_passage_won_or_lost() -> None:
    won = play(play(position(markers={"armory": 1}, dice=[2, 2]), move("armory")), ATTACK)
    assert summary(won)["roll"]["won"] and summary(won)["passage_open"] is True
    lost = play(
        play(position(markers={"armory": 9}, bonus_strength=5, dice=[2, 2]), move("armory")),
        ATTACK,
    )
    assert not summary(lost)["roll"]["won"] and summary(lost)["passage_open"] is True
    plain = play(play(position(markers={"armory": 1}, dice=[2, 3]), move("armory")), ATTACK)
    assert summary(plain)["passage_open"] is False


def test_doubles_let_the_next_move_use_the_passage() -> None:
    state = position(("K2", "K3", "K8"), markers={"armory": 1}, dice=[5, 5])
    state = play(play(play(state, move("armory")), ATTACK), END)
    assert "granary" in kinds(state, "move")


def test_spirit_never_drops_below_zero_and_zero_is_judged_at_phase_four() -> None:
    state = position(("K1", "K2", "K3"), spirit=1, markers={"armory": 11}, dice=[1, 1])
    state = play(play(state, move("armory")), ATTACK)  # costs 4, only 1 left to take
    s = summary(state)
    assert s["spirit"] == 0 and GAME.result(state) is None and s["phase"] == "done"
    assert state["outcome"] == {"removed": 0, "spirit_lost": 1}
    # At spirit 0 only actions costing no spirit: end_turn, Ward of Stone and Fate's Favor.
    assert legal(state) == [
        END,
        *[cast("ward_of_stone", location=key) for key in LOCATIONS],
        cast("fates_favor", die=0),
        cast("fates_favor", die=1),
    ]
    state = play(state, END)
    assert result_json(state) == {"winners": [], "reason": "spirit_broken", "scores": [0]}


# -- Spells ---------------------------------------------------------------------------------------


def test_flame_lance_adds_two_for_two_mana_in_the_attack_window_only() -> None:
    state = position(("K1", "K2", "K3"), markers={"armory": 3}, dice=[1, 1])
    assert "flame_lance" not in kinds(state, "cast")
    state = play(state, move("armory"))
    state = play(state, cast("flame_lance"))
    assert summary(state)["mana"] == 4 and summary(state)["spells_cast_this_turn"] == [
        "flame_lance"
    ]
    state = play(state, ATTACK)
    assert summary(state)["roll"]["bonus"] == 2 and summary(state)["roll"]["total"] == 4
    assert "flame_lance" not in kinds(state, "cast")
    assert "cannot be cast after your attack" in refusal(
        position(("K1", "K2", "K3"), phase="done"), cast("flame_lance")
    )


def test_thunderclap_adds_four_for_four_mana() -> None:
    state = play(position(("K5", "K2", "K3"), markers={"armory": 3}), move("armory"))
    state = play(state, cast("thunderclap"))
    assert summary(state)["mana"] == 2 and state["bonus"] == 4
    poor = play(position(("K5", "K2", "K3"), mana=3, markers={"armory": 3}), move("armory"))
    assert "thunderclap" not in kinds(poor, "cast")
    assert "costs 4 mana" in refusal(poor, cast("thunderclap"))


def test_flame_lance_and_thunderclap_with_arcane_surge_add_six() -> None:
    state = position(("K1", "K5", "K6"), mana=10, markers={"armory": 10}, dice=[3, 4])
    state = play(play(state, move("armory")), cast("thunderclap"))
    assert "flame_lance" not in kinds(state, "cast")  # the allowance is one
    assert "Arcane Surge" in refusal(state, cast("flame_lance"))
    state = play(state, special("arcane_surge"))
    state = play(state, cast("flame_lance"))
    assert summary(state)["mana"] == 4
    assert "thunderclap" not in kinds(state, "cast")
    state = play(state, ATTACK)
    assert summary(state)["roll"]["bonus"] == 6 and summary(state)["roll"]["total"] == 13


def test_no_spell_twice_in_a_turn_even_with_arcane_surge() -> None:
    state = position(("K1", "K6", "K7"), mana=10, markers={"armory": 3})
    state = play(play(play(state, special("arcane_surge")), move("armory")), cast("flame_lance"))
    assert "flame_lance" not in kinds(state, "cast")
    assert "already cast Flame Lance" in refusal(state, cast("flame_lance"))


def test_ward_of_stone_protects_a_location_for_the_next_upkeep() -> None:
    state = position(("K2", "K3", "K1"), mana=6)
    assert kinds(state, "cast") == ["ward_of_stone"] * 8
    state = play(state, cast("ward_of_stone", location="temple"))
    s = summary(state)
    assert s["mana"] == 3 and s["protected"] == ["temple"]
    assert "already cast" in refusal(state, cast("ward_of_stone", location="granary"))


def test_ward_of_stone_in_every_window_and_never_on_a_protected_location() -> None:
    for phase_state in (
        position(("K8", "K6", "K3"), mana=9, protected=["armory"]),
        position(("K8", "K6", "K3"), mana=9, protected=["armory"], phase="done"),
        play(
            position(("K8", "K6", "K3"), mana=9, protected=["armory"], markers={"armory": 2}),
            move("armory"),
        ),
    ):
        wards = [a["location"] for a in legal(phase_state) if a.get("spell") == "ward_of_stone"]
        assert wards == [key for key in LOCATIONS if key != "armory"]
        assert "already protected" in refusal(phase_state, cast("ward_of_stone", location="armory"))


def test_mistwalk_opens_the_passage_for_this_turns_move() -> None:
    state = position(("K6", "K2", "K3"), location="citadel")
    assert kinds(state, "cast") == ["ward_of_stone"] * 8 + ["mistwalk"]
    state = play(state, cast("mistwalk"))
    s = summary(state)
    assert s["passage_open"] is True and s["mana"] == 4
    assert kinds(state, "move") == by_index(
        [*ORDINARY_MOVES["citadel"][0].split(), "barracks", "granary"]
    )
    state = play(state, move("granary"))
    assert summary(state)["passage_open"] is False


def test_mistwalk_is_not_castable_while_the_passage_is_open_nor_after_the_move() -> None:
    state = position(("K6", "K2", "K3"), passage_open=True)
    assert "mistwalk" not in kinds(state, "cast")
    assert "already open" in refusal(state, cast("mistwalk"))
    state = play(position(("K6", "K2", "K3")), move("wardens_hall"))
    assert "mistwalk" not in kinds(state, "cast")


def test_banish_removes_two_markers_and_the_attack_still_follows() -> None:
    state = play(position(("K4", "K2", "K3"), markers={"armory": 5}), move("armory"))
    state = play(state, cast("banish"))
    s = summary(state)
    assert s["mana"] == 2 and s["markers"]["armory"] == 3 and s["phase"] == "attack"
    assert s["strength"] == siege_strength(3) + 2


@pytest.mark.parametrize("count", [1, 2])
def test_banish_of_the_last_markers_means_no_attack(count: int) -> None:
    state = play(position(("K12", "K2", "K3"), markers={"armory": count}), move("armory"))
    state = play(state, cast("banish"))
    s = summary(state)
    assert s["markers"]["armory"] == 0 and s["phase"] == "done" and s["roll"] is None
    assert legal(state)[0] == END
    assert "fates_favor" not in kinds(state, "cast")


def test_fates_favor_turns_a_loss_into_a_win_and_gives_the_spirit_back() -> None:
    state = position(("K3", "K6", "K2"), markers={"armory": 5}, bonus_strength=3, dice=[1, 2, 6])
    state = play(play(state, move("armory")), ATTACK)
    assert summary(state)["spirit"] == 10
    assert [a for a in legal(state) if a.get("spell") == "fates_favor"] == [
        cast("fates_favor", die=0),
        cast("fates_favor", die=1),
    ]
    state = play(state, cast("fates_favor", die=1))
    s = summary(state)
    assert s["roll"] == {"dice": [1, 6], "bonus": 0, "total": 7, "strength": 6, "won": True}
    assert s["spirit"] == 12 and s["mana"] == 5 and s["markers"]["armory"] == 3


def test_fates_favor_turns_a_win_into_a_loss_and_puts_the_markers_back() -> None:
    state = position(("K3", "K6", "K2"), markers={"armory": 5}, bonus_strength=3, dice=[4, 4, 1])
    state = play(play(state, move("armory")), ATTACK)
    assert markers(state)["armory"] == 2 and summary(state)["passage_open"] is True
    state = play(state, cast("fates_favor", die=0))
    s = summary(state)
    assert s["roll"] == {"dice": [1, 4], "bonus": 0, "total": 5, "strength": 6, "won": False}
    assert s["markers"]["armory"] == 5 and s["spirit"] == 10
    assert s["passage_open"] is False  # doubles are judged on the new dice


def test_fates_favor_gives_back_only_the_spirit_actually_taken() -> None:
    state = position(("K3", "K6", "K2"), spirit=1, markers={"armory": 9}, dice=[1, 2, 6])
    state = play(play(state, move("armory")), ATTACK)
    assert summary(state)["spirit"] == 0
    state = play(state, cast("fates_favor", die=0))  # 6 + 2 = 8 against S = 5 + 3
    s = summary(state)
    assert s["roll"]["total"] == 8 and s["roll"]["won"] is True
    assert s["spirit"] == 1


def test_fates_favor_rolling_doubles_opens_the_passage() -> None:
    state = position(("K3", "K6", "K2"), markers={"armory": 9}, dice=[1, 3, 3])
    state = play(play(state, move("armory")), ATTACK)
    state = play(state, cast("fates_favor", die=0))
    assert summary(state)["roll"]["dice"] == [3, 3] and summary(state)["passage_open"] is True


def test_fates_favor_only_after_this_turns_roll() -> None:
    state = position(("K3", "K6", "K2"), markers={"armory": 2})
    assert "fates_favor" not in kinds(state, "cast")
    state = play(state, move("armory"))
    assert "fates_favor" not in kinds(state, "cast")
    assert "cannot be cast before your attack" in refusal(state, cast("fates_favor", die=0))


def test_spells_must_be_printed_on_a_current_card() -> None:
    state = play(position(("K1", "K2", "K3"), markers={"armory": 2}), move("armory"))
    assert "not on this turn's action cards" in refusal(state, cast("banish"))


# -- Special actions ------------------------------------------------------------------------------


def test_one_special_action_a_turn() -> None:
    state = play(position(("K1", "K3", "K2")), special("meditate"))
    assert [a for a in legal(state) if a["type"] == "special"] == []
    assert "already used a special" in refusal(state, special("forced_march"))


def test_special_actions_must_be_printed_on_a_current_card() -> None:
    assert "not on this turn's action cards" in refusal(position(), special("barricade"))


def test_a_special_cost_may_not_bring_spirit_to_zero() -> None:
    state = position(("K5", "K3", "K2"), spirit=2)  # barricade 2, meditate 1, hold_fast 0
    assert kinds(state, "special") == ["hold_fast", "meditate"]
    assert "may not bring you to 0" in refusal(state, special("barricade"))
    state = position(("K5", "K3", "K2"), spirit=1)
    assert kinds(state, "special") == ["hold_fast"]


def test_arcane_surge_allows_a_second_different_spell() -> None:
    state = position(("K6", "K8", "K1"), mana=10)
    state = play(state, cast("mistwalk"))
    assert "ward_of_stone" not in kinds(state, "cast")
    state = play(state, special("arcane_surge"))
    assert summary(state)["spirit"] == 11
    state = play(state, cast("ward_of_stone", location="granary"))
    assert summary(state)["spells_cast_this_turn"] == ["mistwalk", "ward_of_stone"]
    assert kinds(state, "cast") == []
    assert "two spells" in refusal(state, cast("flame_lance"))


def test_barricade_protects_the_token_location_before_or_after_the_move() -> None:
    state = play(position(("K5", "K2", "K3"), location="temple"), special("barricade"))
    s = summary(state)
    assert s["protected"] == ["temple"] and s["spirit"] == 10
    state = play(position(("K8", "K2", "K3"), markers={"armory": 2}), move("armory"))
    state = play(state, special("barricade"))
    assert summary(state)["protected"] == ["armory"]


def test_barricade_not_on_a_protected_location_and_two_protections_at_most() -> None:
    state = position(("K8", "K2", "K3"), mana=9)
    state = play(state, cast("ward_of_stone", location="citadel"))
    assert "barricade" not in kinds(state, "special")
    assert "already protected" in refusal(state, special("barricade"))
    state = play(state, move("wardens_hall"))
    state = play(state, special("barricade"))
    assert summary(state)["protected"] == ["citadel", "wardens_hall"]


def test_meditate_gains_two_mana_up_to_fifteen_and_is_legal_at_fifteen() -> None:
    state = play(position(("K3", "K2", "K1"), mana=4), special("meditate"))
    assert summary(state)["mana"] == 6 and summary(state)["spirit"] == 11
    state = play(position(("K3", "K2", "K1"), mana=14), special("meditate"))
    assert summary(state)["mana"] == 15
    state = play(position(("K3", "K2", "K1"), mana=15), special("meditate"))
    assert summary(state)["mana"] == 15


def test_movement_specials_only_before_the_move() -> None:
    state = play(position(("K1", "K4", "K2"), markers={"armory": 1}), move("armory"))
    assert kinds(state, "special") == []
    assert "cannot be used before your attack" in refusal(state, special("forced_march"))


# -- 6.4 Phase 4 and 7 The end ----------------------------------------------------------------


@pytest.mark.parametrize(("difficulty", "limit"), [("easy", 5), ("normal", 4), ("advanced", 3)])
def test_overrun_limit_by_difficulty(difficulty: str, limit: int) -> None:
    eights = {key: 8 for key in LOCATIONS[3 : 3 + limit]}
    state = position(("K2", "K3", "K1"), markers=eights, phase="done", difficulty=difficulty)
    assert summary(state)["overrun"] == limit
    over = play(state, END)
    assert result_json(over) == {"winners": [], "reason": "overrun", "scores": [0]}
    assert summary(over)["phase"] == "over" and GAME.to_act(over) is None
    assert over["cards"] == ["K2", "K3", "K1"] and summary(over)["pile"] == 9
    fewer = dict(list(eights.items())[:-1], citadel=7)
    state = position(("K2", "K3", "K1"), markers=fewer, phase="done", difficulty=difficulty)
    assert GAME.result(play(state, END)) is None


def test_overrun_wins_over_broken_spirit() -> None:
    eights = {key: 8 for key in LOCATIONS[:4]}
    state = position(("K2", "K3", "K1"), markers=eights, phase="done", spirit=0)
    assert result_json(play(state, END)) == {"winners": [], "reason": "overrun", "scores": [0]}


def test_overrun_is_a_state_an_attack_can_save_a_location_before_end_turn() -> None:
    eights = {"citadel": 8, "temple": 8, "granary": 8, "armory": 8}
    state = position(("K2", "K3", "K1"), markers=eights, dice=[6, 6])
    assert summary(state)["overrun"] == 4
    state = play(play(state, move("armory")), ATTACK)
    assert summary(state)["overrun"] == 3
    assert GAME.result(play(state, END)) is None


def test_turn_twelve_is_won_with_the_score() -> None:
    state = position(
        ("K2", "K3", "K1"), phase="done", turn=12, spirit=7, mana=3, markers={"temple": 9}
    )
    assert summary(state)["pile"] == 0 and summary(state)["round"] == 3
    won = play(state, END)
    assert result_json(won) == {"winners": [0], "reason": "relieved", "scores": [87]}
    assert GAME.result(won) == Result((0,), "relieved", (87,))


def test_losses_are_checked_before_the_turn_twelve_win() -> None:
    state = position(("K2", "K3", "K1"), phase="done", turn=12, spirit=0)
    assert result_json(play(state, END)) == {
        "winners": [],
        "reason": "spirit_broken",
        "scores": [0],
    }


@pytest.mark.parametrize(
    ("spirit", "mana", "overrun", "score"),
    [(7, 3, 1, 87), (12, 15, 0, 151), (1, 0, 4, 18), (1, 0, 0, 26)],
)
def test_score_formula(spirit: int, mana: int, overrun: int, score: int) -> None:
    assert final_score(spirit, mana, overrun) == score


@pytest.mark.parametrize("turn", [4, 8])
def test_reshuffle_after_turns_four_and_eight_starts_a_new_round(turn: int) -> None:
    state = position(("K2", "K3", "K1"), phase="done", turn=turn)
    assert summary(state)["pile"] == 0
    rounds = set()
    for ply in range(6):
        new, events = GAME.apply(state, 0, END, rng_for(SEED, ply))
        s = summary(new)
        assert s["round"] == turn // 4 + 1 and s["turn"] == turn + 1 and s["pile"] == 9
        assert new["discard"] == []
        assert sorted(new["cards"] + new["pile"]) == sorted(DECK)
        assert {"type": "pile_reshuffled", "round": turn // 4 + 1, "pile": 12} in events
        rounds.add(tuple(new["cards"] + new["pile"]))
    assert len(rounds) > 1  # the reshuffle comes from the seed


def test_end_turn_discards_the_current_cards() -> None:
    state = position(("K2", "K3", "K1"), phase="done")
    new = play(state, END)
    assert new["discard"] == ["K2", "K3", "K1"] and summary(new)["pile"] == 6
    assert new["cards"] == state["pile"][:3]


def test_protection_set_this_turn_holds_through_the_next_upkeep() -> None:
    state = position(("K8", "K2", "K3"), phase="done", mana=9)
    state["pile"] = ["K6", "K7", "K4", *[c for c in state["pile"] if c not in ("K6", "K7", "K4")]]
    state = play(state, special("barricade"))  # the Citadel
    state = play(state, cast("ward_of_stone", location="armory"))
    assert summary(state)["protected"] == ["citadel", "armory"]
    state = play(state, END)
    s = summary(state)
    assert s["placed"] == [
        {"location": "armory", "added": 0},
        {"location": "wardens_hall", "added": 4},
    ]
    assert s["protected"] == []


def test_resignation_is_a_loss_scoring_zero() -> None:
    state = position()
    over, events = GAME.resign(state, 0)
    assert result_json(over) == {"winners": [], "reason": "resigned", "scores": [0]}
    assert events[0] == {"type": "resigned", "seat": 0}
    assert summary(over)["phase"] == "over"
    with pytest.raises(RuleError):
        GAME.resign(over, 0)
    with pytest.raises(RuleError):
        GAME.resign(state, 1)


def test_rematch_keeps_the_difficulty() -> None:
    result = Result((), "overrun", (0,))
    assert GAME.rematch_options({"difficulty": "advanced"}, result) == {"difficulty": "advanced"}


# -- 8, 9 Summary and view -----------------------------------------------------------------------

SUMMARY_FIELDS = {
    "difficulty",
    "overrun_limit",
    "round",
    "turn",
    "phase",
    "location",
    "spirit",
    "mana",
    "passage_open",
    "markers",
    "protected",
    "cards",
    "pile",
    "overrun",
    "reinforcements",
    "bonus_strength",
    "mana_boost",
    "placed",
    "strength",
    "roll",
    "spells_cast_this_turn",
    "special_used",
}


def test_summary_has_exactly_the_spec_fields() -> None:
    state = GAME.setup(1, {}, rng_for(SEED, "setup"))
    assert set(summary(state)) == SUMMARY_FIELDS
    assert list(summary(state)["markers"]) == list(LOCATIONS)


def test_view_shows_the_current_cards_in_full_and_what_is_legal() -> None:
    state = position(("K6", "K1", "K3"), mana=1)
    view = GAME.view(state, 0)
    assert view["summary"] == summary(state) and view["to_act"] == 0
    first = view["hand"][0]
    assert first == {
        "code": "K6",
        "name": "Raid on the Armory",
        "locations": ["armory"],
        "reinforcements": 2,
        "bonus_strength": 1,
        "mana_boost": 1,
        "spell": "mistwalk",
        "spell_cost": 2,
        "spell_legal": False,  # one mana is not enough
        "special": "arcane_surge",
        "special_cost": 1,
        "special_legal": True,
    }
    assert [c["special_legal"] for c in view["hand"]] == [True, True, True]
    assert GAME.view(state, None)["hand"] == view["hand"]


def test_state_round_trips_through_json() -> None:
    state = play(position(("K3", "K6", "K2"), markers={"armory": 2}, dice=[1, 1]), move("armory"))
    state = play(state, ATTACK)
    assert loads(dumps(state), GAME) == state


def test_the_quick_copy_is_a_full_copy() -> None:
    """``apply`` builds on a hand-written copy of the state: equal, and sharing no container."""
    state = play(position(("K3", "K6", "K2"), markers={"armory": 2}, dice=[1, 1]), move("armory"))
    state = play(state, ATTACK)
    over, _ = GAME.resign(state, 0)
    for original in (state, over):
        copied = engine.kurth._copy(original)
        assert copied == original

        def containers(value: Any) -> list[int]:
            if isinstance(value, dict):
                return [id(value), *(i for v in value.values() for i in containers(v))]
            if isinstance(value, list):
                return [id(value), *(i for v in value for i in containers(v))]
            return []

        assert not set(containers(copied)) & set(containers(original))


def test_doctests() -> None:
    outcome = doctest.testmod(engine.kurth, verbose=False)
    assert outcome.attempted > 0
    assert outcome.failed == 0


# -- The conformance checker and random playouts -----------------------------------------------


def kurth_conserve(state: State) -> None:
    """The twelve action cards are each in exactly one place: current, pile or discard; the pile
    deals in threes and matches the turn; the tracks stay within their bounds."""
    everything = [*state["cards"], *state["pile"], *state["discard"]]
    assert sorted(everything) == sorted(DECK), "action cards are not conserved"
    assert len(state["cards"]) == 3
    assert len(state["pile"]) % 3 == 0
    if state["result"] is None:
        assert len(state["pile"]) == 9 - 3 * ((state["turn"] - 1) % 4)
        assert state["round"] == (state["turn"] - 1) // 4 + 1
    assert all(count >= 0 for count in state["markers"])
    assert 0 <= state["spirit"] <= 12
    assert 0 <= state["mana"] <= 15
    protected = state["protected"]
    assert protected == sorted(set(protected)) and len(protected) <= 2


def kurth_secret(state: State) -> list[set[str]]:
    """Nothing is hidden from the single seat except the pile, which nobody sees."""
    return [set()]


def kurth_face_down(state: State) -> set[str]:
    """The cards in the pile: no view, summary or event may name one, so neither the pile's
    order nor its next card can show."""
    return set(state["pile"])


def kurth_rearrange_unseen(state: State, seat: int | None, rng: random.Random) -> State:
    """The same game with the pile (its order is all nobody sees) shuffled again."""
    new = loads(dumps(state), GAME)
    rng.shuffle(new["pile"])
    return new


def kurth_checker_fields() -> dict[str, Any]:
    """The conformance checker's four parts for ``kurth``. test_conformance.py wires them with
    ``CHECKERS["kurth"] = Checker(**kurth_checker_fields())``; this module imports
    test_conformance only inside functions, so that import is not circular."""
    return {
        "conserve": kurth_conserve,
        "secret": kurth_secret,
        "face_down": kurth_face_down,
        "rearrange_unseen": kurth_rearrange_unseen,
    }


def kurth_checker() -> Checker:
    """The conformance :class:`Checker` for ``kurth``."""
    from tests.engine.test_conformance import Checker

    return Checker(**kurth_checker_fields())


@pytest.fixture(scope="module")
def harness() -> types.ModuleType:
    """The conformance test's module, for its own per-step checks. Imported here rather than at
    the top (test_conformance imports this module for the checker), and by a fixture so that the
    import never runs inside a Hypothesis example."""
    return importlib.import_module("tests.engine.test_conformance")


# A turn holds at most a move, an attack, a special action, two spells and end_turn.
MOST_ACTIONS = 12 * 6


def checked_playout(
    harness: types.ModuleType, seed: int, difficulty: str, chooser: random.Random
) -> State:
    """One random game through the conformance harness's own checks at every step."""
    check_state, check_end, leaked = harness.check_state, harness.check_end, harness.leaked
    checker = kurth_checker()
    state = GAME.setup(1, {"difficulty": difficulty}, rng_for(seed, "setup"))
    copy, options = check_state(GAME, checker, state, 1, [])
    last: Action | None = None
    for ply in range(MOST_ACTIONS + 1):
        if GAME.to_act(state) is None:
            break
        assert ply < MOST_ACTIONS, "the game did not end within 12 turns"
        for action in options:  # every listed action is accepted
            GAME.apply(state, 0, action, rng_for(seed, ply))
        assert state == copy
        last = chooser.choice(options)
        before = checker.face_down(state)
        new, events = GAME.apply(state, 0, last, rng_for(seed, ply))
        assert state == copy, f"apply mutated its input ({last})"
        # Views and the legal list do not depend on the pile's order.
        other = checker.rearrange_unseen(new, 0, chooser)
        checker.conserve(other)
        assert GAME.view(other, 0) == GAME.view(new, 0)
        assert GAME.view(other, None) == GAME.view(new, None)
        assert GAME.legal_actions(other, 0) == GAME.legal_actions(new, 0)
        # No event names a card that was in the pile before or is in it after.
        assert not leaked(events, (before | checker.face_down(new)) - set(new["cards"]))
        state = new
        copy, options = check_state(GAME, checker, state, 1, events, before, last)
    check_end(GAME, state, 1, last)
    return state


@settings(max_examples=60, deadline=None, database=None)
@given(
    seed=st.integers(min_value=0, max_value=2**62),
    difficulty=st.sampled_from(["easy", "normal", "advanced"]),
    chooser=st.randoms(use_true_random=False),
)
def test_random_playouts_conserve_the_deck_hide_the_pile_and_end(
    harness: types.ModuleType, seed: int, difficulty: str, chooser: random.Random
) -> None:
    final = checked_playout(harness, seed, difficulty, chooser)
    result = GAME.result(final)
    assert result is not None
    assert result.reason in ("relieved", "overrun", "spirit_broken")
    if result.reason == "relieved":
        assert summary(final)["turn"] == 12
        assert result.scores == (
            final_score(final["spirit"], final["mana"], summary(final)["overrun"]),
        )
    else:
        assert result.winners == () and result.scores == (0,)


def test_many_seeded_playouts_reach_every_ending_and_both_reshuffles() -> None:
    reasons: set[str] = set()
    rounds: set[int] = set()
    for index in range(150):
        chooser = random.Random(index)
        # Lean on the first listed action now and then: it keeps moving and ending turns.
        difficulty = ("easy", "normal", "advanced")[index % 3]
        state = GAME.setup(1, {"difficulty": difficulty}, rng_for(index, "setup"))
        ply = 0
        while GAME.to_act(state) is not None:
            options = GAME.legal_actions(state, 0)
            pick = options[0] if chooser.random() < 0.3 else chooser.choice(options)
            state, _ = GAME.apply(state, 0, pick, rng_for(index, ply))
            kurth_conserve(state)
            ply += 1
        result = GAME.result(state)
        assert result is not None
        reasons.add(result.reason)
        rounds.add(state["round"])
    assert reasons == {"relieved", "overrun", "spirit_broken"}
    assert rounds == {2, 3}  # endings after one reshuffle and after both (round 1: example 5)


def test_the_checker_catches_a_lost_card_and_a_leaked_pile(harness: types.ModuleType) -> None:
    leaked = harness.leaked
    checker = kurth_checker()
    state = GAME.setup(1, {}, rng_for(SEED, "setup"))
    broken = loads(dumps(state), GAME)
    broken["pile"].pop()
    with pytest.raises(AssertionError):
        checker.conserve(broken)
    assert leaked({"next": state["pile"][0]}, checker.face_down(state))
    assert not leaked(GAME.view(state, 0), checker.face_down(state))
