"""Every benchmark in one run, and one table: each figure beside its target and the floor.

Not a test. Runs, each in a process of its own: random engine playouts of every game (the five
engines, in this process), table and panel picture rendering per game, ``store_act.py``
(``Store.act`` beside a raw single-row commit), ``render_knights.py``, ``startup.py`` (a
database of 10,000 finished games, launch to ready, RSS), ``request_floor.py`` (what discord.py
itself costs for the requests of a move, with no game: the floor), ``table_load.py`` (1, 100
and 1,000 tables, the bot and the fake Discord in separate processes, plus an asyncio
debug-mode run for slow callbacks) and ``scale_out.py`` (the same 1,000 tables on one
PostgreSQL, served by one process, then by two). Each script's own output is passed through as
it runs; the table comes last, and with every figure its target, the floor it is measured
against (from the same run) and the machine's load average when it was taken (the machine may be
shared: then every timing figure is inflated). A script that fails or runs out of time gives
"failed" rows, never no rows; the load figures are read per size as they come, and the bot's
own figures are asked for before it is stopped (not left to its exit).

The bot's own share of a move is its process's CPU per move (the event loop and its threads)
minus the floor for the requests the move actually made: the floor's "answer with a picture"
(a click received and answered) plus, for each further request, what one more request of the
floor's "move" costs. A paced load run is compared with the floor paced at the same rate,
measured just before it and just after it (their mean: the paced floor moves by a fifth over a
quarter of an hour on a shared machine, and the bot's CPU moves with it).

``--quick`` runs small versions of everything (a few minutes instead of about half an hour) and
says so in the table; ``--strength`` adds ``computer_strength.py`` (slow).

Run: ``.venv/bin/python -m benchmarks [--quick] [--strength]`` (or ``benchmarks/all.py``).
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
    floor: str = ""  # what discord.py itself costs for the same (same run), where it applies
    load: str = ""  # the machine's load average when the figure was taken

    @property
    def mark(self) -> str:
        return {True: "ok", False: "MISSED", None: ""}[self.ok]


def number(text: str) -> float:
    return float(text.replace(",", ""))


def load_average() -> str:
    with open("/proc/loadavg") as loadavg:
        return loadavg.read().split()[0]


def loaded(rows: list[Row], load: str) -> list[Row]:
    """``rows`` with the load average ``load`` where they have none."""
    for row in rows:
        row.load = row.load or load
    return rows


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
    from cogs.picture_workers import keep_freed_memory
    from presentation import get_renderer

    keep_freed_memory()  # as the bot's picture processes draw (this process draws nothing else)
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
    except subprocess.TimeoutExpired as exc:
        # What it printed before: the figures it had (table_load prints each size's at once).
        partial = exc.stdout or ""
        text = partial.decode(errors="replace") if isinstance(partial, bytes) else partial
        print(text, end="")
        print(f"  (timed out after {timeout:.0f} s)")
        return text
    print(done.stdout, end="", flush=True)
    if done.returncode != 0:
        print(done.stderr[-2000:], end="")
        print(f"  ({script} failed: exit status {done.returncode})")
    return done.stdout


def find(pattern: str, text: str) -> re.Match[str] | None:
    return re.search(pattern, text, re.MULTILINE)


def playout_script_rows(quick: bool) -> list[Row]:
    rows = []
    for script, key, games in (
        ("towers_playout.py", "towers", 500),
        ("kurth_playout.py", "kurth", 3000),
    ):
        out = run(script, ["--games", str(games // 10 if quick else games)], 600)
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


def store_rows(quick: bool) -> list[Row]:
    args = ["--actions", "300", "--tables", "100"] if quick else []
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


def knights_render_rows(quick: bool) -> list[Row]:
    out = run("render_knights.py", ["50" if quick else "200"], 600)
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


def startup_rows(quick: bool) -> list[Row]:
    games = 500 if quick else 10_000
    out = run("startup.py", ["--games", str(games), "--runs", "1" if quick else "3"], 3600)
    rows = []
    ready = find(r"launch -> ready:\s+min ([0-9.]+) s, median ([0-9.]+) s", out)
    rss = find(r"RSS at ready:\s+min ([0-9.]+) MB, median ([0-9.]+) MB", out)
    peak = find(r"peak RSS \(VmHWM\):\s+min ([0-9.]+) MB, median ([0-9.]+) MB", out)
    cpu = find(r"CPU time at ready:\s+min ([0-9.]+) s, median ([0-9.]+) s", out)
    label = f"{games:,} finished games"
    if ready:
        value = float(ready.group(2))
        rows.append(
            Row("start-up", f"launch to ready, {label}", f"{value:.2f} s", "<= 2 s", value <= 2.0)
        )
    if cpu:  # what the start costs the machine: on a shared one, ready waits for cores too
        value = float(cpu.group(2))
        rows.append(
            Row("start-up", "CPU time at ready (the bot process)", f"{value:.2f} s", "", None)
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


@dataclass(frozen=True)
class Floor:
    """discord.py's own bot CPU (``request_floor.py``, this run): a click received and answered
    with a picture, and each further request of a move."""

    answer_ms: float
    per_request_ms: float
    move_ms: float
    move_requests: float

    def of(self, requests: float) -> float:
        """The floor for a move that made ``requests`` requests."""
        return self.answer_ms + max(requests - 1.0, 0.0) * self.per_request_ms

    @classmethod
    def mean(cls, a: Floor, b: Floor) -> Floor:
        """The floor between two measures of it (just before and just after a paced run)."""
        return cls(
            answer_ms=(a.answer_ms + b.answer_ms) / 2,
            per_request_ms=(a.per_request_ms + b.per_request_ms) / 2,
            move_ms=(a.move_ms + b.move_ms) / 2,
            move_requests=(a.move_requests + b.move_requests) / 2,
        )


#: The floor by pacing: 0 unpaced, else clicks a second.
Floors = dict[int, Floor]

OWN_SHARE_TARGET = 2.5  # ms of bot CPU per move above the floor
PICTURE_TARGET = 2.0  # ms per drawn picture
CEILING_TARGET = 150.0  # moves/s at 1,000 tables
CEILING_P99 = 250.0  # ms
SIZE_P99_RATIO = 1.2  # p99 at 1,000 tables over p99 at 100, at the same paced load
PACED_RATE = 40


def floor_rows(quick: bool, rate: int = 0, when: str = "") -> tuple[list[Row], Floor | None]:
    """discord.py's own cost for the requests of a move, with no game (``request_floor.py``):
    unpaced (``rate`` 0, each click as soon as the last is answered), or paced at ``rate``
    clicks a second, as the paced load runs are (fewer clicks: they take longer). ``when`` is
    said after each figure's name ("before the load runs")."""
    clicks = ("300" if quick else "1500") if rate == 0 else ("120" if quick else "1200")
    out = run("request_floor.py", ["--clicks", clicks, "--rate", str(rate)], 900)
    found = find(r"^RESULT (.*)$", out)
    if not found:
        return [Row("floor", "request_floor.py", "failed", "", False)], None
    modes: dict[str, dict[str, Any]] = json.loads(found.group(1))["modes"]
    png, move = modes["answer_png"], modes["move"]
    extra = max(move["requests_per_click"] - png["requests_per_click"], 1.0)
    floor = Floor(
        answer_ms=png["cpu_ms_per_click"],
        per_request_ms=(move["cpu_ms_per_click"] - png["cpu_ms_per_click"]) / extra,
        move_ms=move["cpu_ms_per_click"],
        move_requests=move["requests_per_click"],
    )
    pace = ("" if rate == 0 else f", paced at {rate}/s") + when
    rows = []
    for mode, what in (
        ("answer", "a click answered (1 request, no game)"),
        ("answer_png", "a click answered with a 32 KB picture (1 request)"),
        ("move", f"a move's {move['requests_per_click']:.0f} requests (no game, no drawing)"),
    ):
        figures = modes[mode]
        rows.append(
            Row(
                "floor",
                f"discord.py bot CPU: {what}{pace}",
                f"{figures['cpu_ms_per_click']:.2f} ms",
                "",
                None,
                floor=f"{figures['cpu_ms_per_click']:.2f} ms",
            )
        )
    rows.append(
        Row(
            "floor",
            f"discord.py bot CPU: each request of a move after the answer{pace}",
            f"{floor.per_request_ms:.2f} ms",
            "",
            None,
            floor=f"{floor.per_request_ms:.2f} ms",
        )
    )
    return rows, floor


def sizes(out: str) -> list[dict[str, Any]]:
    """Every run ``table_load.py`` or ``scale_out.py`` reported (``SIZE {...}`` lines)."""
    return [json.loads(m.group(1)) for m in re.finditer(r"^SIZE (.*)$", out, re.MULTILINE)]


def run_name(r: dict[str, Any]) -> str:
    rate = r["rate"]
    pace = "unpaced" if not rate else (f"offered {rate:g}/s" if rate > 100 else f"at {rate:g}/s")
    return f"{r['tables']:,} tables {pace}"


def debug_rows(r: dict[str, Any]) -> list[Row]:
    """The asyncio debug-mode run: slow callbacks only (debug mode's own cost inflates the
    rest)."""
    name = f"{run_name(r)}, asyncio debug mode"
    slowest = r["slowest_ms"]
    rows = [
        Row(
            "load",
            f"{name}: callbacks > 20 ms during the moves ({r['moves']:,} moves)",
            f"{r['slow_callbacks']} (slowest {slowest:.0f} ms)" if slowest else "0",
            "0",
            r["slow_callbacks"] == 0,
        ),
        Row(
            "load",
            f"{name}: interactions answered or deferred within 3 s",
            f"{r['share_within_limit']:.2%} of {r['interactions']:,}",
            "100 %",
            r["within_limit"] == r["interactions"] and not r["stalled"],
        ),
    ]
    return loaded(rows, f"{r['load'][0]:.1f}-{r['load'][1]:.1f}")


def load_result_rows(r: dict[str, Any], floor: Floor | None) -> list[Row]:
    """The rows of one load run; ``floor``: the floor it is compared with (its paced floor for a
    paced run, else the unpaced one)."""
    if r["slow_callbacks"] is not None:
        return debug_rows(r)
    name = run_name(r)
    load = f"{r['load'][0]:.1f}-{r['load'][1]:.1f}"
    big = r["tables"] >= 1000
    ceiling = big and r["rate"] > 100
    paced = 0 < r["rate"] <= 100
    requests = r["exempt_per_move"] + r["limited_per_move"]
    floor_ms = floor.of(requests) if floor is not None else None
    rows = [
        Row(
            "load",
            f"{name}: moves/s",
            f"{r['moves_per_second']:.0f}",
            f">= {CEILING_TARGET:.0f}/s" if ceiling else "",
            r["moves_per_second"] >= CEILING_TARGET if ceiling else None,
        ),
        Row(
            "load",
            f"{name}: interactions answered or deferred within 3 s",
            f"{r['share_within_limit']:.2%} of {r['interactions']:,}"
            + (f"; {r['stalled']} tables stalled" if r["stalled"] else ""),
            "100 %",
            r["within_limit"] == r["interactions"] and not r["stalled"],
        ),
        Row(
            "load",
            f"{name}: click to answer p50 / p99",
            f"{r['p50_ms']:.0f} / {r['p99_ms']:.0f} ms",
            f"p99 <= {CEILING_P99:.0f} ms" if ceiling else "",
            r["p99_ms"] <= CEILING_P99 if ceiling else None,
        ),
        Row(
            "load",
            f"{name}: bot CPU per move (of which its event loop), {requests:.2f} requests",
            f"{r['cpu_ms_per_move']:.2f} ({r['loop_cpu_ms_per_move']:.2f}) ms",
            "",
            None,
            floor=f"{floor_ms:.2f} ms" if floor_ms is not None else "?",
        ),
    ]
    if floor_ms is not None:
        own = r["cpu_ms_per_move"] - floor_ms
        rows.append(
            Row(
                "load",
                f"{name}: our own share (bot CPU per move - the floor)",
                f"{own:.2f} ms",
                f"<= {OWN_SHARE_TARGET} ms",
                own <= OWN_SHARE_TARGET,
                floor=f"{floor_ms:.2f} ms",
            )
        )
    if r["pictures_drawn"]:
        per_picture = r["workers_cpu_ms_per_move"] * r["moves"] / r["pictures_drawn"]
        rows.append(
            Row(
                "load",
                f"{name}: picture processes' CPU per drawn picture ({r['pictures_drawn']:,})",
                f"{per_picture:.2f} ms",
                f"<= {PICTURE_TARGET} ms",
                per_picture <= PICTURE_TARGET,
            )
        )
    rows.append(
        Row(
            "load",
            f"{name}: requests per move, exempt + rate-limited",
            f"{r['exempt_per_move']:.2f} + {r['limited_per_move']:.2f}",
            "",
            None,
        )
    )
    rows.append(
        Row(
            "load",
            f"{name}: garbage collections > 20 ms (in the collector's CPU time)",
            f"{r['gc_pauses_over_limit']} (longest {r['gc_slowest_ms']:.0f} ms); "
            f"{r['gc_cpu_over_limit']} ({r['gc_slowest_cpu_ms']:.0f} ms)",
            "0" if paced else "",
            r["gc_pauses_over_limit"] == 0 if paced else None,
        )
    )
    if "harness_gc_pauses_ms" in r:  # the instrument: its pauses delay what it measures
        pauses = r["harness_gc_pauses_ms"]
        rows.append(
            Row(
                "load",
                f"{name}: the fake Discord and the players (the measuring process): collections"
                " > 20 ms; objects it keeps after the moves",
                f"{len(pauses)}"
                + (f" (longest {pauses[0]:.0f} ms)" if pauses else "")
                + f"; {r.get('harness_tracked', 0):,}",
                "0" if paced else "",
                not pauses if paced else None,
            )
        )
    if r.get("gc_tracked"):
        rows.append(
            Row(
                "load",
                f"{name}: heap the collector walks after the moves; a full collection",
                f"{r['gc_tracked']:,} objects ({r['rate_limit_buckets']:,} rate-limit buckets);"
                f" {r['full_collection_ms']:.0f} ms",
                "",
                None,
            )
        )
    return loaded(rows, load)


def is_paced_run(r: dict[str, Any]) -> bool:
    """Whether a load run is one of the paced runs compared with the paced floor (the
    asyncio debug-mode run, paced too, measures only its callbacks)."""
    return bool(r["rate"] == PACED_RATE and r["slow_callbacks"] is None)


def load_rows(
    quick: bool,
    floors: Floors,
    floor_again: Callable[[str], tuple[list[Row], Floor | None]] | None = None,
) -> list[Row]:
    """The load runs (``table_load.py``), in three: one table unpaced and the smaller paced
    run; the larger paced run; the ceiling and the asyncio debug-mode run. With
    ``floor_again``, the paced floor is measured again after each paced run, so each is
    compared with the mean of the paced floors measured just before and just after it: the
    paced floor of one machine moves by a fifth from one quarter of an hour to the next, and
    the bot's CPU with it (five floor / load pairs of 100 tables in a row: the bot's CPU a move
    3.77-4.54 ms, the floor's move 1.98-2.43 ms, the two in step in three of the four changes
    from one pair to the next)."""
    # (tables, moves each, clicks/s), in three calls of table_load.py: the size comparison's
    # two paced runs apart (each between two paced floors), then the ceiling, whose size the
    # asyncio debug-mode run repeats at the paced rate.
    small, large = (20, 200) if quick else (100, 1000)
    # 12 moves a table: with 5 the paced runs were mostly the games' starts (the DM panels by
    # the rate-limited routes, every table's buckets at once), not the play that follows. The
    # smaller run plays 48 (4,800 moves): its p99, the size comparison's divisor, was the
    # 12th slowest of 1,200 moves, and one millisecond of it moved the ratio by a sixth.
    paced_moves = 12
    runs = [
        [(1, 40 if quick else 100, 0), (small, paced_moves if quick else 48, PACED_RATE)],
        [(large, paced_moves, PACED_RATE)],
        [(large, 5 if quick else 6, 200)],
    ]
    rows: list[Row] = []
    results: list[tuple[dict[str, Any], Floor | None]] = []
    before = floors.get(PACED_RATE)
    for k, plan in enumerate(runs):
        args = [
            "--sizes",
            ",".join(str(t) for t, _, _ in plan),
            "--moves",
            ",".join(str(m) for _, m, _ in plan),
            "--rates",
            ",".join(str(r) for _, _, r in plan),
        ]
        if k == len(runs) - 1:
            # The debug-mode run repeats the last size, at the paced rate.
            args += ["--debug-loop", "--debug-rate", str(PACED_RATE), "--debug-moves", "3"]
            # (debug mode halves what the bot carries: fewer moves keep the run short)
        out = run("table_load.py", args, 1200 if quick else 2400)
        found = sizes(out)
        if not found:
            rows.append(Row("load", f"table_load.py {' '.join(args[:6])}", "failed", "", False))
        floor = before
        paced = [r for r in found if is_paced_run(r)]
        if paced and floor_again is not None:
            tables = ", ".join(f"{r['tables']:,}" for r in paced)
            again, after = floor_again(f", after the {tables}-table paced run")
            rows += again
            if after is not None:
                floor = after if before is None else Floor.mean(before, after)
                rows.append(
                    Row(
                        "floor",
                        f"a move's requests paced at {PACED_RATE}/s, just before / after the "
                        f"{tables}-table paced run: their mean is its floor",
                        f"{before.move_ms:.2f} / {after.move_ms:.2f} ms"
                        if before is not None
                        else f"- / {after.move_ms:.2f} ms",
                        "",
                        None,
                        floor=f"{floor.move_ms:.2f} ms",
                    )
                )
                before = after
        for r in found:
            paced_run = 0 < r["rate"] <= 100
            # A paced run is compared with the floor paced at the same rate, the others with
            # the unpaced floor (request_floor.py's docstring says why they differ).
            results.append((r, floor if paced_run else floors.get(0)))
    rows += [row for r, floor in results for row in load_result_rows(r, floor)]
    paced_runs = {r["tables"]: r for r, _ in results if is_paced_run(r)}
    if small in paced_runs and large in paced_runs:
        a, b = paced_runs[small], paced_runs[large]
        ratio = b["p99_ms"] / a["p99_ms"] if a["p99_ms"] else float("inf")
        rows.append(
            Row(
                "load",
                f"size does not cost: p99 at {large:,} tables / at {small:,}, both at "
                f"{PACED_RATE}/s ({b['moves']:,} / {a['moves']:,} moves)",
                f"x{ratio:.2f} ({b['p99_ms']:.1f} / {a['p99_ms']:.1f} ms)",
                f"<= x{SIZE_P99_RATIO}",
                ratio <= SIZE_P99_RATIO,
                load=f"{b['load'][0]:.1f}",
            )
        )
    missing = sum(len(plan) for plan in runs) + 1 - len(results)
    if missing:
        rows.append(
            Row("load", "table_load.py runs that gave no figures", str(missing), "0", False)
        )
    return rows


def scale_out_rows(quick: bool, floor: Floor | None) -> list[Row]:
    args = ["--tables", "200", "--moves", "4"] if quick else ["--tables", "1000", "--moves", "4"]
    out = run("scale_out.py", [*args, "--rate", "200"], 900 if quick else 1500)
    results = sizes(out)
    rows = []
    for r in results:
        rows.append(
            Row(
                "scale-out",
                f"{run_name(r)}, {r['deployment']}: moves/s; p99",
                f"{r['moves_per_second']:.0f}; {r['p99_ms']:.0f} ms",
                "",
                None,
                load=f"{r['load'][0]:.1f}-{r['load'][1]:.1f}",
            )
        )
        rows.append(
            Row(
                "scale-out",
                f"{r['deployment']}: bot CPU per move, all processes",
                f"{r['cpu_ms_per_move']:.2f} ms",
                "",
                None,
                floor=(
                    f"{floor.of(r['exempt_per_move'] + r['limited_per_move']):.2f} ms"
                    if floor is not None
                    else ""
                ),
                load=f"{r['load'][0]:.1f}-{r['load'][1]:.1f}",
            )
        )
        for name, ms in r.get("others_cpu_ms_per_move", {}).items():
            rows.append(
                Row(
                    "scale-out",
                    f"{r['deployment']}: {name} CPU per move",
                    f"{ms:.2f} ms",
                    "",
                    None,
                    load=f"{r['load'][0]:.1f}-{r['load'][1]:.1f}",
                )
            )
        rows.append(
            Row(
                "scale-out",
                f"{r['deployment']}: answered or deferred within 3 s",
                f"{r['share_within_limit']:.2%} of {r['interactions']:,}",
                "100 %",
                r["within_limit"] == r["interactions"] and not r["stalled"],
                load=f"{r['load'][0]:.1f}",
            )
        )
    if len(results) == 2:
        one, two = results
        rows.append(
            Row(
                "scale-out",
                "two processes / one, moves/s (on this 2-core machine)",
                f"x{two['moves_per_second'] / one['moves_per_second']:.2f}",
                "",
                None,
            )
        )
    else:
        rows.append(Row("scale-out", "scale_out.py", "failed", "", False))
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


def table(rows: list[Row], quick: bool, minutes: float) -> str:
    head = ("area", "figure", "measured", "target", "floor (same run)", "load avg", "")
    cells = [head] + [(r.area, r.figure, r.value, r.limit, r.floor, r.load, r.mark) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(6)]
    lines = [
        f"Siege Hall benchmarks{' (--quick: small runs)' if quick else ''}, "
        f"{minutes:.1f} minutes; load average: the machine's, 1-minute, when each was taken "
        "(2 cores: above 2, other processes took CPU from these figures)"
    ]
    for n, cell in enumerate(cells):
        lines.append(
            "  ".join(c.ljust(w) for c, w in zip(cell[:6], widths, strict=True)) + "  " + cell[6]
        )
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    missed = [r for r in rows if r.ok is False]
    lines.append(f"{len(rows)} figures, {len(missed)} missing their target")
    return "\n".join(lines)


def step(name: str, make: Callable[[], list[Row]]) -> list[Row]:
    """One benchmark's rows, with the load average; a benchmark that breaks gives a failed
    row, and the others still run."""
    load = load_average()
    began = time.perf_counter()
    try:
        rows = make()
    except Exception as exc:  # one broken script must not lose the others' figures
        print(f"  {name} broke: {exc!r}", flush=True)
        rows = [Row(name, name, "failed", "", False)]
    print(f"  ({name}: {time.perf_counter() - began:.0f} s)", flush=True)
    return loaded(rows, load)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--quick", "--fast", action="store_true", help="small runs of everything (minutes)"
    )
    parser.add_argument("--strength", action="store_true", help="also computer_strength.py")
    args = parser.parse_args(argv)
    quick = args.quick
    began = time.perf_counter()
    views: dict[str, list[Any]] = {}

    def engines() -> list[Row]:
        rows, found = engine_rows(1.0 if quick else 4.0)
        views.update(found)
        return rows

    rows = step("engine", engines)
    rows += step("render", lambda: picture_rows(views))
    floors: Floors = {}

    def floor_runs() -> list[Row]:
        found: list[Row] = []
        for rate in (0, PACED_RATE):
            rows, measured = floor_rows(quick, rate, ", before the load runs" if rate else "")
            found += rows
            if measured is not None:
                floors[rate] = measured
        return found

    for name, make in (
        ("engine", lambda: playout_script_rows(quick)),
        ("render", lambda: knights_render_rows(quick)),
        ("storage", lambda: store_rows(quick)),
        ("start-up", lambda: startup_rows(quick)),
        ("floor", floor_runs),
        (
            "load",
            lambda: load_rows(quick, floors, lambda when: floor_rows(quick, PACED_RATE, when)),
        ),
        ("scale-out", lambda: scale_out_rows(quick, floors.get(0))),
    ):
        rows += step(name, make)
    if args.strength:
        rows += step("computer", strength_rows)
    print()
    print(table(rows, quick, (time.perf_counter() - began) / 60))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
