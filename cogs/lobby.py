"""The lobby: opening a table (``/play``), joining, leaving, seating computers, starting and
cancelling it, and posting or re-posting its message (``/siege table``). ``/siege cancel`` and
what closes a started game are in :mod:`cogs.closing`.
"""

from __future__ import annotations

import contextlib
import dataclasses
from typing import Any

import discord

from cogs.delivery import Delivery
from cogs.flow import (
    NO_MENTIONS,
    Guard,
    Hooks,
    Notifying,
    PanelShowing,
    TableShowing,
    jump_url,
    mention,
    turn_passed_to,
)
from cogs.server_rules import may_moderate, settings_for_new_game
from cogs.threads import Place, Threads
from engine import get_game
from storage import Seating, Store, TableError, TableExists, TableRecord

CANCEL_REFUSED = "Only the host, a server manager or a moderator can cancel this table."
LOBBY_DONE = {
    "cpu-easy": "A computer took a seat",
    "cpu-normal": "A computer took a seat",
    "cpu-hard": "A computer took a seat",
    "cpu-remove": "The computer left the table",
    "join": "You took a seat",
    "leave": "You left the table",
    "start": "The game started",
    "cancel": "The table was cancelled",
}


class Lobby:
    """The flows of a table before its game starts, and of its message."""

    def __init__(
        self,
        client: discord.Client,
        store: Store,
        delivery: Delivery,
        guard: Guard,
        hooks: Hooks,
        tables: TableShowing,
        panels: PanelShowing,
        notices: Notifying,
        threads: Threads,
    ) -> None:
        self.client = client
        self.store = store
        self.delivery = delivery
        self.guard = guard
        self.hooks = hooks
        self.tables = tables
        self.panels = panels
        self.notices = notices
        self.threads = threads

    async def open_table(
        self,
        interaction: discord.Interaction[Any],
        game_key: str,
        options: dict[str, Any],
        seating: Seating = "join",
        time_control: str | None = None,
        forfeit_after: int | None = None,
    ) -> None:
        """``/play``: open a lobby in a thread of its own (:mod:`cogs.threads`) or in this
        channel, or point at the table already here; a clock or forfeit rule left out is the
        server's default. A solo game (one seat at most) needs no lobby: it starts at once."""
        if interaction.channel_id is None or interaction.guild_id is None:
            raise TableError("Tables live in server channels; run this in a channel or thread.")
        settings = await settings_for_new_game(self.store, interaction, game_key)
        await self.guard.remember(interaction)
        solo = get_game(game_key).max_seats == 1
        place = await self.threads.place(interaction, settings, get_game(game_key).title)
        try:
            table = await self.store.create_table(
                guild_id=interaction.guild_id,
                channel_id=place.channel_id,
                game=game_key,
                host_id=interaction.user.id,
                options=options,
                seating=seating,
                seats=(interaction.user.id,) if solo else None,
                start=solo,
                time_control=settings.time_control if time_control is None else time_control,
                forfeit_after=settings.forfeit_after if forfeit_after is None else forfeit_after,
            )
        except Exception as exc:
            await self.threads.abandon(place)
            if not isinstance(exc, TableExists):
                raise
            url = jump_url(exc.table)
            where = f" here: {url}" if url else "."
            raise TableError(
                f"This channel already has an open {exc.table.engine.title} table{where} "
                "Start a thread to run another game alongside it."
            ) from None
        if place.thread is not None:
            await self.post_in_thread(interaction, table, place)
            return
        await self.post_new_table(interaction, table)
        if place.note is not None:
            await interaction.followup.send(place.note, ephemeral=True)

    async def post_in_thread(
        self, interaction: discord.Interaction[Any], table: TableRecord, place: Place
    ) -> None:
        """A table in the thread made for it: the channel gets a one-line pointer (the
        interaction's answer), the thread the table."""
        assert place.thread is not None
        await interaction.response.send_message(
            f"🎲 {mention(table.host_id)} opened a **{table.engine.title}** table "
            f"(#{table.id}) in {place.thread.mention}.",
            allowed_mentions=NO_MENTIONS,
        )
        parts = await self.tables.table_parts(table)
        message = await place.thread.send(**parts.send_kwargs())
        self.delivery.shown(message.id, parts.fingerprint())
        await self.store.set_message(table.id, message.id)
        if table.status == "running":
            await self.panels.refresh_panels(table)
            await self.notices.turn_ping(table, turn_passed_to(table, None))

    async def post_new_table(
        self, interaction: discord.Interaction[Any], table: TableRecord
    ) -> None:
        """Post a new table as the interaction's answer; a game that starts at once (a solo
        game, a rematch, a daily challenge) also gets its panels and its first turn ping."""
        await self.post_table(interaction, table)
        if table.status == "running":
            await self.panels.refresh_panels(table)
            await self.notices.turn_ping(table, turn_passed_to(table, None))
        await self.hooks.seated(table.seats)

    async def post_table(self, interaction: discord.Interaction[Any], table: TableRecord) -> int:
        """Answer the interaction with the table as a new public message and remember it as the
        table's message. Returns the message id."""
        await self.threads.keep(table)  # a rematch in a game thread keeps it open again
        parts = await self.tables.table_parts(table)
        response = await interaction.response.send_message(**parts.send_kwargs())
        message_id = response.message_id
        if message_id is None:  # discord.py gives the id with the callback's answer
            message_id = (await interaction.original_response()).id
        self.delivery.shown(message_id, parts.fingerprint())
        self.delivery.reach(message_id, interaction)
        await self.store.set_message(table.id, message_id)
        return message_id

    async def on_lobby(self, interaction: discord.Interaction[Any], tid: int, op: str) -> None:
        async def flow() -> None:
            user = interaction.user.id
            if op == "join":
                await self.guard.remember(interaction)
                table = await self.store.join(tid, user)
            elif op == "leave":
                table = await self.store.leave(tid, user)
            elif op == "start":
                table = await self.store.start(tid, user)
                await self.threads.name_after_players(table)
            elif op.startswith("cpu-") and op != "cpu-remove":
                table = await self.store.add_computer(tid, user, op.removeprefix("cpu-"))
            elif op == "cpu-remove":
                table = await self.store.remove_computer(tid, user)
            else:
                table = await self.guard.table(tid)
                if (
                    table.status == "lobby"
                    and user != table.host_id
                    and not await may_moderate(self.store, interaction)
                ):
                    raise TableError(CANCEL_REFUSED)
                table = await self.store.cancel_lobby(tid)

            async def follow_up() -> None:
                parts = await self.tables.table_parts(table)
                await self.delivery.answer_by_edit(
                    interaction, parts.edit_kwargs(), parts.image, print_=parts.fingerprint()
                )
                if op == "join":
                    await self.hooks.seated((user,))
                if table.status == "running":
                    try:
                        await self.panels.refresh_panels(table)
                        await self.notices.turn_ping(table, turn_passed_to(table, None))
                    finally:
                        self.hooks.committed(table)

            await self.guard.after_commit(interaction, follow_up(), done=LOBBY_DONE[op])

        await self.guard.guarded(interaction, flow)

    async def repost_table(self, interaction: discord.Interaction[Any]) -> None:
        """``/siege table``: post the channel's table again at the bottom (for its players and
        moderators); the old message then points at the new one."""
        assert interaction.channel_id is not None
        table = await self.store.open_table_in(interaction.channel_id)
        if table is None:
            raise TableError("There is no open table in this channel. Start one with /play.")
        if interaction.user.id not in table.seats and not await may_moderate(
            self.store, interaction
        ):
            raise TableError(
                "Only the players at this table, or a moderator, can move it down the channel."
            )
        old = table.message_id
        new = await self.post_table(interaction, table)
        if old is not None and old != new:
            where = f": {jump_url(dataclasses.replace(table, message_id=new))}"
            channel = self.client.get_partial_messageable(table.channel_id)
            # It may be lost or deleted: that is often why the table was re-posted.
            with contextlib.suppress(discord.HTTPException):
                await channel.get_partial_message(old).edit(
                    content=f"This table moved{where}", embed=None, view=None, attachments=[]
                )


__all__ = ["LOBBY_DONE", "Lobby"]
