"""Same seed, different players: how much of Siege at Kurth's chance the player's choices move.

    .venv/bin/python benchmarks/kurth_fairness.py [--pairs N] [--scheme 1|2]

Not a test (the test is tests/engine/test_chance.py). For each of N seeds two games are played
to their end by two different random policies, both dealt with one chance scheme
(engine/chance.py: 1 is the old per-ply generator, 2 the streams by purpose). Prints, for each
round, how many turns both games reached with the same three action cards, and how many pairs
rolled the same two dice on their first attack. Issue 23 measured scheme 1 at 1,600/1,600,
246/1,507 and 22/467 turns and 51/400 first attacks.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from engine import chance
from engine.kurth import GAME


def play(seed: int, policy: random.Random, scheme: int) -> tuple[dict[int, Any], list[int] | None]:
    """One game: the cards each turn dealt (by turn) and the dice of its first attack."""
    state = chance.deal(GAME, 1, {"difficulty": "normal"}, seed, scheme=scheme)
    turns: dict[int, Any] = {1: (1, list(state["cards"]))}
    first: list[int] | None = None
    ply = 0
    while state["to_act"] is not None:
        action = policy.choice(GAME.legal_actions(state, 0))
        state, events = chance.advance(GAME, state, 0, action, seed, ply)
        ply += 1
        for event in events:
            if event["type"] == "upkeep_done":
                turns[event["turn"]] = (event["round"], event["cards"])
            if event["type"] == "attack_rolled" and first is None:
                first = list(event["dice"])
    return turns, first


def measure(pairs: int, scheme: int) -> None:
    same = {1: 0, 2: 0, 3: 0}
    both = {1: 0, 2: 0, 3: 0}
    attacks = 0
    for seed in range(1, pairs + 1):
        a_turns, a_dice = play(seed, random.Random(f"a:{seed}"), scheme)
        b_turns, b_dice = play(seed, random.Random(f"b:{seed}"), scheme)
        for turn in sorted(set(a_turns) & set(b_turns)):
            round_ = a_turns[turn][0]
            both[round_] += 1
            same[round_] += a_turns[turn] == b_turns[turn]
        attacks += a_dice is not None and a_dice == b_dice
    print(f"scheme {scheme}, {pairs} same-seed pairs of random games (normal difficulty):")
    for round_ in (1, 2, 3):
        print(f"  round-{round_} turns identical: {same[round_]:,}/{both[round_]:,}")
    print(f"  first attack's dice identical: {attacks}/{pairs}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=400)
    parser.add_argument("--scheme", type=int, choices=chance.SCHEMES, action="append")
    args = parser.parse_args()
    for scheme in args.scheme or list(chance.SCHEMES):
        measure(args.pairs, scheme)


if __name__ == "__main__":
    main()
