"""Offers: ``/siege challenge`` and the Rematch button, games that start once everyone said yes.

A challenge goes to the challenged player as a DM with Accept / Decline, or as a channel message
mentioning them when they take no DMs (off, or closed). A rematch asks every other player of the
finished table in the channel. The store records each answer; the last yes opens the table in
the offer's channel with every player seated and the game started, posted as a new table message.
A decline ends the offer and tells whoever made it; the sweeper expires offers nobody answered
within a day. The buttons carry the offer id, so they work after a restart.
"""

from __future__ import annotations

import contextlib
import logging
import re
from datetime import datetime
from typing import Any, ClassVar

import discord

from cogs.flow import Guard, Notifying, PanelShowing, Posting, TableShowing, turn_passed_to
from cogs.server_rules import settings_for_new_game
from engine import get_game
from storage import Store, TableError, TableRecord, clock
from storage.offers import OfferOutcome, OfferRecord

log = logging.getLogger("siege.offers")

NO_MENTIONS = discord.AllowedMentions.none()
USER_MENTIONS = discord.AllowedMentions(users=True, roles=False, everyone=False)


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def when(stamp: str) -> str:
    return f"<t:{int(datetime.fromisoformat(stamp).timestamp())}:R>"


class OfferButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sh:offer:(?P<oid>[0-9]{1,18}):(?P<answer>yes|no)",
):
    LABELS: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "yes": ("Accept", discord.ButtonStyle.success),
        "no": ("Decline", discord.ButtonStyle.danger),
    }

    def __init__(self, oid: int, answer: str) -> None:
        label, style = self.LABELS[answer]
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"sh:offer:{oid}:{answer}")
        )
        self.oid, self.answer = oid, answer

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> OfferButton:
        return cls(int(match["oid"]), match["answer"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await offers_of(interaction).on_answer(interaction, self.oid, self.answer == "yes")


def offers_of(interaction: discord.Interaction[Any]) -> Offers:
    """The offers' flows of the hall that received ``interaction``."""
    offers: Offers = getattr(interaction.client, "hall").offers  # noqa: B009 - set by the bot
    return offers


OFFER_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (OfferButton,)


def buttons(offer_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(OfferButton(offer_id, "yes"))
    view.add_item(OfferButton(offer_id, "no"))
    return view


class Offers:
    """The flows of offers; holds nothing of its own (the hall's client, store and flows)."""

    def __init__(
        self,
        client: discord.Client,
        store: Store,
        guard: Guard,
        lobby: Posting,
        tables: TableShowing,
        panels: PanelShowing,
        notices: Notifying,
    ) -> None:
        self.client = client
        self.store = store
        self.guard = guard
        self.lobby = lobby
        self.tables = tables
        self.panels = panels
        self.notices = notices

    def describe(self, offer: OfferRecord) -> str:
        title = get_game(offer.game).title
        what = "a rematch" if offer.kind == "rematch" else "a game"
        return f"{what} of **{title}** ({clock.describe(offer.time_control)})"

    # -- making offers ---------------------------------------------------------------------------

    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | discord.Member,
        game_key: str,
        time_control: str | None,
    ) -> None:
        """``/siege challenge``: offer ``user`` a two-player game in this channel (with no
        clock named, the server's default clock)."""
        if interaction.channel_id is None or interaction.guild_id is None:
            raise TableError("Challenges live in server channels; run this in a channel.")
        settings = await settings_for_new_game(self.store, interaction, game_key)
        if user.bot:
            raise TableError("Bots do not take challenges; challenge a person.")
        await self.guard.remember(interaction)
        # The challenged player may never click before the game: their name, for the pictures.
        await self.store.remember_names({user.id: user.display_name})
        offer = await self.store.challenge(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            game=game_key,
            challenger_id=interaction.user.id,
            challenged_id=user.id,
            time_control=settings.time_control if time_control is None else time_control,
        )
        challenger, challenged = mention(offer.host_id), mention(user.id)
        invite = (
            f"⚔️ {challenger} challenges you to {self.describe(offer)}. The game opens in "
            f"<#{offer.channel_id}> with both of you seated, {challenger} first. This offer "
            f"expires {when(offer.expires_at)}."
        )
        sent = None
        if await self.store.dm_mode(user.id) == "on":
            sent = await self.notices.dm_message(user.id, content=invite, view=buttons(offer.id))
        if sent is not None:
            await self.store.set_offer_message(offer.id, sent.channel.id, sent.id)
            await interaction.response.send_message(
                f"⚔️ {challenger} challenged {challenged} to {self.describe(offer)}. "
                f"I sent {challenged} the offer by DM; it expires {when(offer.expires_at)}.",
                allowed_mentions=NO_MENTIONS,
            )
            return
        response = await interaction.response.send_message(
            f"{challenged}, {invite.removeprefix('⚔️ ')}",
            view=buttons(offer.id),
            allowed_mentions=USER_MENTIONS,
        )
        await self._keep_message(interaction, offer, response)

    async def rematch(self, interaction: discord.Interaction[Any], tid: int) -> None:
        """The Rematch button of a finished table: the clicker says yes and every other player
        is asked in the channel (a second click on Rematch answers yes to that offer)."""
        outcome = await self.store.offer_rematch(tid, interaction.user.id)
        offer = outcome.offer
        if outcome.table is not None:
            await self.lobby.post_new_table(interaction, outcome.table)
            await self._close_message(offer, f"✅ Everyone accepted {self.describe(offer)}.")
            return
        if offer.message_id is not None:  # an offer already asked for: this click said yes
            waiting = ", ".join(mention(uid) for uid in offer.waiting_for())
            await interaction.response.send_message(
                f"You accepted the rematch; waiting for {waiting}.",
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
            return
        others = " ".join(mention(uid) for uid in offer.waiting_for())
        response = await interaction.response.send_message(
            f"🔁 {others}: {mention(offer.host_id)} offers {self.describe(offer)} of table "
            f"#{tid}, same seats. It starts when every player has accepted; the offer expires "
            f"{when(offer.expires_at)}.",
            view=buttons(offer.id),
            allowed_mentions=USER_MENTIONS,
        )
        await self._keep_message(interaction, offer, response)

    async def _keep_message(
        self,
        interaction: discord.Interaction[Any],
        offer: OfferRecord,
        response: discord.InteractionCallbackResponse[Any],
    ) -> None:
        """Remember the message that answered ``interaction`` as the offer's. Its id comes with
        the answer: a click answered late (see :mod:`cogs.deadline`) has its clicked message,
        not the offer, as its original response."""
        message_id = response.message_id
        if message_id is None:
            message_id = (await interaction.original_response()).id
        assert interaction.channel_id is not None
        await self.store.set_offer_message(offer.id, interaction.channel_id, message_id)

    # -- answers -----------------------------------------------------------------------------------

    async def on_answer(self, interaction: discord.Interaction[Any], oid: int, yes: bool) -> None:
        async def flow() -> None:
            outcome = await self.store.answer_offer(oid, interaction.user.id, yes)

            async def follow_up() -> None:
                await self._after_answer(interaction, outcome, yes)

            await self.guard.after_commit(
                interaction, follow_up(), done="Your answer counted" if yes else "You declined"
            )

        await self.guard.guarded(interaction, flow)

    async def _after_answer(
        self, interaction: discord.Interaction[Any], outcome: OfferOutcome, yes: bool
    ) -> None:
        offer, user = outcome.offer, interaction.user.id
        if not yes:
            text = f"❌ {mention(user)} declined {self.describe(offer)}."
            await interaction.response.edit_message(
                content=text, view=None, allowed_mentions=NO_MENTIONS
            )
            await self._tell(offer, offer.host_id, text)
            return
        if outcome.table is None:
            waiting = ", ".join(mention(uid) for uid in offer.waiting_for())
            await interaction.response.send_message(
                f"You accepted; waiting for {waiting}.",
                ephemeral=True,
                allowed_mentions=NO_MENTIONS,
            )
            return
        table = outcome.table
        await interaction.response.edit_message(
            content=f"✅ Accepted {self.describe(offer)}: table #{table.id} is on "
            f"in <#{table.channel_id}>.",
            view=None,
            allowed_mentions=NO_MENTIONS,
        )
        await self.post_table(table)

    async def post_table(self, table: TableRecord) -> None:
        """Post a started game as a new table message in its channel, with its panels and first
        turn ping (the answer may have come from a DM, so not as the interaction's reply). The
        table's own redraw posts it (a game thread is opened again first)."""
        if not await self.tables.refresh_table(table):
            return  # its channel is gone: the table was closed
        table = await self.store.get_table(table.id) or table
        await self.panels.refresh_panels(table)
        await self.notices.turn_ping(table, turn_passed_to(table, None))
        await self.guard.hooks.seated(table.seats)

    # -- expiry (from the sweeper) -----------------------------------------------------------------

    async def expired(self, offer: OfferRecord) -> None:
        """Say in the channel that an offer expired, and take the buttons off its message."""
        waiting = " ".join(mention(uid) for uid in offer.waiting_for())
        text = (
            f"⌛ {mention(offer.host_id)}'s offer of {self.describe(offer)} expired: "
            f"{waiting} did not answer within a day."
        )
        await self._close_message(offer, text)  # an edit notifies nobody: a new message does
        await self._say(offer, text)

    # -- messages ----------------------------------------------------------------------------------

    async def _close_message(self, offer: OfferRecord, text: str) -> None:
        if offer.message_channel_id is None or offer.message_id is None:
            return
        channel = self.client.get_partial_messageable(offer.message_channel_id)
        with contextlib.suppress(discord.HTTPException):
            await channel.get_partial_message(offer.message_id).edit(
                content=text, view=None, allowed_mentions=NO_MENTIONS
            )

    async def _tell(self, offer: OfferRecord, user_id: int, text: str) -> None:
        """Tell one player: a DM, or a channel mention when they take no DMs."""
        if await self.store.dm_mode(user_id) == "on" and await self.notices.dm(user_id, text):
            return
        await self._say(offer, f"{mention(user_id)} {text}")

    async def _say(self, offer: OfferRecord, text: str) -> None:
        channel = self.client.get_partial_messageable(offer.channel_id, guild_id=offer.guild_id)
        try:
            await channel.send(text, allowed_mentions=USER_MENTIONS)
        except discord.HTTPException:
            log.warning("offer %s: could not post a notice", offer.id)


__all__ = ["OFFER_ITEMS", "OfferButton", "Offers"]
