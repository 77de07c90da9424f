"""A finished game exported with everything ``python -m engine.verify`` checks: the script, the
seed's salt and commitment, each action's logged events and the deal as stored."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine import chance
from storage.fairness import commitment_of
from storage.records import is_drawn_claim, is_resignation, why_resigned

if TYPE_CHECKING:
    from storage.reading import Reading
    from storage.records import TableRecord


async def export_script(store: Reading, table: TableRecord) -> dict[str, Any]:
    """A finished table as a script (``../shared/spec/README.md``) that ``python -m
    engine.script`` plays again, plus what ``python -m engine.verify`` checks: the chance scheme,
    salt and commitment (``chance``), each action's logged events, and the deal as stored
    (``dealt``: the opening state, the final state, and the resignations).

    A resignation is a table action outside the script format: the script's actions leave it out
    and ``dealt.resignations`` says where it came (``after`` that many scripted actions), so the
    verifier replays the whole stored game (a tower poker seat that left mid-game included); a
    forfeit on the clock or a claim says so (``why``), and ``ending`` says how the game ended
    (``dealt.ending``, migration 013; absent for a game that ended before it)."""
    log = await store.actions(table.id)
    fair: dict[str, Any] = {"scheme": chance.scheme_of(table.state)}
    seal = commitment_of(table)
    if seal is not None:
        fair.update(salt=table.salt, commitment=seal)
    actions: list[dict[str, Any]] = []
    resignations: list[dict[str, Any]] = []
    for record in log:
        if is_resignation(record.action):
            quit_: dict[str, Any] = {"after": len(actions), "seat": record.seat}
            why = why_resigned(record.action)
            if why != "resigned":
                quit_["why"] = why
            if is_drawn_claim(record.action):
                quit_["draw"] = True
            resignations.append(quit_)
        else:
            actions.append({"seat": record.seat, "action": record.action, "events": record.events})
    ending = {} if table.ending is None else {"ending": table.ending}
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
            **ending,
        },
    }


__all__ = ["export_script"]
