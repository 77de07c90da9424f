"""How pictures and their alt text name the players: plain display names, never mentions.

A picture cannot show a mention, so the table picture, its alt text and a replay's picture name
each seat by the display name the player was last seen under here (kept as they join a table),
a computer by its name ("🤖 Computer 1 (hard)"), and a seat never seen by nothing (the renderer
then says "Player 2"). The names reach :mod:`presentation` as plain data.
"""

from __future__ import annotations

from collections.abc import Sequence

from storage import Store, computers


async def plain_names(store: Store, seats: Sequence[int]) -> list[str]:
    """Each seat's name as a picture draws it ("" for a player never seen)."""
    people = [uid for uid in seats if not computers.is_computer(uid)]
    stored = await store.names(people)
    return [
        f"🤖 {computers.name_of(uid)}" if computers.is_computer(uid) else stored.get(uid, "")
        for uid in seats
    ]


__all__ = ["plain_names"]
