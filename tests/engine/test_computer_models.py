"""The search models' quick rules, playout policies and evaluations (issue 26, second part).

Each quick rule plays as the engine does, each policy is legal and a function of its generator,
and each evaluation prefers what it claims to. Strength and speed are the benchmarks' business
(``benchmarks/computer_strength.py``, ``kurth_strength.py``), never asserted here.
"""

from __future__ import annotations

import random

import engine
from engine.ai import castles as castles_ai
from engine.ai import kurth as kurth_ai
from engine.rules import State, rng_for

KURTH = engine.GAMES["kurth"]
CASTLES = engine.GAMES["castles"]


def _castles(rows: list[list[str]], hand: list[str]) -> State:
    """A Castles position with these rows and seat 0's hand (seat 0 to act)."""
    state = CASTLES.setup(2, {"dealer": 1}, rng_for(2, "setup"))
    placed = {c for row in rows for c in row} | set(hand)
    rest = [c for c in state["hands"][0] + state["hands"][1] + state["pile"] if c not in placed]
    state["rows"], state["hands"] = rows, [hand, rest[:7]]
    state["pile"] = rest[7:]
    return state


def test_the_castles_rule_of_thumb_kills_on_a_fair_roll_before_laying() -> None:
    """Rows level and a kill on 7 or more: it attacks that card rather than spend one from
    its hand (the rule of thumb before laid its best card)."""
    state = _castles([["9S", "3H"], ["TD", "5C"]], ["KD", "2S"])
    assert castles_ai.greedy_action(state, 0, random.Random(0)) == {"type": "attack", "pos": 0}
    # Only hard kills (9 or more needed): it lays its best card instead.
    state = _castles([["2S", "3H"], ["QD", "KC"]], ["KD", "4S"])
    assert castles_ai.greedy_action(state, 0, random.Random(0)) == {"type": "lay", "card": "KD"}
    # Behind (an unblocked card faces its castle) and a kill on 7: it attacks too.
    state = _castles([["9S"], ["KD", "5C"]], ["QH"])
    assert castles_ai.greedy_action(state, 0, random.Random(0)) == {"type": "attack", "pos": 0}
    # Ahead: the unblocked card hits the castle.
    state = _castles([["9S", "3H"], ["TD"]], ["KD"])
    assert castles_ai.greedy_action(state, 0, random.Random(0)) == {"type": "attack", "pos": 1}


def test_the_kurth_model_applies_moves_as_the_engine_does() -> None:
    """The playouts skip the engine's legality check; the states they reach are the engine's."""
    for seed in range(12):
        state = KURTH.setup(
            1, {"difficulty": ("easy", "normal", "advanced")[seed % 3]}, rng_for(seed, "setup")
        )
        model = kurth_ai.KurthModel(KURTH.view(state, 0), 0)
        chooser = random.Random(seed)
        ply = 0
        while state["to_act"] is not None:
            legal = KURTH.legal_actions(state, 0)
            assert model.legal(state, 0) == legal
            action = chooser.choice(legal)
            quick = model.apply(state, 0, action, random.Random(ply))
            state, _ = KURTH.apply(state, 0, action, random.Random(ply))
            assert quick == state, (seed, ply)
            ply += 1
        assert model.legal(state, 0) == []


def test_the_kurth_playout_policy_lists_only_what_it_needs_and_stays_legal() -> None:
    """Without the legal list the policy makes the same choice as with it, and a legal one."""
    for seed in range(12):
        state = KURTH.setup(1, {"difficulty": "normal"}, rng_for(seed, "setup"))
        chooser = random.Random(seed)
        ply = 0
        while state["to_act"] is not None:
            legal = KURTH.legal_actions(state, 0)
            lazy = kurth_ai.greedy_action(state, None, random.Random(ply))
            assert lazy == kurth_ai.greedy_action(state, legal, random.Random(ply))
            assert lazy in legal
            state, _ = KURTH.apply(state, 0, chooser.choice(legal), random.Random(ply))
            ply += 1
