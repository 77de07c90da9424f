"""Endings: the result told to every player when a game ends, resigning (asked, then
confirmed), and the Rematch button (an offer: see :mod:`cogs.offers`).
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from cogs.components import TableButton
from cogs.flow import (
    USER_MENTIONS,
    Guard,
    Notifying,
    PanelShowing,
    Rematching,
    TableShowing,
    jump_url,
    mention,
    seat_names,
)
from presentation import get_renderer
from presentation.endings import ending_line
from storage import Store, TableError, TableRecord, computers

log = logging.getLogger("siege.hall")


class Endings:
    """The flows around the end of a game."""

    def __init__(
        self,
        client: discord.Client,
        store: Store,
        guard: Guard,
        tables: TableShowing,
        panels: PanelShowing,
        notices: Notifying,
        offers: Rematching,
    ) -> None:
        self.client = client
        self.store = store
        self.guard = guard
        self.tables = tables
        self.panels = panels
        self.notices = notices
        self.offers = offers

    async def announce_end(self, table: TableRecord) -> None:
        """When a game ends, every player gets a new message with the result (the table is
        edited in place, and Discord notifies nobody of an edit): a DM, or one channel message
        mentioning those who take no DMs."""
        if table.status != "over" or table.result is None:
            return
        renderer = get_renderer(table.game)
        names = seat_names(table)
        by = None if table.ended_by is None else mention(table.ended_by)
        line = ending_line(
            table.ending, table.result, names, by, renderer.result_line(table.result, names)
        )
        text = f"🏁 {table.engine.title}, table #{table.id}: {line}"
        if table.result.scores is not None and len(table.seats) > 1:
            scores = ", ".join(
                f"{names[seat]} {score}" for seat, score in enumerate(table.result.scores)
            )
            text += f"\nFinal score: {scores}."
        url = jump_url(table)
        unreached = []
        for user_id in dict.fromkeys(table.seats):
            if computers.is_computer(user_id):
                continue
            if await self.store.dm_mode(user_id) == "on" and await self.notices.dm(
                user_id, text + (f"\n{url}" if url else "")
            ):
                continue
            unreached.append(user_id)
        if unreached:
            channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
            try:
                await channel.send(text, allowed_mentions=USER_MENTIONS)
            except discord.HTTPException:
                log.warning("table %s: could not post the result notice", table.id)
        if self.guard.hooks.tournaments is not None:  # a tournament's game: its result counts
            await self.guard.hooks.tournaments.game_over(table)

    async def on_resign(self, interaction: discord.Interaction[Any], tid: int) -> None:
        async def flow() -> None:
            table = await self.guard.table(tid)
            if table.seat_of(interaction.user.id) is None:
                raise TableError("You are not playing at this table.")
            if table.status != "running":
                raise TableError("This game is not running.")
            seat = table.seat_of(interaction.user.id)
            if seat is not None and not table.engine.is_playing(table.running_state(), seat):
                raise TableError("You are out of this game already: there is nothing to resign.")
            view = discord.ui.View(timeout=None)
            view.add_item(TableButton(tid, "resignok"))
            await interaction.response.send_message(
                "Resign this game? It ends at once and counts as a loss for you.",
                view=view,
                ephemeral=True,
            )

        await self.guard.guarded(interaction, flow)

    async def on_resign_confirmed(self, interaction: discord.Interaction[Any], tid: int) -> None:
        async def flow() -> None:
            table, _ = await self.store.resign(tid, interaction.user.id)

            async def follow_up() -> None:
                await interaction.response.edit_message(
                    content="You resigned. The table shows the result.", embed=None, view=None
                )
                if await self.tables.refresh_table(table):
                    await self.panels.refresh_panels(table)
                    await self.notices.turn_ping(table, None)
                    await self.announce_end(table)

            await self.guard.after_commit(interaction, follow_up(), done="You resigned")

        await self.guard.guarded(interaction, flow)

    async def on_rematch(self, interaction: discord.Interaction[Any], tid: int) -> None:
        """Rematch is an offer: the clicker says yes and the others are asked (cogs/offers.py);
        the game starts when every player has accepted."""
        await self.guard.guarded(interaction, lambda: self.offers.rematch(interaction, tid))


__all__ = ["Endings"]
