"""Rule tests for Siege the King (``engine/king.py``), against ``../shared/spec/king.md``.

Situations are built by starting a stacked game and then moving named cards from the draw pile
onto columns or into hands, so every card stays accounted for. The last section plays many
seeded random games and checks the engine contract's invariants.
"""

from __future__ import annotations

import doctest
import json
import random
import re
from collections import Counter
from typing import Any

import pytest

import engine.king as king_module
from engine.king import GAME as KING
from engine.king import card_value, column_value, deck, match_check
from engine.rules import RuleError, SetupError, State, dumps, loads, rng_for

K, T = "KING", "THRONE"
ROLE = {"A": "attacker", "D": "defender"}
SPECIAL_CODES = {"JUDGE", "SORC", "ASSASSIN", "ARTISAN"}


# -- helpers ----------------------------------------------------------------------------------


def king_cards(state: State) -> list[str]:
    """Every card of the game wherever it lies: pile, hands, columns, discard, out of play,
    castle cards still in play, and an Assassin waiting for its column."""
    found = [*state["pile"], *state["hands"][0], *state["hands"][1], *state["discard"]]
    found += state["out_of_play"]
    for s in (0, 1):
        order = state["castles"][s] or [K, T, T]  # not yet arranged: still in the player's hand
        for i in range(3):
            found += state["columns"][s][i]["cards"]
            if state["open"][s][i]:
                found.append(order[i])
    if state["pending"] is not None:
        found.append(state["pending"]["card"])
    return found


def full_multiset(specials: bool) -> Counter[str]:
    return Counter(deck(specials)) + Counter({K: 2, T: 4})


def start(
    hands: tuple[list[str], list[str]] = ([], []),
    pile: list[str] | None = None,
    first: int = 0,
    orders: tuple[list[str], list[str]] = ([K, T, T], [K, T, T]),
    specials: bool = True,
    seed: int = 0,
) -> State:
    stack: dict[str, Any] = {"first": first, "hands": [list(h) for h in hands]}
    if pile is not None:
        stack["pile"] = pile
    state = KING.setup(2, {"specials": specials}, rng_for(seed, "setup"), stack)
    state, _ = KING.apply(state, 0, {"type": "arrange", "order": orders[0]}, rng_for(seed, 0))
    state, _ = KING.apply(state, 1, {"type": "arrange", "order": orders[1]}, rng_for(seed, 1))
    return state


def take(state: State, code: str) -> str:
    """Take a named card out of the draw pile. If the shuffle dealt it into a hand, that hand
    gets the lowest valued card of the pile instead (tests stack the hands they rely on)."""
    if code in state["pile"]:
        state["pile"].remove(code)
        return code
    seat = 1 if code in state["hands"][1] else 0
    spare = next(c for c in reversed(state["pile"]) if card_value(c) is not None and c != code)
    state["pile"].remove(spare)
    hand = state["hands"][seat]
    hand[hand.index(code)] = spare
    return code


def place(state: State, s: int, i: int, codes: list[str], roles: list[str] | None = None) -> None:
    """Put cards from the pile on column [s, i], bottom-up; roles default by card letter."""
    col = state["columns"][s][i]
    for n, code in enumerate(codes):
        col["cards"].append(take(state, code))
        col["roles"].append(roles[n] if roles else ROLE[code[0]])


def set_hand(state: State, seat: int, codes: list[str]) -> None:
    """Replace a seat's hand by named cards from the pile; the old hand goes under the pile."""
    old = state["hands"][seat]
    state["hands"][seat] = [take(state, c) for c in codes]
    state["pile"] += old


def set_pile_top(state: State, codes: list[str]) -> None:
    for code in codes:
        state["pile"].remove(code)
    state["pile"][0:0] = codes


def act(state: State, seat: int, action: dict[str, Any], ply: int = 7) -> tuple[State, list[Any]]:
    """Apply and check the contract on the way: input untouched, cards conserved, JSON safe."""
    before = dumps(state)
    new, events = KING.apply(state, seat, action, rng_for(11, ply))
    assert dumps(state) == before
    assert Counter(king_cards(new)) == full_multiset(new["specials"])
    assert loads(dumps(new), KING) == new
    json.dumps(events)
    return new, events


def refused(state: State, seat: int, action: dict[str, Any]) -> str:
    before = dumps(state)
    with pytest.raises(RuleError) as info:
        KING.apply(state, seat, action, rng_for(11, 0))
    assert dumps(state) == before
    return str(info.value)


def col(state: State, s: int, i: int) -> dict[str, Any]:
    summary_col: dict[str, Any] = KING.summary(state)["columns"][s][i]
    return summary_col


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def play(card: str, s: int, i: int, target: int | None = None) -> dict[str, Any]:
    action: dict[str, Any] = {"type": "play", "card": card, "column": [s, i]}
    if target is not None:
        action["target"] = target
    return action


# -- deck, options, seats ---------------------------------------------------------------------


def test_the_module_doctests_pass() -> None:
    assert doctest.testmod(king_module).failed == 0


def test_deck_with_and_without_specials() -> None:
    full = Counter(deck(True))
    assert sum(full.values()) == 45
    assert all(full[f"A{v}"] == 2 and full[f"D{v}"] == 2 for v in range(1, 9))
    assert all(full[f"W{v}"] == 1 for v in range(3, 7))
    assert (full["JUDGE"], full["SORC"], full["ASSASSIN"], full["ARTISAN"]) == (4, 3, 1, 1)
    assert Counter(deck(False)) == full - Counter(
        {"JUDGE": 4, "SORC": 3, "ASSASSIN": 1, "ARTISAN": 1}
    )
    assert K not in full and T not in full


def test_specials_option_default_and_off() -> None:
    state = KING.setup(2, {}, rng_for(1, "setup"))
    assert state["specials"] is True and len(state["pile"]) == 45
    state = KING.setup(2, {"specials": False}, rng_for(1, "setup"))
    assert len(state["pile"]) == 36 and not SPECIAL_CODES & set(state["pile"])


@pytest.mark.parametrize(
    ("seats", "options"),
    [(1, {}), (3, {}), (2, {"specials": "yes"}), (2, {"specials": 1}), (2, {"colour": True})],
)
def test_bad_seats_or_options_are_setup_errors(seats: int, options: dict[str, Any]) -> None:
    with pytest.raises(SetupError):
        KING.setup(seats, options, rng_for(1, "setup"))


@pytest.mark.parametrize(
    ("stack", "specials"),
    [
        ({"dealer": 0}, True),
        ({"first": 2}, True),
        ({"first": True}, True),
        ({"first": False}, True),
        ({"first": 1.0}, True),
        ({"first": 0.0}, True),
        ({"first": "0"}, True),
        ({"hands": None}, True),
        ({"hands": [[], None]}, True),
        ({"pile": None}, True),
        ({"first": None}, True),
        ({"pile": ["KING"]}, True),
        ({"pile": ["THRONE"]}, True),
        ({"pile": ["XB"]}, True),
        ({"pile": ["JUDGE"]}, False),
        ({"hands": [["ARTISAN"], []]}, False),
        ({"pile": ["A5", "A5", "A5"]}, True),
        ({"hands": [["W3"], ["W3"]]}, True),
        ({"pile": ["ASSASSIN", "ASSASSIN"]}, True),
        ({"hands": [["A1"]]}, True),
        ({"hands": [["A1"], [], []]}, True),
        ({"hands": "A1"}, True),
        ({"hands": ["A1", "A2"]}, True),
        ({"hands": [["A1", "A2", "A3", "A4", "A5", "A6"], []]}, True),
        ({"hands": [["ASSASSIN"], []]}, True),
        ({"pile": "A1"}, True),
        ({"pile": [5]}, True),
        ({"pile": deck(False)}, False),
    ],
)
def test_malformed_stacks_are_setup_errors(stack: dict[str, Any], specials: bool) -> None:
    with pytest.raises(SetupError):
        KING.setup(2, {"specials": specials}, rng_for(1, "setup"), stack)


def test_stacked_assassin_in_the_pile_is_allowed() -> None:
    state = start(pile=["ASSASSIN", "A6"])
    assert state["pile"][:2] == ["ASSASSIN", "A6"]


# -- arranging and the deal -------------------------------------------------------------------


def test_setup_waits_for_seat_0_to_arrange() -> None:
    state = KING.setup(2, {}, rng_for(1, "setup"))
    summary = KING.summary(state)
    assert (summary["phase"], summary["first"], summary["hand_sizes"], summary["pile"]) == (
        "arrange",
        None,
        [0, 0],
        45,
    )
    assert KING.to_act(state) == 0
    assert KING.legal_actions(state, 0) == [
        {"type": "arrange", "order": [K, T, T]},
        {"type": "arrange", "order": [T, K, T]},
        {"type": "arrange", "order": [T, T, K]},
    ]
    assert KING.legal_actions(state, 1) == []
    assert refused(state, 1, {"type": "arrange", "order": [K, T, T]}) == "It is not your turn."


@pytest.mark.parametrize(
    "order",
    [[K, K, T], [T, T, T], [K, T], [K, T, T, T], ["king", T, T], "KTT", [K, T, None]],
)
def test_arrange_needs_one_king_two_thrones(order: Any) -> None:
    state = KING.setup(2, {}, rng_for(1, "setup"))
    assert "KING" in refused(state, 0, {"type": "arrange", "order": order})


def test_seat_0_order_stays_secret_while_seat_1_arranges() -> None:
    state = KING.setup(2, {}, rng_for(1, "setup"))
    state, events = act(state, 0, {"type": "arrange", "order": [T, K, T]})
    assert events == [{"type": "castle_arranged", "seat": 0}]
    assert KING.to_act(state) == 1 and KING.summary(state)["phase"] == "arrange"
    assert KING.view(state, 0)["castle"] == [T, K, T]
    for seat in (1, None):
        text = json.dumps(KING.view(state, seat))
        assert K not in text and T not in text
    assert KING.view(state, 1)["castle"] is None
    assert "arranged" in refused(state, 1, play("A1", 0, 0))


def test_seat_1_arranging_draws_first_player_and_deals() -> None:
    state = KING.setup(2, {}, rng_for(5, "setup"))
    state, _ = act(state, 0, {"type": "arrange", "order": [K, T, T]})
    state, events = act(state, 1, {"type": "arrange", "order": [T, T, K]}, ply=1)
    assert types(events) == ["castle_arranged", "first_player_chosen", "cards_dealt"]
    chosen = events[1]
    *ties, (v0, v1) = chosen["draws"]
    assert v0 is not None and v1 is not None and v0 != v1
    assert chosen["first"] == (0 if v0 > v1 else 1)
    for a, b in ties:
        assert a is None or b is None or a == b
    summary = KING.summary(state)
    assert summary["phase"] == "play" and summary["first"] == chosen["first"]
    assert KING.to_act(state) == chosen["first"]
    assert summary["hand_sizes"] == [5, 5] and summary["pile"] == 35 and summary["turn"] == 0
    assert state["stack"] is None


def test_first_player_draw_repeats_on_ties_and_valueless_cards() -> None:
    redrawn: set[str] = set()
    for seed in range(100):
        state = KING.setup(2, {}, rng_for(seed, "setup"))
        state, _ = act(state, 0, {"type": "arrange", "order": [K, T, T]})
        _, events = KING.apply(state, 1, {"type": "arrange", "order": [K, T, T]}, rng_for(seed, 1))
        draws = events[1]["draws"]
        for a, b in draws[:-1]:
            assert a is None or b is None or a == b
            redrawn.add("special" if a is None or b is None else "tie")
        assert all(v is None or 1 <= v <= 8 for pair in draws for v in pair)
    assert redrawn == {"special", "tie"}


def test_the_assassin_never_starts_in_a_hand() -> None:
    for seed in range(150):
        state = KING.setup(2, {}, rng_for(seed, "setup"), {"first": 0})
        state, _ = act(state, 0, {"type": "arrange", "order": [K, T, T]})
        state, _ = KING.apply(state, 1, {"type": "arrange", "order": [K, T, T]}, rng_for(seed, 1))
        assert "ASSASSIN" not in state["hands"][0] + state["hands"][1]
        assert "ASSASSIN" in state["pile"]


def test_stacked_hands_are_completed_and_pile_is_on_top() -> None:
    state = start(hands=(["A1", "D1"], []), pile=["W3", "SORC"], first=1)
    assert state["hands"][0][:2] == ["A1", "D1"] and len(state["hands"][0]) == 5
    assert len(state["hands"][1]) == 5
    assert state["pile"][:2] == ["W3", "SORC"] and len(state["pile"]) == 35
    assert KING.to_act(state) == 1 and KING.summary(state)["first"] == 1


def test_the_same_seed_deals_the_same_game() -> None:
    def dealt(seed: int) -> str:
        state = KING.setup(2, {}, rng_for(seed, "setup"))
        for ply, seat in enumerate((0, 1)):
            state, _ = KING.apply(
                state, seat, {"type": "arrange", "order": [K, T, T]}, rng_for(seed, ply)
            )
        return dumps(state)

    assert dealt(3) == dealt(3)
    assert dealt(3) != dealt(4)


# -- columns, roles and values ----------------------------------------------------------------


def test_column_value_counts_defenders_up_and_attackers_down() -> None:
    column = {
        "cards": ["D3", "A5", "W4", "W6"],
        "roles": ["defender", "attacker", "defender", "attacker"],
    }
    assert column_value(column) == 10 + 3 - 5 + 4 - 6
    assert column_value(column, is_open=False) == 0


def test_attacker_goes_only_on_opponent_defender_only_on_own() -> None:
    state = start(hands=(["A5", "D5", "W4", "D2", "D3"], []))
    assert "opponent" in refused(state, 0, play("A5", 0, 0))
    assert "own" in refused(state, 0, play("D5", 1, 0))
    new, events = act(state, 0, play("A5", 1, 1))
    assert col(new, 1, 1) == {
        "open": True,
        "value": 5,
        "cards": ["A5"],
        "roles": ["attacker"],
        "castle": None,
    }
    assert events[0] == {
        "type": "card_played",
        "seat": 0,
        "card": "A5",
        "column": [1, 1],
        "role": "attacker",
        "value": 5,
    }
    new, _ = act(state, 0, play("D5", 0, 2))
    assert col(new, 0, 2)["value"] == 15 and col(new, 0, 2)["roles"] == ["defender"]


def test_warrior_defends_its_players_columns_and_attacks_the_others() -> None:
    state = start(hands=(["W4", "D1", "D2", "D3", "D4"], []))
    own, _ = act(state, 0, play("W4", 0, 0))
    assert col(own, 0, 0)["roles"] == ["defender"] and col(own, 0, 0)["value"] == 14
    opp, _ = act(state, 0, play("W4", 1, 0))
    assert col(opp, 1, 0)["roles"] == ["attacker"] and col(opp, 1, 0)["value"] == 6


def test_warrior_keeps_its_role_for_the_next_player() -> None:
    state = start(hands=(["W4", "D1", "D2", "D3", "D4"], ["A1", "A2", "A3", "D5", "D6"]))
    state, _ = act(state, 0, play("W4", 1, 0))
    state, _ = act(state, 1, play("D6", 1, 0))  # seat 1's own column: the Warrior still attacks
    assert col(state, 1, 0)["roles"] == ["attacker", "defender"]
    assert col(state, 1, 0)["value"] == 12


# -- the match check --------------------------------------------------------------------------


def test_equal_value_opposite_role_cancels_both() -> None:
    state = start(hands=(["A3", "D1", "D2", "D4", "D5"], []))
    place(state, 1, 0, ["D3"])
    new, events = act(state, 0, play("A3", 1, 0))
    assert col(new, 1, 0)["cards"] == [] and col(new, 1, 0)["value"] == 10
    assert sorted(new["discard"]) == ["A3", "D3"]
    assert events[1] == {
        "type": "cards_matched",
        "seat": 0,
        "card": "A3",
        "column": [1, 0],
        "rule": "equal",
        "removed": ["D3"],
        "value": 10,
    }


def test_equal_value_same_role_does_not_cancel() -> None:
    state = start(hands=(["A3", "D1", "D2", "D4", "D5"], []))
    place(state, 1, 0, ["A3"])
    new, events = act(state, 0, play("A3", 1, 0))
    assert col(new, 1, 0)["cards"] == ["A3", "A3"] and col(new, 1, 0)["value"] == 4
    assert "cards_matched" not in types(events) and new["discard"] == []


def test_sum_of_two_or_more_cards_below_is_removed_regardless_of_roles() -> None:
    state = start(hands=(["A6", "D1", "D2", "D4", "D5"], []))
    place(state, 1, 0, ["D8", "A1", "D2", "A3"])  # top down: A3, D2, A1, D8; 3 + 2 + 1 = 6
    new, events = act(state, 0, play("A6", 1, 0))
    assert col(new, 1, 0)["cards"] == ["D8"] and col(new, 1, 0)["value"] == 18
    assert events[1]["rule"] == "sum" and events[1]["removed"] == ["A3", "D2", "A1"]
    assert sorted(new["discard"]) == ["A1", "A3", "A6", "D2"]


def test_opposite_role_other_value_then_sum_check() -> None:
    state = start(hands=(["A5", "D1", "D2", "D4", "D6"], []))
    place(state, 1, 0, ["D2", "D3"])  # the seed's example, rolled the other way
    new, _ = act(state, 0, play("A5", 1, 0))
    assert col(new, 1, 0)["cards"] == [] and sorted(new["discard"]) == ["A5", "D2", "D3"]


def test_a_single_card_below_never_sum_matches_and_overshoot_removes_nothing() -> None:
    state = start(hands=(["A5", "D1", "D2", "D4", "D6"], []))
    place(state, 1, 0, ["D4", "A2", "D2"])  # top down 2, 2, 4: 2 + 2 = 4, + 4 = 8; never 5
    new, events = act(state, 0, play("A5", 1, 0))
    assert col(new, 1, 0)["cards"] == ["D4", "A2", "D2", "A5"]
    assert "cards_matched" not in types(events)
    state2 = start(hands=(["A5", "D1", "D2", "D4", "D6"], []))
    place(state2, 1, 0, ["D4"])
    new2, _ = act(state2, 0, play("A5", 1, 0))
    assert col(new2, 1, 0)["cards"] == ["D4", "A5"]


def test_match_check_helper_examples() -> None:
    # top down: 2, 1, 1 adds up to 4 only with all three
    assert match_check(["A1", "A1", "A2", "D4"], ["attacker"] * 3 + ["defender"]) == (3, "sum")
    assert match_check(["A3", "A1", "A2", "D3"], ["attacker"] * 3 + ["defender"]) == (2, "sum")
    assert match_check(["D4"], ["defender"]) == (0, None)
    assert match_check(["D3", "W3"], ["defender", "attacker"]) == (1, "equal")


def test_a_removal_that_drops_own_column_to_zero_closes_own_throne() -> None:
    state = start(hands=(["D5", "D1", "A2", "A4", "A6"], []))
    place(state, 0, 1, ["A8", "A4", "D2", "D3"])  # 10 - 12 + 5 = 3
    new, events = act(state, 0, play("D5", 0, 1))
    assert col(new, 0, 1) == {"open": False, "value": 0, "cards": [], "roles": [], "castle": T}
    revealed = events[2]
    assert revealed["type"] == "castle_revealed" and revealed["removed"] == ["A8", "A4"]
    assert KING.result(new) is None and KING.to_act(new) == 1


def test_a_removal_that_drops_own_king_column_loses() -> None:
    state = start(hands=(["D5", "D1", "A2", "A4", "A6"], []))
    place(state, 0, 0, ["A8", "A4", "D2", "D3"])
    new, _ = act(state, 0, play("D5", 0, 0))
    result = KING.result(new)
    assert result is not None and (result.winners, result.reason) == ((1,), "own_king_fallen")
    assert col(new, 0, 0)["value"] == -2 and col(new, 0, 0)["castle"] == K


# -- flipping castle cards --------------------------------------------------------------------


def test_reaching_exactly_zero_on_a_throne_closes_the_column() -> None:
    state = start(hands=(["A4", "D1", "D2", "D4", "D5"], ["D6", "A1", "A2", "A3", "D3"]))
    place(state, 1, 1, ["A6"])
    new, events = act(state, 0, play("A4", 1, 1))
    assert col(new, 1, 1) == {"open": False, "value": 0, "cards": [], "roles": [], "castle": T}
    assert sorted(new["discard"]) == ["A4", "A6"] and new["out_of_play"] == [T]
    assert {
        "type": "castle_revealed",
        "column": [1, 1],
        "castle": T,
        "by": 0,
        "cause": "siege",
        "removed": ["A6", "A4"],
        "closed": True,
    } in events
    assert KING.result(new) is None
    assert all(a.get("column") != [1, 1] for a in KING.legal_actions(new, 1))
    assert "closed" in refused(new, 1, play("D6", 1, 1))


def test_closed_column_refuses_every_card() -> None:
    state = start(hands=(["A4", "D1", "D2", "W3", "JUDGE"], []))
    place(state, 1, 1, ["A6"])
    state["open"][1][1] = False  # as if its Throne fell; the A6 stays for the Judge attempt
    state["revealed"][1][1] = True
    for action in (play("A4", 1, 1), play("W3", 1, 1), play("JUDGE", 1, 1, 0)):
        assert "closed" in refused(state, 0, action)


def test_revealing_the_opponents_king_wins_at_once() -> None:
    state = start(hands=(["A4", "D1", "D2", "D4", "D6"], []), pile=["D7", "D8"])
    place(state, 1, 0, ["A7"])
    new, events = act(state, 0, play("A4", 1, 0))
    result = KING.result(new)
    assert result is not None and (result.winners, result.reason) == ((0,), "king_revealed")
    assert KING.to_act(new) is None and KING.legal_actions(new, 0) == []
    summary = KING.summary(new)
    assert summary["phase"] == "over" and summary["hand_sizes"] == [4, 5] and summary["turn"] == 0
    assert [c["castle"] for c in summary["columns"][0]] == [K, T, T]
    assert "card_drawn" not in types(events) and events[-1]["type"] == "game_ended"
    assert refused(new, 1, play("D6", 1, 1)) == "The game is over."


# -- Judge and Sorcerer -----------------------------------------------------------------------


def test_judge_removes_the_target_counted_from_the_castle_up() -> None:
    state = start(hands=(["JUDGE", "D1", "D2", "D4", "D6"], []))
    place(state, 1, 2, ["A3", "D5", "A2"])
    new, events = act(state, 0, play("JUDGE", 1, 2, 1))
    assert col(new, 1, 2)["cards"] == ["A3", "A2"] and col(new, 1, 2)["value"] == 5
    assert new["discard"] == ["D5", "JUDGE"]
    assert events[1] == {
        "type": "card_removed",
        "seat": 0,
        "column": [1, 2],
        "position": 1,
        "card": "D5",
        "value": 5,
    }


def test_judge_never_triggers_the_match_check() -> None:
    state = start(hands=(["JUDGE", "D1", "D2", "D4", "D6"], []))
    place(state, 1, 2, ["D2", "A1", "A2"])  # without the A1, the A2 would sit on an equal D2
    new, events = act(state, 0, play("JUDGE", 1, 2, 1))
    assert col(new, 1, 2)["cards"] == ["D2", "A2"] and "cards_matched" not in types(events)


def test_judge_can_reveal_a_castle_card() -> None:
    state = start(hands=(["JUDGE", "D1", "D2", "D4", "D6"], []))
    place(state, 1, 0, ["A8", "D3", "A4"])  # 10 - 8 + 3 - 4 = 1; without the D3: -2
    new, _ = act(state, 0, play("JUDGE", 1, 0, 1))
    result = KING.result(new)
    assert result is not None and (result.winners, result.reason) == ((0,), "king_revealed")
    state = start(hands=(["JUDGE", "D1", "D2", "D4", "D6"], []))
    place(state, 0, 0, ["A8", "D3", "A4"])  # the same on one's own King column loses
    new, _ = act(state, 0, play("JUDGE", 0, 0, 1))
    result = KING.result(new)
    assert result is not None and (result.winners, result.reason) == ((1,), "own_king_fallen")


def test_judge_refusals() -> None:
    state = start(hands=(["JUDGE", "D1", "D2", "D4", "D6"], []))
    place(state, 1, 0, ["A2", "A3"])
    assert "empty" in refused(state, 0, play("JUDGE", 1, 1, 0))
    assert "0 to 1" in refused(state, 0, play("JUDGE", 1, 0, 2))
    assert "0 to 1" in refused(state, 0, play("JUDGE", 1, 0, -1))
    assert "target" in refused(state, 0, play("JUDGE", 1, 0))
    assert "target" in refused(state, 0, {**play("JUDGE", 1, 0), "target": True})
    assert "target" in refused(state, 0, play("D1", 0, 0, 0))


def test_sorcerer_clears_a_column_without_revealing() -> None:
    state = start(hands=(["SORC", "D1", "D2", "D4", "D6"], []))
    place(state, 0, 0, ["A8", "D1", "A2"])
    assert "at least one" in refused(state, 0, play("SORC", 1, 0))
    new, events = act(state, 0, play("SORC", 0, 0))
    assert col(new, 0, 0) == {"open": True, "value": 10, "cards": [], "roles": [], "castle": None}
    assert new["discard"] == ["A8", "D1", "A2", "SORC"]
    assert events[1]["type"] == "column_cleared" and events[1]["removed"] == ["A8", "D1", "A2"]


# -- the Artisan ------------------------------------------------------------------------------


@pytest.mark.parametrize("special", ["JUDGE", "SORC"])
def test_artisan_cancels_judge_and_sorcerer_and_its_holder_refills_first(special: str) -> None:
    state = start(hands=([special, "D1", "D2", "D4", "D6"], ["ARTISAN", "A1", "A2", "A3", "D5"]))
    place(state, 1, 0, ["A4", "D3"])
    action = play(special, 1, 0, 0 if special == "JUDGE" else None)
    new, events = act(state, 0, action)
    assert col(new, 1, 0)["cards"] == ["A4", "D3"]
    assert sorted(new["discard"]) == sorted([special, "ARTISAN"])
    assert types(events) == [
        "card_played",
        "artisan_cancelled",
        "card_drawn",
        "card_drawn",
        "turn_ended",
    ]
    assert [e["seat"] for e in events[2:4]] == [1, 0]
    assert events[1] == {"type": "artisan_cancelled", "seat": 1, "by": 0, "card": special}
    assert KING.summary(new)["hand_sizes"] == [5, 5]


def test_artisan_works_only_once() -> None:
    state = start(hands=(["JUDGE", "JUDGE", "D2", "D4", "D6"], ["ARTISAN", "A1", "A2", "A3", "D5"]))
    place(state, 1, 0, ["A4", "D3", "A1"])
    state, events = act(state, 0, play("JUDGE", 1, 0, 0))
    assert "artisan_cancelled" in types(events)
    state, _ = act(state, 1, play("A2", 0, 0))
    state, events = act(state, 0, play("JUDGE", 1, 0, 0))
    assert "artisan_cancelled" not in types(events)
    assert col(state, 1, 0)["cards"] == ["D3", "A1"]


def test_artisan_never_stops_its_own_holder() -> None:
    state = start(hands=(["JUDGE", "ARTISAN", "D2", "D4", "D6"], []))
    place(state, 1, 0, ["A4"])
    state, events = act(state, 0, play("JUDGE", 1, 0, 0))
    assert "artisan_cancelled" not in types(events) and col(state, 1, 0)["cards"] == []
    assert "ARTISAN" in state["hands"][0]


def test_artisan_is_never_played_but_may_always_be_discarded() -> None:
    state = start(hands=(["ARTISAN", "A1", "D1", "D2", "D4"], []))
    assert "discard" in refused(state, 0, play("ARTISAN", 1, 0))
    legal = KING.legal_actions(state, 0)
    assert legal[-1] == {"type": "discard", "card": "ARTISAN"}
    assert sum(a["type"] == "discard" for a in legal) == 1
    new, events = act(state, 0, {"type": "discard", "card": "ARTISAN"})
    assert new["discard"] == ["ARTISAN"] and types(events)[:2] == ["card_discarded", "card_drawn"]
    assert "no card you can play" in refused(state, 0, {"type": "discard", "card": "A1"})


# -- discarding and the legal list ------------------------------------------------------------


def test_discard_only_without_a_legal_play() -> None:
    state = start(hands=(["JUDGE", "JUDGE", "SORC", "ARTISAN", "SORC"], []))
    legal = KING.legal_actions(state, 0)
    assert legal == [
        {"type": "discard", "card": "ARTISAN"},
        {"type": "discard", "card": "JUDGE"},
        {"type": "discard", "card": "SORC"},
    ]
    new, events = act(state, 0, {"type": "discard", "card": "SORC"})
    assert new["discard"] == ["SORC"] and KING.to_act(new) == 1
    assert events[0] == {"type": "card_discarded", "seat": 0, "card": "SORC"}
    assert KING.summary(new)["turn"] == 1 and KING.summary(new)["hand_sizes"][0] == 5


def test_legal_lists_each_distinct_play_once_in_spec_order() -> None:
    state = start(hands=(["A5", "A5", "D2", "W3", "JUDGE"], ["SORC", "A1", "A2", "A3", "D5"]))
    place(state, 1, 0, ["A1", "D1"])
    place(state, 0, 2, ["A2"])
    state["open"][0][1] = False  # seat 0's middle Throne has fallen
    state["revealed"][0][1] = True
    state["out_of_play"].append(T)
    state["castles"][0] = [K, T, T]
    legal = KING.legal_actions(state, 0)
    expected = [
        *(play("A5", 1, i) for i in range(3)),
        play("D2", 0, 0),
        play("D2", 0, 2),
        *(play("W3", s, i) for s, i in [(0, 0), (0, 2), (1, 0), (1, 1), (1, 2)]),
        play("JUDGE", 0, 2, 0),
        play("JUDGE", 1, 0, 0),
        play("JUDGE", 1, 0, 1),
    ]
    assert legal == expected
    for action in legal:
        act(state, 0, action)
    sorc = KING.legal_actions({**state, "to_act": 1}, 1)
    assert [a for a in sorc if a["card"] == "SORC"] == [play("SORC", 0, 2), play("SORC", 1, 0)]


def test_only_the_seat_to_act_has_legal_actions() -> None:
    state = start()
    assert KING.legal_actions(state, 1) == []
    assert refused(state, 1, play("A1", 0, 0)) == "It is not your turn."


# -- the Assassin -----------------------------------------------------------------------------


def test_assassin_drawn_asks_the_drawer_for_a_column() -> None:
    state = start(hands=(["A5", "D1", "D2", "D3", "D4"], []), pile=["ASSASSIN", "A6"])
    new, events = act(state, 0, play("A5", 1, 0))
    assert types(events) == ["card_played", "assassin_drawn"]
    assert KING.summary(new)["phase"] == "assassinate" and KING.to_act(new) == 0
    assert KING.legal_actions(new, 0) == [{"type": "assassinate", "column": i} for i in range(3)]
    assert "Assassin" in refused(new, 0, play("D1", 0, 0))
    assert "column" in refused(new, 0, {"type": "assassinate", "column": 3})
    assert "column" in refused(new, 0, {"type": "assassinate", "column": [1, 0]})
    assert KING.summary(new)["hand_sizes"] == [4, 5]
    # no leak of the hidden order through the pending decision
    assert K not in json.dumps(KING.view(new, None))
    assert K not in json.dumps(KING.view(new, 0)["summary"])


def test_assassin_finding_the_king_wins() -> None:
    state = start(
        hands=(["A5", "D1", "D2", "D3", "D4"], []),
        pile=["ASSASSIN", "A6"],
        orders=([K, T, T], [T, T, K]),
    )
    state, _ = act(state, 0, play("A5", 1, 0))
    new, events = act(state, 0, {"type": "assassinate", "column": 2})
    result = KING.result(new)
    assert result is not None and (result.winners, result.reason) == ((0,), "assassinated")
    assert col(new, 1, 2)["castle"] == K and KING.summary(new)["hand_sizes"] == [4, 5]
    assert "ASSASSIN" in new["discard"] and "card_drawn" not in types(events)


def test_assassin_on_a_throne_closes_it_and_the_turn_goes_on() -> None:
    state = start(hands=(["A5", "D1", "D2", "D3", "D4"], []), pile=["ASSASSIN", "A6", "D7"])
    place(state, 1, 1, ["D8"])
    state, _ = act(state, 0, play("A5", 1, 1))
    new, events = act(state, 0, {"type": "assassinate", "column": 1})
    assert col(new, 1, 1) == {"open": False, "value": 0, "cards": [], "roles": [], "castle": T}
    assert sorted(new["discard"]) == ["A5", "ASSASSIN", "D8"]
    assert types(events) == ["castle_revealed", "card_drawn", "turn_ended"]
    assert "A6" in new["hands"][0] and KING.to_act(new) == 1
    assert KING.summary(new)["phase"] == "play" and KING.summary(new)["turn"] == 1


def test_assassin_drawn_out_of_turn_is_resolved_by_its_drawer() -> None:
    # Seat 0's Judge is cancelled; seat 1 refills first and draws the Assassin mid-turn.
    state = start(
        hands=(["JUDGE", "D1", "D2", "D3", "D4"], ["ARTISAN", "A1", "A2", "A3", "D5"]),
        pile=["ASSASSIN", "A6", "D7", "D8"],
        orders=([T, K, T], [K, T, T]),
    )
    place(state, 1, 0, ["A4"])
    state, events = act(state, 0, play("JUDGE", 1, 0, 0))
    assert types(events)[-1] == "assassin_drawn" and events[-1]["seat"] == 1
    assert KING.to_act(state) == 1 and KING.legal_actions(state, 0) == []
    assert refused(state, 0, {"type": "assassinate", "column": 0}) == "It is not your turn."
    state, events = act(state, 1, {"type": "assassinate", "column": 0})
    assert col(state, 0, 0)["castle"] == T and not col(state, 0, 0)["open"]
    # seat 1 draws its replacement, then seat 0 refills, then seat 0's turn ends
    assert [(e["type"], e.get("seat")) for e in events[1:]] == [
        ("card_drawn", 1),
        ("card_drawn", 0),
        ("turn_ended", 0),
    ]
    assert state["hands"][1][-1] == "A6" and "D7" in state["hands"][0]
    assert KING.to_act(state) == 1 and KING.summary(state)["turn"] == 1


def test_artisan_stops_the_assassin_and_refills_first() -> None:
    state = start(
        hands=(["A5", "D1", "D2", "D3", "D4"], ["ARTISAN", "A1", "A2", "A3", "D5"]),
        pile=["ASSASSIN", "A6", "D7"],
    )
    new, events = act(state, 0, play("A5", 1, 0))
    assert types(events) == [
        "card_played",
        "assassin_drawn",
        "artisan_cancelled",
        "card_drawn",
        "card_drawn",
        "turn_ended",
    ]
    assert events[2] == {"type": "artisan_cancelled", "seat": 1, "by": 0, "card": "ASSASSIN"}
    assert [events[3]["seat"], events[4]["seat"]] == [1, 0]
    assert "A6" in new["hands"][1] and "D7" in new["hands"][0]
    assert sorted(new["discard"]) == ["ARTISAN", "ASSASSIN"]
    assert KING.summary(new)["phase"] == "play" and KING.to_act(new) == 1


def test_assassin_against_a_single_open_column_strikes_the_king_at_once() -> None:
    state = start(
        hands=(["A5", "D1", "D2", "D3", "D4"], []), pile=["ASSASSIN"], orders=([K, T, T], [T, K, T])
    )
    for i in (0, 2):
        state["open"][1][i] = False
        state["revealed"][1][i] = True
        state["out_of_play"].append(T)
    new, events = act(state, 0, play("A5", 1, 1))
    assert "castle_revealed" in types(events)
    result = KING.result(new)
    assert result is not None and (result.winners, result.reason) == ((0,), "assassinated")


def test_assassin_during_a_turn_start_refill() -> None:
    state = start(hands=(["A5", "D1", "D2", "D3", "D4"], []), pile=["D6", "ASSASSIN", "A6"])
    state["pile"] += state["hands"][1]
    state["hands"][1] = []
    new, events = act(state, 0, play("A5", 1, 0))
    assert types(events)[-2:] == ["turn_ended", "assassin_drawn"]
    assert KING.to_act(new) == 1 and KING.summary(new)["phase"] == "assassinate"
    new, events = act(new, 1, {"type": "assassinate", "column": 1})
    assert KING.to_act(new) == 1 and KING.summary(new)["hand_sizes"][1] == 5
    assert KING.summary(new)["phase"] == "play" and KING.summary(new)["turn"] == 1


# -- drawing, reshuffles and the end of turn --------------------------------------------------


def test_empty_pile_reshuffles_the_discard_pile() -> None:
    state = start(hands=(["A5", "D1", "D2", "D3", "D4"], []))
    state["discard"], state["pile"] = state["pile"], []
    new, events = act(state, 0, play("A5", 1, 0))
    assert types(events)[1:3] == ["discard_reshuffled", "card_drawn"]
    assert events[1]["pile"] == 35
    assert KING.summary(new)["pile"] == 34 and KING.summary(new)["discard"] == []
    assert sorted(new["pile"] + new["hands"][0][-1:]) == sorted(state["discard"])


def test_no_card_to_draw_anywhere_leaves_the_hand_short() -> None:
    state = start(hands=(["A5", "D1", "D2", "D3", "D4"], []))
    state["out_of_play"] += state["pile"]  # as if lost: only this test's bookkeeping
    state["pile"] = []
    new, events = KING.apply(state, 0, play("A5", 1, 0), rng_for(1, 1))
    assert "card_drawn" not in types(events) and KING.summary(new)["hand_sizes"] == [4, 5]
    assert KING.to_act(new) == 1 and KING.result(new) is None


def test_a_seat_starting_with_no_cards_refills_first() -> None:
    pile = ["D6", "D7", "D8", "A6", "A7", "A8"]
    state = start(hands=(["A5", "D1", "D2", "D3", "D4"], []), pile=pile)
    state["pile"] += state["hands"][1]
    state["hands"][1] = []
    new, events = act(state, 0, play("A5", 1, 0))
    assert [e["seat"] for e in events if e["type"] == "card_drawn"] == [0, 1, 1, 1, 1, 1]
    assert KING.summary(new)["hand_sizes"] == [5, 5] and KING.to_act(new) == 1
    assert new["hands"][1] == pile[1:]


def close(state: State, s: int, i: int) -> None:
    """As if the Throne of column [s, i] had been revealed (its column is empty)."""
    assert state["castles"][s][i] == T and not state["columns"][s][i]["cards"]
    state["open"][s][i] = False
    state["revealed"][s][i] = True
    state["out_of_play"].append(T)


def stalemate_state(kings: tuple[int, int], closed: tuple[int, int]) -> State:
    """Seat 0 to act; seat 1 holds nothing, and nothing is left to draw."""
    state = start(hands=(["D1", "A1", "D2", "D3", "D4"], []))
    for s in (0, 1):
        delta = kings[s] - 10
        if delta:
            place(state, s, 0, [f"D{delta}" if delta > 0 else f"A{-delta}"])
        for i in range(1, 1 + closed[s]):
            close(state, s, i)
    # Bookkeeping only: the cards nobody can reach are parked with the fallen Thrones.
    state["out_of_play"] += state["pile"] + state["hands"][1]
    state["pile"], state["hands"][1] = [], []
    return state


@pytest.mark.parametrize(
    ("kings", "closed", "winners", "reason"),
    [
        ((13, 12), (0, 0), [0], "stalemate"),
        ((12, 14), (0, 0), [1], "stalemate"),
        ((12, 12), (1, 0), [1], "stalemate"),
        ((12, 12), (0, 1), [0], "stalemate"),
        ((12, 12), (1, 1), [], "draw"),
    ],
)
def test_no_cards_anywhere_ends_by_comparing_king_columns(
    kings: tuple[int, int], closed: tuple[int, int], winners: list[int], reason: str
) -> None:
    state = stalemate_state(kings, closed)
    # The D1 goes on seat 0's right-hand Throne column: King columns stay as set.
    new, events = act(state, 0, play("D1", 0, 2))
    result = KING.result(new)
    assert result is not None and (list(result.winners), result.reason) == (winners, reason)
    compared = next(e for e in events if e["type"] == "castles_compared")
    assert compared["cause"] == "no_cards" and compared["king_values"] == list(kings)
    assert compared["open_columns"] == [3 - closed[0], 3 - closed[1]]
    summary = KING.summary(new)
    assert summary["phase"] == "over" and summary["turn"] == 1 and KING.to_act(new) is None
    assert all(c["castle"] for row in summary["columns"] for c in row)


def test_turn_200_ends_by_comparison() -> None:
    state = start(hands=(["A5", "D1", "D2", "D3", "D4"], []))
    state["turn"] = 199
    place(state, 0, 0, ["D8"])
    new, events = act(state, 0, play("A5", 1, 1))
    result = KING.result(new)
    assert result is not None and (result.winners, result.reason) == ((0,), "stalemate")
    assert KING.summary(new)["turn"] == 200 and KING.to_act(new) is None
    compared = next(e for e in events if e["type"] == "castles_compared")
    assert compared == {
        "type": "castles_compared",
        "cause": "turn_limit",
        "king_values": [18, 10],
        "open_columns": [3, 3],
    }


# -- refusals, summary, views, resignation ----------------------------------------------------


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ({"type": "draw"}, "not a move"),
        ({"card": "A1"}, "not a move"),
        ({"type": "play", "card": "A1"}, "column"),
        ({"type": "play", "column": [1, 0]}, "card"),
        ({"type": "play", "card": "A1", "column": [1, 0], "extra": 1}, "extra"),
        ({"type": "play", "card": "A1", "column": [1, 3]}, "column"),
        ({"type": "play", "card": "A1", "column": [2, 0]}, "column"),
        ({"type": "play", "card": "A1", "column": [True, 0]}, "column"),
        ({"type": "play", "card": "A1", "column": 1}, "column"),
        ({"type": "play", "card": "A8", "column": [1, 0]}, "hold"),
        ({"type": "play", "card": "ASSASSIN", "column": [1, 0]}, "hold"),
        ({"type": "discard", "card": "A8"}, "hold"),
        ({"type": "arrange", "order": [K, T, T]}, "already"),
        ({"type": "assassinate", "column": 0}, "Assassin"),
    ],
)
def test_refusals_explain_themselves(action: dict[str, Any], words: str) -> None:
    state = start(hands=(["A1", "D1", "D2", "D3", "D4"], []))
    assert words in refused(state, 0, action)


def test_summary_has_exactly_the_spec_fields() -> None:
    state = start(hands=(["A2", "D1", "D2", "D3", "D4"], ["ARTISAN", "A1", "A3", "A4", "D5"]))
    state["discard"] = [take(state, c) for c in ("D6", "SORC", "JUDGE", "A5")]
    summary = KING.summary(state)
    assert list(summary) == ["phase", "turn", "first", "columns", "hand_sizes", "pile", "discard"]
    assert summary["discard"] == ["A5", "D6", "JUDGE", "SORC"]
    state["discard"] += [take(state, "A2"), take(state, "D1")]
    state["discard"].append(state["hands"][1].pop(0))  # the ARTISAN
    assert KING.summary(state)["discard"][:4] == ["A2", "A5", "ARTISAN", "D1"]  # ASCII order
    assert set(summary["columns"][0][0]) == {"open", "value", "cards", "roles", "castle"}
    assert len(summary["columns"]) == 2 and all(len(row) == 3 for row in summary["columns"])


def test_views_show_own_hand_and_castle_only() -> None:
    state = start(
        hands=(["A2", "D1", "D2", "D3", "D4"], ["A1", "A3", "A4", "D5", "D6"]),
        orders=([T, K, T], [T, T, K]),
    )
    mine = KING.view(state, 0)
    assert mine["hand"] == ["A2", "D1", "D2", "D3", "D4"] and mine["castle"] == [T, K, T]
    assert KING.view(state, 1)["castle"] == [T, T, K]
    spectator = KING.view(state, None)
    assert "hand" not in spectator and "castle" not in spectator
    text = json.dumps(spectator)
    assert K not in text and T not in text


def test_views_do_not_depend_on_what_the_viewer_cannot_see() -> None:
    state = start(
        hands=(["A2", "D1", "D2", "D3", "D4"], ["A1", "A3", "A4", "D5", "D6"]),
        orders=([T, K, T], [T, T, K]),
    )
    twin = loads(dumps(state), KING)
    twin["castles"][1] = [K, T, T]
    twin["hands"][1] = ["W3", "W4", "W5", "W6", "JUDGE"]
    twin["pile"] = list(reversed(twin["pile"]))
    assert KING.view(twin, 0) == KING.view(state, 0)
    assert KING.view(twin, None) == KING.view(state, None)
    assert KING.view(twin, 1) != KING.view(state, 1)


def test_resign_hands_the_game_to_the_other_seat() -> None:
    state = start()
    new, events = KING.resign(state, 0)
    result = KING.result(new)
    assert result is not None and (result.winners, result.reason) == ((1,), "resigned")
    assert events[0] == {"type": "resigned", "seat": 0} and KING.to_act(new) is None
    with pytest.raises(RuleError):
        KING.resign(new, 1)
    assert KING.rematch_options({"specials": False}, result) == {"specials": False}


def test_resigning_while_the_assassin_waits_keeps_every_card() -> None:
    state = start(hands=(["A5", "D1", "D2", "D3", "D4"], []), pile=["ASSASSIN"])
    state, _ = act(state, 0, play("A5", 1, 0))
    new, _ = KING.resign(state, 1)
    assert Counter(king_cards(new)) == full_multiset(True)


def test_replaying_with_rng_for_reproduces_the_state() -> None:
    def replay(seed: int) -> list[str]:
        rng = random.Random(seed)
        state = KING.setup(2, {}, rng_for(seed, "setup"))
        seen = [dumps(state)]
        ply = 0
        while KING.result(state) is None and ply < 80:
            seat = KING.to_act(state)
            assert seat is not None
            action = rng.choice(KING.legal_actions(state, seat))
            state, _ = KING.apply(state, seat, action, rng_for(seed, ply))
            seen.append(dumps(state))
            ply += 1
        return seen

    assert replay(21) == replay(21)


# -- random-play conformance ------------------------------------------------------------------

CARD_CODES = frozenset(deck(True)) | {K, T}
EVENT_TYPES = {
    "castle_arranged",
    "first_player_chosen",
    "cards_dealt",
    "card_played",
    "cards_matched",
    "card_removed",
    "column_cleared",
    "artisan_cancelled",
    "castle_revealed",
    "card_discarded",
    "discard_reshuffled",
    "card_drawn",
    "assassin_drawn",
    "turn_ended",
    "castles_compared",
    "game_ended",
}


def codes_in(value: Any) -> set[str]:
    """Every card or castle code written anywhere in a JSON-able value."""
    return set(re.findall(r'"([A-Z0-9]+)"', json.dumps(value))) & CARD_CODES


def check_views(state: State) -> None:
    """No seat (nor a spectator) sees the other hand or an unrevealed castle card."""
    over = state["phase"] == "over"
    for seat in (0, 1, None):
        view = KING.view(state, seat)
        for s in (0, 1):
            if s == seat:
                continue
            for i in range(3):
                shown = view["summary"]["columns"][s][i]["castle"]
                assert shown is None or over or state["revealed"][s][i]
        hidden_kings = sum(
            1
            for s in (0, 1)
            if s != seat and state["castles"][s] is not None
            for i in range(3)
            if state["castles"][s][i] == K and not (over or state["revealed"][s][i])
        )
        if hidden_kings and seat is None:
            assert K not in json.dumps(view)
        if seat is not None:
            assert view["hand"] == sorted(view["hand"], key=lambda c: deck(True).index(c))
            assert sorted(view["hand"]) == sorted(state["hands"][seat])
    # The information-state property: change what seat s hides; the others see no difference.
    for s in (0, 1):
        twin = json.loads(json.dumps(state))
        twin["hands"][s] = ["W6"] * len(twin["hands"][s])
        twin["pile"] = sorted(twin["pile"])
        order = twin["castles"][s]
        if order is not None and not over:
            hidden = [i for i in range(3) if not twin["revealed"][s][i]]
            if len(hidden) >= 2:
                a, b = hidden[0], hidden[1]
                order[a], order[b] = order[b], order[a]
        for viewer in (1 - s, None):
            assert KING.view(twin, viewer) == KING.view(state, viewer)


def check_events(
    public_before: set[str], summary: dict[str, Any], action: dict[str, Any], events: list[Any]
) -> None:
    """Events name only cards the table has seen: on the table before or after, the card
    played, or an Assassin or Artisan at the moment it acts. Draws never name their card."""
    public = public_before | codes_in(summary) | codes_in(action) | {"ASSASSIN", "ARTISAN"}
    for event in events:
        assert event["type"] in EVENT_TYPES
        if event["type"] == "card_drawn":
            assert set(event) == {"type", "seat", "pile"}
        if event["type"] == "castle_revealed":
            s, i = event["column"]
            assert summary["columns"][s][i]["castle"] == event["castle"]
        assert codes_in(event) <= public, event


@pytest.mark.parametrize(("specials", "games"), [(True, 300), (False, 200)])
def test_random_games_keep_the_contract(specials: bool, games: int) -> None:
    rng = random.Random(f"king-conformance-{specials}")
    reasons: Counter[str] = Counter()
    full = full_multiset(specials)
    for game in range(games):
        seed = rng.randrange(10**9)
        state = KING.setup(2, {"specials": specials}, rng_for(seed, "setup"))
        text = dumps(state)
        public = codes_in(KING.summary(state))
        ply = 0
        while KING.result(state) is None:
            assert ply < 1000, "a game must end"
            seat = KING.to_act(state)
            assert seat is not None
            legal = KING.legal_actions(state, seat)
            assert legal, "a seat to act always has something to do"
            assert len({str(a) for a in legal}) == len(legal)  # each distinct action once
            assert KING.legal_actions(state, 1 - seat) == []
            if game % 50 == 0:  # now and then, every listed action must be accepted
                for other in legal:
                    KING.apply(state, seat, other, rng_for(seed, ply))
            action = rng.choice(legal)
            new, events = KING.apply(state, seat, action, rng_for(seed, ply))
            assert dumps(state) == text, "apply must not change its input"
            text = dumps(new)
            assert loads(text, KING) == new
            assert Counter(king_cards(new)) == full
            summary = KING.summary(new)
            check_events(public, summary, action, events)
            public = codes_in(summary)
            if ply % 8 == 0 or KING.result(new) is not None:
                check_views(new)
            state = new
            ply += 1
        assert KING.legal_actions(state, 0) == KING.legal_actions(state, 1) == []
        result = KING.result(state)
        assert result is not None
        reasons[result.reason] += 1
    assert reasons["king_revealed"] > 0
    assert set(reasons) <= {"king_revealed", "assassinated", "own_king_fallen", "stalemate", "draw"}
    if specials:
        assert reasons["assassinated"] > 0
