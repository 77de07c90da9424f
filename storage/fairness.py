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
from storage.records import RESIGN

if TYPE_CHECKING:
    from storage.records import TableRecord
    from storage.store import Store


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
    (``dealt``: the opening state, the final state, and the resignations).

    A resignation is a table action outside the script format: the script's actions leave it out
    and ``dealt.resignations`` says where it came (``after`` that many scripted actions), so the
    verifier replays the whole stored game (a tower poker seat that left mid-game included)."""
    log = await store.actions(table.id)
    fair: dict[str, Any] = {"scheme": chance.scheme_of(table.state)}
    seal = commitment_of(table)
    if seal is not None:
        fair.update(salt=table.salt, commitment=seal)
    actions: list[dict[str, Any]] = []
    resignations: list[dict[str, int]] = []
    for record in log:
        if record.action == RESIGN:
            resignations.append({"after": len(actions), "seat": record.seat})
        else:
            actions.append({"seat": record.seat, "action": record.action, "events": record.events})
    return {
        "game": table.game,
        "seats": len(table.seats),
        "options": table.options,
        "seed": table.seed,
        "chance": fair,
        "actions": actions,
        "dealt": {
            "opening": await store.replay(table.id, upto=0),
            "final": table.state,
            "resignations": resignations,
        },
    }


__all__ = ["commitment_of", "export_script", "is_closed", "new_salt"]
