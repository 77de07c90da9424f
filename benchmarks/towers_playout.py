"""Random playouts of tower poker (``towers``): how many engine actions per second one core applies.

    .venv/bin/python benchmarks/towers_playout.py [--games N] [--seed S] [--leave P]

Not a test. Each game is set up with its own seed, 2 to 7 seats and the default options, and
played to its end by choosing uniformly among the ``legal_actions`` other than ``leave`` at
every decision (``leave``, always legal, is taken with probability P instead, default 0.002, so
that games are not mostly players walking out). Each action is applied with the chance the
store uses (``chance.advance``: streams by purpose, engine/chance.py). The timed loop is what a
playout costs: ``legal_actions``, the choice and ``apply`` for every action (showdowns and
reshuffles included), plus ``setup`` for every game; the hand-ranking table, built once per
process, is built before the clock starts. Prints the games, the actions, the time, actions per
second and how the games ended. Target (issue 8): at least 10,000 actions per second.
"""

from __future__ import annotations

import argparse
import random

from playouts import measure

from engine import chance
from engine.poker_hands import hand_value
from engine.towers import GAME

LEAVE = {"type": "leave"}


def playout(seed: int, chooser: random.Random, leave: float) -> tuple[int, str]:
    """One game to its end; returns the number of actions and the result's reason."""
    state = chance.deal(GAME, chooser.randint(2, 7), {}, seed)
    ply = 0
    while state["to_act"] is not None:
        seat = state["to_act"]
        legal = GAME.legal_actions(state, seat)
        if chooser.random() < leave:
            action = LEAVE
        else:
            action = chooser.choice([a for a in legal if a["type"] != "leave"] or legal)
        state, _events = chance.advance(GAME, state, seat, action, seed, ply)
        ply += 1
    result = GAME.result(state)
    assert result is not None
    return ply, result.reason


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--leave", type=float, default=0.002)
    args = parser.parse_args()
    # Warm up: the hand ranking builds its table once per process, on the first show.
    hand_value(["2S", "3H", "4D", "5C", "7S"])
    measure(lambda seed, chooser: playout(seed, chooser, args.leave), args.games, args.seed)


if __name__ == "__main__":
    main()
