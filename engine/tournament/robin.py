"""Round robin by the Berger tables (FIDE Handbook C.05, Annex 1).

With ``n`` players (an odd field gets a dummy ``n + 1``: whoever meets it has the bye), there are
``n - 1`` rounds. Number the players 1..n in the initial ranking. The last player stays put; the
others turn round a circle by ``n / 2`` places each round. Round 1 is ``1-n, 2-(n-1), …``; the
last player takes the second seat in odd rounds and the first in even ones, and on the other
boards the player listed first takes the first seat. A double round robin plays the same
rounds again with every pair's seats swapped.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.tournament.records import Entrant, Match

#: The most players a round robin takes (each round needs every one of them).
MOST_PLAYERS = 10


def berger(n: int) -> list[list[tuple[int, int]]]:
    """The Berger table for ``n`` players (numbers from 1), round by round, pairs in seat order;
    an odd ``n`` includes the dummy ``n + 1``.

    >>> berger(4)
    [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    """
    if n < 2:
        raise ValueError("A round robin needs two players at least.")
    n += n % 2
    ring = n - 1
    rounds: list[list[tuple[int, int]]] = []
    for r in range(ring):
        shift = r * (n // 2) % ring
        other = shift + 1
        pairs = [(n, other) if r % 2 else (other, n)]
        for board in range(2, n // 2 + 1):
            first = (board - 1 + shift) % ring + 1
            second = (n - board + shift) % ring + 1
            pairs.append((first, second))
        rounds.append(pairs)
    return rounds


def rounds_of(players: int, double: bool) -> int:
    """How many rounds a round robin of ``players`` lasts."""
    return (players - 1 + players % 2) * (2 if double else 1)


def pair(entrants: Sequence[Entrant], round_no: int, double: bool = False) -> list[Match]:
    """Round ``round_no`` (from 1) of the round robin of ``entrants`` (in their initial ranking):
    its pairs in board order, then the bye of an odd field."""
    n = len(entrants)
    table = berger(n)
    index = round_no - 1
    swap = index >= len(table)
    if not (0 <= index < len(table) * (2 if double else 1)):
        raise ValueError(f"A round robin of {n} has no round {round_no}.")
    ids = [e.id for e in entrants]
    matches: list[Match] = []
    bye: Match | None = None
    for a, b in table[index % len(table)]:
        if a > n or b > n:  # the dummy of an odd field
            bye = Match(round_no, (ids[min(a, b) - 1],))
            continue
        pair_ = (ids[a - 1], ids[b - 1])
        matches.append(Match(round_no, pair_[::-1] if swap else pair_))
    return matches + ([bye] if bye is not None else [])


__all__ = ["MOST_PLAYERS", "berger", "pair", "rounds_of"]
