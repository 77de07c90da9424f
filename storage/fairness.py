"""Provably fair chance, the storage side: each table's salt and when a daily game's deal may be
shown (a finished game's export is :mod:`storage.export`).

A table's commitment is ``sha256("<seed>:<salt>")`` (engine/chance.py), the salt 128 random bits
made when the table is (migration 012; older tables have none). The seed and salt of a daily
challenge game stay closed until its UTC day is over: every player of the server that day is
dealt the same seed, so one finished game would show the others their deal.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from engine import chance

if TYPE_CHECKING:
    from storage.records import TableRecord


def new_salt() -> str:
    """A fresh salt: 32 hex digits from the operating system's random source."""
    return secrets.token_hex(16)


def commitment_of(table: TableRecord) -> str | None:
    """The table's commitment (None for a table made before commitments)."""
    return None if table.salt is None else chance.commitment(table.seed, table.salt)


def is_closed(day: str | None, now: datetime) -> bool:
    """Whether a daily game of ``day`` (``YYYY-MM-DD``, UTC) still keeps its deal: until the day
    is over. ``None`` (not a daily game) never does.

    >>> moment = datetime(2026, 11, 27, 23, 59, tzinfo=UTC)
    >>> is_closed("2026-11-27", moment), is_closed("2026-11-26", moment), is_closed(None, moment)
    (True, False, False)
    """
    return day is not None and day >= f"{now.astimezone(UTC):%Y-%m-%d}"


__all__ = ["commitment_of", "is_closed", "new_salt"]
