"""Open challenges: ``/siege seek`` posts a game anyone may accept, ``/siege seeks`` lists them.

A seek is a public message in the channel with **Accept** and **Withdraw** buttons (restart-proof
:class:`SeekButton`). The first member who accepts (never its author) plays its author: the store
closes the seek and opens the table in one transaction (see :mod:`storage.seeks`), then the
seek's message says who accepted and the table is posted below it, as an accepted challenge's
is, with its panels and first turn ping. When the channel has an open table meanwhile, the game
opens in a thread started from the seek's message instead. A two-player game starts at once,
the author first; a game for more players opens as a lobby with both seated, which others join
and the author starts. Whoever clicks a seek that closed meanwhile (taken, withdrawn, expired)
reads why.

A seek closes by itself after a day (the sweeper, :meth:`Seeks.sweep`), or when its author starts
or joins another game: the store closes it in that game's transaction, and its message is edited
right after the flow that seated them (:meth:`Seeks.withdrawn_for`), or at the next sweep.
"""

from __future__ import annotations

import contextlib
import logging
import re
from datetime import datetime
from typing import Any, ClassVar

import discord

from cogs.flow import (
    NO_MENTIONS,
    USER_MENTIONS,
    Guard,
    Notifying,
    StartedPosting,
    TableShowing,
    jump_url,
    mention,
)
from cogs.server_rules import settings_for_new_game
from engine import get_game
from storage import Store, TableError, TableRecord, clock
from storage.seeks import SeekRecord
from storage.shards import Shards

log = logging.getLogger("siege.seeks")

#: Discord's answer to a second thread started from one message.
THREAD_EXISTS_CODE = 160004
#: ``/siege seeks`` shows at most this many (an embed's description holds 4,096 characters).
LISTED = 20
#: The open seeks ``/siege seeks`` looks through for those its viewer may see (seeks expire
#: after a day; a server has far fewer open at once).
LOOKED_AT = 500


def when(stamp: str, style: str = "R") -> str:
    """A stored moment as Discord shows it to each reader ("in 23 hours")."""
    return f"<t:{int(datetime.fromisoformat(stamp).timestamp())}:{style}>"


def visible_to(interaction: discord.Interaction[Any], channel_id: int) -> bool:
    """Whether the member behind ``interaction`` may see the channel (or thread) ``channel_id``:
    a seek in a channel hidden from them is not theirs to know of. The channel where they ask
    they see; another one must be in the bot's cache with View Channel for them (a channel the
    bot cannot find is not shown)."""
    if channel_id == interaction.channel_id:
        return True
    guild, member = interaction.guild, interaction.user
    if guild is None or not isinstance(member, discord.Member):
        return False
    channel = guild.get_channel_or_thread(channel_id)
    return channel is not None and channel.permissions_for(member).view_channel


def terms(seek: SeekRecord) -> str:
    """The game and its terms in a few words: ``**Siege the King** · no clock · rated``."""
    rated = "rated" if seek.rated else "casual (not rated)"
    who = ""
    if seek.rating_low is not None and seek.rating_high is not None:
        who = f" · for ratings {seek.rating_low}–{seek.rating_high}"
    return f"**{get_game(seek.game).title}** · {clock.describe(seek.time_control)} · {rated}{who}"


class SeekButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sh:seek:(?P<sid>[0-9]{1,18}):(?P<op>accept|withdraw)",
):
    LABELS: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "accept": ("Accept", discord.ButtonStyle.success),
        "withdraw": ("Withdraw", discord.ButtonStyle.secondary),
    }

    def __init__(self, sid: int, op: str) -> None:
        label, style = self.LABELS[op]
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"sh:seek:{sid}:{op}")
        )
        self.sid, self.op = sid, op

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> SeekButton:
        return cls(int(match["sid"]), match["op"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        seeks: Seeks = getattr(interaction.client, "hall").seeks  # noqa: B009 - set by the bot
        if self.op == "accept":
            await seeks.on_accept(interaction, self.sid)
        else:
            await seeks.on_withdraw(interaction, self.sid)


SEEK_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (SeekButton,)


def buttons(seek_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(SeekButton(seek_id, "accept"))
    view.add_item(SeekButton(seek_id, "withdraw"))
    return view


class Seeks:
    """The flows of seeks; holds nothing of its own (the hall's client, store and flows)."""

    def __init__(
        self,
        client: discord.Client,
        store: Store,
        guard: Guard,
        tables: TableShowing,
        started: StartedPosting,
        notices: Notifying,
    ) -> None:
        self.client = client
        self.store = store
        self.guard = guard
        self.tables = tables
        self.started = started
        self.notices = notices

    # -- commands --------------------------------------------------------------------------------

    async def seek(
        self,
        interaction: discord.Interaction[Any],
        game_key: str,
        time_control: str | None,
        rated: bool,
        rating_range: int | None = None,
    ) -> None:
        """``/siege seek``: post an open challenge in this channel (with no clock named, the
        server's default clock)."""
        if interaction.channel_id is None or interaction.guild_id is None:
            raise TableError("Seeks live in server channels; run this in a channel.")
        settings = await settings_for_new_game(self.store, interaction, game_key)
        await self.guard.remember(interaction)
        seek = await self.store.post_seek(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            game=game_key,
            author_id=interaction.user.id,
            time_control=settings.time_control if time_control is None else time_control,
            rated=rated,
            rating_range=rating_range,
        )
        response = await interaction.response.send_message(
            await self.invitation(seek), view=buttons(seek.id), allowed_mentions=NO_MENTIONS
        )
        message_id = response.message_id
        if message_id is None:  # answered late (see cogs.deadline): read it back
            message_id = (await interaction.original_response()).id
        await self.store.set_seek_message(seek.id, message_id)

    async def listing(self, interaction: discord.Interaction[Any]) -> discord.Embed:
        """``/siege seeks``: the server's open seeks that the viewer may see (:func:`visible_to`),
        oldest first, each with a link."""
        assert interaction.guild_id is not None
        found = await self.store.open_seeks(interaction.guild_id, LOOKED_AT)
        seeks = [seek for seek in found if visible_to(interaction, seek.channel_id)]
        embed = discord.Embed(title="Open seeks in this server", colour=discord.Colour(0xD4A017))
        if not seeks:
            embed.description = (
                "Nobody is seeking a game right now. Post one with `/siege seek`: anyone here "
                "may accept it with one click."
            )
            return embed
        lines = []
        for seek in seeks[:LISTED]:
            link = seek.jump_url
            lines.append(
                f"{terms(seek)} · {mention(seek.author_id)} {await self.rating(seek)}"
                f" · in <#{seek.channel_id}> · expires {when(seek.expires_at)}"
                + (f" · [open]({link})" if link else "")
            )
        if len(seeks) > LISTED:
            lines.append(f"…and more: these are the {LISTED} oldest.")
        embed.description = "\n".join(lines)
        embed.set_footer(text="Accept one from its message. Your own: its Withdraw button.")
        return embed

    # -- clicks ----------------------------------------------------------------------------------

    async def on_accept(self, interaction: discord.Interaction[Any], sid: int) -> None:
        async def flow() -> None:
            await self.guard.remember(interaction)
            user = interaction.user.id
            seek = await self.store.acceptable_seek(sid, user)  # refusals before any thread
            busy = await self.store.open_table_in(seek.channel_id)
            where = None if busy is None else await self.thread_for(seek)
            outcome = await self.store.accept_seek(sid, user, where)

            async def follow_up() -> None:
                seek, table = outcome.seek, outcome.table
                await interaction.response.edit_message(
                    content=self.accepted_text(seek, table), view=None, allowed_mentions=NO_MENTIONS
                )
                await self.post_table(table)
                await self.withdrawn_for(table.seats)
                if table.status == "lobby":  # the author starts it: tell them it is there
                    await self.tell_author(seek, table)

            await self.guard.after_commit(interaction, follow_up(), done="You accepted the seek")

        await self.guard.guarded(interaction, flow)

    async def on_withdraw(self, interaction: discord.Interaction[Any], sid: int) -> None:
        async def flow() -> None:
            seek = await self.store.withdraw_seek(sid, interaction.user.id)

            async def follow_up() -> None:
                await interaction.response.edit_message(
                    content=self.closed_text(seek), view=None, allowed_mentions=NO_MENTIONS
                )

            await self.guard.after_commit(interaction, follow_up(), done="You withdrew the seek")

        await self.guard.guarded(interaction, flow)

    async def thread_for(self, seek: SeekRecord) -> int:
        """The thread started from the seek's message, for its game when the channel has an
        open table (one thread per message: a second click finds the first one's)."""
        refusal = TableError(
            "The channel has an open table, so this game cannot open there yet, and I may not "
            "start a thread here; accept again once it is closed (the seek stays open until "
            "it expires)."
        )
        if seek.message_id is None:
            raise refusal
        channel = self.client.get_partial_messageable(seek.channel_id, guild_id=seek.guild_id)
        name = f"{get_game(seek.game).title} · seek #{seek.id}"
        try:
            thread = await channel.get_partial_message(seek.message_id).create_thread(name=name)
        except discord.HTTPException as exc:
            if exc.code == THREAD_EXISTS_CODE:
                return seek.message_id  # a thread started from a message has its id
            raise refusal from None
        return thread.id

    async def post_table(self, table: TableRecord) -> None:
        """The accepted seek's table, below its message: a started game as an accepted
        challenge's (panels, first turn ping); a lobby as its message alone."""
        if table.status == "running":
            await self.started.post_table(table)
            return
        parts = await self.tables.table_parts(table)
        channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
        message = await channel.send(**parts.send_kwargs())
        await self.store.set_message(table.id, message.id)

    async def tell_author(self, seek: SeekRecord, table: TableRecord) -> None:
        """A DM, or a mention in the channel when the author takes no DMs (an edit of the
        seek's message would notify nobody)."""
        text = self.lobby_notice(seek, table)
        if await self.store.dm_mode(seek.author_id) == "on" and await self.notices.dm(
            seek.author_id, text
        ):
            return
        channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
        with contextlib.suppress(discord.HTTPException):
            await channel.send(f"{mention(seek.author_id)} {text}", allowed_mentions=USER_MENTIONS)

    # -- closing by themselves -------------------------------------------------------------------

    async def withdrawn_for(self, user_ids: tuple[int, ...] | list[int]) -> int:
        """These players took a seat: edit the messages of the seeks that closed for it (the
        store closed them in that transaction). Returns how many were edited."""
        authors = tuple(sorted({uid for uid in user_ids if uid > 0}))
        if not authors:
            return 0
        try:
            closed = await self.store.superseded_seeks(authors)
        except Exception:  # the sweeper edits them in its turn
            log.exception("could not read the seeks closed by a new game")
            return 0
        for seek in closed:
            await self.close_message(seek)
        return len(closed)

    async def channel_gone(self, channel_id: int) -> None:
        """A deleted channel or thread takes its open seeks with it (nobody can accept them)."""
        await self.store.drop_seeks_in(channel_id)

    async def sweep(self, shards: Shards | None = None) -> int:
        """The sweeper's turn: close the seeks whose day is over, and edit the messages of any
        closed by a new game that no flow edited yet. Returns how many were handled."""
        closed = await self.store.expire_seeks(shards=shards)
        closed += await self.store.superseded_seeks(shards=shards)
        for seek in closed:
            await self.close_message(seek)
        return len(closed)

    async def close_message(self, seek: SeekRecord) -> None:
        """Say on the seek's message why it closed, and take its buttons off (an edit notifies
        nobody, and nobody needs notifying: the author knows what they did)."""
        if seek.message_id is None:
            return
        channel = self.client.get_partial_messageable(seek.channel_id, guild_id=seek.guild_id)
        with contextlib.suppress(discord.HTTPException):
            await channel.get_partial_message(seek.message_id).edit(
                content=self.closed_text(seek), view=None, allowed_mentions=NO_MENTIONS
            )

    # -- texts -----------------------------------------------------------------------------------

    async def rating(self, seek: SeekRecord) -> str:
        """The author's rating in this game here (all time), as the boards show it."""
        if seek.guild_id is None:
            return ""
        line = await self.store.standing(seek.guild_id, seek.game, seek.author_id)
        if line is None:
            return "(no rating yet)"
        return f"({line.rating:.0f}{'?' if line.provisional else ''})"

    async def invitation(self, seek: SeekRecord) -> str:
        engine = get_game(seek.game)
        author = mention(seek.author_id)
        if engine.max_seats == 2:
            opens = f"the game starts here with both of you seated, {author} first"
        else:
            opens = (
                f"the table opens here with both of you seated; more players may join it "
                f"({engine.min_seats} to {engine.max_seats}), and {author} starts the game"
            )
        return (
            f"📣 {author} {await self.rating(seek)} seeks a game of {terms(seek)}.\n"
            f"Anyone may **Accept**: {opens}. Expires {when(seek.expires_at)}; "
            f"all open seeks: `/siege seeks`."
        )

    def accepted_text(self, seek: SeekRecord, table: TableRecord) -> str:
        author, taker = mention(seek.author_id), mention(table.seats[1])
        if table.status == "lobby":
            return (
                f"✅ {taker} accepted {author}'s seek for {terms(seek)}: table #{table.id} is "
                f"open in <#{table.channel_id}>; more players may join it until {author} starts "
                "the game."
            )
        if table.channel_id != seek.channel_id:
            where = f"in its thread <#{table.channel_id}> (this channel has a table)"
            return (
                f"✅ {taker} accepted {author}'s seek for {terms(seek)}: table #{table.id} {where}."
            )
        return f"✅ {taker} accepted {author}'s seek for {terms(seek)}: table #{table.id} below."

    def lobby_notice(self, seek: SeekRecord, table: TableRecord) -> str:
        link = jump_url(table)
        return (
            f"✅ {mention(table.seats[1])} accepted your seek for {terms(seek)}: table "
            f"#{table.id} is open in <#{table.channel_id}>; press **Start** there when "
            f"everyone who wants to play has joined." + (f"\n{link}" if link else "")
        )

    def closed_text(self, seek: SeekRecord) -> str:
        author = mention(seek.author_id)
        if seek.status == "withdrawn":
            return f"↩️ {author} withdrew their seek for {terms(seek)}."
        if seek.status == "superseded":
            return (
                f"↩️ {author}'s seek for {terms(seek)} was withdrawn: they started or joined "
                "another game."
            )
        if seek.status == "expired":
            return f"⌛ {author}'s seek for {terms(seek)} expired: nobody accepted it in a day."
        taker = mention(seek.accepted_by) if seek.accepted_by is not None else "Someone"
        return f"✅ {taker} accepted {author}'s seek for {terms(seek)}."


__all__ = ["SEEK_ITEMS", "SeekButton", "Seeks"]
