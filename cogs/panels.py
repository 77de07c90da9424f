"""Private panels and their DM delivery: each seated player's own view with their legal
actions, kept as one DM per table (a fresh one when it becomes their turn, so Discord notifies
them) or opened as an ephemeral message from the table's panel button; closed DMs degrade to
that button without a word of the secret reaching the channel.
"""

from __future__ import annotations

import contextlib
import logging
from collections import Counter, OrderedDict
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import discord

from cogs.components import layout, link_button, table_button
from cogs.delivery import Delivery
from cogs.dm_channels import DmChannels
from cogs.flow import (
    DM_CLOSED_CODE,
    USER_MENTIONS,
    Guard,
    Locks,
    Parts,
    Reached,
    jump_url,
    mention,
    seat_names,
)
from cogs.parts_memo import PartsMemo, panel_key
from cogs.pictures import Pictures
from cogs.sheets import as_embed
from presentation import get_renderer
from presentation.endings import ending_line
from storage import CorruptTable, DmMode, Store, TableError, TableRecord, clock
from storage.endings import claimable_at

log = logging.getLogger("siege.hall")

# A panel opens with what happened since its seat's last turn: the log is read this far back to
# find that turn, and at most this many lines are shown (the table keeps the full story).
SINCE_SCAN = 40
HANDS_KEPT = 4096  # (table, ply) hands before a seat's action, for the new-card marks
SINCE_LINES = 4
#: How often a player whose DMs were closed is tried again, as they act.
DM_RETRY_EVERY = timedelta(days=1)


class Panels:
    """Draws the players' private panels and keeps their DM copies up to date."""

    def __init__(
        self,
        client: discord.Client,
        store: Store,
        delivery: Delivery,
        pictures: Pictures,
        locks: Locks,
        guard: Guard,
        dms: DmChannels,
    ) -> None:
        self.client = client
        #: Each player's DM channel, by id (a fresh panel is sent without asking Discord).
        self.dms = dms
        self.store = store
        self.delivery = delivery
        self.pictures = pictures
        self.locks = locks
        self.guard = guard
        #: When each player with closed DMs was last tried again (at most once a day, as they
        #: act; kept in memory, so a restart may try once more).
        self._dm_retried: dict[int, datetime] = {}
        #: A seat's hand just before its own last action, by (table, ply): what the panel's
        #: new-card marks compare with. Filled when the seat acts; a miss replays the log.
        self._hands_before: OrderedDict[tuple[int, int], list[Any]] = OrderedDict()
        #: The panels drawn last, handed back for the same inputs (:mod:`cogs.parts_memo`).
        self.memo = PartsMemo()

    # -- what a panel shows ----------------------------------------------------------------------

    def keep_hand_before(self, table: TableRecord, seat: int, state: Any) -> None:
        """Remember ``seat``'s hand in ``state``, the position it is about to act from (so its
        next panel marks the cards drawn since without replaying the game)."""
        if not get_renderer(table.game).marks_new_cards:
            return
        hand = table.engine.view(state, seat).get("hand")
        if hand is None:
            return
        self._hands_before[(table.id, table.ply)] = list(hand)
        while len(self._hands_before) > HANDS_KEPT:
            self._hands_before.popitem(last=False)

    async def _hand_before(self, table: TableRecord, seat: int, ply: int) -> list[Any]:
        kept = self._hands_before.get((table.id, ply))
        if kept is not None:
            return kept
        before = await self.store.replay(table.id, upto=ply)
        hand = list(table.engine.view(before, seat).get("hand") or [])
        self._hands_before[(table.id, ply)] = hand
        while len(self._hands_before) > HANDS_KEPT:
            self._hands_before.popitem(last=False)
        return hand

    async def since_last_turn(
        self, table: TableRecord, seat: int, view: dict[str, Any]
    ) -> tuple[list[str], list[str]]:
        """What a seat's panel opens with: the table's event lines since that seat's last
        action (the opponents' moves, rolls, cancellations, captures; at the start of a game,
        everything so far), and for games that mark them the hand's cards that arrived since
        (from the seat's own view before that action, so nothing hidden is involved)."""
        renderer = get_renderer(table.game)
        names = seat_names(table)
        try:
            records = await self.store.log_tail(table, SINCE_SCAN)
        except CorruptTable as exc:
            log.warning("table %s: recent moves unreadable (%s)", table.id, exc)
            return [], []
        mine = [i for i, record in enumerate(records) if record.seat == seat]
        after = records[mine[-1] + 1 :] if mine else records
        if len(table.seats) == 1:
            # Solo: the city's own moves come inside the player's last action (its upkeep).
            after = records[-1:]
        lines = [
            line
            for record in after
            for event in record.events
            if (line := renderer.event_line(event, names))
        ]
        if len(lines) > SINCE_LINES:
            earlier = len(lines) - SINCE_LINES + 1
            lines = [
                f"…{earlier} earlier event{'s' if earlier > 1 else ''} (see the table)",
                *lines[-(SINCE_LINES - 1) :],
            ]
        new_cards: list[str] = []
        if renderer.marks_new_cards and mine and "hand" in view:
            try:
                hand_before = await self._hand_before(table, seat, records[mine[-1]].ply)
            except (TableError, ValueError) as exc:  # a damaged log: no marks, never a failure
                log.warning("table %s: could not replay for new cards (%s)", table.id, exc)
                return lines, []
            held = Counter(hand_before)
            for card in view["hand"]:
                if held[card] > 0:
                    held[card] -= 1
                else:
                    new_cards.append(card)
            if len(new_cards) > 1 and len(new_cards) == len(view["hand"]):
                new_cards = []  # a fresh deal: no card stands out as just drawn
        return lines, new_cards

    async def panel_parts(
        self, table: TableRecord, user_id: int, *, for_dm: bool, stage: str | None = None
    ) -> Parts:
        """A player's private panel: what happened since their last turn, their own view, and
        their legal actions when it is their turn. The same panel is a DM and the ephemeral
        message of the table's panel button. Drawn once for the same inputs
        (:mod:`cogs.parts_memo`): the answer to a click on a panel and the redraw after it."""
        table.running_state()  # not started: says so
        if table.seat_of(user_id) is None:
            raise TableError("You are not playing at this table.")
        place = None
        if for_dm:
            guild = self.client.get_guild(table.guild_id) if table.guild_id else None
            channel = self.client.get_channel(table.channel_id)
            place = f"#{getattr(channel, 'name', 'a channel')}"
            if guild is not None:
                place += f" in {guild.name}"
        claim_at = claimable_at(table)  # the player to move is long gone: claim it
        claim_open = claim_at is not None and claim_at <= clock.stamp(self.store.now())
        key = panel_key(
            table, user_id, for_dm=for_dm, stage=stage, place=place, claim_open=claim_open
        )
        parts = self.memo.get(key)
        if parts is None:
            parts = await self._draw_panel(table, user_id, place, stage, claim_open)
            self.memo.put(key, parts)
        return parts

    async def _draw_panel(
        self,
        table: TableRecord,
        user_id: int,
        place: str | None,
        stage: str | None,
        claim_open: bool,
    ) -> Parts:
        renderer = get_renderer(table.game)
        game = table.engine
        state = table.running_state()
        seat = table.seat_of(user_id)
        assert seat is not None  # checked by panel_parts
        to_act = game.to_act(state)
        if to_act is not None and table.seats[to_act] == user_id:
            seat = to_act
        names = seat_names(table)
        view = game.view(state, seat)
        since, new_cards = await self.since_last_turn(table, seat, view)
        embed = as_embed(renderer.panel_embed(view, names, since, new_cards))
        turn = renderer.turn_number(view, table.ply)
        where = f"Table #{table.id} · turn {turn}"
        if place is not None:
            where = f"{where} · {place}"
        embed.set_footer(text=f"{where} · only you can see this")
        controls = []
        extra: list[dict[str, Any]] = []
        legal: list[dict[str, Any]] = []
        if table.status == "cancelled":
            by = None if table.ended_by is None else mention(table.ended_by)
            told = ending_line(table.ending, None, names, by, "")
            embed.insert_field_at(0, name="Closed", value=told or "This table was cancelled.")
        elif table.status == "running":
            if to_act == seat:
                legal = game.legal_actions(state, seat)
                controls = renderer.panel_controls(view, legal, stage)
            if game.is_playing(state, seat):  # a seat out of the game has nothing to resign
                extra.append(table_button(table.id, "resign"))
                if to_act != seat and claim_open:
                    extra.append(table_button(table.id, "claim"))
                    if table.engine.about.draws:
                        extra.append(table_button(table.id, "claimdraw"))
        url = jump_url(table)
        if place is not None and url:
            extra.append(link_button("Open the table", url))
        image = None
        alt = None
        picture = None
        image_print = None
        if renderer.panel_pictures:
            picture, image_print = await self.pictures.render_keyed(
                f"{table.game}:panel", renderer.panel_image, view, legal, stage
            )
        if picture is not None:
            name = f"{table.game}-{table.id}-{table.ply}-panel.png"
            embed.set_image(url=f"attachment://{name}")
            image, alt = (name, picture[0]), picture[1]
        return Parts(
            embed=embed,
            view=layout(table.id, table.ply, controls, extra),
            image=image,
            alt=alt,
            image_print=image_print,
        )

    # -- DM panels -------------------------------------------------------------------------------

    async def refresh_panels(
        self,
        table: TableRecord,
        *,
        notify: int | None = None,
        actor: int | None = None,
    ) -> Reached | None:
        """Send or edit each seated player's DM panel (those who have DMs on). The player
        ``notify`` (whose turn it has just become) gets the panel as a fresh message, the old
        one deleted: Discord notifies on new messages, never on edits, and a correspondence
        game lives on that notification. Everyone else's panel is edited in place.

        One table's panels are refreshed by one flow at a time: two flows at once (two quick
        clicks, a computer's move) would both find no stored panel, or the same old one, and
        leave a player two panels. A flow that finds a later move already made leaves the
        panels to that move's flow, whose ``notify`` is the one that counts: drawing them here
        would show a player their turn in a panel that flow is about to replace.

        ``actor`` (who clicked) may have closed their DMs before: at most once a day, as they
        act, their panel is tried by DM again, and if it gets through their DMs are on again
        without a word (a failed try says nothing either).

        Returns the table as drawn and each seat's DM mode as it stands after (a player found
        with closed DMs is "closed" now), for the turn ping that follows
        (:meth:`cogs.notices.Notices.turn_ping`) to go by without reading them again; None when
        a later move's flow has the panels."""
        async with self.locks.panels(table.id):
            newest, targets = await self.store.delivery_targets(table)
            if newest is None or newest.ply > table.ply:
                return None
            table = newest
            reached = dict(targets)
            for user_id, target in targets.items():
                mode: DmMode | None = None
                if target.mode == "on":
                    mode = await self._send_panel(
                        table, user_id, target.panel, fresh=user_id == notify
                    )
                elif target.mode == "closed" and user_id == actor and self._may_retry(user_id):
                    mode = await self._send_panel(
                        table, user_id, target.panel, fresh=True, retry=True
                    )
                if mode is not None:
                    reached[user_id] = replace(target, mode=mode)
            return table, reached

    def forget_player(self, user_id: int) -> None:
        """Let go of what is kept in memory of a player who asked for their data to be deleted:
        their DM channel, and when their closed DMs were last tried."""
        self.dms.forget(user_id)
        self._dm_retried.pop(user_id, None)

    def _may_retry(self, user_id: int) -> bool:
        """Whether a player whose DMs were closed may be tried again now (once a day)."""
        now = self.store.now()
        last = self._dm_retried.get(user_id)
        if last is not None and now - last < DM_RETRY_EVERY:
            return False
        self._dm_retried[user_id] = now
        return True

    async def _send_panel(
        self,
        table: TableRecord,
        user_id: int,
        stored: tuple[int, int] | None,
        *,
        fresh: bool = False,
        retry: bool = False,
    ) -> DmMode | None:
        """Send or edit one player's DM panel; returns their DM mode when this changed it."""
        parts = await self.panel_parts(table, user_id, for_dm=True)
        try:
            old = None
            if stored is not None:
                self.dms.note(user_id, stored[0])
                dm = self.client.get_partial_messageable(
                    stored[0], type=discord.ChannelType.private
                )
                old = dm.get_partial_message(stored[1])
                if not fresh:
                    try:
                        # An unchanged panel is not touched; a recent click on it lends its
                        # webhook (exempt from the rate limit).
                        await self.delivery.edit(
                            old, parts.edit_kwargs(), parts.image, print_=parts.fingerprint()
                        )
                        return None
                    except discord.NotFound:
                        old = None  # the player deleted it: send a fresh one
            # A fresh panel notifies its player; as the follow-up of their latest click in
            # their DMs it is also exempt from the rate limit.
            sent = await self.delivery.send_dm(user_id, parts.send_kwargs())
            if sent is None:
                message = await self.dms.send(user_id, **parts.send_kwargs())
                sent = message.channel.id, message.id
            self.delivery.shown(sent[1], parts.fingerprint())
            await self.store.set_dm_panel(table.id, user_id, *sent)
            if retry:  # their DMs are open again: panels go there from now on
                await self.store.set_dm_mode(user_id, "on")
                log.info("table %s: a player's DMs are open again", table.id)
            if old is not None:
                # One panel per table: the new one replaces it (already gone is fine).
                with contextlib.suppress(discord.NotFound):
                    await self.delivery.delete(old)
            return "on" if retry else None
        except discord.Forbidden as exc:
            if exc.code != DM_CLOSED_CODE:
                log.warning("table %s: DM to a player refused (code %s)", table.id, exc.code)
                return None
            if retry:  # still closed: nothing to say, they were told once already
                return None
            await self.store.set_dm_mode(user_id, "closed")
            await self._say_dms_closed(table, user_id)
            return "closed"
        except discord.HTTPException as exc:
            log.warning("table %s: could not update a DM panel (HTTP %s)", table.id, exc.status)
            return None

    async def _say_dms_closed(self, table: TableRecord, user_id: int) -> None:
        channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
        button = get_renderer(table.game).panel_label
        text = (
            f"{mention(user_id)}, I can't send you direct messages, so your private panel stays "
            f"behind the table's **{button}** button. Once your DMs are open, run `/siege dm on`."
        )
        try:
            await channel.send(text, allowed_mentions=USER_MENTIONS)
        except discord.HTTPException:
            log.warning("table %s: could not post the closed-DM notice", table.id)

    # -- the panel button and the DM setting ---------------------------------------------------

    async def on_hand(self, interaction: discord.Interaction[Any], tid: int) -> None:
        async def flow() -> None:
            table = await self.guard.table(tid)
            if table.seat_of(interaction.user.id) is None:
                raise TableError("You are not playing at this table.")
            if table.state is None:
                raise TableError(
                    "The game has not started yet."
                    if table.status == "lobby"
                    else "This table is closed."
                )
            parts = await self.panel_parts(table, interaction.user.id, for_dm=False)
            await interaction.response.send_message(**parts.send_kwargs(), ephemeral=True)

        await self.guard.guarded(interaction, flow)

    async def set_dms(self, interaction: discord.Interaction[Any], on: bool) -> None:
        user = interaction.user.id
        await self.store.set_dm_mode(user, "on" if on else "off")
        if not on:
            await interaction.response.send_message(
                "Done: no more DMs. Your panel opens from the table's button (My hand, My moves…).",
                ephemeral=True,
            )
            return
        await interaction.response.send_message(
            "Done: I'll keep your private panels in your DMs.", ephemeral=True
        )
        for table in await self.store.open_tables_of(user):
            if table.status == "running":
                await self.refresh_panels(table)


__all__ = ["Panels"]
