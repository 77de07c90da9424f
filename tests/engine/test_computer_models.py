"""The search models' quick rules, playout policies and evaluations (issue 26, second part).

Each quick rule plays as the engine does, each policy is legal and a function of its generator,
and each evaluation prefers what it claims to. Strength and speed are the benchmarks' business
(``benchmarks/computer_strength.py``, ``kurth_strength.py``), never asserted here.
"""

from __future__ import annotations

import random

import engine
from engine.ai import kurth as kurth_ai
from engine.rules import rng_for

KURTH = engine.GAMES["kurth"]


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
