"""Seasons of the leaderboards: how long one lasts in a server, and what a season is called.

A rated game goes on its server's all-time board and on the board of the season it ended in
(UTC). A server chooses the length (``/siege-admin leaderboards``): a month (the default), a
quarter or a year. The season is named when the game is recorded, by the length the server had
then: a change of length applies to the games that end from then on, and earlier seasons keep
their boards.
"""

from __future__ import annotations

import re

ALL_TIME = "all"
MONTHLY, QUARTERLY, YEARLY = "monthly", "quarterly", "yearly"
LENGTHS = (MONTHLY, QUARTERLY, YEARLY)
SEASON = re.compile(r"[0-9]{4}(-(0[1-9]|1[0-2])|-Q[1-4])?")
#: A season as a custom id or an autocomplete value carries it (see :data:`SEASON`).
SEASON_PATTERN = r"all|[0-9]{4}(?:-[0-9]{2}|-Q[1-4])?"


def season_of(ended_at: str, length: str = MONTHLY) -> str:
    """The season of an ISO timestamp (UTC) for a season ``length``.

    >>> [season_of("2026-11-27T03:00:00+00:00", n) for n in LENGTHS]
    ['2026-11', '2026-Q4', '2026']
    """
    if length == YEARLY:
        return ended_at[:4]
    if length == QUARTERLY:
        return f"{ended_at[:4]}-Q{(int(ended_at[5:7]) - 1) // 3 + 1}"
    if length != MONTHLY:
        raise ValueError(f"unknown season length {length!r}")
    return ended_at[:7]


def parse_season(text: str) -> str | None:
    """A season as a player types it (``2026-11``, ``2026-q4``, ``2026``, ``all``), or
    ``None`` when it is not one.

    >>> parse_season(" 2026-q4 "), parse_season("All"), parse_season("2026-13")
    ('2026-Q4', 'all', None)
    """
    words = text.strip().upper()
    if words in ("ALL", "ALL-TIME", "ALL TIME"):
        return ALL_TIME
    return words if SEASON.fullmatch(words) else None


__all__ = [
    "ALL_TIME",
    "LENGTHS",
    "MONTHLY",
    "QUARTERLY",
    "SEASON_PATTERN",
    "YEARLY",
    "parse_season",
    "season_of",
]
