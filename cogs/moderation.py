"""Who moderates Siege Hall in a server: the one check every moderator's power goes through
(cancelling a running game, forcing an unreadable table closed, re-posting a table one does not
play at). Today a moderator is a member who may manage the channel's messages (or the server).
"""

from __future__ import annotations

from typing import Any

import discord


def can_moderate(interaction: discord.Interaction[Any]) -> bool:
    """Whether the member behind ``interaction`` moderates the games of its channel."""
    perms = getattr(interaction, "permissions", None)
    return bool(perms and (perms.manage_messages or perms.manage_guild))


__all__ = ["can_moderate"]
