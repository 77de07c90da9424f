"""One way in for every format: the next round, how many rounds there are, and the ranking.

A player who withdraws (left the tournament or the server) is paired no more in a Swiss or a
table event; in a round robin, whose rounds are fixed, each game they still had is decided at
once as their loss (a forfeit: the opponent's point, no game played).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.tournament import robin, swiss, tables
from engine.tournament.records import BYE, LOSS, WIN, Entrant, Format, Match, PairingImpossible
from engine.tournament.standings import Standing, standings

#: The fewest entrants each format starts with.
LEAST_PLAYERS: dict[str, int] = {"swiss": 3, "robin": 3, "double_robin": 2, "tables": 2}


def planned_rounds(fmt: Format, players: int, swiss_rounds: int) -> int | None:
    """How many rounds the event has, once its field is known (``None``: a table event, which
    lasts until one table is left)."""
    if fmt == "swiss":
        # Nobody can meet more opponents than there are; an odd field also sits out once.
        return max(1, min(swiss_rounds, players - 1 + players % 2))
    if fmt in ("robin", "double_robin"):
        return robin.rounds_of(players, fmt == "double_robin")
    return None


def next_round(
    fmt: Format,
    entrants: Sequence[Entrant],
    matches: Sequence[Match],
    round_no: int,
    *,
    rounds: int | None,
    size: int = 2,
    withdrawn: frozenset[int] = frozenset(),
) -> list[Match]:
    """Round ``round_no``'s matches; empty when the event is over (every round played, no
    pairing left, or one player left). A match already decided (a withdrawn player's forfeit)
    comes with its points."""
    if rounds is not None and round_no > rounds:
        return []
    if fmt == "tables":
        return tables.pair(entrants, matches, round_no, size, withdrawn)
    if len([e for e in entrants if e.id not in withdrawn]) < 2:
        return []
    if fmt == "swiss":
        try:
            made = swiss.pair(entrants, matches, round_no, withdrawn)
        except PairingImpossible:
            return []
        # A Swiss bye scores a win's point (C.04.1.c).
        return [Match(m.round, m.players, (BYE,)) if m.is_bye else m for m in made]
    made = robin.pair(entrants, round_no, fmt == "double_robin")
    return [_forfeited(m, withdrawn) for m in made if not set(m.players) <= withdrawn]


def _forfeited(match: Match, withdrawn: frozenset[int]) -> Match:
    """A round robin's bye scores nothing (everyone has one in an odd field); a withdrawn
    player's game is their loss."""
    if match.is_bye:
        return Match(match.round, match.players, (LOSS,))
    if not set(match.players) & withdrawn:
        return match
    return Match(
        match.round, match.players, tuple(LOSS if p in withdrawn else WIN for p in match.players)
    )


def rank(fmt: Format, entrants: Sequence[Entrant], matches: Sequence[Match]) -> list[Standing]:
    """The standings of the event as its format ranks them."""
    if fmt == "tables":
        return tables.standings(entrants, matches)
    return standings(entrants, matches)


__all__ = ["LEAST_PLAYERS", "next_round", "planned_rounds", "rank"]
