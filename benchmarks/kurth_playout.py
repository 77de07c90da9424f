"""Random playouts of Siege at Kurth: how many engine actions per second one core applies.

    .venv/bin/python benchmarks/kurth_playout.py [--games N] [--seed S]

Not a test. Each game is set up with its own seed and played to its end by choosing uniformly
among ``legal_actions`` at every decision, each action applied with the chance the store uses
(``chance.advance``: streams by purpose, engine/chance.py). The timed loop is what a playout
costs: ``legal_actions``, the choice and ``apply`` for every action, plus ``setup`` for every
game. Prints the games, the
actions, the time, actions per second and how the games ended. Target (issue 9): at least
10,000 actions per second.
"""

from __future__ import annotations

import argparse
import random

from playouts import measure

from engine import chance
from engine.kurth import GAME


def playout(seed: int, chooser: random.Random) -> tuple[int, str]:
    """One game to its end; returns the number of actions and the result's reason."""
    difficulty = chooser.choice(("easy", "normal", "advanced"))
    state = chance.deal(GAME, 1, {"difficulty": difficulty}, seed)
    ply = 0
    while state["to_act"] is not None:
        action = chooser.choice(GAME.legal_actions(state, 0))
        state, _events = chance.advance(GAME, state, 0, action, seed, ply)
        ply += 1
    result = GAME.result(state)
    assert result is not None
    return ply, result.reason


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    measure(playout, args.games, args.seed)


if __name__ == "__main__":
    main()
