"""A short memo of drawn panels, keyed by everything a panel is drawn from.

After a move its player's panel is drawn twice: for the answer to their click (when they clicked
it) and again, moments later, by the redraw that brings every panel of the table up to date. Both
are drawn from the same table version for the same player in the same place, so they are the same
panel; the memo hands back the parts drawn the first time (their fingerprint already worked out),
and the redraw finds the message showing them and sends nothing.

A memo must never serve an out-of-date panel, so its key (:func:`panel_key`) holds every input
that can change what a panel shows: the table's version, which every change of its position,
seats or status bumps; the stored columns that change without a new version (the table message a
panel links to, the deadline, the time of the last change a claim is counted from); whether a
claim is open at this moment; where a DM panel says it comes from (a channel or server renamed);
the player, DM or not, and the first step chosen. What is drawn from the table's log (the lines
since the player's last turn, the cards new in their hand) is fixed by the version, as the log
only grows with it. Only a few panels are kept: a panel is asked for again within its move.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable

from cogs.flow import Parts
from storage import TableRecord

#: Panels kept (the latest drawn): a panel is asked again within its move's redraw.
PANELS_KEPT = 64

PanelKey = tuple[Hashable, ...]


def panel_key(
    table: TableRecord,
    user_id: int,
    *,
    for_dm: bool,
    stage: str | None,
    place: str | None,
    claim_open: bool,
) -> PanelKey:
    """Everything ``user_id``'s panel of ``table`` is drawn from, as a memo key."""
    return (
        table.id,
        table.version,
        table.status,
        table.ply,
        table.updated_at,
        table.message_id,
        table.deadline,
        table.ending,
        table.ended_by,
        user_id,
        for_dm,
        stage,
        place,
        claim_open,
    )


class PartsMemo:
    """The panels drawn last, by :func:`panel_key`."""

    def __init__(self, kept: int = PANELS_KEPT) -> None:
        self.kept = kept
        self._parts: OrderedDict[PanelKey, Parts] = OrderedDict()
        self.hits = 0  # panels handed back instead of drawn again

    def get(self, key: PanelKey) -> Parts | None:
        parts = self._parts.get(key)
        if parts is not None:
            self._parts.move_to_end(key)
            self.hits += 1
        return parts

    def put(self, key: PanelKey, parts: Parts) -> None:
        self._parts[key] = parts
        self._parts.move_to_end(key)
        while len(self._parts) > self.kept:
            self._parts.popitem(last=False)

    def __len__(self) -> int:
        return len(self._parts)


__all__ = ["PANELS_KEPT", "PanelKey", "PartsMemo", "panel_key"]
