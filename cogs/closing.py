"""Closing a game before its end (issue 25): nobody dodges a loss.

``/siege cancel`` closes a lobby (its host, or a moderator). A started game may be **aborted** by
any of its players until every player has made a first move (as on Lichess); after that, the same
command **offers** the others to cancel, and the game closes unrated when they all accept (a
computer declines at once). A moderator who is not playing cancels a running game after an
ephemeral confirmation; the table says who did it. In a game without a clock, once the seat to
act has been away three days (:data:`storage.clock.CLAIM_AFTER`), the others may **claim** it (a
button on the table, or ``/siege claim``): the absent seat forfeits, rated as a forfeit (or,
in a game whose rules have drawn results, they claim a draw: Claim a draw, or ``/siege claim
draw:True``; rated as a draw). The
sweeper tells them when a game becomes claimable. Each ending is recorded (see
:mod:`storage.endings`) and told by :mod:`presentation.endings`.
"""

from __future__ import annotations

import contextlib
import logging
import re
from datetime import datetime
from typing import Any, ClassVar

import discord

from cogs.components import TableButton
from cogs.flow import NO_MENTIONS, USER_MENTIONS, Guard, Redrawing, mention
from cogs.server_rules import may_moderate
from storage import CorruptTable, Store, TableError, TableRecord, clock, computers
from storage.endings import CancelOffer, ClaimTooEarly, claimable_at

log = logging.getLogger("siege.hall")


def when(stamp: str) -> str:
    """A stored moment as Discord shows it to each reader ("in 2 days")."""
    return f"<t:{int(datetime.fromisoformat(stamp).timestamp())}:R>"


def days(span: Any) -> str:
    n = round(span.total_seconds() / 86400)
    return f"{n} day{'s' if n != 1 else ''}"


class CancelOfferButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sh:endoffer:(?P<oid>[0-9]{1,18}):(?P<answer>yes|no)",
):
    """Accept or decline an offer to end a running game by agreement."""

    LABELS: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "yes": ("Accept: cancel the game", discord.ButtonStyle.danger),
        "no": ("Decline: play on", discord.ButtonStyle.secondary),
    }

    def __init__(self, oid: int, answer: str) -> None:
        label, style = self.LABELS[answer]
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"sh:endoffer:{oid}:{answer}")
        )
        self.oid, self.answer = oid, answer

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> CancelOfferButton:
        return cls(int(match["oid"]), match["answer"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        closing: Closing = getattr(interaction.client, "hall").closing  # noqa: B009 - the bot's
        await closing.on_cancel_answer(interaction, self.oid, self.answer == "yes")


CLOSING_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (CancelOfferButton,)


def answers(offer_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(CancelOfferButton(offer_id, "yes"))
    view.add_item(CancelOfferButton(offer_id, "no"))
    return view


class Closing:
    """The flows that close a game early: ``/siege cancel``, its confirmations and offers, and
    claims."""

    def __init__(
        self, client: discord.Client, store: Store, guard: Guard, redraw: Redrawing
    ) -> None:
        self.client = client
        self.store = store
        self.guard = guard
        self.redraw = redraw

    # -- /siege cancel ---------------------------------------------------------------------------

    async def cancel_in_channel(self, interaction: discord.Interaction[Any]) -> None:
        """``/siege cancel``: a lobby closes (its host, or a moderator); a started game is
        aborted, offered to cancel, or (a moderator not playing) confirmed and cancelled."""
        assert interaction.channel_id is not None
        try:
            table = await self.store.open_table_in(interaction.channel_id)
        except CorruptTable:
            if not await may_moderate(self.store, interaction):
                raise
            await self.store.close_channel(interaction.channel_id)
            await interaction.response.send_message("The unreadable table here was closed.")
            return
        if table is None:
            raise TableError("There is no open table in this channel.")
        user = interaction.user.id
        if table.status == "lobby":
            if user != table.host_id and not await may_moderate(self.store, interaction):
                raise TableError(
                    "Only the host, a server manager or a moderator can cancel this table."
                )
            table = await self.store.cancel_lobby(table.id)
            await interaction.response.send_message(
                f"{mention(user)} cancelled table #{table.id} ({table.engine.title}).",
                allowed_mentions=NO_MENTIONS,
            )
            await self.redraw.redraw_after(table, None)
            return
        if table.seat_of(user) is None and user != table.host_id:
            if not await may_moderate(self.store, interaction):
                raise TableError(
                    "Only the players at this table, or a moderator, can cancel a running game."
                )
            await self.ask_moderator(interaction, table)
            return
        if not await self.store.everyone_moved(table):
            table = await self.store.abort(table.id, user)
            await interaction.response.send_message(
                f"✖️ {mention(user)} aborted table #{table.id} ({table.engine.title}) before "
                "every player had made a first move; it is not rated.",
                allowed_mentions=NO_MENTIONS,
            )
            await self.redraw.redraw_after(table, None)
            return
        await self.offer(interaction, table)

    async def ask_moderator(
        self, interaction: discord.Interaction[Any], table: TableRecord
    ) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(TableButton(table.id, "cancelok"))
        await interaction.response.send_message(
            f"Cancel table #{table.id} ({table.engine.title}) while it is being played? It "
            "closes at once and is not rated; the table will say that you, a moderator, "
            "cancelled it.",
            view=view,
            ephemeral=True,
        )

    async def on_cancel_confirmed(self, interaction: discord.Interaction[Any], tid: int) -> None:
        """The moderator's Yes: the game closes, and the channel is told who did it."""

        async def flow() -> None:
            if not await may_moderate(self.store, interaction):
                raise TableError("Only a moderator can cancel a running game.")
            table = await self.store.moderator_cancel(tid, interaction.user.id)

            async def follow_up() -> None:
                await interaction.response.edit_message(
                    content=f"You cancelled table #{tid}.", view=None
                )
                await self.say(
                    table,
                    f"🛑 {mention(interaction.user.id)}, a moderator, cancelled table #{tid} "
                    f"({table.engine.title}) while it was being played; it is not rated.",
                )
                await self.redraw.redraw_after(table, None)

            await self.guard.after_commit(interaction, follow_up(), done="The game was cancelled")

        await self.guard.guarded(interaction, flow)

    # -- agreed ends -----------------------------------------------------------------------------

    async def offer(self, interaction: discord.Interaction[Any], table: TableRecord) -> None:
        """Every player has moved: ask the others to end the game by agreement."""
        offer = await self.store.offer_cancel(table.id, interaction.user.id)
        others = " ".join(mention(uid) for uid in offer.waiting)
        response = await interaction.response.send_message(
            f"🤝 {others}: {mention(offer.host_id)} offers to cancel table #{table.id} "
            f"({table.engine.title}). Every player has made a move, so it can no longer be "
            "aborted: it closes, not rated, only if every other player accepts. The offer "
            f"expires {when(offer.expires_at)}.",
            view=answers(offer.id),
            allowed_mentions=USER_MENTIONS,
        )
        message_id = response.message_id
        if message_id is None:
            message_id = (await interaction.original_response()).id
        assert interaction.channel_id is not None
        await self.store.set_cancel_message(offer.id, interaction.channel_id, message_id)

    async def on_cancel_answer(
        self, interaction: discord.Interaction[Any], oid: int, yes: bool
    ) -> None:
        async def flow() -> None:
            outcome = await self.store.answer_cancel(oid, interaction.user.id, yes)
            offer, user = outcome.offer, interaction.user.id

            async def follow_up() -> None:
                if not yes:
                    await interaction.response.edit_message(
                        content=f"❌ {mention(user)} declined {mention(offer.host_id)}'s offer to "
                        f"cancel table #{offer.table_id}: the game goes on.",
                        view=None,
                        allowed_mentions=NO_MENTIONS,
                    )
                    return
                if outcome.table is None:
                    waiting = ", ".join(mention(uid) for uid in offer.waiting)
                    await interaction.response.send_message(
                        f"You accepted; waiting for {waiting}.",
                        ephemeral=True,
                        allowed_mentions=NO_MENTIONS,
                    )
                    return
                await interaction.response.edit_message(
                    content=f"🤝 Every player accepted {mention(offer.host_id)}'s offer: table "
                    f"#{offer.table_id} closed by agreement; it is not rated.",
                    view=None,
                    allowed_mentions=NO_MENTIONS,
                )
                await self.redraw.redraw_after(outcome.table, None)

            await self.guard.after_commit(
                interaction, follow_up(), done="Your answer counted" if yes else "You declined"
            )

        await self.guard.guarded(interaction, flow)

    async def expired(self, offer: CancelOffer) -> None:
        """A cancel offer nobody answered in time: its buttons go (the game goes on)."""
        if offer.message_channel_id is None or offer.message_id is None:
            return
        channel = self.client.get_partial_messageable(offer.message_channel_id)
        with contextlib.suppress(discord.HTTPException):
            await channel.get_partial_message(offer.message_id).edit(
                content=f"⌛ {mention(offer.host_id)}'s offer to cancel table #{offer.table_id} "
                "expired or lapsed: the game goes on.",
                view=None,
                allowed_mentions=NO_MENTIONS,
            )

    # -- claims ----------------------------------------------------------------------------------

    async def claim_in_channel(
        self, interaction: discord.Interaction[Any], draw: bool = False
    ) -> None:
        """``/siege claim``: claim this channel's game (with ``draw``, a draw)."""
        assert interaction.channel_id is not None
        table = await self.store.open_table_in(interaction.channel_id)
        if table is None or table.status != "running":
            raise TableError("There is no game being played in this channel.")
        await self._claim(interaction, table.id, draw)

    async def on_claim(self, interaction: discord.Interaction[Any], tid: int) -> None:
        await self.guard.guarded(interaction, lambda: self._claim(interaction, tid))

    async def on_claim_draw(self, interaction: discord.Interaction[Any], tid: int) -> None:
        await self.guard.guarded(interaction, lambda: self._claim(interaction, tid, True))

    async def _claim(
        self, interaction: discord.Interaction[Any], tid: int, draw: bool = False
    ) -> None:
        try:
            table, _, absent = await self.store.claim(tid, interaction.user.id, draw)
        except ClaimTooEarly as exc:
            raise TableError(
                f"Not yet: the player to move may take {days(clock.CLAIM_AFTER)} over a move in "
                f"a game without a clock. You can claim this game {when(exc.at)} if they have "
                "not moved by then."
            ) from None
        user = interaction.user.id

        async def follow_up() -> None:
            gone = f"{mention(absent)} had not moved for {days(clock.CLAIM_AFTER)}"
            await interaction.response.send_message(
                f"🤝 {mention(user)} claimed a draw at table #{tid} ({table.engine.title}): "
                f"{gone}, so the game ends drawn."
                if draw
                else f"🏚️ {mention(user)} claimed table #{tid} ({table.engine.title}): "
                f"{gone} and forfeits.",
                allowed_mentions=USER_MENTIONS,
            )
            await self.redraw.redraw_after(table, absent)

        await self.guard.after_commit(interaction, follow_up(), done="Your claim counted")

    async def claimable(self, table: TableRecord) -> None:
        """From the sweeper: the seat to act of a game without a clock has been away long
        enough. The others are told in the channel, and the table gets its Claim button."""
        at = claimable_at(table)
        seat = table.engine.to_act(table.running_state())
        if at is None or seat is None or computers.is_computer(table.seats[seat]):
            return
        absent = table.seats[seat]
        state = table.running_state()
        others = [
            uid
            for n, uid in enumerate(table.seats)
            if uid != absent
            and not computers.is_computer(uid)
            and table.engine.is_playing(state, n)
        ]
        if not others:
            return
        await self.say(
            table,
            f"🏚️ {' '.join(mention(uid) for uid in dict.fromkeys(others))}: {mention(absent)} has "
            f"not moved at table #{table.id} ({table.engine.title}) for "
            f"{days(clock.CLAIM_AFTER)}. You may claim the game (the table's Claim button, or "
            "/siege claim there): they forfeit, as if they had resigned."
            + (
                " Or claim a draw (the table's Claim a draw button, or /siege claim draw:True)."
                if table.engine.about.draws
                else ""
            ),
        )
        await self.redraw.redraw_after(table, None)

    async def say(self, table: TableRecord, text: str) -> None:
        channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
        try:
            await channel.send(text, allowed_mentions=USER_MENTIONS)
        except discord.HTTPException:
            log.warning("table %s: could not post a closing notice", table.id)


__all__ = ["CLOSING_ITEMS", "CancelOfferButton", "Closing"]
