"""How a table shows that its chance was fixed before the first move (issue 23).

While a game runs its table's footer carries the commitment, ``sha256("<seed>:<salt>")``
(engine/chance.py): the first 12 hex digits to read at a glance, all 64 on the next line. The
seed never shows while the game runs. When the game is over the footer reveals the seed and the
salt, so anyone can recompute the hash and replay the deal (``python -m engine.verify`` on the
game exported from ``/siege history``); a daily challenge game keeps them until its UTC day is
over, since everyone in the server is dealt that seed that day. A table made before commitments
shows nothing of this.
"""

from __future__ import annotations

import discord

from engine import chance
from storage import Store, TableRecord
from storage.daily import GAME as DAILY_GAME
from storage.fairness import commitment_of, is_closed


async def closed_day(store: Store, table: TableRecord) -> str | None:
    """The UTC day until which this table's seed stays closed (a daily game's), else None."""
    if table.game != DAILY_GAME:
        return None
    day = await store.daily_day(table.id)
    return day if is_closed(day, store.now()) else None


async def stamp(embed: discord.Embed, table: TableRecord, store: Store) -> None:
    """Add the commitment (running) or the revealed seed and salt (over) to a table's footer."""
    seal = commitment_of(table)
    if seal is None:
        return
    footer = embed.footer.text or ""
    if table.status != "over":
        lines = [
            f"{footer} · deal sealed {seal[: chance.SHORT]}",
            f"sha256(seed:salt) = {seal}",
        ]
    elif (day := await closed_day(store, table)) is not None:
        lines = [
            footer,
            f"Deal sealed {seal[: chance.SHORT]}: the seed and salt are revealed in /siege "
            f"history once the UTC day {day} is over (everyone here is dealt them today).",
        ]
    else:
        lines = [footer, reveal_line(table, seal)]
    embed.set_footer(text="\n".join(line for line in lines if line))


def reveal_line(table: TableRecord, seal: str) -> str:
    return (
        f"Seed {table.seed} · salt {table.salt} · sha256(seed:salt) = {seal}: export the game "
        "from /siege history and run python -m engine.verify on it to check every card and die."
    )


__all__ = ["closed_day", "reveal_line", "stamp"]
