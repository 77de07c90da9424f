"""fakecord: a loopback fake Discord (REST + gateway) for end-to-end tests of discord.py bots.

Typical use (with the ``fakecord`` fixture from :mod:`tests.fakecord.plugin`)::

    guild = fakecord.add_guild("Castle")
    hall = guild.add_text_channel("siege-hall")
    alice = fakecord.add_user("alice")
    guild.add_member(alice, permissions=MANAGE_GUILD)
    async with run_client(fakecord, make_bot) as bot:
        handle = await alice.slash(hall, "play castles-besieged")
        await fakecord.settle()
        await bob.click(fakecord.latest(handle.response_message), "Join")
"""

from __future__ import annotations

from .errors import (
    ActionRefused,
    CommandUnavailable,
    FakecordError,
    NotConnected,
    SchemaMismatch,
    SettleTimeout,
)
from .harness import run_client, start_client, stop_all_clients, stop_client
from .interactions import InteractionHandle
from .messages import ButtonInfo, FakeAttachment, FakeMessage, SelectInfo, SelectOptionInfo
from .server import FakeDiscord, running_fake
from .world import (
    ADMINISTRATOR,
    MANAGE_GUILD,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeRole,
    FakeUser,
)

__all__ = [
    "ADMINISTRATOR",
    "MANAGE_GUILD",
    "ActionRefused",
    "ButtonInfo",
    "CommandUnavailable",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "FakecordError",
    "InteractionHandle",
    "NotConnected",
    "SchemaMismatch",
    "SelectInfo",
    "SelectOptionInfo",
    "SettleTimeout",
    "run_client",
    "running_fake",
    "start_client",
    "stop_all_clients",
    "stop_client",
]
