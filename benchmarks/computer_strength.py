"""How strong the computer players are: seeded games between levels, printed as tables.

Not a test. For every two-player game (castles, king, knights) each level plays random play and
the level below, seats alternating game by game; tower poker plays one computer against random
seats at a 2-seat and a 5-seat table, and hard against normal heads-up (towers of 5 cards
rather than 10 by default, so that the tables finish in minutes). A game's score is 1 for a
win, 1/2 for a draw (or a win shared by two), 0 for a loss; the table gives the mean score with
its 95% Wilson interval. "Clearly better" means the interval's lower bound is above 50% (for
towers' multi-seat table, above the 1/n share a random seat expects). The last column is the
thinking time of hard's moves in these games: median, 99th percentile and maximum (wall
seconds; with ``--cpu``, the CPU seconds of the two-player games' moves). Rule-based
players (``benchmarks/rule_players.py``) take a seat by name: ``--pairs hard-greedy`` (Castles),
``hard-public`` (King), ``hard-capture`` (Siege (1966)); ``wall``, ``sleuth``, ``careful`` are
the second rule player of each of these games; and the towers tables ``hard-tag``,
``hard-tag-4`` (tight-aggressive), ``hard-lag``, ``hard-lag-4`` (loose-aggressive),
``hard-station``, ``hard-station-4`` (calling station), and ``lag-tag``, ``station-tag`` (the
rule players against each other); ``hard-normal-7`` times hard at a 7-seat tower poker table.
Tower poker tables also print the focus seat's mean chip result per game with its 95% interval,
and its head-to-head finishing score: against each other seat, 1 when it ends the game with more
chips, 1/2 with as many, 0 with fewer, averaged over the other seats and then over games. That
score is pairwise (finishing second of four beats two seats: 2/3), so it is not the win share;
the pairs of one game are not independent, so its interval is taken over games (Wilson's, n =
games, on each game's mean, which is conservative for a mean in [0, 1]).

Run: ``python -m benchmarks.computer_strength [--games N] [--workers W] [--only castles,king]
[--pairs hard-normal,normal-random]`` (``--pairs`` keeps only those two-player matchups).
Games run in a process pool, one game per task; each task times its own moves.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import engine
from benchmarks.rule_players import RULE_PLAYERS
from engine import ai
from engine.rules import Action, rng_for

MAX_PLIES = 20_000
# The two-player matchups, each level against random play and against the level below.
PAIRS: tuple[tuple[str, str], ...] = (
    ("easy", "random"),
    ("normal", "random"),
    ("hard", "random"),
    ("normal", "easy"),
    ("hard", "normal"),
)

# Tower poker tables: key -> (seats, the focus seat's level, every other seat's level).
TOWER_TABLES: dict[str, tuple[int, str, str]] = {
    "normal-random": (2, "normal", "random"),
    "hard-random": (2, "hard", "random"),
    "hard-random-5": (5, "hard", "random"),
    "hard-normal": (2, "hard", "normal"),
    "normal-easy": (2, "normal", "easy"),
    "easy-random": (2, "easy", "random"),
    "hard-tag": (2, "hard", "tag"),
    "normal-tag": (2, "normal", "tag"),
    "hard-tag-4": (4, "hard", "tag"),
    "hard-normal-7": (7, "hard", "normal"),
    "hard-lag": (2, "hard", "lag"),
    "hard-lag-4": (4, "hard", "lag"),
    "hard-station": (2, "hard", "station"),
    "hard-station-4": (4, "hard", "station"),
    "lag-tag": (2, "lag", "tag"),
    "station-tag": (2, "station", "tag"),
}


@dataclass(frozen=True)
class Match:
    game: str
    seats: tuple[str, ...]  # a level or "random" per seat
    focus: int  # the seat whose score is counted
    seed: int
    options: tuple[tuple[str, int], ...] = ()
    cpu: bool = False  # time hard's moves in CPU seconds (time.process_time), not wall time


@dataclass(frozen=True)
class Outcome:
    score: float
    hard_times: tuple[float, ...]
    plies: int
    chips: float = 0.0  # tower poker: the focus seat's chips at the end less its start
    # Tower poker: the focus seat's head-to-head finishing score, the mean over the other seats
    # of 1 (it ends with more chips), 1/2 (as many) or 0 (fewer).
    pairwise: float = 0.0


def play(match: Match) -> Outcome:
    """One seeded game to its end; the focus seat's score and hard's move times."""
    game = engine.get_game(match.game)
    options = dict(match.options)
    state = game.setup(len(match.seats), options, rng_for(match.seed, "setup"))
    start_chips = list(state["chips"]) if match.game == "towers" else []
    chooser = random.Random(f"{match.seed}:players")
    times: list[float] = []
    ply = 0
    while game.result(state) is None and ply < MAX_PLIES:
        seat = game.to_act(state)
        assert seat is not None
        level = match.seats[seat]
        action: Action
        if level == "random":
            legal = [a for a in game.legal_actions(state, seat) if a["type"] != "leave"]
            action = legal[chooser.randrange(len(legal))]
        elif level in RULE_PLAYERS:
            rule = RULE_PLAYERS[level][1]
            action = rule(game.view(state, seat), seat, game.legal_actions(state, seat), chooser)
        else:
            clock = time.process_time if match.cpu else time.perf_counter
            start = clock()
            view = game.view(state, seat)
            action = ai.choose(match.game, view, seat, level, chooser, options=options)
            if level == "hard":
                times.append(clock() - start)
        state, _ = game.apply(state, seat, action, rng_for(match.seed, ply))
        ply += 1
    result = game.result(state)
    score = 0.5
    if result is not None and result.winners:
        score = 1.0 / len(result.winners) if match.focus in result.winners else 0.0
    elif result is not None and len(match.seats) > 2:
        score = 1.0 / len(match.seats)
    chips = pairwise = 0.0
    if start_chips:
        chips = float(state["chips"][match.focus] - start_chips[match.focus])
        pairwise = head_to_head(state["chips"], match.focus)
    return Outcome(score, tuple(times), ply, chips, pairwise)


def head_to_head(final: Sequence[int], focus: int) -> float:
    """The focus seat's mean score against each other seat by final chips: 1 ahead, 1/2 level,
    0 behind.

    >>> head_to_head([120, 90, 120, 70], 0)
    0.8333333333333334
    """
    others = [c for x, c in enumerate(final) if x != focus]
    mine = final[focus]
    return sum(1.0 if mine > c else 0.5 if mine == c else 0.0 for c in others) / len(others)


def wilson(mean: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (a mean score counts as one)."""
    if n == 0:
        return 0.0, 1.0
    centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def two_player(game: str, a: str, b: str, games: int, seed: int, cpu: bool = False) -> list[Match]:
    matches = []
    for i in range(games):
        seats = (a, b) if i % 2 == 0 else (b, a)
        matches.append(Match(game, seats, i % 2, seed * 100_000 + i, cpu=cpu))
    return matches


def table(
    game: str, n: int, level: str, other: str, games: int, seed: int, height: int
) -> list[Match]:
    matches = []
    for i in range(games):
        focus = i % n
        seats = tuple(level if s == focus else other for s in range(n))
        options = (("tower_height", height),)
        matches.append(Match(game, seats, focus, seed * 100_000 + i, options))
    return matches


def report(
    title: str,
    rows: Sequence[tuple[str, list[Outcome]]],
    baseline: Sequence[float],
    pool_time: float,
    *,
    chips: bool = False,
) -> None:
    print(f"\n{title}")
    print(
        f"{'matchup':<22}{'games':>6}{'score':>8}   {'95% interval':<16}"
        f"{'hard s/move p50/p99/max':>24}"
    )
    for (label, outcomes), base in zip(rows, baseline, strict=True):
        n = len(outcomes)
        mean = sum(o.score for o in outcomes) / n
        low, high = wilson(mean, n)
        times = [t for o in outcomes for t in o.hard_times]
        times.sort()
        p99 = times[min(len(times) - 1, int(0.99 * len(times)))] if times else 0.0
        timing = f"{statistics.median(times):.3f}/{p99:.3f}/{max(times):.3f}" if times else "-"
        clear = "clearly" if low > base else "not clear"
        print(
            f"{label:<22}{n:>6}{mean:>8.1%}   [{low:.1%}, {high:.1%}]  {timing:>20}   "
            f"{clear} (>{base:.0%})"
        )
        if chips:
            won = [o.chips for o in outcomes]
            mid = statistics.fmean(won)
            half = 1.96 * statistics.stdev(won) / math.sqrt(n) if n > 1 else math.inf
            print(f"{'':<22}chips per game {mid:+.1f} [{mid - half:+.1f}, {mid + half:+.1f}]")
            # Pairs of seats in one game are not independent: the interval is over games, on
            # each game's mean head-to-head score (a value in [0, 1], so Wilson's interval with
            # n = games is at least as wide as the true one).
            pair = statistics.fmean(o.pairwise for o in outcomes)
            low, high = wilson(pair, n)
            print(f"{'':<22}head-to-head {pair:.1%} [{low:.1%}, {high:.1%}] (pairwise, by game)")
    print(f"({pool_time:.0f} s)", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50, help="games per matchup (castles, king)")
    parser.add_argument("--knights-games", type=int, default=60, help="games per knights matchup")
    parser.add_argument("--towers-games", type=int, default=12, help="games per towers matchup")
    parser.add_argument(
        "--towers-height", type=int, default=5, help="tower height at the towers tables (3-10)"
    )
    parser.add_argument(
        "--towers",
        default="normal-random,hard-random,hard-random-5,hard-normal,hard-tag,hard-tag-4",
        help=f"towers tables to play, of {', '.join(TOWER_TABLES)}",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="time hard's two-player moves in CPU seconds (a loaded or niced run's wall time is"
        " mostly waiting for a core)",
    )
    parser.add_argument("--only", default="castles,king,knights,towers")
    parser.add_argument(
        "--pairs",
        default=",".join(f"{a}-{b}" for a, b in PAIRS),
        help="two-player matchups, as level-level (e.g. hard-normal,normal-random); a rule player"
        " (benchmarks/rule_players.py: greedy, wall, public, sleuth, capture, careful) plays only"
        " its own game",
    )
    args = parser.parse_args(argv)
    wanted = args.only.split(",")
    players = {*ai.LEVELS, "random", *RULE_PLAYERS}
    wanted_pairs = [tuple(p.split("-", 1)) for p in args.pairs.split(",")]
    for pair in wanted_pairs:
        if len(pair) != 2 or not set(pair) <= players:
            parser.error(f"unknown pair {'-'.join(pair)!r}")
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        for game in ("castles", "king", "knights"):
            if game not in wanted:
                continue
            t0 = time.perf_counter()
            pairs = [
                (a, b)
                for a, b in wanted_pairs
                if all(RULE_PLAYERS.get(x, (game,))[0] == game for x in (a, b))
            ]
            if not pairs:
                continue
            count = args.knights_games if game == "knights" else args.games
            batches = [two_player(game, a, b, count, args.seed, args.cpu) for a, b in pairs]
            results = [list(pool.map(play, batch)) for batch in batches]
            rows = [(f"{a} vs {b}", r) for (a, b), r in zip(pairs, results, strict=True)]
            report(
                f"{engine.get_game(game).title} ({game})",
                rows,
                [0.5] * len(rows),
                time.perf_counter() - t0,
            )
        if "towers" in wanted:
            t0 = time.perf_counter()
            g, h = args.towers_games, args.towers_height
            chosen = args.towers.split(",")
            unknown_tables = set(chosen) - set(TOWER_TABLES)
            if unknown_tables:
                parser.error(f"unknown towers table {sorted(unknown_tables)[0]!r}")
            specs = []
            for key in chosen:
                n, level, other = TOWER_TABLES[key]
                label = f"{level} vs {other}" + (f" x{n - 1}" if n > 2 else "") + f", {n} seats"
                specs.append((label, table("towers", n, level, other, g, args.seed, h), 1 / n))
            rows = [(label, list(pool.map(play, batch))) for label, batch, _ in specs]
            report(
                f"{engine.get_game('towers').title} (towers, tower_height {h})",
                rows,
                [base for _, _, base in specs],
                time.perf_counter() - t0,
                chips=True,
            )
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
