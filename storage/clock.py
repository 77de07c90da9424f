"""Time controls: what a table's clock allows per move, and when a lobby gives up waiting.

``none`` (no deadlines), ``live:<minutes>`` (minutes per move) and ``daily:<days>`` (1, 2, 3, 7
or 14 days per move, as on Lichess). A player is reminded once at 80 % of a move's time.
"""

from __future__ import annotations

from datetime import datetime, timedelta

NONE = "none"
LIVE_MINUTES = (1, 3, 5, 10, 30, 60)
DAILY_DAYS = (1, 2, 3, 7, 14)
LOBBY_WAIT = timedelta(hours=24)
REMIND_AT = 0.8


def per_move(control: str) -> timedelta | None:
    """The time a seat has for one move under ``control`` (``None``: no clock).

    >>> per_move("daily:3"), per_move("live:5"), per_move("none")
    (datetime.timedelta(days=3), datetime.timedelta(seconds=300), None)
    """
    if control == NONE:
        return None
    kind, _, amount = control.partition(":")
    if kind == "live" and amount.isdigit() and int(amount) in LIVE_MINUTES:
        return timedelta(minutes=int(amount))
    if kind == "daily" and amount.isdigit() and int(amount) in DAILY_DAYS:
        return timedelta(days=int(amount))
    raise ValueError(f"unknown time control {control!r}")


def describe(control: str) -> str:
    """In words, for tables and lobbies.

    >>> describe("daily:1"), describe("live:10"), describe("none")
    ('1 day per move', '10 minutes per move', 'no clock')
    """
    step = per_move(control)
    if step is None:
        return "no clock"
    if step.days:
        return f"{step.days} day{'s' if step.days != 1 else ''} per move"
    minutes = int(step.total_seconds() // 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''} per move"


def stamp(moment: datetime) -> str:
    """The stored form of a moment: ISO 8601 in UTC with milliseconds (sorts as it reads)."""
    return moment.isoformat(timespec="milliseconds")


#: How long the seat to act in a game without a clock may stay away before the others may claim
#: the game (issue 25): the sweeper tells them then (the table's ``remind_at``).
CLAIM_AFTER = timedelta(days=3)


def deadlines(control: str, now: datetime) -> tuple[str | None, str | None]:
    """The deadline and reminder time of a move that starts ``now`` (both ``None``: no clock)."""
    step = per_move(control)
    if step is None:
        return None, None
    return stamp(now + step), stamp(now + step * REMIND_AT)


def choices() -> list[str]:
    return [NONE, *(f"live:{m}" for m in LIVE_MINUTES), *(f"daily:{d}" for d in DAILY_DAYS)]


__all__ = [
    "CLAIM_AFTER",
    "LOBBY_WAIT",
    "NONE",
    "choices",
    "deadlines",
    "describe",
    "per_move",
    "stamp",
]
