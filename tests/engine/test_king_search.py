"""Siege the King's hard level, the rollout search (``engine.ai.king_rollouts``): it takes a won
game, shores up a column about to fall, aims the Assassin where the other seat has built, and
its evaluation's weights are the ones its fitting script finds. Strength is measured by
``benchmarks/computer_strength.py`` and ``king_hiding.py``, never asserted here."""

from __future__ import annotations

import math
import random
from typing import Any

import engine
from benchmarks import king_evaluation
from benchmarks.castles_evaluation import fit, log_loss
from engine import ai
from engine.ai import king_rollouts
from engine.king import ATTACKER, DEFENDER, KING, THRONE, column_value
from engine.rules import State
from tests.engine.test_computer import random_state

GAME = engine.GAMES["king"]


def _play_state(seed: int) -> tuple[State, int]:
    """A play-phase position (the seat to act with its castle face down), cleared to 10s."""
    for attempt in range(seed, seed + 40):
        state = random_state(GAME, attempt, 8, 2, {})
        seat = state["to_act"]
        if seat is None or state["phase"] != "play" or any(state["revealed"][seat]):
            continue
        state = dict(state)
        state["columns"] = [[{"cards": [], "roles": []} for _ in range(3)] for _ in range(2)]
        state["open"] = [[True] * 3, [True] * 3]
        state["revealed"] = [[False] * 3, [False] * 3]
        return state, seat
    raise AssertionError("no play-phase position")


def _column(cards: list[str], roles: list[str]) -> dict[str, Any]:
    return {"cards": cards, "roles": roles}


def test_hard_brings_down_the_only_open_column_left() -> None:
    """The other castle has one open column (so it hides the King) at 3: an Attacker 4 wins,
    and the search plays a winning Attacker whatever else the hand offers."""
    for seed in range(5):
        state, seat = _play_state(seed * 7)
        other = 1 - seat
        state["castles"] = [list(c) for c in state["castles"]]
        state["castles"][other] = [THRONE, KING, THRONE]
        state["open"][other] = [False, True, False]
        state["revealed"][other] = [True, False, True]
        state["columns"][other][1] = _column(["A7"], [ATTACKER])
        hands = [list(h) for h in state["hands"]]
        hands[seat] = ["A4", "A8", "D2", "D6", "W3"]
        state["hands"] = hands
        action = ai.choose("king", GAME.view(state, seat), seat, "hard", random.Random(seed))
        after, _ = GAME.apply(state, seat, action, random.Random(0))
        assert after["result"] is not None and after["result"]["winners"] == [seat], action


def test_hard_shores_up_its_last_column_about_to_fall() -> None:
    """Its Thrones are gone and its last column (the King's) stands at 1, where any Attacker
    the other seat throws ends the game: with nothing to bring down over there, the search
    raises that column (a Defender, or the Warrior cancelling the Attacker 4)."""
    for seed in range(5):
        state, seat = _play_state(100 + seed * 7)
        last = seed % 3
        state["castles"] = [list(c) for c in state["castles"]]
        state["castles"][seat] = [KING if i == last else THRONE for i in range(3)]
        state["open"][seat] = [i == last for i in range(3)]
        state["revealed"][seat] = [i != last for i in range(3)]
        state["columns"][seat][last] = _column(["A5", "A4"], [ATTACKER, ATTACKER])
        hands = [list(h) for h in state["hands"]]
        hands[seat] = ["A1", "A2", "D6", "D3", "W4"]
        state["hands"] = hands
        assert column_value(state["columns"][seat][last]) == 1
        action = ai.choose("king", GAME.view(state, seat), seat, "hard", random.Random(seed))
        after, _ = GAME.apply(state, seat, action, random.Random(0))
        assert column_value(after["columns"][seat][last]) > 1, action


def test_hard_sends_the_assassin_where_the_other_seat_has_built() -> None:
    state, seat = _play_state(300)
    other = 1 - seat
    state["columns"][other] = [
        _column(["D3"], [DEFENDER]),
        _column(["D7", "A2"], [DEFENDER, ATTACKER]),
        _column([], []),
    ]
    state["phase"] = "assassinate"
    view = GAME.view(state, seat)
    action = king_rollouts.rollout_search(view, seat, random.Random(1))
    assert action == {"type": "assassinate", "column": 1}


def test_the_shipped_evaluation_predicts_games_it_was_not_fitted_on() -> None:
    """On 200 games of the rule of thumb that ``benchmarks/king_evaluation.py`` did not fit
    on, the shipped weights foretell the outcome better than a coin and at least as well as a
    fit on 400 other games (they were fitted on 6,000)."""
    small = fit([s for seed in range(400) for s in king_evaluation.play(seed)])
    held = [s for seed in range(2_000_000, 2_000_200) for s in king_evaluation.play(seed)]
    shipped = log_loss(held, king_rollouts.WEIGHTS)
    assert shipped < math.log(2) - 0.02
    assert shipped <= log_loss(held, small) + 0.002
