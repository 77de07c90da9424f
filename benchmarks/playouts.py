"""The timed loop and report the random-playout benchmarks share (one game's playout is theirs).

Not a test: ``measure`` plays ``games`` games with ``playout(seed, chooser)`` and prints the
games, the actions, the time, actions per second against the 10,000 target, and how games ended.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable

Playout = Callable[[int, random.Random], tuple[int, str]]


def measure(playout: Playout, games: int, seed: int) -> None:
    chooser = random.Random(seed)
    reasons: Counter[str] = Counter()
    actions = 0
    start = time.perf_counter()
    for game in range(games):
        done, reason = playout(seed * 1_000_003 + game, chooser)
        actions += done
        reasons[reason] += 1
    elapsed = time.perf_counter() - start
    print(f"games            {games}")
    print(f"actions          {actions} ({actions / games:.1f} a game)")
    print(f"time             {elapsed:.3f} s")
    print(f"actions/s        {actions / elapsed:,.0f}   (target >= 10,000)")
    print("results          " + ", ".join(f"{r} {n}" for r, n in sorted(reasons.items())))
