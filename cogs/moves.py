"""Moves and two-step stages: a click on an action is checked, committed through the store's
per-action transaction, answered on the message that was clicked, and the rest (the table, the
panels, the ping, the end) is queued behind the answers (:mod:`cogs.redraws`). A stage narrows a
panel to a first step and commits nothing. Also the computer's hint for a player's position.
"""

from __future__ import annotations

import logging
from typing import Any

import discord

from cogs.delivery import Delivery
from cogs.flow import (
    COMMITTED_BUT_NOT_SHOWN,
    Announcing,
    Guard,
    Hooks,
    Notifying,
    PanelShowing,
    TableShowing,
    turn_passed_to,
)
from cogs.redraws import Redraw, Redraws
from engine.rules import RuleError
from storage import StaleAction, Store, TableError, TableRecord

log = logging.getLogger("siege.hall")

#: Answers to a click whose message was deleted on the way (see ``Delivery.answer_by_edit``).
PANEL_REPLACED = (
    "Your move counted. Your panel was just replaced by a newer one: use the newest message."
)
STAGE_REPLACED = "That panel was just replaced by a newer one: use the newest message."
TABLE_GONE = "Your move counted. The table message was gone, so it is posted again."


class Moves:
    """The flows of playing: actions, stages, hints, and what follows a change."""

    def __init__(
        self,
        store: Store,
        delivery: Delivery,
        guard: Guard,
        hooks: Hooks,
        tables: TableShowing,
        panels: PanelShowing,
        notices: Notifying,
        endings: Announcing,
    ) -> None:
        self.store = store
        self.delivery = delivery
        self.guard = guard
        self.hooks = hooks
        self.tables = tables
        self.panels = panels
        self.notices = notices
        self.endings = endings
        #: What follows a move's answer, queued behind the answers (one redraw per table).
        self.redraws = Redraws(self._redraw)

    async def on_act(
        self, interaction: discord.Interaction[Any], tid: int, ply: int, idx: int
    ) -> None:
        async def flow() -> None:
            table = await self.guard.table(tid)
            user = interaction.user.id
            if table.status != "running":
                raise TableError(
                    "This game is over." if table.status == "over" else "This table is closed."
                )
            if table.seat_of(user) is None:
                raise TableError("You are not playing at this table.")
            if ply != table.ply:
                raise StaleAction("That button is out of date: the game has moved on.")
            game = table.engine
            state = table.running_state()
            to_act = game.to_act(state)
            if to_act is None or table.seats[to_act] != user:
                raise RuleError("It is not your turn.")
            legal = game.legal_actions(state, to_act)
            if not 0 <= idx < len(legal):
                raise StaleAction("That choice is out of date: the game has moved on.")
            self.panels.keep_hand_before(table, to_act, state)
            table, _ = await self.store.act(tid, user, legal[idx], ply)
            log.debug("table %s: ply %s played (%s)", tid, ply, legal[idx]["type"])
            await self.guard.after_commit(interaction, self._after_change(interaction, table))

        await self.guard.guarded(interaction, flow)

    async def on_stage(
        self, interaction: discord.Interaction[Any], tid: int, ply: int, stage: str | None
    ) -> None:
        """A first step of a two-step move was chosen (or Back): show the panel narrowed to it.
        Nothing is committed; the second step's controls carry the actions."""

        async def flow() -> None:
            table = await self.guard.table(tid)
            if table.status != "running":
                raise TableError("This table is no longer running.")
            if table.seat_of(interaction.user.id) is None:
                raise TableError("You are not playing at this table.")
            if ply != table.ply:
                raise StaleAction("That menu is out of date: the game has moved on.")
            parts = await self.panels.panel_parts(
                table, interaction.user.id, for_dm=interaction.guild_id is None, stage=stage
            )
            await self.delivery.answer_by_edit(
                interaction,
                parts.edit_kwargs(),
                parts.image,
                gone=STAGE_REPLACED,
                print_=parts.fingerprint(),
            )

        await self.guard.guarded(interaction, flow)

    async def on_hint(self, interaction: discord.Interaction[Any], tid: int) -> None:
        """ "What would the computer do?": the computer's choice for the player's own position,
        with one sentence why, only for them (it thinks off the event loop)."""

        async def flow() -> None:
            table = await self.guard.table(tid)
            seat = table.seat_of(interaction.user.id)
            if seat is None:
                raise TableError("You are not playing at this table.")
            if table.status != "running" or table.state is None:
                raise TableError("This game is over.")
            if self.hooks.computers is None or not table.engine.about.hint:
                raise TableError("There is no computer advice for this game.")
            await interaction.response.defer(ephemeral=True, thinking=True)
            advice = await self.hooks.computers.hint(table, seat)
            await interaction.followup.send(f"💡 The computer would say: {advice}", ephemeral=True)

        await self.guard.guarded(interaction, flow)

    async def _after_change(
        self, interaction: discord.Interaction[Any], table: TableRecord
    ) -> None:
        """Reply on the message that was clicked, then queue the rest (the table, the panels,
        the ping: see :mod:`cogs.redraws`). The click is answered first, without waiting for
        any other flow (an answer must come within 3 seconds, and another flow may be waiting
        out a rate limit); whatever a concurrent flow sent meanwhile (a later move included) is
        put right by the redraw, under the table's lock."""
        message = interaction.message
        shown = None
        try:
            if message is not None and message.id == table.message_id:
                parts = await self.tables.table_parts(table)
                if await self.delivery.answer_by_edit(
                    interaction,
                    parts.edit_kwargs(),
                    parts.image,
                    gone=TABLE_GONE,
                    print_=parts.fingerprint(),
                ):
                    shown = parts.fingerprint()
            else:
                # The clicked panel is redrawn with the others: unchanged since this answer,
                # it costs nothing; painted over by a flow that was slower to send, it is put
                # right.
                parts = await self.panels.panel_parts(
                    table, interaction.user.id, for_dm=interaction.guild_id is None
                )
                await self.delivery.answer_by_edit(
                    interaction,
                    parts.edit_kwargs(),
                    parts.image,
                    gone=PANEL_REPLACED,
                    print_=parts.fingerprint(),
                )
        finally:
            notify = turn_passed_to(table, interaction.user.id)
            self.redraws.push(Redraw(table, notify, interaction, shown))

    async def _redraw(self, redraw: Redraw) -> None:
        """Bring a table, its panels and its notifications up to date after the moves of
        ``redraw``, then a computer whose turn it is moves (after the refreshes, never racing
        them)."""
        table, notify = redraw.table, redraw.notify
        try:
            shown = redraw.shown
            current = shown is not None and await self.tables.still_shown(table, shown)
            # Posted again if it was deleted; False: its channel is gone.
            if not current and not await self.tables.refresh_table(table):
                return
            actor = None if redraw.via is None else redraw.via.user.id
            reached = await self.panels.refresh_panels(table, notify=notify, actor=actor)
            if notify is not None or table.status != "running":
                await self.notices.turn_ping(table, notify, redraw.via, reached)
            await self.endings.announce_end(table)
        except Exception:
            log.exception("table %s: redraw after a committed move failed", table.id)
            if redraw.via is not None:
                await self.guard.refuse(redraw.via, f"Your move counted{COMMITTED_BUT_NOT_SHOWN}")
        finally:
            for change in redraw.changes:
                self.hooks.committed(change)

    async def redraw_after(self, table: TableRecord, actor: int | None) -> None:
        """Bring a table, its panels and its notifications up to date after a change nobody
        clicked (a computer's move, a move played when time ran out)."""
        try:
            if await self.tables.refresh_table(table) and table.state is not None:
                notify = turn_passed_to(table, actor)
                reached = await self.panels.refresh_panels(table, notify=notify)
                await self.notices.turn_ping(table, notify, reached=reached)
                await self.endings.announce_end(table)
        finally:
            self.hooks.committed(table)


__all__ = ["PANEL_REPLACED", "STAGE_REPLACED", "TABLE_GONE", "Moves"]
