"""Fits the weights of Castles Besieged's evaluation (``engine.ai.castles.FEATURES``).

Not a test. Plays ``--games`` seeded games with the search's playout policy on both seats (the
rule of thumb, one move in ten at random), keeps every ``--every``-th position with the game's
outcome for seat 0 (1 a win, 1/2 a draw, 0 a loss), and fits a logistic regression of the
outcome on the evaluation's features (Newton's method; no intercept, since every feature
changes sign when the seats swap). It prints the fitted weights and, on games it did not fit,
the log loss of the fitted weights and of the weights the evaluation ships with: the evaluation
should be the chance that seat 0 wins when the playout policy plays on, since that is what the
search's playouts estimate.

Run: ``python -m benchmarks.castles_evaluation [--games 8000] [--every 3] [--seed 3]`` (the
defaults fitted the shipped weights).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from collections.abc import Sequence

from engine.ai import castles
from engine.ai.search import squash
from engine.castles import GAME
from engine.rules import State, rng_for

Sample = tuple[list[float], float]


def play(seed: int, every: int) -> list[Sample]:
    """One game of the playout policy against itself; every ``every``-th position."""
    state: State = GAME.setup(2, {}, rng_for(seed, "setup"))
    model = castles.CastlesModel(GAME.view(state, 0), 0)
    rng = random.Random(f"{seed}:fit")
    kept: list[list[float]] = []
    ply = 0
    while state["result"] is None:
        if ply % every == 0:
            kept.append(castles.features(state))
        seat = state["to_act"]
        state = castles.apply(state, seat, model.rollout_action(state, seat, rng), rng)
        ply += 1
    winners = state["result"]["winners"]
    outcome = 0.5 if not winners else (1.0 if winners == [0] else 0.0)
    return [(f, outcome) for f in kept]


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a is small and positive definite)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col and m[col][col]:
                factor = m[r][col] / m[col][col]
                for c in range(col, n + 1):
                    m[r][c] -= factor * m[col][c]
    return [m[i][n] / m[i][i] if m[i][i] else 0.0 for i in range(n)]


def fit(samples: Sequence[Sample], steps: int = 8, ridge: float = 1.0) -> list[float]:
    """Logistic regression by Newton's method, with a small ridge for stability."""
    k = len(samples[0][0])
    w = [0.0] * k
    for _ in range(steps):
        grad = [-ridge * x for x in w]
        hess = [[ridge if i == j else 0.0 for j in range(k)] for i in range(k)]
        for f, y in samples:
            p = squash(sum(wi * fi for wi, fi in zip(w, f, strict=True)))
            err = y - p
            weight = p * (1 - p)
            for i in range(k):
                grad[i] += err * f[i]
                row = hess[i]
                fw = f[i] * weight
                for j in range(i, k):
                    row[j] += fw * f[j]
        for i in range(k):
            for j in range(i):
                hess[i][j] = hess[j][i]
        step = _solve(hess, grad)
        w = [wi + si for wi, si in zip(w, step, strict=True)]
    return w


def log_loss(samples: Sequence[Sample], w: Sequence[float]) -> float:
    total = 0.0
    for f, y in samples:
        p = min(max(squash(sum(a * b for a, b in zip(w, f, strict=True))), 1e-9), 1 - 1e-9)
        total -= y * math.log(p) + (1 - y) * math.log(1 - p)
    return total / len(samples)


def report(
    names: Sequence[str],
    shipped: Sequence[float],
    train: Sequence[Sample],
    test: Sequence[Sample],
    games: int,
) -> None:
    """Fit on ``train`` and print the weights beside the shipped ones, and both held-out log
    losses (the King's fitting script prints the same way)."""
    w = fit(train)
    print(f"{len(train)} positions from {games} games; {len(test)} held out")
    width = max(len(name) for name in names) + 2
    for name, weight, kept in zip(names, w, shipped, strict=True):
        print(f"  {name:<{width}}{weight:+.4f}   (shipped {kept:+.4f})")
    fitted, ours = log_loss(test, w), log_loss(test, shipped)
    print(f"held-out log loss: fitted {fitted:.4f}, shipped {ours:.4f}")
    print(f"(a constant 1/2 scores {math.log(2):.4f})")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8000)
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args(argv)
    base = args.seed * 1_000_000
    train = [s for i in range(args.games) for s in play(base + i, args.every)]
    test = [s for i in range(args.games // 3) for s in play(base + 500_000 + i, args.every)]
    report(castles.FEATURES, castles.WEIGHTS, train, test, args.games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
