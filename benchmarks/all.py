"""Every benchmark in one run, and one table of figures with the limit or target beside each.

Not a test. Runs, each in a process of its own: random engine playouts of every game (the five
engines, in this process), table and panel picture rendering per game, ``store_act.py``
(``Store.act`` beside a raw single-row commit), ``render_knights.py``, ``startup.py`` (a
database of finished games, launch to ready, RSS), ``request_floor.py`` (what discord.py itself
costs for the requests of a move, with no game) and ``table_load.py`` (1, 100 and 1,000 tables,
the bot and the fake Discord in separate processes, plus an asyncio debug-mode run for slow
callbacks). Each script's own output is passed through as it runs; the table comes last.
``--fast`` runs small versions of everything (a few minutes instead of half an hour) and says
so in the table; ``--strength`` adds ``computer_strength.py`` (slow).

Run: ``.venv/bin/python benchmarks/all.py [--fast] [--strength]`` (or ``python -m benchmarks``).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PYTHON = sys.executable
PLAYOUT_TARGET = 10_000  # random-playout actions per second, per engine
RENDER_LIMIT_MS = 50.0


@dataclass
class Row:
    area: str
    figure: str
    value: str
    limit: str
    ok: bool | None  # None: no limit to meet, or not measured

    @property
    def mark(self) -> str:
        return {True: "ok", False: "MISSED", None: ""}[self.ok]


def number(text: str) -> float:
    return float(text.replace(",", ""))


# -- in this process: engines and pictures ------------------------------------------------------


def random_games(key: str, seconds: float, seed: int = 1) -> tuple[int, float, list[Any]]:
    """Random playouts of one engine for about ``seconds``: actions, elapsed, some views."""
    from engine import get_game
    from engine.rules import resolve_options, rng_for

    game = get_game(key)
    if key == "towers":  # the hand-ranking table is built once per process: not a playout's cost
        from engine.poker_hands import hand_value

        hand_value(["2S", "3H", "4D", "5C", "7S"])
    chooser = random.Random(seed)
    views: list[Any] = []
    actions, games = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        seats = game.max_seats if game.max_seats <= 2 else 3
        state = game.setup(seats, resolve_options(game, {}), rng_for(seed + games, "setup"))
        ply = 0
        while (seat := game.to_act(state)) is not None and ply < 2000:
            legal = game.legal_actions(state, seat)
            # Walking out is always legal in tower poker: chosen uniformly it would end most
            # games within a few actions and time little but set-up (towers_playout.py alike).
            action = chooser.choice([a for a in legal if a.get("type") != "leave"] or legal)
            state, _ = game.apply(state, seat, action, rng_for(seed + games, ply))
            ply += 1
            if chooser.random() < 0.02 and len(views) < 60:
                views.append(game.view(state, None))
        actions += ply
        games += 1
    return actions, time.perf_counter() - start, views


def engine_rows(seconds: float) -> tuple[list[Row], dict[str, list[Any]]]:
    from engine import GAMES

    rows, views = [], {}
    for key in GAMES:
        actions, elapsed, sample = random_games(key, seconds)
        rate = actions / elapsed
        views[key] = sample
        rows.append(
            Row(
                "engine",
                f"{key}: random playout actions/s",
                f"{rate:,.0f}",
                f">= {PLAYOUT_TARGET:,}",
                rate >= PLAYOUT_TARGET,
            )
        )
        print(f"engine {key}: {actions} actions in {elapsed:.2f} s ({rate:,.0f}/s)", flush=True)
    return rows, views


def picture_rows(views: dict[str, list[Any]]) -> list[Row]:
    from presentation import get_renderer

    rows = []
    for key, sample in views.items():
        renderer = get_renderer(key)
        times = []
        for view in sample:
            start = time.perf_counter()
            picture = renderer.table_image(view)
            if picture is None:
                break
            times.append((time.perf_counter() - start) * 1000)
        if not times:
            continue
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        rows.append(
            Row(
                "render",
                f"{key}: table picture p95 (median {statistics.median(times):.1f} ms)",
                f"{p95:.1f} ms",
                f"<= {RENDER_LIMIT_MS:.0f} ms",
                p95 <= RENDER_LIMIT_MS,
            )
        )
        print(f"render {key}: {len(times)} pictures, p95 {p95:.1f} ms", flush=True)
    return rows


# -- the scripts ------------------------------------------------------------------------------


def run(script: str, args: Sequence[str], timeout: float) -> str:
    """Run a benchmark script, echo its output, return it ('' if it failed)."""
    command = [PYTHON, str(ROOT / "benchmarks" / script), *args]
    print(f"\n$ {' '.join(command[1:])}", flush=True)
    try:
        done = subprocess.run(
            command, cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        print(f"  (timed out after {timeout:.0f} s)")
        return ""
    print(done.stdout, end="", flush=True)
    if done.returncode != 0:
        print(done.stderr[-2000:], end="")
        return ""
    return done.stdout


def find(pattern: str, text: str) -> re.Match[str] | None:
    return re.search(pattern, text, re.MULTILINE)


def playout_script_rows(fast: bool) -> list[Row]:
    rows = []
    for script, key, games in (
        ("towers_playout.py", "towers", 500),
        ("kurth_playout.py", "kurth", 3000),
    ):
        out = run(script, ["--games", str(games // 10 if fast else games)], 600)
        found = find(r"^actions/s\s+([0-9,]+)", out)
        rate = number(found.group(1)) if found else None
        rows.append(
            Row(
                "engine",
                f"{key}: {script} actions/s",
                f"{rate:,.0f}" if rate is not None else "?",
                f">= {PLAYOUT_TARGET:,}",
                None if rate is None else rate >= PLAYOUT_TARGET,
            )
        )
    return rows


def store_rows(fast: bool) -> list[Row]:
    args = ["--actions", "300", "--tables", "100"] if fast else []
    out = run("store_act.py", args, 1200)
    rows = []
    raw = find(r"^raw sqlite3 single-row commit.*?p50\s+([0-9.]+) ms\s+p99\s+([0-9.]+) ms", out)
    one = find(r"^Store\.act, one at a time.*?p50\s+([0-9.]+) ms\s+p99\s+([0-9.]+) ms", out)
    many = find(r"([0-9]+) actions/s over", out)
    if raw and one:
        ratio = float(one.group(1)) / float(raw.group(1))
        rows.append(Row("storage", "raw single-row commit p50", f"{raw.group(1)} ms", "", None))
        rows.append(
            Row(
                "storage",
                "Store.act p50 (x raw commit)",
                f"{one.group(1)} ms ({ratio:.1f}x)",
                "<= 4x raw (README)",
                ratio <= 4.0,
            )
        )
    if many:
        rows.append(
            Row(
                "storage",
                "Store.act, many tables at once",
                f"{many.group(1)} moves/s",
                ">= 200/s",
                number(many.group(1)) >= 200,
            )
        )
    return rows


def knights_render_rows(fast: bool) -> list[Row]:
    out = run("render_knights.py", ["50" if fast else "200"], 600)
    found = find(r"^render_board_png: .*?p95 ([0-9.]+) ms", out)
    if not found:
        return [Row("render", "knights board (render_knights.py) p95", "?", "<= 50 ms", None)]
    p95 = float(found.group(1))
    return [
        Row(
            "render",
            "knights board (render_knights.py) p95",
            f"{p95:.1f} ms",
            "<= 50 ms",
            p95 <= RENDER_LIMIT_MS,
        )
    ]


def startup_rows(fast: bool) -> list[Row]:
    games = 500 if fast else 10_000
    out = run("startup.py", ["--games", str(games), "--runs", "1" if fast else "3"], 3600)
    rows = []
    ready = find(r"launch -> ready:\s+min ([0-9.]+) s, median ([0-9.]+) s", out)
    rss = find(r"RSS at ready:\s+min ([0-9.]+) MB, median ([0-9.]+) MB", out)
    peak = find(r"peak RSS \(VmHWM\):\s+min ([0-9.]+) MB, median ([0-9.]+) MB", out)
    label = f"{games:,} finished games"
    if ready:
        value = float(ready.group(2))
        rows.append(
            Row("start-up", f"launch to ready, {label}", f"{value:.2f} s", "<= 2 s", value <= 2.0)
        )
    if rss:
        value = float(rss.group(2))
        rows.append(Row("start-up", "RSS at ready", f"{value:.0f} MB", "<= 150 MB", value <= 150))
    if peak:
        value = float(peak.group(2))
        rows.append(Row("start-up", "peak RSS", f"{value:.0f} MB", "<= 150 MB", value <= 150))
    if not rows:
        rows.append(Row("start-up", "launch to ready", "?", "<= 2 s", None))
    return rows


def load_rows(fast: bool) -> list[Row]:
    if fast:
        args = ["--sizes", "1,20,100", "--moves", "40,5,3", "--rates", "0,0,100"]
    else:
        args = ["--sizes", "1,100,1000", "--moves", "100,30,10", "--rates", "0,0,200"]
    args += ["--debug-loop", "--debug-rate", "40"]
    out = run("table_load.py", args, 3600)
    found = find(r"^RESULT (.*)$", out)
    if not found:
        return [Row("load", "table_load.py", "failed", "", False)]
    results: list[dict[str, Any]] = json.loads(found.group(1))
    rows = []
    normal = [r for r in results if r["slow_callbacks"] is None]
    for r in normal:
        name = f"{r['tables']} tables" + (f" at {r['rate']:g}/s" if r["rate"] else "")
        rows.append(
            Row(
                "load",
                f"{name}: moves/s",
                f"{r['moves_per_second']:.0f}",
                ">= 200/s" if r["tables"] >= 1000 else "",
                r["moves_per_second"] >= 0.95 * 200 if r["tables"] >= 1000 else None,
            )
        )
        rows.append(
            Row(
                "load",
                f"{name}: interactions answered or deferred within 3 s",
                f"{r['share_within_limit']:.2%} of {r['interactions']}",
                "100 %",
                r["within_limit"] == r["interactions"],
            )
        )
        rows.append(
            Row(
                "load",
                f"{name}: within the 1.5 s budget; deferred",
                f"{r['share_within_budget']:.2%}; {r['deferred']} deferred",
                "",
                None,
            )
        )
        rows.append(Row("load", f"{name}: click to answer p50", f"{r['p50_ms']:.1f} ms", "", None))
        big = r["tables"] >= 1000
        rows.append(
            Row(
                "load",
                f"{name}: click to answer p99",
                f"{r['p99_ms']:.1f} ms",
                "<= 50 ms" if big else "",
                r["p99_ms"] <= 50 if big else None,
            )
        )
        rows.append(
            Row(
                "load",
                f"{name}: bot CPU per move",
                f"{r['cpu_ms_per_move']:.2f} ms",
                "<= 2.5 ms",
                r["cpu_ms_per_move"] <= 2.5,
            )
        )
        rows.append(
            Row(
                "load",
                f"{name}: of which on the event loop's thread",
                f"{r['loop_cpu_ms_per_move']:.2f} ms",
                "",
                None,
            )
        )
        rows.append(
            Row(
                "load",
                f"{name}: and in its picture processes",
                f"{r['workers_cpu_ms_per_move']:.2f} ms",
                "",
                None,
            )
        )
        rows.append(
            Row("load", f"{name}: requests/move exempt", f"{r['exempt_per_move']:.2f}", "", None)
        )
        rows.append(
            Row(
                "load",
                f"{name}: requests/move rate-limited",
                f"{r['limited_per_move']:.2f}",
                "<= 1.2",
                r["limited_per_move"] <= 1.2,
            )
        )
        rows.append(
            Row(
                "load",
                f"{name}: garbage collections > 20 ms",
                f"{r['gc_pauses_over_limit']} (longest {r['gc_slowest_ms']:.0f} ms)",
                "0",
                r["gc_pauses_over_limit"] == 0,
            )
        )
    for r in results:
        if r["slow_callbacks"] is not None:
            slowest = r["slowest_ms"]
            shown = f"{r['slow_callbacks']} (slowest {slowest:.0f} ms)" if slowest else "0"
            rows.append(
                Row(
                    "load",
                    f"{r['tables']} tables at {r['rate']:g}/s, debug loop: callbacks > 20 ms"
                    " during the moves",
                    shown,
                    "0",
                    r["slow_callbacks"] == 0,
                )
            )
            rows.append(
                Row(
                    "load",
                    f"{r['tables']} tables, debug loop: callbacks > 20 ms at start-up and opening",
                    str(r["slow_outside"]),
                    "",
                    None,
                )
            )
    return rows


def floor_rows(fast: bool) -> list[Row]:
    """discord.py's own cost for the requests of a move, with no game (``request_floor.py``)."""
    out = run("request_floor.py", ["--clicks", "300" if fast else "2000"], 900)
    found = find(r"^RESULT (.*)$", out)
    if not found:
        return [Row("floor", "request_floor.py", "failed", "", False)]
    modes: dict[str, dict[str, Any]] = json.loads(found.group(1))["modes"]
    rows = []
    for mode, what in (
        ("answer", "answer a click (1 request, no game)"),
        ("answer_png", "answer with a 32 KB picture (1 request)"),
        ("move", "a move's 4 requests (no game, no drawing)"),
    ):
        figures = modes[mode]
        rows.append(
            Row(
                "floor",
                f"discord.py bot CPU: {what}",
                f"{figures['cpu_ms_per_click']:.2f} ms",
                "(vs 2.5 ms/move)" if mode == "move" else "",
                None,
            )
        )
    return rows


def strength_rows() -> list[Row]:
    script = ROOT / "benchmarks" / "computer_strength.py"
    if not script.exists():
        return []
    out = run("computer_strength.py", [], 7200)
    return [
        Row(
            "computer",
            "computer_strength.py",
            "done (see its output)" if out else "failed",
            "",
            None,
        )
    ]


def table(rows: list[Row], fast: bool) -> str:
    head = ("area", "figure", "measured", "limit / target", "")
    cells = [head] + [(r.area, r.figure, r.value, r.limit, r.mark) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(4)]
    lines = [f"Siege Hall benchmarks{' (--fast: small runs)' if fast else ''}"]
    for n, cell in enumerate(cells):
        lines.append(
            "  ".join(c.ljust(w) for c, w in zip(cell[:4], widths, strict=True)) + "  " + cell[4]
        )
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    missed = [r for r in rows if r.ok is False]
    lines.append(f"{len(rows)} figures, {len(missed)} missing their limit or target")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fast", action="store_true", help="small runs of everything")
    parser.add_argument("--strength", action="store_true", help="also computer_strength.py")
    args = parser.parse_args(argv)
    steps: list[Callable[[], list[Row]]] = []
    engine, views = engine_rows(1.0 if args.fast else 5.0)
    rows = engine + picture_rows(views)
    steps = [
        lambda: playout_script_rows(args.fast),
        lambda: knights_render_rows(args.fast),
        lambda: store_rows(args.fast),
        lambda: startup_rows(args.fast),
        lambda: floor_rows(args.fast),
        lambda: load_rows(args.fast),
    ]
    if args.strength:
        steps.append(strength_rows)
    for step in steps:
        rows += step()
    print()
    print(table(rows, args.fast))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
