"""What a server's settings allow (issue 28), asked by the flows that open or moderate tables.

- Where games open: a server may name channels; a table opens in one of them or in a thread of
  one, and elsewhere the command answers with where to go.
- Which games are offered: a game the server turned off is refused with its name.
- Who moderates a table (cancels or re-posts it): Manage Messages, Manage Server, or the
  moderator role the server named (:func:`has_moderator_role`).
"""

from __future__ import annotations

from typing import Any

import discord

from engine import get_game
from storage import Store, TableError
from storage.servers import ServerSettings


def where_games_open(settings: ServerSettings) -> str:
    """The channels a server opens games in, as a sentence's end.

    >>> where_games_open(ServerSettings(channels=(1, 2)))
    '<#1> or <#2> (or a thread in one of them)'
    """
    places = [f"<#{channel}>" for channel in settings.channels]
    listed = ", ".join(places[:-1]) + f" or {places[-1]}" if len(places) > 1 else places[0]
    return f"{listed} (or a thread in one of them)"


def parent_of(interaction: discord.Interaction[Any]) -> int | None:
    """The channel a thread belongs to (``None`` outside a thread)."""
    channel = interaction.channel
    if isinstance(channel, discord.Thread) or getattr(channel, "type", None) in (
        discord.ChannelType.public_thread,
        discord.ChannelType.private_thread,
        discord.ChannelType.news_thread,
    ):
        parent: int | None = getattr(channel, "parent_id", None)
        return parent
    return None


async def settings_for_new_game(
    store: Store, interaction: discord.Interaction[Any], game_key: str
) -> ServerSettings:
    """The server's settings, once they allow a new ``game_key`` table where ``interaction``
    was made; a ``TableError`` saying where to go, or that the game is off, if not."""
    settings = await store.server_settings(interaction.guild_id)
    channel = interaction.channel_id
    if channel is not None and not settings.allows_channel(channel, parent_of(interaction)):
        raise TableError(f"Games open in {where_games_open(settings)} on this server.")
    if not settings.offers(game_key):
        raise TableError(f"{get_game(game_key).title} is not offered on this server.")
    return settings


def has_moderator_role(member: discord.abc.User, settings: ServerSettings) -> bool:
    """Whether ``member`` holds the server's moderator role (none named: nobody does)."""
    if settings.moderator_role is None:
        return False
    roles = getattr(member, "roles", ())
    return any(role.id == settings.moderator_role for role in roles)


def moderator_role(guild: discord.Guild | None, settings: ServerSettings) -> discord.Role | None:
    """The server's moderator role, if it names one that still exists."""
    if guild is None or settings.moderator_role is None:
        return None
    return guild.get_role(settings.moderator_role)


async def may_moderate(store: Store, interaction: discord.Interaction[Any]) -> bool:
    """A moderator of tables here: may manage messages (or the server), or holds the role the
    server named for it."""
    perms = getattr(interaction, "permissions", None)
    if perms and (perms.manage_messages or perms.manage_guild):
        return True
    settings = await store.server_settings(interaction.guild_id)
    return has_moderator_role(interaction.user, settings)


__all__ = [
    "has_moderator_role",
    "may_moderate",
    "moderator_role",
    "parent_of",
    "settings_for_new_game",
    "where_games_open",
]
