"""Notifications: the turn ping in the channel for a player whose DMs are off or closed (at
most one stands per table), and plain DMs (closed DMs are remembered). Discord notifies on new
messages only, and the table is edited in place, so these are how a player hears of a turn.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any

import discord

from cogs.delivery import Delivery
from cogs.dm_channels import DmChannels
from cogs.flow import DM_CLOSED_CODE, NO_MENTIONS, USER_MENTIONS, Reached, jump_url, mention
from storage import Store, TableRecord, computers

log = logging.getLogger("siege.hall")


class Notices:
    """Sends turn pings and DMs."""

    def __init__(
        self, client: discord.Client, store: Store, delivery: Delivery, dms: DmChannels
    ) -> None:
        self.client = client
        self.store = store
        self.delivery = delivery
        self.dms = dms

    async def dm(self, user_id: int, text: str) -> bool:
        """A new DM; ``False`` when it cannot be sent (closed DMs are remembered)."""
        return await self.dm_message(user_id, content=text) is not None

    async def dm_message(self, user_id: int, **kwargs: Any) -> discord.Message | None:
        """A new DM (``kwargs`` as ``send`` takes them; it mentions nobody); ``None`` when it
        cannot be sent (closed DMs are remembered)."""
        if computers.is_computer(user_id):
            return None
        try:
            return await self.dms.send(user_id, allowed_mentions=NO_MENTIONS, **kwargs)
        except discord.Forbidden as exc:
            if exc.code == DM_CLOSED_CODE:
                await self.store.set_dm_mode(user_id, "closed")
            return None
        except discord.HTTPException:
            return None

    async def turn_ping(
        self,
        table: TableRecord,
        user_id: int | None,
        via: discord.Interaction[Any] | None = None,
        reached: Reached | None = None,
    ) -> None:
        """Ping the player to act in the channel when no DM panel notifies them (DMs off or
        closed): Discord notifies on new messages only, and the table is edited in place. The
        previous ping of the table is deleted, so at most one stands; ``None`` only clears.

        ``via`` is the click that passed the turn: when it was made in the table's channel, the
        ping is its follow-up (interaction webhooks are exempt from the rate limit).
        ``reached``: the table and its seats' DM modes as the panels were just drawn (else they
        are read)."""
        newest, targets = reached or await self.store.delivery_targets(table)
        table = newest or table
        channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
        if table.ping_message_id is not None:
            with contextlib.suppress(discord.HTTPException):
                await self.delivery.delete(channel.get_partial_message(table.ping_message_id))
            await self.store.set_ping(table.id, None)
        if user_id is None or computers.is_computer(user_id):
            return
        target = targets.get(user_id)
        if (target.mode if target else await self.store.dm_mode(user_id)) == "on":
            return
        url = jump_url(table)
        text = f"{mention(user_id)}, it's your turn at table #{table.id}" + (
            f": {url}" if url else "."
        )
        ping_id = None
        if via is not None and via.channel_id == table.channel_id and via.response.is_done():
            with contextlib.suppress(discord.HTTPException):
                followup = await via.followup.send(text, allowed_mentions=USER_MENTIONS, wait=True)
                self.delivery.reach(followup.id, via, followup.id)
                ping_id = followup.id
        if ping_id is None:
            try:
                ping_id = (await channel.send(text, allowed_mentions=USER_MENTIONS)).id
            except discord.HTTPException:
                log.warning("table %s: could not post the turn ping", table.id)
                return
        await self.store.set_ping(table.id, ping_id)


__all__ = ["Notices"]
