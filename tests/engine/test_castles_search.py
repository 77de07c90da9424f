"""Castles Besieged's hard level: the rule of thumb improved by one move of rollouts
(``engine.ai.castles.rollout_search``, issue 26).

It is fair (its choice is the same when the cards it cannot see are rearranged), a function of
its generator, stops at the caller's deadline, and weighs an attack's roll exactly rather than
sampling it. Strength is the benchmark's business (``benchmarks/computer_strength.py``).
"""

from __future__ import annotations

import random

import engine
from engine import ai
from engine.ai import castles as castles_ai
from engine.ai.castles import HIT_CHANCE, apply, determinize
from tests.engine.test_computer import REARRANGE, random_state
from tests.engine.test_computer_models import _castles

CASTLES = engine.GAMES["castles"]


def test_hard_chooses_from_the_view_alone() -> None:
    """The cards hidden from the seat rearranged (the other hand, the pile, the discard): the
    view is the same, and so is hard's choice from the same generator."""
    compared = 0
    for seed in range(12):
        state = random_state(CASTLES, seed, 10 + 7 * seed, 2, {})
        seat = CASTLES.to_act(state)
        if seat is None:
            continue
        other = REARRANGE["castles"](state, seat, random.Random(seed))
        view = CASTLES.view(state, seat)
        assert CASTLES.view(other, seat) == view and other != state
        first = ai.choose("castles", view, seat, "hard", random.Random(seed), budget=20)
        again = ai.choose(
            "castles", CASTLES.view(other, seat), seat, "hard", random.Random(seed), budget=20
        )
        assert first == again
        assert first in CASTLES.legal_actions(state, seat)
        compared += 1
    assert compared >= 8


def test_a_deadline_stops_the_rollout_search() -> None:
    """The deadline is asked between sampled deals: the search stops when it says so."""
    state = random_state(CASTLES, 4, 30, 2, {})
    seat = CASTLES.to_act(state)
    assert seat is not None
    asked: list[int] = []

    def deadline() -> bool:
        asked.append(1)
        return len(asked) >= 3

    view = CASTLES.view(state, seat)
    action = ai.choose("castles", view, seat, "hard", random.Random(0), deadline=deadline)
    assert action in CASTLES.legal_actions(state, seat)
    assert len(asked) == 3


def test_an_attack_is_scored_by_its_chance_to_hit_not_by_one_roll() -> None:
    """The other castle has taken nine hits and seat 0 has an unblocked card: a hit wins at
    once (21 rolls in 36). The attack's value is that chance times a win plus the chance of a
    miss times the playout after a miss, on every sampled deal and dice."""
    state = _castles([["9S", "KD"], ["4C"]], ["2S"])
    state["hits"] = [0, 9]
    view = CASTLES.view(state, 0)
    attack = {"type": "attack", "pos": 1}
    rng = random.Random(7)
    hit = HIT_CHANCE[7]
    for _ in range(20):
        world = determinize(view, 0, rng)
        seed = rng.getrandbits(64)
        dice = random.Random(seed)
        missed = apply({**world, "dice": [1, 1]}, 0, attack, dice)
        after_miss = castles_ai.playout(missed, dice, castles_ai.ROLLOUT_DEPTH)[0]
        value = castles_ai.action_value(world, 0, attack, seed)
        assert abs(value - (hit + (1 - hit) * after_miss)) < 1e-12
        assert value >= hit


def test_every_move_is_tried_on_the_same_deals_and_dice() -> None:
    """Common random numbers: a move's value is a function of the sampled deal and the dice
    seed alone, so two moves are compared on the same luck."""
    state = random_state(CASTLES, 9, 24, 2, {})
    seat = CASTLES.to_act(state)
    assert seat is not None
    view = CASTLES.view(state, seat)
    world = determinize(view, seat, random.Random(3))
    for action in castles_ai.root_actions(view, seat):
        once = castles_ai.action_value(world, seat, action, 12345)
        assert castles_ai.action_value(world, seat, action, 12345) == once
        assert action in CASTLES.legal_actions(state, seat)


def test_hard_departs_from_the_rule_of_thumb_where_its_rollouts_say_so() -> None:
    """Along a game of the rule of thumb against itself, hard (40 deals a move) plays legal
    moves and overrules the rule of thumb somewhere, each time for a move whose rollouts
    scored better than the rule of thumb's on the same deals and dice."""
    state = CASTLES.setup(2, {}, random.Random(21))
    chooser = random.Random(21)
    departed = 0
    for ply in range(60):
        seat = CASTLES.to_act(state)
        if seat is None:
            break
        view = CASTLES.view(state, seat)
        greedy = castles_ai.greedy_action(state, seat, random.Random(ply))
        chosen = castles_ai.rollout_search(view, seat, random.Random(ply), 40)
        assert chosen in CASTLES.legal_actions(state, seat)
        if chosen != greedy and greedy in castles_ai.root_actions(view, seat):
            rng = random.Random(ply)
            ours = theirs = 0.0
            for _ in range(40):
                world = determinize(view, seat, rng)
                seed = rng.getrandbits(64)
                ours += castles_ai.action_value(world, seat, chosen, seed)
                theirs += castles_ai.action_value(world, seat, greedy, seed)
            assert ours > theirs
            departed += 1
        state, _ = CASTLES.apply(state, seat, greedy, chooser)
    assert departed >= 10, departed
