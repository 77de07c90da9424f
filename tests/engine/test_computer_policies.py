"""The computer's policies and evaluations added for issue 26, and the benchmark's rule players.

Each is legal, a function of its generator, and reads only what its seat may see. Strength is
measured by the benchmarks (``benchmarks/computer_strength.py``, ``king_hiding.py``,
``kurth_strength.py``), never asserted here.
"""

from __future__ import annotations

import random

import engine
from benchmarks.rule_players import RULE_PLAYERS
from engine import ai
from engine.ai import king as king_ai
from engine.ai import king_worlds
from engine.ai import towers as towers_ai
from engine.king import DEFENDER, KING
from engine.poker_hands import PAIR
from engine.rules import State
from tests.engine.test_computer import random_state

TOWERS = engine.GAMES["towers"]
KING_GAME = engine.GAMES["king"]


def _betting_states() -> list[State]:
    found = []
    for seed in range(40):
        state = random_state(TOWERS, seed, 1 + seed % 9, 2 + seed % 3, {"tower_height": 3})
        if state["phase"] == "betting" and state["to_act"] is not None:
            found.append(state)
    return found


def test_the_towers_playout_policy_is_legal_and_follows_its_generator() -> None:
    states = _betting_states()
    assert len(states) >= 10
    for state in states:
        seat = state["to_act"]
        legal = TOWERS.legal_actions(state, seat)
        first = towers_ai.strength_action(state, seat, legal, random.Random(3))
        assert first in legal
        assert towers_ai.strength_action(state, seat, legal, random.Random(3)) == first


def test_the_towers_playout_policy_folds_nothing_to_no_bet_and_raises_quads() -> None:
    state = _betting_states()[0]
    seat = state["to_act"]
    state["hands"][seat] = ["9S", "9H", "9D", "9C"]
    legal = TOWERS.legal_actions(state, seat)
    kinds = {a["type"] for a in legal}
    picks = [towers_ai.strength_action(state, seat, legal, random.Random(i)) for i in range(40)]
    aggressive = {"bet", "raise"} & kinds
    assert aggressive
    assert sum(p["type"] in aggressive for p in picks) >= 30


def test_a_seat_that_paid_in_is_dealt_a_pair_or_better_in_the_samples() -> None:
    """Opponent modelling: a seat with chips in beyond its ante is read as holding something.
    Without the read, four unseen cards make a pair or better about half the time."""
    state = _betting_states()[0]
    seat = state["to_act"]
    view = TOWERS.view(state, seat)
    other = (seat + 1) % state["seats"]
    ante = TOWERS.setup(state["seats"], {}, random.Random(0))["options"]["ante"]
    view["summary"]["in_pot"][other] = ante + 2
    options = dict(state["options"])
    made = 0
    for i in range(60):
        sample = towers_ai.determinize(view, seat, options, random.Random(i))
        face_up = sample["face_up"]
        made += towers_ai.strength(sample["hands"][other], face_up, sample["jackpot"]) >= PAIR
        assert TOWERS.view(sample, seat)["hand"] == view["hand"]
    assert made >= 57


def test_the_tight_aggressive_rule_player_is_legal_and_reads_only_the_view() -> None:
    _, tag = RULE_PLAYERS["tag"]
    for state in _betting_states():
        seat = state["to_act"]
        legal = TOWERS.legal_actions(state, seat)
        action = tag(TOWERS.view(state, seat), seat, legal, random.Random(0))
        assert action in legal and action["type"] != "leave"


def _king_state() -> tuple[State, int]:
    for seed in range(30):
        state = random_state(KING_GAME, seed, 12, 2, {})
        seat = state["to_act"]
        if seat is None or state["phase"] != "play":
            continue
        if not any(state["revealed"][seat]) and all(state["open"][seat]):
            return state, seat
    raise AssertionError("no position with the seat's castle face down")


def test_the_king_evaluation_values_a_defended_decoy() -> None:
    """A seat's own safety counts its face-down columns, not only its King's: a Defender on a
    column without the King is worth something (so Defenders need not all go to the King)."""
    state, seat = _king_state()
    king = state["castles"][seat].index(KING)
    decoy = (king + 1) % 3
    before = king_ai.evaluate(state, seat)[seat]
    state["columns"][seat][decoy]["cards"].append("D5")
    state["columns"][seat][decoy]["roles"].append(DEFENDER)
    assert king_ai.evaluate(state, seat)[seat] > before


def test_the_king_playouts_shore_up_the_weakest_face_down_column() -> None:
    state, seat = _king_state()
    king = state["castles"][seat].index(KING)
    for i in range(3):
        state["columns"][seat][i] = {"cards": ["D5"], "roles": [DEFENDER]}
    weak = (king + 2) % 3
    state["columns"][seat][weak] = {"cards": [], "roles": []}
    assert king_worlds.guarded(state, seat) == weak
    state["revealed"][seat][king] = True
    assert king_worlds.guarded(state, seat) == king


def test_kurth_easy_searches_and_follows_its_generator() -> None:
    game = engine.GAMES["kurth"]
    state = random_state(game, 4, 6, 1, {})
    view = game.view(state, 0)
    first = ai.choose("kurth", view, 0, "easy", random.Random(2))
    assert first in game.legal_actions(state, 0)
    assert ai.choose("kurth", view, 0, "easy", random.Random(2)) == first
    assert "easy" in ai.BUDGETS["kurth"]
