"""Each player's DM channel with the bot, known by its id, so that a DM goes out without first
asking Discord which channel it is.

discord.py keeps the 128 DM channels it saw last. With more players than that in play, every DM
to a player outside them began with ``POST /users/@me/channels`` (a rate-limited request, and
the channel built anew): at 1,000 tables, 3 of the 11 rate-limited requests of a table's first
6 moves (measured with ``benchmarks/table_load.py``). A DM channel between the bot and a user
never changes, and the bot already knows most of them: a stored DM panel names its channel. So
they are kept here, by user, as plain numbers (an int-only dict is not even walked by the
garbage collector), and only a user never seen in DMs costs the request, once.

A kept id Discord no longer knows (``Unknown Channel``) is dropped, and the channel asked for
again, once.
"""

from __future__ import annotations

from typing import Any

import discord

from cogs.flow import UNKNOWN_CHANNEL_CODE

#: DM channels kept (a user id and a channel id each: about 150 bytes).
MAX_KNOWN = 100_000


class DmChannels:
    """The DM channel of each user the bot has seen in DMs, by id."""

    def __init__(self, client: discord.Client, limit: int = MAX_KNOWN) -> None:
        self.client = client
        self.limit = limit
        self._known: dict[int, int] = {}  # user id -> DM channel id, oldest first

    def note(self, user_id: int, channel_id: int) -> None:
        """``channel_id`` is ``user_id``'s DM channel (the channel of their stored panel)."""
        if self._known.get(user_id) == channel_id:
            return
        self._known[user_id] = channel_id
        if len(self._known) > self.limit:
            del self._known[next(iter(self._known))]

    def known(self, user_id: int) -> int | None:
        return self._known.get(user_id)

    def forget(self, user_id: int) -> None:
        """Let ``user_id``'s channel go (they asked for their data to be deleted)."""
        self._known.pop(user_id, None)

    async def send(self, user_id: int, **kwargs: Any) -> discord.Message:
        """A new DM to ``user_id``. Raises what ``send`` raises (``Forbidden`` 50007: their DMs
        are closed), except that a kept channel Discord no longer knows is asked for again."""
        known = self._known.get(user_id)
        if known is not None:
            kept = self.client.get_partial_messageable(known, type=discord.ChannelType.private)
            try:
                return await kept.send(**kwargs)
            except discord.NotFound as exc:
                if exc.code != UNKNOWN_CHANNEL_CODE:
                    raise
                self._known.pop(user_id, None)
        channel = await self._ask(user_id)
        return await channel.send(**kwargs)

    async def _ask(self, user_id: int) -> discord.DMChannel:
        channel = await self.client.create_dm(discord.Object(user_id))
        self.note(user_id, channel.id)
        return channel


__all__ = ["MAX_KNOWN", "DmChannels"]
