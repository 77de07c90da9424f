"""Benchmark for the Siege (``knights``) board renderer: not a test.

Plays seeded random games, takes 200 positions from them and times ``render_board_png`` (and
``text_board``) on each, then prints mean, median and 95th percentile milliseconds per board.
Run: ``.venv/bin/python benchmarks/render_knights.py [BOARDS]``.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from typing import Any

from cogs.picture_workers import keep_freed_memory
from engine.knights import GAME
from presentation.knights_board import render_board_png, text_board


def random_views(count: int, seed: int = 2024) -> list[dict[str, Any]]:
    """Spectator views of ``count`` positions from seeded random games (no engine chance)."""
    rng = random.Random(seed)
    views: list[dict[str, Any]] = []
    while len(views) < count:
        state = GAME.setup(2, {}, rng)
        while GAME.result(state) is None and len(views) < count:
            seat = GAME.to_act(state)
            assert seat is not None
            state, _ = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)), rng)
            if rng.random() < 0.3:
                views.append(GAME.view(state, None))
    return views


def timed(label: str, fn: Any, views: list[dict[str, Any]]) -> None:
    times = []
    size = 0
    for view in views:
        start = time.perf_counter()
        out = fn(view)
        times.append((time.perf_counter() - start) * 1000)
        size += len(out)
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * len(times)) - 1)]
    print(
        f"{label}: {len(times)} boards, mean {statistics.fmean(times):.2f} ms, "
        f"median {statistics.median(times):.2f} ms, p95 {p95:.2f} ms, max {times[-1]:.2f} ms, "
        f"mean size {size / len(times):.0f}"
    )


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    keep_freed_memory()  # as the bot's picture processes draw
    views = random_views(count)
    start = time.perf_counter()
    render_board_png(views[0])  # the first call draws and caches the empty board and fonts
    print(f"first render (cold caches): {(time.perf_counter() - start) * 1000:.2f} ms")
    timed("render_board_png", render_board_png, views)
    timed("render_board_png flip", lambda v: render_board_png(v, flip=True), views)
    timed("text_board", text_board, views)


if __name__ == "__main__":
    main()
