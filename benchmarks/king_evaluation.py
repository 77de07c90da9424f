"""Fits the weights of Siege the King's evaluation (``engine.ai.king_rollouts.FEATURES``).

Not a test. Plays ``--games`` seeded games of the rollout search's rule of thumb on both seats
(``king_rollouts.rollout_action``; the castles arranged at random), keeps every other position
of the play phase from one seat's side (seat 0 in even games, seat 1 in odd ones: that seat
aims its Assassin as the search does) with the game's outcome for that seat (1 a win, 1/2 a
draw, 0 a loss), and fits a logistic regression of the outcome on the features (Newton's method,
``benchmarks.castles_evaluation.fit``). It prints the fitted weights beside the shipped ones and,
on games it did not fit, the log loss of both: the evaluation should be the chance that the seat
wins when the rule of thumb plays on, since that is what the search's rollouts estimate.

Run: ``python -m benchmarks.king_evaluation [--games 6000] [--workers 2]`` (the defaults fitted
the shipped weights).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from benchmarks.castles_evaluation import Sample, report
from engine.ai import king_rollouts
from engine.king import GAME
from engine.rules import rng_for


def play(seed: int) -> list[Sample]:
    """One game of the rule of thumb against itself; every other position of the play phase."""
    state = GAME.setup(2, {}, rng_for(seed, "setup"))
    rng = random.Random(f"{seed}:fit")
    while state["phase"] == "arrange":
        seat = state["to_act"]
        legal = GAME.legal_actions(state, seat)
        state, _ = GAME.apply(state, seat, legal[rng.randrange(len(legal))], rng)
    me = seed % 2
    kept: list[list[float]] = []
    ply = 0
    while state["result"] is None:
        if state["phase"] == "play" and ply % 2 == 0:
            kept.append(king_rollouts.features(state, me))
        seat = state["to_act"]
        action = king_rollouts.rollout_action(state, seat, me, rng)
        state, _ = GAME.apply(state, seat, action, rng)
        ply += 1
    winners = state["result"]["winners"]
    outcome = 0.5 if not winners else (1.0 if winners == [me] else 0.0)
    return [(f, outcome) for f in kept]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    with ProcessPoolExecutor(args.workers) as pool:
        train = [s for g in pool.map(play, range(args.games), chunksize=200) for s in g]
        held = range(1_000_000, 1_000_000 + args.games // 3)
        test = [s for g in pool.map(play, held, chunksize=200) for s in g]
    report(king_rollouts.FEATURES, king_rollouts.WEIGHTS, train, test, args.games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
