"""The public table message: what it shows (the lobby, the position, the result) and how it
is kept up to date in its channel (edited in place, posted again if deleted, the table closed if
its channel is gone). Game-specific looks come from :mod:`presentation`.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

import discord

from cogs import fairness
from cogs.components import LobbyButton, TableButton, layout, table_button
from cogs.delivery import Delivery
from cogs.flow import (
    UNKNOWN_CHANNEL_CODE,
    USER_MENTIONS,
    Locks,
    PanelShowing,
    Parts,
    mention,
    seat_names,
)
from cogs.names import plain_names
from cogs.pictures import Pictures
from cogs.sheets import as_embed
from cogs.threads import Threads
from engine.rules import IntRange
from presentation import get_renderer
from presentation.base import CLOSED_COLOUR, LOBBY_COLOUR
from presentation.endings import ending_line, retold_summary, with_ending
from storage import CorruptTable, Store, TableRecord, clock, computers
from storage.endings import claimable_at

log = logging.getLogger("siege.hall")

RECENT_EVENTS = 5


class TableView:
    """Draws a table's public message and keeps it up to date."""

    def __init__(
        self,
        client: discord.Client,
        store: Store,
        delivery: Delivery,
        pictures: Pictures,
        locks: Locks,
        panels: PanelShowing,
        threads: Threads,
    ) -> None:
        self.client = client
        self.store = store
        self.delivery = delivery
        self.pictures = pictures
        self.locks = locks
        #: The panels refreshed when a closed table's players are told (a deleted channel).
        self.panels = panels
        #: A game thread is kept open while its game runs, and archives once it is over.
        self.threads = threads

    # -- what it shows ---------------------------------------------------------------------------

    async def recent_lines(self, table: TableRecord) -> list[str]:
        renderer = get_renderer(table.game)
        names = seat_names(table)
        lines: list[str] = []
        try:
            records = await self.store.log_tail(table, RECENT_EVENTS)
        except CorruptTable as exc:
            # The log is history shown beside the position, not the position itself: a damaged
            # entry must not freeze a table whose state is fine.
            log.warning("table %s: recent moves unreadable (%s)", table.id, exc)
            return ["(Recent moves could not be read.)"]
        for record in records:
            for event in record.events:
                line = renderer.event_line(event, names)
                if line:
                    lines.append(line)
        return lines[-RECENT_EVENTS:]

    async def last_events(self, table: TableRecord) -> list[dict[str, Any]]:
        """The public events of the table's last action (the table picture marks that move)."""
        try:
            records = await self.store.log_tail(table, 1)
        except CorruptTable:
            return []
        return records[-1].events if records else []

    async def table_parts(self, table: TableRecord) -> Parts:
        if table.status == "lobby":
            return self.lobby_parts(table)
        if table.status == "cancelled":
            return self.cancelled_parts(table)
        renderer = get_renderer(table.game)
        game = table.engine
        state = table.running_state()
        names = seat_names(table)
        view = game.view(state, None)
        embed = as_embed(renderer.table_embed(view, names, await self.recent_lines(table)))
        turn = renderer.turn_number(view, table.ply)
        embed.set_footer(text=f"Table #{table.id} · turn {turn} · /siege rules {table.game}")
        await fairness.stamp(embed, table, self.store)
        image = None
        alt = None
        last_events = await self.last_events(table)
        plain = await plain_names(self.store, table.seats)
        drawn = with_ending(view, table.ending, table.seat_of(table.ended_by or 0))
        png, image_print = await self.pictures.render_keyed(
            table.game, renderer.table_image, drawn, last_events, plain
        )
        if png is not None:
            name = f"{table.game}-{table.id}-{table.ply}.png"
            embed.set_image(url=f"attachment://{name}")
            image = (name, png)
            alt = renderer.image_alt(drawn, last_events, plain)
        result = game.result(state)
        if result is not None:
            line = renderer.result_line(result, names)
            by = None if table.ended_by is None else mention(table.ended_by)
            told = ending_line(table.ending, result, names, by, line)
            summary = renderer.end_summary(view, names, result, turn)
            summary = retold_summary(summary, table.ending, line, told)
            line = told
            embed.insert_field_at(0, name="Result", value=summary, inline=False)
            buttons = discord.ui.View(timeout=None)
            # Against computers only, a rematch starts at once: one click plays again.
            people = [uid for uid in table.seats if not computers.is_computer(uid)]
            again = "Play again" if len(people) == 1 and len(table.seats) > 1 else None
            buttons.add_item(TableButton(table.id, "rematch", label=again))
            return Parts(
                content=line,
                embed=embed,
                view=buttons,
                image=image,
                alt=alt,
                image_print=image_print,
            )
        to_act = game.to_act(state)
        assert to_act is not None
        legal = game.legal_actions(state, to_act)
        controls = renderer.table_controls(view, legal)
        items = [
            table_button(table.id, "hand", label=renderer.panel_label),
            table_button(table.id, "resign"),
        ]
        if game.about.hint:
            items.insert(1, table_button(table.id, "hint"))
        claim_at = claimable_at(table)
        if claim_at is not None and claim_at <= clock.stamp(self.store.now()):
            items.append(table_button(table.id, "claim"))
            if table.engine.about.draws:
                items.append(table_button(table.id, "claimdraw"))
        whose = (  # a computer has nobody to tell: it is thinking
            f"{names[to_act]} is thinking"
            if computers.is_computer(table.seats[to_act])
            else f"{names[to_act]}, it's your turn"
        )
        return Parts(
            content=whose
            + (
                f" (due <t:{int(datetime.fromisoformat(table.deadline).timestamp())}:R>)."
                if table.deadline
                else "."
            ),
            embed=embed,
            view=layout(table.id, table.ply, controls, items),
            mentions=USER_MENTIONS,
            image=image,
            alt=alt,
            image_print=image_print,
        )

    def lobby_parts(self, table: TableRecord) -> Parts:
        game = table.engine
        seats = "\n".join(f"{i + 1}. {mention(uid)}" for i, uid in enumerate(table.seats))
        embed = discord.Embed(
            title=f"{game.title} — a table is open",
            colour=LOBBY_COLOUR,
            description=(
                f"Host: {mention(table.host_id)}\n\n"
                f"**Seats ({len(table.seats)}/{game.max_seats})**\n{seats}"
            ),
        )
        if game.options:
            embed.add_field(name="Options", value=self.options_text(table), inline=False)
        timing = clock.describe(table.time_control)
        if table.time_control != clock.NONE:
            timing += f" · a seat forfeits after {table.forfeit_after} missed move" + (
                "s" if table.forfeit_after != 1 else ""
            )
        embed.add_field(name="Clock", value=timing, inline=False)
        sides = game.about.sides
        if sides:
            embed.add_field(name="Sides", value=self.sides_text(table, sides), inline=False)
        if game.min_seats == game.max_seats:
            need = f"{game.min_seats} players"
        else:
            need = f"{game.min_seats}–{game.max_seats} players"
        embed.set_footer(
            text=f"Table #{table.id} · {need} · Join to take a seat; the host starts the game"
            + (" and may seat computer players." if game.max_seats > 1 else ".")
        )
        can_start = game.min_seats <= len(table.seats) <= game.max_seats
        view = discord.ui.View(timeout=None)
        view.add_item(LobbyButton(table.id, "join", disabled=len(table.seats) >= game.max_seats))
        view.add_item(LobbyButton(table.id, "leave"))
        view.add_item(
            LobbyButton(
                table.id,
                "start",
                disabled=not can_start,
                label="Start" if can_start else f"Start (needs {need})",
            )
        )
        view.add_item(LobbyButton(table.id, "cancel"))
        if game.max_seats > 1 and game.about.computer_levels:  # computers, in a row of their own
            full = len(table.seats) >= game.max_seats
            for level in game.about.computer_levels:
                view.add_item(LobbyButton(table.id, f"cpu-{level}", disabled=full, row=1))
            if any(computers.is_computer(uid) for uid in table.seats):
                view.add_item(LobbyButton(table.id, "cpu-remove", row=1))
        return Parts(embed=embed, view=view)

    def options_text(self, table: TableRecord) -> str:
        lines = []
        for option in table.engine.options:
            value = table.options.get(option.name, option.default)
            label = f"**{value}**"
            if isinstance(option, IntRange):
                # A range may hold thousands of values: the value and its bounds, not a list.
                label += f" ({option.low}–{option.high})"
            elif option.labels:
                label = f"**{option.labels[option.choices.index(value)]}**"
            name = option.name.replace("_", " ").capitalize()
            lines.append(f"{name}: {label} — {option.description}")
        return "\n".join(lines)

    @staticmethod
    def sides_text(table: TableRecord, sides: tuple[str, ...]) -> str:
        if table.seating == "random":
            return "Drawn at random when the game starts."
        if table.seating == "host_second":
            return f"The host plays **{sides[1]}**; the challenger plays {sides[0]}."
        return f"The host plays **{sides[0]}**; the challenger plays {sides[1]}."

    def cancelled_parts(self, table: TableRecord) -> Parts:
        by = None if table.ended_by is None else mention(table.ended_by)
        told = ending_line(table.ending, None, seat_names(table), by, "")
        embed = discord.Embed(
            title=f"{table.engine.title} — table closed",
            description=told or "This table was cancelled.",
            colour=CLOSED_COLOUR,
        )
        embed.set_footer(text=f"Table #{table.id}")
        view = discord.ui.View(timeout=None)
        if table.state is not None:  # a game closed while it was played: its replay keeps it
            view.add_item(
                discord.ui.Button(  # answered by cogs.boards.ReplayStep (its "open" tag)
                    label="Replay",
                    style=discord.ButtonStyle.secondary,
                    custom_id=f"sh:replay:{table.id}:0:open",
                )
            )
        return Parts(embed=embed, view=view)

    # -- keeping it up to date ---------------------------------------------------------------

    async def refresh_table(self, table: TableRecord) -> bool:
        """Edit the public table message in place (re-post it if it was deleted). Returns False
        when the channel turned out to be gone, in which case the table was closed."""
        async with self.locks.table(table.id):
            return await self._refresh_table(table)

    async def _refresh_table(self, table: TableRecord) -> bool:
        # Render the newest stored table: a slower flow must not paint an older position over
        # the one a quicker, later flow has already shown.
        table = await self.store.newest(table) or table
        await self.threads.keep(table)
        parts = await self.table_parts(table)
        channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
        try:
            if table.message_id is not None:
                # Not sent at all when the table already shows this; through a click's webhook
                # (exempt from the rate limit) when a recent click reached the table.
                message = channel.get_partial_message(table.message_id)
                try:
                    await self.delivery.edit(
                        message, parts.edit_kwargs(), parts.image, print_=parts.fingerprint()
                    )
                except discord.HTTPException as exc:
                    if not await self.threads.reopened(table, exc):
                        raise
                    await self.delivery.edit(
                        message, parts.edit_kwargs(), parts.image, print_=parts.fingerprint()
                    )
                return True
        except discord.NotFound as exc:
            if exc.code == UNKNOWN_CHANNEL_CODE:
                await self.channel_gone(table.channel_id)
                return False
        try:
            message = await channel.send(**parts.send_kwargs())
        except discord.NotFound:
            await self.channel_gone(table.channel_id)
            return False
        except discord.Forbidden:
            log.warning("table %s: no permission to post in channel %s", table.id, table.channel_id)
            return True
        self.delivery.shown(message.id, parts.fingerprint())
        await self.store.set_message(table.id, message.id)
        return True

    async def still_shown(self, rendered: TableRecord, shown: str) -> bool:
        """Whether the table message still shows what was drawn from ``rendered`` (its
        fingerprint ``shown``), and that is still the newest position (once any flow drawing
        this table meanwhile has finished)."""
        async with self.locks.table(rendered.id):
            current = await self.store.newest(rendered)
        return (
            current is not None
            and current.version == rendered.version
            and current.message_id is not None
            and self.delivery.is_shown(current.message_id, shown)
        )

    async def channel_gone(self, channel_id: int) -> None:
        """A table's channel was deleted: its open table is closed, since nobody can see it."""
        closed = await self.store.close_channel(channel_id)
        if closed is None:
            return
        log.info("table %s closed: its channel %s is gone", closed, channel_id)
        table = await self.store.get_table(closed)
        if table is not None and table.state is not None:
            await self.panels.refresh_panels(table)


__all__ = ["RECENT_EVENTS", "TableView"]
