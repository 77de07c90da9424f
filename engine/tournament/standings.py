"""Standings and the crosstable.

Two-seat formats rank by points, then **Buchholz** (the sum of the opponents' points; a bye
counts as an opponent with the player's own points, as FIDE's tie-break regulations treat an
unplayed round), then **Sonneborn–Berger** (the points of each opponent beaten, half those of
each opponent drawn), then **direct encounter** (the points scored in the games between the
players still tied), then the initial ranking. Table events rank by how far each player got
(see :mod:`engine.tournament.tables`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.tournament.records import WIN, Entrant, Match

Key = tuple[float, float, float]


@dataclass(frozen=True)
class Standing:
    """One line of the standings (``rank`` from 1; players level on every key share it)."""

    rank: int
    player: int
    points: float
    buchholz: float = 0.0
    sonneborn_berger: float = 0.0
    direct: float = 0.0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0

    @property
    def played(self) -> int:
        return self.wins + self.draws + self.losses


def points(matches: Sequence[Match]) -> dict[int, float]:
    """Each player's points in the matches that are over."""
    total: dict[int, float] = {}
    for match in matches:
        for player in match.players:
            total[player] = total.get(player, 0.0) + match.points_of(player)
    return total


def standings(entrants: Sequence[Entrant], matches: Sequence[Match]) -> list[Standing]:
    """The two-seat standings of ``entrants`` after the matches that are over."""
    over = [m for m in matches if m.is_over]
    total = {e.id: 0.0 for e in entrants} | points(over)
    buchholz = dict.fromkeys(total, 0.0)
    sb = dict.fromkeys(total, 0.0)
    counts = {p: [0, 0, 0, 0] for p in total}  # wins, draws, losses, byes
    for match in over:
        if match.is_bye:
            (player,) = match.players
            buchholz[player] += total[player]
            counts[player][3] += 1
            continue
        for me, them in (match.players, match.players[::-1]):
            mine = match.points_of(me)
            buchholz[me] += total[them]
            sb[me] += total[them] * mine
            counts[me][0 if mine == WIN else 1 if mine > 0 else 2] += 1
    seed = {e.id: n for n, e in enumerate(entrants)}

    def key(p: int) -> Key:
        return (-total[p], -buchholz[p], -sb[p])

    ordered = sorted(total, key=lambda p: (key(p), seed.get(p, len(seed))))
    direct = dict.fromkeys(total, 0.0)
    for tied in _groups(ordered, key):
        if len(tied) > 1:
            among = set(tied)
            for match in over:
                if len(match.players) == 2 and set(match.players) <= among:
                    for player in match.players:
                        direct[player] += match.points_of(player)

    def full(p: int) -> tuple[float, float, float, float]:
        return (*key(p), -direct[p])

    ordered.sort(key=lambda p: (full(p), seed.get(p, len(seed))))
    lines: list[Standing] = []
    for n, player in enumerate(ordered):
        rank = lines[-1].rank if lines and full(ordered[n - 1]) == full(player) else n + 1
        wins, draws, losses, byes = counts[player]
        lines.append(
            Standing(
                rank=rank,
                player=player,
                points=total[player],
                buchholz=buchholz[player],
                sonneborn_berger=sb[player],
                direct=direct[player],
                wins=wins,
                draws=draws,
                losses=losses,
                byes=byes,
            )
        )
    return lines


def crosstable(matches: Sequence[Match]) -> dict[tuple[int, int], list[float]]:
    """What each player scored against each opponent, game by game (a double round robin has
    two), keyed ``(player, opponent)``."""
    table: dict[tuple[int, int], list[float]] = {}
    for match in matches:
        if match.is_over and len(match.players) == 2:
            a, b = match.players
            table.setdefault((a, b), []).append(match.points_of(a))
            table.setdefault((b, a), []).append(match.points_of(b))
    return table


def _groups(ordered: Sequence[int], key: Callable[[int], Key]) -> list[list[int]]:
    """``ordered`` cut into runs of players level on ``key``."""
    groups: list[list[int]] = []
    for player in ordered:
        k = key(player)
        if groups and key(groups[-1][0]) == k:
            groups[-1].append(player)
        else:
            groups.append([player])
    return groups


__all__ = ["Standing", "crosstable", "points", "standings"]
