"""How often each computer level (and its hint) wins Siege at Kurth, against random play.

Not a test. ``games`` seeded games per level and difficulty, each played to its end by one
chooser: ``random`` (uniform over the legal actions), or a level (``hint`` is the hard level,
which is what "What would the computer do?" answers; following the hint is playing it). Prints
the win rate with its 95% Wilson interval and the level's thinking time per move (p50/p99).
Targets (issue 26): following the hint wins at least 80% on normal; easy clearly better than
random.

Run: ``python -m benchmarks.kurth_strength [--games 60] [--levels random,easy,normal,hint]
[--difficulties easy,normal]``
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from benchmarks.computer_strength import wilson
from engine import ai, chance
from engine.kurth import GAME


def one(args: tuple[int, str, str]) -> tuple[bool, list[float]]:
    """(won, seconds per move) for one game."""
    seed, level, difficulty = args
    state = chance.deal(GAME, 1, {"difficulty": difficulty}, seed)
    chooser = random.Random(f"{seed}:{level}")
    times: list[float] = []
    ply = 0
    while state["to_act"] is not None:
        if level == "random":
            action = chooser.choice(GAME.legal_actions(state, 0))
        else:
            start = time.perf_counter()
            view = GAME.view(state, 0)
            chosen = "hard" if level == "hint" else level
            action = ai.choose("kurth", view, 0, chosen, chooser)
            times.append(time.perf_counter() - start)
        state, _ = chance.advance(GAME, state, 0, action, seed, ply)
        ply += 1
    result = GAME.result(state)
    return bool(result is not None and result.winners), times


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--levels", default="random,easy,normal,hint")
    parser.add_argument("--difficulties", default="easy,normal")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for difficulty in args.difficulties.split(","):
            print(f"\nSiege at Kurth, difficulty {difficulty}")
            for level in args.levels.split(","):
                t0 = time.perf_counter()
                jobs = [(args.seed * 100_000 + i, level, difficulty) for i in range(args.games)]
                found = list(pool.map(one, jobs))
                wins = sum(w for w, _ in found)
                n = len(found)
                low, high = wilson(wins / n, n)
                times = [t for _, ts in found for t in ts]
                timing = f"{_pct(times, 0.5):.3f}/{_pct(times, 0.99):.3f}" if times else "-"
                print(
                    f"  {level:<8}{n:>5} games  wins {wins / n:6.1%} [{low:.1%}, {high:.1%}]"
                    f"  s/move p50/p99 {timing}  ({time.perf_counter() - t0:.0f} s)",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
