"""Tower poker's public betting record and the hard level that reads it (``engine.ai.towers_read``).

The engine keeps this hand's betting log (every view's ``actions``) and the finished hands'
records (``view["past_hands"]``: log, tower cards, the hands shown at the show and nothing
else). Hard weighs sampled opponent hands by that betting, learns from what a seat has shown,
and still decides from its seat's view alone.
"""

from __future__ import annotations

import random
from typing import Any

from engine import ai
from engine.ai.towers_read import LIKELIHOOD, Habits, habits, read_action
from engine.rules import State, rng_for
from engine.towers import GAME
from tests.engine.test_computer import random_state
from tests.engine.test_towers_rules import towers_rearrange_unseen

BET = {"type": "bet"}
CALL = {"type": "call"}
FOLD = {"type": "fold"}
CHECK = {"type": "check"}


def stacked(hands: list[list[str]], dealer: int = 1) -> State:
    """A heads-up hand: tower 0 turns 2C first; seat 1 - dealer acts first."""
    stack: dict[str, Any] = {
        "dealer": dealer,
        "towers": [["2C", "9D"], ["5S"], ["8H"], ["JC"]],
        "hands": hands,
    }
    return GAME.setup(2, {}, rng_for(3, "setup"), stack)


def test_the_hands_betting_log_is_public_and_starts_again_each_hand() -> None:
    state = stacked([["KS", "KD", "7H", "4C"], ["QS", "QD", "3H", "6C"]])
    state, _ = GAME.apply(state, 0, BET, rng_for(3, 0))
    state, _ = GAME.apply(state, 1, CALL, rng_for(3, 1))
    log = [[0, "bet", 1], [1, "call", 1]]
    assert "actions" not in GAME.summary(state)  # the spec's summary stays as it is
    assert GAME.view(state, None)["actions"] == log
    assert GAME.view(state, 1)["actions"] == log
    state, _ = GAME.apply(state, 0, {"type": "decline_flip"}, rng_for(3, 2))
    state, _ = GAME.apply(state, 1, {"type": "decline_flip"}, rng_for(3, 3))
    # The show: kings beat queens; hand 2 has begun with an empty log.
    assert state["hand_no"] == 2 and GAME.view(state, None)["actions"] == []
    record = GAME.view(state, 1)["past_hands"][-1]
    assert record == {
        "hand_no": 1,
        "actions": log,
        "face_up": ["2C"],
        "hands": [["4C", "7H", "KD", "KS"], ["3H", "6C", "QD", "QS"]],
    }


def test_a_hand_won_without_a_show_records_no_cards() -> None:
    state = stacked([["KS", "KD", "7H", "4C"], ["QS", "QD", "3H", "6C"]])
    state, _ = GAME.apply(state, 0, BET, rng_for(3, 0))
    state, _ = GAME.apply(state, 1, FOLD, rng_for(3, 1))
    record = GAME.view(state, 0)["past_hands"][-1]
    assert record["actions"] == [[0, "bet", 1], [1, "fold", 1]]
    assert record["hands"] == [None, None]


def test_a_seat_shown_betting_only_strong_hands_is_read_as_strong() -> None:
    """Eight shows of seat 0 betting two pair make its bets come from two pair or better far
    more than a generic player's; the generic tendencies are what an unseen seat gets."""
    record = {
        "hand_no": 1,
        "actions": [[0, "bet", 1], [1, "call", 1]],
        "face_up": ["3S"],
        "hands": [["AS", "AH", "QD", "QC"], ["2S", "5H", "9D", "JC"]],
    }
    view = {"summary": {"actions": []}, "past_hands": [record] * 8}
    read = habits(view, 6)  # read by a seat not in these hands
    learned = read[0].likelihood("bet")
    generic = Habits().likelihood("bet")
    # Nothing shown: the generic tendencies, up to a constant factor.
    assert abs(generic[1] / generic[2] - LIKELIHOOD["bet"][1] / LIKELIHOOD["bet"][2]) < 1e-9
    # Relative to two pair, a bet from a pair has become far less likely.
    assert learned[1] / learned[2] < 0.5 * generic[1] / generic[2]
    # Seat 1 called with high card eight times: its calls come from weak hands too.
    assert read[1].likelihood("call")[0] > Habits().likelihood("call")[0]


def _facing_a_bet_with_kings(past: list[dict[str, Any]]) -> tuple[dict[str, Any], list[Any]]:
    state = stacked([["5D", "6H", "TS", "JD"], ["KS", "KD", "7H", "4C"]])
    state, _ = GAME.apply(state, 0, BET, rng_for(3, 0))
    view = GAME.view(state, 1)
    view["past_hands"] = past
    return view, GAME.legal_actions(state, 1)


def test_hard_folds_a_pair_to_a_strong_bettor_and_calls_a_bluffer() -> None:
    strong = {
        "hand_no": 1,
        "actions": [[0, "bet", 1], [1, "call", 1]],
        "face_up": ["3S"],
        "hands": [["AS", "AH", "QD", "QC"], ["2S", "5H", "9D", "JC"]],
    }
    bluff = {**strong, "hands": [["2S", "5H", "9D", "JC"], ["AS", "AH", "QD", "QC"]]}
    for i in range(6):
        view, legal = _facing_a_bet_with_kings([strong] * 10)
        assert read_action(view, 1, legal, random.Random(i)) == FOLD
        view, legal = _facing_a_bet_with_kings([bluff] * 10)
        assert read_action(view, 1, legal, random.Random(i)) in (CALL, {"type": "raise"})


def test_hard_checks_high_card_to_a_player_who_never_folds() -> None:
    """Against a seat that has called every bet (and never folded), a bet with nothing is no
    bluff worth making; against one who folds to every bet, it is."""
    caller = {
        "hand_no": 1,
        "actions": [[1, "bet", 1], [0, "call", 1]],
        "face_up": ["3S"],
        "hands": [["2S", "5H", "9D", "JC"], ["4S", "6H", "8D", "TC"]],
    }
    folder = {**caller, "actions": [[1, "bet", 1], [0, "fold", 1]], "hands": [None, None]}
    state = stacked([["KS", "KD", "AH", "AC"], ["3D", "4H", "7S", "9C"]])
    state, _ = GAME.apply(state, 0, CHECK, rng_for(3, 0))
    legal = GAME.legal_actions(state, 1)
    for past, expected in (([caller] * 12, CHECK), ([folder] * 12, BET)):
        view = GAME.view(state, 1)
        view["past_hands"] = past
        assert read_action(view, 1, legal, random.Random(1)) == expected


def test_hards_choice_does_not_change_when_hidden_cards_are_rearranged() -> None:
    compared = 0
    for index in range(40):
        seats = 2 + index % 5
        state = random_state(GAME, 500 + index, 4 + 7 * index % 60, seats, {"tower_height": 5})
        seat = GAME.to_act(state)
        if seat is None or state["phase"] not in ("betting", "flip_offer"):
            continue
        other = towers_rearrange_unseen(state, seat, random.Random(index))
        if other == state:
            continue
        view = GAME.view(state, seat)
        assert GAME.view(other, seat) == view
        first = ai.choose("towers", view, seat, "hard", random.Random(index))
        again = ai.choose("towers", GAME.view(other, seat), seat, "hard", random.Random(index))
        assert first == again
        compared += 1
    assert compared >= 15


def _table_of(hands: list[list[str]]) -> State:
    """A hand at ``len(hands)`` seats with seat 0 dealing (so acting last); tower 0 turns 2C
    first, then 9D, 5S, 8H come from towers 1-3."""
    stack: dict[str, Any] = {
        "dealer": 0,
        "towers": [["2C", "4D"], ["9D"], ["5S"], ["8H"]],
        "hands": hands,
    }
    return GAME.setup(len(hands), {}, rng_for(5, "setup"), stack)


def test_at_a_bigger_table_hard_bets_nothing_into_seats_that_always_fold() -> None:
    """Three seats have checked to hard's high card: it bets when those seats have folded to
    every bet so far (the pot is its own when all three fold), and checks when they have called
    every bet (a fair-share rule checks both)."""
    weak = [["3S", "7D", "JH", "4C"], ["QS", "QD", "3H", "6C"]]
    state = _table_of([*weak, ["TS", "8D", "5H", "KC"], ["6S", "9C", "AH", "7C"]])
    for seat in (1, 2, 3):
        state, _ = GAME.apply(state, seat, CHECK, rng_for(5, seat))
    legal = GAME.legal_actions(state, 0)
    bets = [[1, "bet", 1], [2, "fold", 1], [3, "fold", 1], [0, "fold", 1]]
    folded = {"hand_no": 1, "actions": bets, "face_up": ["3S"], "hands": [None] * 4}
    calls = [[1, "bet", 1], [2, "call", 1], [3, "call", 1], [0, "call", 1]]
    junk = ["2S", "5H", "9D", "JC"]
    called = {"hand_no": 1, "actions": calls, "face_up": ["3S"], "hands": [junk] * 4}
    for past, expected in (([folded] * 12, BET), ([called] * 12, CHECK)):
        view = GAME.view(state, 0)
        view["past_hands"] = past
        assert read_action(view, 0, legal, random.Random(2)) == expected


def _flip_offer_after_calls(mine: list[str]) -> State:
    """Three seats: seats 1 and 2 check, seat 0 bets, both call, both decline the flip: the
    offer is seat 0's."""
    state = _table_of([mine, ["QS", "QD", "3H", "6C"], ["JS", "JD", "5H", "8C"]])
    decline = {"type": "decline_flip"}
    steps = [(1, CHECK), (2, CHECK), (0, BET), (1, CALL), (2, CALL), (1, decline), (2, decline)]
    for ply, (seat, action) in enumerate(steps):
        state, _ = GAME.apply(state, seat, action, rng_for(5, ply))
    assert state["phase"] == "flip_offer" and GAME.to_act(state) == 0
    return state


def test_hard_buys_a_flip_to_bet_a_strong_hand_again_and_declines_with_a_weak_one() -> None:
    """Two callers and three kings: the flip opens a betting round in which their calls pay
    again, worth more than the fee although the flip may improve them (a rule that compares
    only the shares of the pot at a show declines it). With nothing, the flip is declined."""
    for i in range(4):
        strong = _flip_offer_after_calls(["KS", "KD", "KH", "4C"])
        legal = GAME.legal_actions(strong, 0)
        assert read_action(GAME.view(strong, 0), 0, legal, random.Random(i)) == {"type": "buy_flip"}
        weak = _flip_offer_after_calls(["3S", "7D", "TH", "4C"])
        legal = GAME.legal_actions(weak, 0)
        assert read_action(GAME.view(weak, 0), 0, legal, random.Random(i)) == {
            "type": "decline_flip"
        }
