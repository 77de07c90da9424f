"""Ratings: openskill's Plackett–Luce model, the number a board shows, and how much a game counts.

One model serves two-player games, draws and ranked multiplayer results (tower poker's final
chips): each seat is a team of one, ranked by its place (1 for the winners, everyone 1 in a draw).

- **Shown rating.** The conservative estimate ``mu − 3·sigma`` (a player is at least this good
  with high confidence), scaled so a newcomer shows 1500 and one skill point is 60 rating points.
  A player stays *provisional* while ``sigma`` is above :data:`PROVISIONAL_SIGMA` (about their
  first eight games); boards mark them.
- **Anti-farming.** The n-th rated game between the same set of players on the same UTC day, in
  the same server and game, moves ratings 1/n as far as a first game would (``mu`` and ``sigma``
  both move that fraction of the way to where the model puts them). Two friends playing twenty
  rematches in one evening gain little more than from their first few. A server may turn this
  off (``/siege-admin leaderboards``); each result keeps the rule it was rated by.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
BASE = 1500.0
SCALE = 60.0
PROVISIONAL_SIGMA = 6.0


@dataclass(frozen=True)
class Skill:
    mu: float
    sigma: float

    @property
    def shown(self) -> float:
        """The number boards show.

        >>> round(Skill(25.0, 25.0 / 3).shown)
        1500
        """
        return BASE + SCALE * (self.mu - 3.0 * self.sigma)

    @property
    def provisional(self) -> bool:
        return self.sigma > PROVISIONAL_SIGMA


NEWCOMER = Skill(MODEL.mu, MODEL.sigma)


def rate(skills: Sequence[Skill], places: Sequence[int], weight: float = 1.0) -> list[Skill]:
    """Each seat's skill after a game it finished at ``places`` (1 best; equal places tie),
    moved ``weight`` of the way from before to what the model says.

    >>> winner, loser = rate([NEWCOMER, NEWCOMER], [1, 2])
    >>> winner.mu > 25 > loser.mu and winner.sigma < NEWCOMER.sigma
    True
    >>> a, b = rate([NEWCOMER, NEWCOMER], [1, 1])
    >>> a == b and a.mu == 25
    True
    """
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    after = [Skill(team[0].mu, team[0].sigma) for team in rated]
    if weight >= 1.0:
        return after
    return [
        Skill(b.mu + weight * (a.mu - b.mu), b.sigma + weight * (a.sigma - b.sigma))
        for b, a in zip(skills, after, strict=True)
    ]


def places_of(winners: Sequence[int], seats: int, scores: Sequence[int] | None) -> list[int]:
    """Each seat's place: winners first. In a game of three or more seats with scores (tower
    poker's chips) the others are ranked by score, equal scores sharing a place; otherwise every
    non-winner shares second place. No winners in a game of two or more is a draw.

    >>> places_of([1], 2, None)
    [2, 1]
    >>> places_of([], 1, [0])  # a solo game lost
    [2]
    >>> places_of([], 2, None)
    [1, 1]
    >>> places_of([2], 4, [30, 0, 100, 30])
    [2, 4, 1, 2]
    """
    if seats == 1:  # the solo game: won or lost, never drawn
        return [1 if winners else 2]
    if not winners:
        return [1] * seats
    if scores is None or seats < 3:
        return [1 if seat in winners else 2 for seat in range(seats)]
    order = sorted(range(seats), key=lambda seat: (seat not in winners, -scores[seat]))
    places = [0] * seats
    for position, seat in enumerate(order):
        previous = order[position - 1] if position else None
        tied = previous is not None and (
            (previous in winners) == (seat in winners) and scores[previous] == scores[seat]
        )
        places[seat] = places[previous] if tied and previous is not None else position + 1
    return places


def outcome(place: int, places: Sequence[int]) -> str:
    """``win`` for first place (alone or shared with some, not all), ``draw`` when every seat
    of two or more shares first place, else ``loss``.

    >>> outcome(1, [1]), outcome(2, [2]), outcome(1, [1, 1]), outcome(2, [1, 2])
    ('win', 'loss', 'draw', 'loss')
    """
    if len(places) > 1 and all(p == 1 for p in places):
        return "draw"
    return "win" if place == 1 else "loss"


def repeat_weight(earlier_same_day: int) -> float:
    """How much a game counts after ``earlier_same_day`` rated games of the same players that
    day: 1, 1/2, 1/3, ...

    >>> [repeat_weight(n) for n in range(3)]
    [1.0, 0.5, 0.3333333333333333]
    """
    return 1.0 / (1 + earlier_same_day)


__all__ = [
    "NEWCOMER",
    "PROVISIONAL_SIGMA",
    "Skill",
    "outcome",
    "places_of",
    "rate",
    "repeat_weight",
]
