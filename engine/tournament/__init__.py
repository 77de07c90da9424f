"""Tournaments, pure: who meets whom each round, and who stands where.

Nothing here knows a game, Discord, a database or a clock (an import-linter contract says so):
the hall hands in the entrants (an id and a rating each, strongest first) and the matches played
so far, and gets back the next round's matches or the standings. Three formats:

- :mod:`engine.tournament.swiss`: Swiss pairings for two-seat games (FIDE Dutch system in
  outline: score groups, top half against bottom half, no pair twice, seats balanced, a bye to
  the lowest-ranked player who has not had one);
- :mod:`engine.tournament.robin`: round robin by the Berger tables (once, or twice with seats
  swapped);
- :mod:`engine.tournament.tables`: table events for games of more seats: tables of up to the
  game's seats, whose winners go on to fewer tables, until one table is left.

:mod:`engine.tournament.standings` ranks the entrants: points, then Buchholz, then
Sonneborn–Berger, then direct encounter (table events: how far each got, then the game's own
score).
"""

from __future__ import annotations

from engine.tournament.records import (
    FORMATS,
    Entrant,
    Format,
    Match,
    PairingImpossible,
    points_of,
)
from engine.tournament.standings import Standing, crosstable, standings

__all__ = [
    "FORMATS",
    "Entrant",
    "Format",
    "Match",
    "PairingImpossible",
    "Standing",
    "crosstable",
    "points_of",
    "standings",
]
