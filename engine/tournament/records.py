"""The records every tournament format shares: an entrant, a match, a format's name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Format = Literal["swiss", "robin", "double_robin", "tables"]

#: Each format and what it is, in words for a player (the keys are stored).
FORMATS: dict[str, str] = {
    "swiss": "Swiss",
    "robin": "round robin",
    "double_robin": "double round robin",
    "tables": "table event",
}

#: A win, a draw, a loss, and the point a bye gives (FIDE C.04.1.c: a bye scores a win).
WIN, DRAW, LOSS, BYE = 1.0, 0.5, 0.0, 1.0


class PairingImpossible(ValueError):
    """No pairing keeps every rule (every remaining pair has met already): the tournament
    ends after the rounds it has played."""


@dataclass(frozen=True)
class Entrant:
    """A player of the tournament. The order entrants are handed in is their initial ranking
    (strongest first): it breaks every tie the rules leave."""

    id: int
    rating: float = 0.0


@dataclass(frozen=True)
class Match:
    """One game of a round: the players in seat order (seat 0 moves first: "white"); a single
    player is a bye. ``points`` per seat once it is over (``None``: still playing); ``scores``
    are the game's own (chips), which table events rank by."""

    round: int
    players: tuple[int, ...]
    points: tuple[float, ...] | None = None
    scores: tuple[int, ...] | None = None

    @property
    def is_bye(self) -> bool:
        return len(self.players) == 1

    @property
    def is_over(self) -> bool:
        return self.points is not None

    def points_of(self, player: int) -> float:
        """What ``player`` scored here (0 while it is not over)."""
        if self.points is None:
            return 0.0
        return self.points[self.players.index(player)]


def points_of(winners: Sequence[int], seats: int) -> tuple[float, ...]:
    """Points per seat from a game's winning seats: one winner takes the point; no winner (a
    draw), or every seat winning, shares it; in a game of more seats, each winner scores a win.

    >>> points_of((1,), 2), points_of((), 2), points_of((0, 1), 2), points_of((2,), 3)
    ((0.0, 1.0), (0.5, 0.5), (0.5, 0.5), (0.0, 0.0, 1.0))
    """
    if seats == 2 and len(set(winners)) != 1:
        return (DRAW, DRAW)
    return tuple(WIN if seat in winners else LOSS for seat in range(seats))


__all__ = [
    "BYE",
    "DRAW",
    "FORMATS",
    "LOSS",
    "WIN",
    "Entrant",
    "Format",
    "Match",
    "PairingImpossible",
    "points_of",
]
