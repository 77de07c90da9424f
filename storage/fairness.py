"""Provably fair chance, the storage side: each table's salt, when a daily game's deal may be
shown, and a finished game exported with everything ``python -m engine.verify`` checks.

A table's commitment is ``sha256("<seed>:<salt>")`` (engine/chance.py), the salt 128 random bits
made when the table is (migration 012; older tables have none). The seed and salt of a daily
challenge game stay closed until its UTC day is over: every player of the server that day is
dealt the same seed, so one finished game would show the others their deal.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from engine import chance

if TYPE_CHECKING:
    from storage.store import Store, TableRecord


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


async def export_script(store: Store, table: TableRecord) -> dict[str, Any]:
    """A finished table as a script (``../shared/spec/README.md``) that ``python -m
    engine.script`` plays again, plus what ``python -m engine.verify`` checks: the chance scheme,
    salt and commitment (``chance``), each action's logged events, and the deal as stored
    (``dealt``: the opening state, and the state after the last scripted action).

    A resignation is a table action outside the script format: the script leaves it out, and
    ``dealt`` then has no final state unless the resignation ended the game."""
    from storage.store import RESIGN  # the store imports this module

    log = await store.actions(table.id)
    scripted = [record for record in log if record.action != RESIGN]
    fair: dict[str, Any] = {"scheme": chance.scheme_of(table.state)}
    seal = commitment_of(table)
    if seal is not None:
        fair.update(salt=table.salt, commitment=seal)
    dealt: dict[str, Any] = {"opening": await store.replay(table.id, upto=0)}
    resigned = [n for n, record in enumerate(log) if record.action == RESIGN]
    if not resigned or resigned == [len(log) - 1]:
        dealt["final"] = await store.replay(table.id, upto=len(scripted))
    return {
        "game": table.game,
        "seats": len(table.seats),
        "options": table.options,
        "seed": table.seed,
        "chance": fair,
        "actions": [{"seat": r.seat, "action": r.action, "events": r.events} for r in scripted],
        "dealt": dealt,
    }


__all__ = ["commitment_of", "export_script", "is_closed", "new_salt"]
