"""A clock tests move by hand: time-based behaviour (deadlines, seasons, daily seeds) takes an
injected clock, and tests advance it instead of sleeping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

START = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self, start: datetime = START) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)
