"""Rule tests for tower poker (``towers``), one per rule of ``/work/shared/spec/towers.md`` (section
numbers below refer to it), then properties over thousands of seeded random games: chips and
cards conserved after every action, no view or event showing another seat's cards, views that
depend only on what a seat can see, and exact replays.

The four ``towers_*`` functions at the top are the conformance checker for this game (the
``Checker`` fields of ``tests/engine/test_conformance.py``); :func:`towers_checker_fields` hands
them over once the game is registered.
"""

from __future__ import annotations

import doctest
import json
import random
import string
from collections import Counter
from itertools import chain
from typing import Any

import pytest

import engine.towers
from engine.rules import RuleError, SetupError, State, dumps, loads, rng_for
from engine.towers import DECK108, GAME, IntRange

SEED = 4321
SORTED_DECK = sorted(DECK108)
Action = dict[str, Any]

CHECK: Action = {"type": "check"}
BET: Action = {"type": "bet"}
CALL: Action = {"type": "call"}
RAISE: Action = {"type": "raise"}
FOLD: Action = {"type": "fold"}
BUY: Action = {"type": "buy_flip"}
DECLINE: Action = {"type": "decline_flip"}
LEAVE: Action = {"type": "leave"}


# -- the conformance checker -----------------------------------------------------------------


def towers_public(state: State) -> set[str]:
    """Codes everyone has seen: face-up tower cards, the burned card, the hands, tower cards
    and burned card of each show of the latest action, and the tower cards and shown hands of
    the finished hands in the public record (``past_hands``: two decks, so seeing a code again
    names no one's card)."""
    public = set(state["face_up"])
    if state["burned"] is not None:
        public.add(state["burned"])
    for show in state["shows"]:
        public.update(show["face_up"])
        public.add(show["burned"])
        public.update(c for hand in show["hands"] if hand is not None for c in hand)
    for record in state.get("past_hands", []):
        public.update(record["face_up"])
        public.update(c for hand in record["hands"] if hand is not None for c in hand)
    return public


def towers_conserve(state: State) -> None:
    """All 108 cards in exactly one place, and every chip in a stack or in the pot."""
    zones = [*state["towers"], state["spire"], state["dungeon"], state["face_up"], *state["hands"]]
    found = sorted(chain.from_iterable(zones))
    assert found == SORTED_DECK, "towers cards are not conserved"
    chips = state["chips"]
    assert min(chips) >= 0, f"negative chips {chips}"
    total = sum(chips) + sum(state["in_pot"]) + state["fees"]
    assert total == state["seats"] * state["options"]["start_chips"], "chips are not conserved"


def towers_secret(state: State) -> list[set[str]]:
    """Each seat's private codes that no other seat can see a copy of (two decks: a code in my
    hand and in yours, or face up, is no secret of either)."""
    public = towers_public(state)
    hands = [set(h) for h in state["hands"]]
    return [
        hand - public - set().union(*(h for o, h in enumerate(hands) if o != s))
        for s, hand in enumerate(hands)
    ]


def towers_face_down(state: State) -> set[str]:
    """Codes nobody may see: in the towers, the spire or the dungeon and nowhere visible."""
    hidden = {c for tower in state["towers"] for c in tower}
    hidden |= set(state["spire"]) | set(state["dungeon"])
    held = {c for hand in state["hands"] for c in hand}
    return hidden - towers_public(state) - held


def towers_rearrange_unseen(state: State, seat: int | None, rng: random.Random) -> State:
    """The same state with everything ``seat`` cannot see dealt again: the other seats' cards,
    the towers' face-down cards, the spire and the dungeon (but the burned card, which everyone
    saw go there), each zone keeping its size."""
    new = loads(dumps(state), GAME)
    if new["burned"] is not None:
        new["dungeon"].remove(new["burned"])
    zones = [h for s, h in enumerate(new["hands"]) if s != seat]
    zones += [*new["towers"], new["spire"], new["dungeon"]]
    pool = [c for zone in zones for c in zone]
    rng.shuffle(pool)
    for zone in zones:
        size = len(zone)
        zone[:] = pool[:size]
        del pool[:size]
    if new["burned"] is not None:
        new["dungeon"].append(new["burned"])
    return new


def towers_checker_fields() -> dict[str, Any]:
    """The conformance checker's four parts for ``towers``, for test_conformance.py to wire as
    ``CHECKERS["towers"] = Checker(**towers_checker_fields())`` (this module does not import
    test_conformance, so the import is not circular)."""
    return {
        "conserve": towers_conserve,
        "secret": towers_secret,
        "face_down": towers_face_down,
        "rearrange_unseen": towers_rearrange_unseen,
    }


# -- helpers ---------------------------------------------------------------------------------


# Joker-free defaults, so that no joker changes the flow of a test that does not ask for one.
PLAIN_HANDS = [
    ["2S", "5H", "9D", "JC"],
    ["3S", "6H", "TD", "QC"],
    ["4S", "8H", "KD", "AC"],
    ["2H", "7D", "9S", "KC"],
]
PLAIN_TOWERS = [["7H"], ["8C"], ["9H"], ["TS"]]


def deal(
    seats: int = 2,
    *,
    dealer: int = 0,
    towers: list[list[str]] | None = None,
    hands: list[list[str]] | None = None,
    pile: list[str] | None = None,
    seed: int = SEED,
    **options: int,
) -> State:
    stack: dict[str, Any] = {
        "dealer": dealer,
        "towers": PLAIN_TOWERS if towers is None else towers,
        "hands": PLAIN_HANDS[:seats] if hands is None else hands,
    }
    if pile is not None:
        stack["pile"] = pile
    return GAME.setup(seats, options, rng_for(seed, "setup"), stack)


def play(state: State, seat: int, action: Action, ply: int = 0) -> State:
    """Apply an action that must be accepted; the input state must stay untouched."""
    return act(state, seat, action, ply)[0]


def act(state: State, seat: int, action: Action, ply: int = 0) -> tuple[State, list[Any]]:
    before = dumps(state)
    new, events = GAME.apply(state, seat, action, rng_for(SEED, ply))
    assert dumps(state) == before
    return new, events


def play_all(state: State, steps: list[tuple[int, Action]]) -> State:
    for ply, (seat, action) in enumerate(steps):
        state = play(state, seat, action, ply)
    return state


def refusal(state: State, seat: int, action: Any) -> str:
    before = dumps(state)
    with pytest.raises(RuleError) as info:
        GAME.apply(state, seat, action, rng_for(SEED, 0))
    assert dumps(state) == before
    return str(info.value)


def types(state: State) -> list[str]:
    return [a["type"] for a in GAME.legal_actions(state, state["to_act"])]


def summary(state: State) -> dict[str, Any]:
    return GAME.summary(state)


def test_doctests() -> None:
    assert doctest.testmod(engine.towers).failed == 0


# -- 3, 4: options and setup -----------------------------------------------------------------


def test_options_are_the_spec_ranges() -> None:
    ranges = {o.name: (o.default, o.choices[0], o.choices[-1]) for o in GAME.options}
    assert ranges == {
        "start_chips": (100, 1, 10000),
        "ante": (1, 0, 100),
        "tower_height": (10, 3, 10),
        "small_bet": (1, 1, 100),
        "big_bet": (2, 1, 200),
        "max_raises": (3, 0, 10),
    }
    assert all(isinstance(o, IntRange) for o in GAME.options)
    assert all(
        list(o.choices) == list(range(o.choices[0], o.choices[-1] + 1)) for o in GAME.options
    )


def test_setup_reaches_the_first_decision_of_hand_one() -> None:
    state = deal(3, dealer=1)
    s = summary(state)
    assert (s["phase"], s["hand_no"], s["dealer"], state["to_act"]) == ("betting", 1, 1, 2)
    assert s["chips"] == [99, 99, 99] and s["pot"] == 3 and s["in_pot"] == [1, 1, 1]
    assert s["towers"] == [9, 10, 10, 10] and len(s["face_up"]) == 1
    assert [len(h) for h in state["hands"]] == [4, 4, 4]
    assert s["burned"] is not None and s["dungeon"] == 1
    assert s["spire"] == 108 - 40 - 12 - 1
    assert s["next_flip_cost"] == 1 and s["bet_size"] == 1 and s["jokers_from_towers"] == 0
    towers_conserve(state)


def test_the_first_dealer_is_random_by_seed() -> None:
    dealers = {GAME.setup(4, {}, rng_for(seed, "setup"))["dealer"] for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    again = GAME.setup(4, {}, rng_for(3, "setup"))
    assert dumps(again) == dumps(GAME.setup(4, {}, rng_for(3, "setup")))


def test_the_stack_fixes_towers_hands_and_pile() -> None:
    state = deal(
        2,
        dealer=1,
        towers=[["KH", "4D"], ["5C"], [], ["XR"]],
        hands=[["KS"], ["QS", "QD", "QH", "3C"]],
        pile=["9S", "XB"],
        tower_height=5,
    )
    assert state["face_up"] == ["KH"] and state["burned"] == "9S"
    assert state["towers"][0][0] == "4D" and state["towers"][1][0] == "5C"
    assert state["towers"][3][0] == "XR" and [len(t) for t in state["towers"]] == [4, 5, 5, 5]
    assert state["hands"][0][0] == "KS" and state["hands"][1] == ["QS", "QD", "QH", "3C"]
    assert state["spire"][0] == "XB"
    towers_conserve(state)


@pytest.mark.parametrize(
    ("seats", "options", "stack", "words"),
    [
        (1, {}, {}, "2 to 7"),
        (8, {}, {}, "2 to 7"),
        (2, {"colour": 1}, {}, "Unknown option"),
        (2, {"start_chips": 0}, {}, "from 1 to 10000"),
        (2, {"start_chips": 10001}, {}, "from 1 to 10000"),
        (2, {"ante": 101}, {}, "from 0 to 100"),
        (2, {"tower_height": 2}, {}, "from 3 to 10"),
        (2, {"small_bet": 1.0}, {}, "whole number"),
        (2, {"max_raises": True}, {}, "whole number"),
        (2, {"big_bet": 201}, {}, "from 1 to 200"),
        (2, {"small_bet": 5, "big_bet": 4}, {}, "at least 'small_bet'"),
        (2, {}, {"first": 0}, "Unknown stack key"),
        (2, {}, {"dealer": 2}, "whole number 0 or 1"),
        (2, {}, {"pile": ["ZZ"]}, "not a card"),
        (2, {}, {"pile": ["XB", "XB", "XB"]}, "names XB 3 times"),
        (2, {}, {"towers": [["AS"], ["AS"], ["AS"], []]}, "names AS 3 times"),
        (2, {}, {"towers": [[], [], []]}, "exactly 4 lists"),
        (2, {}, {"towers": [[], [], [], "AS"]}, "exactly 4 lists"),
        (2, {"tower_height": 3}, {"towers": [["AS", "2S", "3S", "4S"], [], [], []]}, "at most 3"),
        (2, {}, {"hands": [["AS"]]}, "exactly 2 lists"),
        (2, {}, {"hands": [["AS", "2S", "3S", "4S", "5S"], []]}, "at most 4"),
        (2, {}, {"pile": [c for c in DECK108][:61]}, "at most 60"),
    ],
)
def test_malformed_setups(
    seats: int, options: dict[str, Any], stack: dict[str, Any], words: str
) -> None:
    with pytest.raises(SetupError) as info:
        GAME.setup(seats, options, rng_for(1, "setup"), stack)
    assert words in str(info.value)


# -- 5.1 and 6.3: betting ----------------------------------------------------------------------


def test_opening_choices_left_of_the_dealer() -> None:
    state = deal(3, dealer=2)
    assert state["to_act"] == 0
    assert types(state) == ["check", "bet", "leave"]
    assert GAME.legal_actions(state, 1) == []
    assert refusal(state, 1, CHECK) == "It is not your turn."


def test_bet_call_raise_amounts_and_the_raise_cap() -> None:
    state = deal(2, dealer=0, max_raises=2, small_bet=3, big_bet=3)
    state = play(state, 1, BET)
    s = summary(state)
    assert s["round_bets"] == [0, 3] and s["to_call"] == 3 and s["chips"] == [99, 96]
    assert types(state) == ["call", "raise", "fold", "leave"]
    state = play(state, 0, RAISE)
    assert summary(state)["round_bets"] == [6, 3] and summary(state)["raises"] == 1
    state = play(state, 1, RAISE)
    assert summary(state)["round_bets"] == [6, 9] and summary(state)["raises"] == 2
    assert types(state) == ["call", "fold", "leave"]
    assert "No more raises" in refusal(state, 0, RAISE)
    state = play(state, 0, CALL)
    s = summary(state)
    assert s["phase"] == "flip_offer" and s["in_pot"] == [10, 10] and s["pot"] == 20
    assert s["round_bets"] == [0, 0] and s["raises"] == 0 and s["to_call"] == 0


def test_refused_betting_actions_say_why() -> None:
    state = deal(2, dealer=0)
    assert "no bet to call" in refusal(state, 1, CALL)
    assert "no bet to fold" in refusal(state, 1, FOLD)
    assert "no bet to raise" in refusal(state, 1, RAISE)
    state = play(state, 1, BET)
    assert "bet of 1 to call" in refusal(state, 0, CHECK)
    assert "already bet" in refusal(state, 0, BET)
    assert "cannot buy flip now" in refusal(state, 0, BUY)


def test_a_check_round_ends_when_everyone_has_acted() -> None:
    state = deal(3, dealer=0)
    state = play_all(state, [(1, CHECK), (2, CHECK)])
    assert state["to_act"] == 0 and state["phase"] == "betting"
    state = play(state, 0, CHECK)
    assert state["phase"] == "flip_offer" and state["to_act"] == 1


def test_a_bet_reopens_the_action_for_seats_that_checked() -> None:
    state = deal(3, dealer=0)
    state = play_all(state, [(1, CHECK), (2, BET)])
    assert state["to_act"] == 0
    state = play(state, 0, CALL)
    assert state["to_act"] == 1 and summary(state)["to_call"] == 1
    state = play(state, 1, RAISE)
    assert state["to_act"] == 2
    state = play_all(state, [(2, CALL), (0, CALL)])
    assert state["phase"] == "flip_offer"
    assert summary(state)["in_pot"] == [3, 3, 3]


def test_fold_only_facing_a_bet_and_the_last_seat_takes_the_pot_unseen() -> None:
    state = deal(2, dealer=0)
    state = play(state, 1, BET)
    state, events = act(state, 0, FOLD)
    assert state["hand_no"] == 2
    assert summary(state)["last_hand"] == {
        "hand_no": 1,
        "winners": [1],
        "payouts": [0, 3],
        "categories": [None, None],
    }
    assert not [e for e in events if e["type"] == "shown"]
    assert summary(state)["chips"] == [98, 100]  # after hand 2's antes


def test_a_bet_or_raise_needs_the_full_amount_and_a_short_call_is_all_in() -> None:
    state = deal(2, dealer=0, small_bet=5, big_bet=5)
    state["chips"] = [3, 99]
    assert "bet" in types(state) and "raise" not in types(play(state, 1, BET))
    state = play(state, 1, BET)
    assert types(state) == ["call", "fold", "leave"]
    state, events = act(state, 0, CALL)
    assert events[0] == {"type": "called", "seat": 0, "amount": 3, "all_in": True}
    state = deal(2, dealer=0, small_bet=5, big_bet=5)
    state["chips"] = [99, 4]
    assert types(state) == ["check", "leave"]
    assert "need 5 chips" in refusal(state, 1, BET)


def test_no_bet_or_raise_when_no_other_seat_in_the_hand_has_chips() -> None:
    state = deal(3, dealer=0)
    state["chips"] = [5, 1, 0]
    state = play(state, 1, BET)  # all-in with its last chip; seat 2 (no chips) is skipped
    assert state["to_act"] == 0
    assert types(state) == ["call", "fold", "leave"]
    assert "no other player" in refusal(state, 0, RAISE)


def test_all_in_seats_are_skipped_and_a_round_with_one_seat_with_chips_is_skipped() -> None:
    state = deal(3, dealer=0)
    state["chips"] = [5, 1, 20]
    state = play_all(state, [(1, BET), (2, CALL), (0, CALL)])
    assert state["phase"] == "flip_offer" and state["offer"] == [0]
    assert state["to_act"] == 2  # seat 1 (no chips) is not offered the flip
    state["chips"][0] = 0  # only seat 2 would still have chips
    state = play(state, 2, BUY)
    # The betting round after the flip is skipped (one seat with chips): next offer, fee 5.
    assert state["phase"] == "flip_offer" and state["to_act"] == 2
    assert summary(state)["next_flip_cost"] == 5


def test_the_bet_size_is_big_once_three_tower_cards_are_up() -> None:
    state = deal(2, dealer=0, big_bet=4)
    state = play_all(state, [(1, CHECK), (0, CHECK), (1, BUY), (1, CHECK), (0, CHECK)])
    assert summary(state)["bet_size"] == 1
    state = play(state, 1, BUY)
    assert len(state["face_up"]) == 3 and summary(state)["bet_size"] == 4
    state = play(state, 1, BET)
    assert summary(state)["round_bets"] == [0, 4]


# -- 5.2 and 6.1, 6.2: flips -------------------------------------------------------------------


def test_the_offer_goes_left_of_the_dealer_to_seats_that_can_pay() -> None:
    state = deal(4, dealer=1)
    state = play_all(state, [(2, CHECK), (3, CHECK), (0, CHECK)])
    state["chips"][3] = 0  # cannot pay: never asked (set before the offer starts)
    state = play(state, 1, CHECK)
    assert state["phase"] == "flip_offer"
    assert state["to_act"] == 2 and state["offer"] == [0, 1]
    assert types(state) == ["buy_flip", "decline_flip", "leave"]
    state = play(state, 2, DECLINE)
    assert state["to_act"] == 0
    state = play(state, 0, DECLINE)
    assert state["to_act"] == 1
    state = play(state, 1, BUY)
    assert state["phase"] == "betting" and state["to_act"] == 2 and len(state["face_up"]) == 2


def test_flip_fees_1_5_10_towers_in_order_then_the_show() -> None:
    state = deal(2, dealer=0, start_chips=50)
    steps = [(1, CHECK), (0, CHECK), (1, BUY), (1, CHECK), (0, CHECK), (1, DECLINE), (0, BUY)]
    steps += [(1, CHECK), (0, CHECK), (1, BUY), (1, CHECK)]
    state = play_all(state, steps)
    s = summary(state)
    assert s["fees"] == 16 and s["pot"] == 18 and s["towers"] == [9, 9, 9, 9]
    assert s["chips"] == [49 - 5, 49 - 11] and s["next_flip_cost"] is None
    state = play(state, 0, CHECK)  # no fifth flip: the show
    assert state["hand_no"] == 2 and summary(state)["last_hand"]["hand_no"] == 1


def test_an_empty_tower_is_skipped_and_the_fee_follows_the_flip_number() -> None:
    state = deal(2, dealer=0, towers=[["2C"], [], ["9S"], []])
    state["dungeon"] += state["towers"][1]
    state["towers"][1] = []
    state = play_all(state, [(1, CHECK), (0, CHECK)])
    assert summary(state)["next_flip_cost"] == 1
    state = play(state, 1, BUY)
    assert state["face_up"] == ["2C", "9S"] and state["tower_used"] == [True, False, True, False]


def test_no_offer_when_nobody_can_pay_the_fee() -> None:
    state = deal(2, dealer=0, start_chips=2)
    state = play_all(state, [(1, BET), (0, CALL)])  # both all-in: no flip can be paid
    assert state["hand_no"] == 2 or state["phase"] == "over"
    assert summary(state)["last_hand"]["hand_no"] == 1


def test_everyone_declining_ends_the_hand_with_the_show() -> None:
    state = deal(3, dealer=0)
    state = play_all(state, [(1, CHECK), (2, CHECK), (0, CHECK), (1, DECLINE), (2, DECLINE)])
    assert state["hand_no"] == 1 and state["to_act"] == 0
    state, events = act(state, 0, DECLINE)
    assert state["hand_no"] == 2
    shown = next(e for e in events if e["type"] == "shown")
    assert all(hand is not None and len(hand) == 4 for hand in shown["hands"])


# -- 5.4: revealing a joker from the hand --------------------------------------------------------


def test_reveal_a_joker_once_discarding_a_card_and_drawing_one() -> None:
    state = deal(2, dealer=0, hands=[[], ["XB", "XR", "5C", "5C"]], pile=["2D", "KD", "QD"])
    reveals = [a["discard"] for a in GAME.legal_actions(state, 1) if a["type"] == "reveal_joker"]
    assert reveals == ["5C", "XB", "XR"]  # two jokers: one of them may go
    state, events = act(state, 1, {"type": "reveal_joker", "discard": "XB"})
    assert sorted(state["hands"][1]) == ["5C", "5C", "KD", "XR"]
    assert events == [{"type": "joker_revealed", "seat": 1}]
    assert state["to_act"] == 1 and state["phase"] == "betting"
    assert summary(state)["joker_revealed"] == [False, True]
    assert "already revealed" in refusal(state, 1, {"type": "reveal_joker", "discard": "5C"})
    assert "reveal_joker" not in types(state)


def test_a_reveal_must_keep_a_joker_and_works_in_a_flip_offer() -> None:
    state = deal(2, dealer=0, hands=[["XR", "7S", "7C", "3D"], []], pile=["2D", "KD"])
    state = play_all(state, [(1, CHECK), (0, CHECK), (1, DECLINE)])
    assert state["phase"] == "flip_offer" and state["to_act"] == 0
    assert "keep a joker" in refusal(state, 0, {"type": "reveal_joker", "discard": "XR"})
    assert "Name a card" in refusal(state, 0, {"type": "reveal_joker", "discard": "AS"})
    state = play(state, 0, {"type": "reveal_joker", "discard": "3D"})
    assert state["phase"] == "flip_offer" and state["to_act"] == 0
    assert sorted(state["hands"][0]) == ["7C", "7S", "KD", "XR"]


def test_no_joker_no_reveal() -> None:
    state = deal(2, dealer=0, hands=[[], ["2S", "3S", "4S", "5S"]])
    assert "no joker" in refusal(state, 1, {"type": "reveal_joker", "discard": "2S"})


# -- 5.3 and 6.4: tower jokers -----------------------------------------------------------------


def joker_towers(*firsts: str) -> list[list[str]]:
    return [[c] for c in firsts] + PLAIN_TOWERS[len(firsts) :]


def test_first_tower_joker_the_dealer_may_discard_one() -> None:
    state = deal(2, dealer=0, towers=joker_towers("XB"), hands=[["AS", "AH", "KC", "QD"], []])
    assert state["phase"] == "discard" and state["to_act"] == 0
    legal = GAME.legal_actions(state, 0)
    assert legal == [
        {"type": "discard", "cards": []},
        {"type": "discard", "cards": ["AH"]},
        {"type": "discard", "cards": ["AS"]},
        {"type": "discard", "cards": ["KC"]},
        {"type": "discard", "cards": ["QD"]},
        LEAVE,
    ]
    assert "at most 1 card" in refusal(state, 0, {"type": "discard", "cards": ["AS", "AH"]})
    assert "cards you hold" in refusal(state, 0, {"type": "discard", "cards": ["2C"]})
    assert "as a list" in refusal(state, 0, {"type": "discard", "cards": "QD"})
    assert "cannot check now" in refusal(state, 0, CHECK)
    state = play(state, 0, {"type": "discard", "cards": ["QD"]})
    assert len(state["hands"][0]) == 4 and "QD" not in state["hands"][0]
    assert state["phase"] == "betting" and state["to_act"] == 1


def test_first_tower_joker_is_lost_when_the_dealer_has_folded() -> None:
    state = deal(3, dealer=0, towers=joker_towers("2C", "XB"))
    state = play_all(state, [(1, BET), (2, CALL), (0, FOLD), (1, BUY)])
    assert state["jokers_from_towers"] == 1
    assert state["phase"] == "betting" and state["to_act"] == 1


def test_second_black_joker_everyone_discards_one_from_the_buyer() -> None:
    state = deal(3, dealer=0, towers=joker_towers("XB", "XB"))
    state = play(state, 0, {"type": "discard", "cards": []})
    state = play_all(state, [(1, CHECK), (2, CHECK), (0, CHECK), (1, DECLINE), (2, BUY)])
    assert state["phase"] == "discard" and state["discard"] == {"mode": "up_to_1", "queue": [0, 1]}
    assert state["to_act"] == 2 and len(GAME.legal_actions(state, 2)) <= 6
    state = play(state, 2, {"type": "discard", "cards": []})
    assert state["to_act"] == 0
    state = play(state, 0, LEAVE)
    assert state["to_act"] == 1 and state["phase"] == "discard"


def test_second_red_joker_the_buyer_discards_up_to_four() -> None:
    state = deal(2, dealer=0, towers=joker_towers("XB", "XR"), hands=[[], ["9C", "9D", "8H", "7S"]])
    state = play_all(state, [(0, {"type": "discard", "cards": []}), (1, CHECK), (0, CHECK)])
    state = play(state, 1, BUY)
    assert state["phase"] == "discard" and state["to_act"] == 1 and state["discard"]["queue"] == []
    assert len(GAME.legal_actions(state, 1)) == 17
    state = play(state, 1, {"type": "discard", "cards": ["7S", "9C", "9D", "8H"]})
    assert len(state["hands"][1]) == 4 and state["phase"] == "betting"


def test_third_joker_everyone_discards_up_to_four() -> None:
    state = deal(3, dealer=1, towers=joker_towers("XB", "XR", "XB"))
    state = play(state, 1, {"type": "discard", "cards": []})
    state = play_all(state, [(2, CHECK), (0, CHECK), (1, CHECK), (2, BUY)])
    state = play(state, 2, {"type": "discard", "cards": []})
    state = play_all(state, [(2, CHECK), (0, CHECK), (1, CHECK), (2, DECLINE), (0, BUY)])
    assert state["jokers_from_towers"] == 3
    assert state["discard"] == {"mode": "up_to_4", "queue": [1, 2]} and state["to_act"] == 0


def test_the_jackpot_turns_one_more_card_per_tower_and_everyone_discards_two() -> None:
    towers = [["XB", "2S"], ["XR", "3S"], ["XB"], ["XR", "5S"]]
    state = deal(2, dealer=0, towers=towers, tower_height=3)
    # Tower 2 holds only its joker, so the jackpot turns no extra card from it.
    state["dungeon"] += state["towers"][2][1:]
    state["towers"][2] = state["towers"][2][:1]
    assert state["to_act"] == 0
    state = play_all(state, [(0, {"type": "discard", "cards": []}), (1, CHECK), (0, CHECK)])
    state = play_all(state, [(1, BUY), (1, {"type": "discard", "cards": []})])
    state = play_all(state, [(1, CHECK), (0, CHECK), (1, BUY)])
    state = play_all(state, [(1, {"type": "discard", "cards": []})])
    state = play(state, 0, {"type": "discard", "cards": []})
    state = play_all(state, [(1, CHECK), (0, CHECK), (1, DECLINE), (0, BUY)])
    assert state["jackpot"] and state["face_up"] == ["XB", "XR", "XB", "XR", "2S", "3S", "5S"]
    assert state["discard"]["mode"] == "exactly_2" and state["to_act"] == 0
    assert len(GAME.legal_actions(state, 0)) <= 7
    assert "exactly 2" in refusal(state, 0, {"type": "discard", "cards": []})
    hand0 = sorted(state["hands"][0])
    state = play(state, 0, {"type": "discard", "cards": hand0[:2]})
    assert sorted(state["hands"][0]) == hand0[2:] and state["to_act"] == 1
    state = play(state, 1, {"type": "discard", "cards": sorted(state["hands"][1])[:2]})
    assert summary(state)["next_flip_cost"] is None and summary(state)["bet_size"] == 2
    assert state["phase"] == "betting"
    view = GAME.view(state, 0)
    assert view["best"] is not None and len(view["best"]["tower"]) == 3


# -- 6.5: spire and dungeon ---------------------------------------------------------------------


def test_an_empty_spire_takes_the_shuffled_dungeon() -> None:
    state = deal(2, dealer=0, towers=joker_towers("XB"))
    state["dungeon"] += state["spire"]
    state["spire"] = []
    card = state["hands"][0][0]
    state, events = act(state, 0, {"type": "discard", "cards": [card]})
    reshuffled = [e for e in events if e["type"] == "spire_reshuffled"]
    assert reshuffled == [{"type": "spire_reshuffled", "cards": 108 - 40 - 8 + 1}]
    assert state["dungeon"] == [] and len(state["hands"][0]) == 4
    towers_conserve(state)


def test_the_end_of_a_hand_gathers_every_card_but_the_towers() -> None:
    state = deal(3, dealer=0)
    state = play_all(state, [(1, BET), (2, FOLD), (0, CALL), (1, DECLINE), (0, DECLINE)])
    assert state["hand_no"] == 2
    s = summary(state)
    assert s["dungeon"] == 1 and s["spire"] == 108 - sum(s["towers"]) - 1 - 12 - 1
    towers_conserve(state)


# -- 5.5 and 5.6: leaving ---------------------------------------------------------------------


def test_leave_folds_keeps_the_chips_and_is_never_dealt_again() -> None:
    state = deal(3, dealer=0)
    state = play(state, 1, BET)
    state, events = act(state, 2, LEAVE)
    assert events[0] == {"type": "left", "seat": 2, "chips": 99}
    assert state["hands"][2] == [] and state["left"][2] and state["to_act"] == 0
    state = play_all(state, [(0, CALL), (1, DECLINE), (0, DECLINE)])
    assert state["hand_no"] == 2 and state["hands"][2] == [] and not state["in_hand"][2]
    assert summary(state)["chips"][2] == 99 and summary(state)["folded"][2]
    towers_conserve(state)


def test_leaving_heads_up_hands_the_pot_over_and_the_richest_still_wins() -> None:
    state = deal(2, dealer=0, start_chips=50)
    state["chips"] = [80, 18]
    state["options"]["start_chips"] = 50
    state = play(state, 1, BET)
    state, events = act(state, 0, LEAVE)
    assert state["phase"] == "over" and state["to_act"] is None
    assert GAME.result(state) is not None
    assert state["result"] == {
        "winners": [0],
        "reason": "last_player_standing",
        "scores": [80, 18 - 1 + 3],
    }
    assert events[-1]["type"] == "game_ended"


def test_leaving_during_an_offer_or_a_discard_passes_it_on() -> None:
    state = deal(3, dealer=0)
    state = play_all(state, [(1, CHECK), (2, CHECK), (0, CHECK)])
    state = play(state, 1, LEAVE)
    assert state["phase"] == "flip_offer" and state["to_act"] == 2 and state["offer"] == [0]
    state = deal(3, dealer=0, towers=joker_towers("XB", "XB"))
    state = play_all(state, [(0, {"type": "discard", "cards": []}), (1, CHECK), (2, CHECK)])
    state = play_all(state, [(0, CHECK), (1, BUY)])
    assert state["to_act"] == 1 and state["phase"] == "discard"
    state = play(state, 1, LEAVE)
    assert state["to_act"] == 2 and state["phase"] == "discard"


def test_resigning_is_leaving_even_out_of_turn() -> None:
    state = deal(3, dealer=0)
    new, events = GAME.resign(state, 0)
    assert events[0]["type"] == "left" and new["left"][0] and new["to_act"] == 1
    assert GAME.result(new) is None
    same, none = GAME.resign(new, 0)
    assert none == [] and dumps(same) == dumps(new)
    new = play(new, 1, BET)
    over, _ = GAME.resign(new, 2)  # seat 1 is alone in the hand, then alone in the game
    assert over["result"]["reason"] == "last_player_standing"
    with pytest.raises(RuleError):
        GAME.resign(over, 1)


# -- 6.6, 6.7 and 6.8: the show and the pots -----------------------------------------------------


def test_a_tie_splits_the_pot_the_odd_chip_from_the_left_of_the_dealer() -> None:
    hands = [["2S", "3H", "4D", "6C"], ["AS", "KH", "9D", "5C"], ["AH", "KD", "9C", "5S"]]
    state = deal(3, dealer=0, hands=hands, towers=[["7H"], [], [], []])
    state = play_all(state, [(1, BET), (2, CALL), (0, FOLD), (1, DECLINE), (2, DECLINE)])
    last = summary(state)["last_hand"]
    assert last["winners"] == [1, 2] and last["payouts"] == [0, 3, 2]
    assert last["categories"] == [None, "high_card", "high_card"]


def test_side_pots_with_all_in_seats_and_chips_above_the_top_level() -> None:
    hands = [
        ["AS", "AH", "AD", "AC"],
        ["2S", "3H", "5D", "7C"],
        ["2H", "3D", "5C", "7S"],
        ["KS", "KH", "KD", "QC"],
    ]
    state = deal(4, dealer=0, hands=hands, towers=[["9H"], ["8D"], [], []])
    state["chips"] = [1, 10, 10, 2]
    steps = [(1, BET), (2, RAISE), (3, CALL), (0, CALL), (1, CALL)]
    state = play_all(state, steps)
    assert summary(state)["in_pot"] == [2, 3, 3, 3] and state["offer"] == [2]
    state = play_all(state, [(1, BUY), (1, BET), (2, CALL)])
    assert summary(state)["in_pot"] == [2, 4, 4, 3] and summary(state)["fees"] == 1
    state = play(state, 1, LEAVE)
    state, events = act(state, 2, LEAVE)
    shown = next(e for e in events if e["type"] == "shown")
    assert shown["pots"] == [
        {"amount": 9, "seats": [0, 3], "winners": [0]},
        {"amount": 5, "seats": [3], "winners": [3]},
    ]
    assert shown["hands"][1] is None and shown["hands"][0] == ["AC", "AD", "AH", "AS"]
    assert summary(state)["last_hand"]["payouts"] == [9, 0, 0, 5]


def test_with_no_ante_a_pot_of_nothing_still_names_the_best_hand() -> None:
    hands = [["AS", "AH", "2D", "3C"], ["KS", "QH", "9D", "5C"]]
    state = deal(2, dealer=0, hands=hands, ante=0)
    assert summary(state)["pot"] == 0
    state = play_all(state, [(1, CHECK), (0, CHECK), (1, DECLINE), (0, DECLINE)])
    last = summary(state)["last_hand"]
    assert last["winners"] == [0] and last["payouts"] == [0, 0]


def test_a_short_stack_antes_all_it_has_and_a_seat_at_zero_is_out() -> None:
    hands = [["AS", "AH", "AD", "3C"], ["KS", "QH", "9D", "5C"]]
    state = deal(2, dealer=0, hands=hands, start_chips=3, ante=5)
    # Both all-in on the ante: no betting, no flip to pay for, the show at once.
    assert state["phase"] == "over"
    assert state["result"] == {"winners": [0], "reason": "last_player_standing", "scores": [6, 0]}
    s = summary(state)
    assert s["out"] == [False, True] and s["last_hand"]["payouts"] == [6, 0]


def test_the_towers_run_out_and_the_most_chips_win() -> None:
    state = deal(2, dealer=0, tower_height=3)
    ply = 0
    while state["result"] is None:
        seat = state["to_act"]
        legal = types(state)
        choice = next(t for t in ("check", "decline_flip", "call") if t in legal)
        if state["phase"] == "discard":
            state = play(state, seat, {"type": "discard", "cards": []}, ply)
        else:
            state = play(state, seat, {"type": choice}, ply)
        ply += 1
    result = GAME.result(state)
    assert result is not None and result.reason == "towers_exhausted"
    assert state["hand_no"] == 12 and sum(result.scores or ()) == 200
    top = max(result.scores or ())
    assert list(result.winners) == [s for s in (0, 1) if (result.scores or ())[s] == top]
    s = summary(state)
    assert (s["phase"], s["pot"], s["fees"], s["face_up"], s["spire"], s["dungeon"]) == (
        "over",
        0,
        0,
        [],
        108,
        0,
    )
    assert s["folded"] == [True, True] and s["burned"] is None and s["next_flip_cost"] is None
    assert (s["to_call"], s["raises"], s["bet_size"], s["jackpot"]) == (0, 0, 1, False)
    assert s["in_pot"] == [0, 0] and s["round_bets"] == [0, 0] and s["towers"] == [0, 0, 0, 0]
    assert GAME.legal_actions(state, 0) == [] and refusal(state, 0, CHECK) == "The game is over."


# -- 5: refusals -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "words"),
    [
        ({"type": "shout"}, "not a move"),
        ({"type": ["check"]}, "not a move"),
        ({"type": "reveal_joker", "discard": ["AS"]}, "no joker"),
        ("check", "not a move"),
        ({"type": "check", "amount": 1}, "unexpected field 'amount'"),
        ({"type": "reveal_joker"}, "no joker"),
        ({"type": "discard", "cards": []}, "cannot discard now"),
        ({"type": "decline_flip"}, "cannot decline flip now"),
    ],
)
def test_malformed_actions_are_refused(action: Any, words: str) -> None:
    assert words in refusal(deal(2, dealer=0), 1, action)


def test_a_discard_needs_its_cards_field() -> None:
    state = deal(2, dealer=0, towers=joker_towers("XB"))
    assert "as a list" in refusal(state, 0, {"type": "discard"})
    assert "unexpected field" in refusal(state, 0, {"type": "discard", "cards": [], "x": 1})


def test_views_show_only_the_own_hand() -> None:
    state = deal(3, dealer=0)
    view = GAME.view(state, 1)
    assert view["hand"] == sorted(state["hands"][1])
    assert view["best"]["tower"] == state["face_up"]
    assert "hand" not in GAME.view(state, None)
    assert json.loads(json.dumps(view)) == view


# -- properties over random games -------------------------------------------------------------

ENCODER = json.JSONEncoder(check_circular=False)
SEPARATORS = str.maketrans(
    {chr(i): " " for i in range(128) if chr(i) not in string.ascii_letters + string.digits}
)


def leaked(data: Any, hidden: set[str]) -> set[str]:
    return hidden.intersection(ENCODER.encode(data).translate(SEPARATORS).split())


def random_table(index: int) -> tuple[random.Random, int, State]:
    chooser = random.Random(f"towers-property:{index}")
    seats = chooser.randint(2, 7)
    small = chooser.choice((1, 1, 2, 5))
    options = {
        "start_chips": chooser.choice((1, 2, 3, 5, 8, 20, 100)),
        "ante": chooser.choice((0, 1, 1, 2)),
        "tower_height": chooser.choice((3, 3, 4, 6, 10)),
        "small_bet": small,
        "big_bet": small * chooser.choice((1, 2)),
        "max_raises": chooser.choice((0, 1, 3, 10)),
    }
    seed = chooser.randrange(2**32)
    return chooser, seed, GAME.setup(seats, options, rng_for(seed, "setup"))


def choose(chooser: random.Random, legal: list[Action]) -> Action:
    if chooser.random() < 0.01:
        return LEAVE
    return chooser.choice([a for a in legal if a["type"] != "leave"] or legal)


def test_chips_and_cards_are_conserved_in_thousands_of_random_games() -> None:
    actions = 0
    for index in range(2000):
        chooser, seed, state = random_table(index)
        towers_conserve(state)
        ply = 0
        while state["result"] is None:
            seat = state["to_act"]
            state, _ = GAME.apply(
                state, seat, choose(chooser, GAME.legal_actions(state, seat)), rng_for(seed, ply)
            )
            towers_conserve(state)
            ply += 1
        actions += ply
        assert sum(state["chips"]) == state["seats"] * state["options"]["start_chips"]
    assert actions > 50_000


def test_no_view_or_event_shows_another_seats_cards() -> None:
    """Every view, the summary and every event, after every action of 300 random games (with
    random resignations): nothing another seat holds, nothing face down."""
    reasons: Counter[str] = Counter()
    for index in range(300):
        chooser, seed, state = random_table(index)
        ply = 0
        events: list[Any] = []
        action: Action | None = None
        hidden_before: set[str] | None = None
        while True:
            secret = towers_secret(state)
            face_down = towers_face_down(state)
            for seat in range(state["seats"]):
                others = set().union(*(c for s, c in enumerate(secret) if s != seat)) | face_down
                assert not leaked(GAME.view(state, seat), others), (index, ply, seat)
            hidden = set().union(*secret) | face_down
            public = {"spectator": GAME.view(state, None), "summary": GAME.summary(state)}
            assert not leaked(public, hidden)
            named = leaked(action, hidden) if action is not None else set()
            still = (hidden if hidden_before is None else hidden & hidden_before) - named
            assert not leaked(events, still), (index, ply, leaked(events, still))
            if state["result"] is not None:
                reasons[state["result"]["reason"]] += 1
                break
            hidden_before = hidden
            if chooser.random() < 0.003:
                action = None
                state, events = GAME.resign(state, chooser.randrange(state["seats"]))
            else:
                seat = state["to_act"]
                action = choose(chooser, GAME.legal_actions(state, seat))
                state, events = GAME.apply(state, seat, action, rng_for(seed, ply))
            ply += 1
    assert set(reasons) == {"towers_exhausted", "last_player_standing"}


def test_views_depend_only_on_what_the_seat_can_see() -> None:
    for index in range(150):
        chooser, seed, state = random_table(index)
        for ply in range(chooser.randrange(120)):
            if state["result"] is not None:
                break
            seat = state["to_act"]
            state, _ = GAME.apply(
                state, seat, choose(chooser, GAME.legal_actions(state, seat)), rng_for(seed, ply)
            )
        viewer = chooser.choice([None, *range(state["seats"])])
        other = towers_rearrange_unseen(state, viewer, random.Random(index))
        towers_conserve(other)
        assert GAME.view(other, viewer) == GAME.view(state, viewer)
        assert GAME.summary(other) == GAME.summary(state)
        if viewer is not None:
            assert GAME.legal_actions(other, viewer) == GAME.legal_actions(state, viewer)


def test_every_legal_action_applies_states_round_trip_and_replays_are_exact() -> None:
    for index in range(120):
        chooser, seed, state = random_table(index)
        start = dumps(state)
        log: list[tuple[int, Action]] = []
        while state["result"] is None:
            seat = state["to_act"]
            legal = GAME.legal_actions(state, seat)
            assert legal and legal[-1] == LEAVE
            assert len({json.dumps(a, sort_keys=True) for a in legal}) == len(legal)
            for other in range(state["seats"]):
                assert other == seat or GAME.legal_actions(state, other) == []
            if len(log) % 7 == 0:
                for action in legal:
                    GAME.apply(state, seat, action, rng_for(seed, len(log)))
            assert loads(dumps(state), GAME) == state
            action = choose(chooser, legal)
            state, _ = GAME.apply(state, seat, action, rng_for(seed, len(log)))
            log.append((seat, action))
        replay = loads(start, GAME)
        for ply, (seat, action) in enumerate(log):
            replay, _ = GAME.apply(replay, seat, action, rng_for(seed, ply))
        assert dumps(replay) == dumps(state)
