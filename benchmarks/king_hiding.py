"""Does the computer give away where its King hides in Siege the King?

Not a test. ``games`` seeded games of one level against another (seats alternating) are played
to ply ``at``; then, for the measured seat's face-down columns (the ones that could hold its
King, as the other player sees them), two guesses are scored: "the King is in its tallest
column" (highest column value) and "in the column it reinforced most" (most Defender value).
A tie among k columns that holds the King scores 1/k. Chance is the mean of 1/(face-down
columns). The target (issue 26): each guess right no more often than chance + 10 points.

Run: ``python -m benchmarks.king_hiding [--games 100] [--level hard] [--against normal]``
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from benchmarks.computer_strength import wilson
from engine import ai
from engine.king import DEFENDER, GAME, KING, card_value, column_value
from engine.rules import rng_for


def _hit(scores: list[int], hidden: list[int], king: int) -> float:
    top = max(scores[i] for i in hidden)
    best = [i for i in hidden if scores[i] == top]
    return 1.0 / len(best) if king in best else 0.0


def one(args: tuple[int, str, str, int]) -> tuple[float, float, float] | None:
    """(tallest right, reinforced right, chance) for one game, or None if it ended early."""
    seed, level, against, at = args
    focus = seed % 2
    levels = [against, against]
    levels[focus] = level
    state = GAME.setup(2, {}, rng_for(seed, "setup"))
    chooser = random.Random(f"{seed}:players")
    for ply in range(at):
        seat = GAME.to_act(state)
        if seat is None:
            return None
        action = ai.choose("king", GAME.view(state, seat), seat, levels[seat], chooser)
        state, _ = GAME.apply(state, seat, action, rng_for(seed, ply))
    if GAME.result(state) is not None:
        return None
    king = state["castles"][focus].index(KING)
    hidden = [i for i in range(3) if not state["revealed"][focus][i] and state["open"][focus][i]]
    if king not in hidden or len(hidden) < 2:
        return None
    columns = state["columns"][focus]
    tall = [column_value(c) for c in columns]
    guard = [
        sum(
            card_value(x) or 0 for x, r in zip(c["cards"], c["roles"], strict=True) if r == DEFENDER
        )
        for c in columns
    ]
    return _hit(tall, hidden, king), _hit(guard, hidden, king), 1.0 / len(hidden)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--level", default="hard")
    parser.add_argument("--against", default="normal")
    parser.add_argument("--at", type=int, default=20, help="the ply to look at")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    jobs = [(args.seed * 100_000 + i, args.level, args.against, args.at) for i in range(args.games)]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        found = [r for r in pool.map(one, jobs) if r is not None]
    n = len(found)
    if not n:
        print("no game reached the ply with two face-down columns")
        return 1
    chance = sum(r[2] for r in found) / n
    print(f"{args.level} (vs {args.against}) at ply {args.at}: {n} of {args.games} games")
    for name, k in (("tallest column", 0), ("most reinforced column", 1)):
        mean = sum(r[k] for r in found) / n
        low, high = wilson(mean, n)
        verdict = "met" if mean <= chance + 0.10 else "NOT met"
        print(
            f"  King in its {name}: {mean:.1%} [{low:.1%}, {high:.1%}]  chance {chance:.1%}"
            f"  (target <= {chance + 0.10:.1%}: {verdict})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
