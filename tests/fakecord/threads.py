"""Threads in the fake Discord, beyond creating them (rest.py): editing a thread (name, archived,
auto-archive duration, locked), deleting a channel or thread, and what archiving does to
messages, as Discord behaves:

- ``PATCH /channels/{id}`` changes a thread and sends THREAD_UPDATE (a text channel's name or
  topic: CHANNEL_UPDATE). Needs Manage Threads unless the bot owns the thread.
- ``DELETE /channels/{id}`` deletes it (THREAD_DELETE / CHANNEL_DELETE), threads of a deleted
  channel with it (Discord sends no THREAD_DELETE for those: they just answer 404 / 10003).
- A message sent to an archived thread that is not locked unarchives it (THREAD_UPDATE); editing
  a message of an archived thread is refused with 400 / 50083.
- :func:`archive` archives a thread as Discord's auto-archive does after its quiet time.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import discord

from .world import FakeChannel

if TYPE_CHECKING:
    from .rest import Call, Reply, RestApi
    from .server import FakeDiscord

ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)
MANAGE_THREADS = discord.Permissions(manage_threads=True).value
CREATE_PUBLIC_THREADS = discord.Permissions(create_public_threads=True).value


def update(fake: FakeDiscord, thread: FakeChannel) -> None:
    fake.gateway.dispatch("THREAD_UPDATE", thread.payload())


def archive(fake: FakeDiscord, thread: FakeChannel) -> None:
    """Archive ``thread`` as Discord does once it has been quiet its auto-archive duration."""
    assert thread.is_thread
    thread.archived = True
    update(fake, thread)


def unarchive_on_send(fake: FakeDiscord, channel: FakeChannel) -> bool:
    """Before a message is sent: an archived thread opens again; False if it is locked."""
    if not (channel.is_thread and channel.archived):
        return True
    if channel.locked:
        return False
    channel.archived = False
    update(fake, channel)
    return True


def delete(fake: FakeDiscord, channel: FakeChannel) -> None:
    """Delete a channel and the threads in it (only the channel's own event is sent)."""
    if channel.guild is not None and not channel.is_thread:
        for thread in [c for c in channel.guild.channels if c.parent_id == channel.id]:
            fake.channels.pop(thread.id, None)
            channel.guild.channels = [c for c in channel.guild.channels if c.id != thread.id]


async def modify_channel(rest: RestApi, call: Call) -> Reply:
    from .rest import Reply, discord_error

    fake = rest.fake
    channel = rest._channel(call)
    if channel is None:
        return discord_error(404, 10003, "Unknown Channel")
    if channel.guild is None:
        return discord_error(400, 50024, "Cannot execute action on this channel type")
    body: Mapping[str, Any] = call.body if isinstance(call.body, Mapping) else {}
    held = channel.guild.permissions_of(fake.bot_user)
    owns = channel.is_thread and channel.owner_id == fake.bot_user.id
    if not owns and not held & MANAGE_THREADS:
        return discord_error(403, 50013, "Missing Permissions")
    if "name" in body:
        name = body["name"]
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            return discord_error(400, 50035, "Invalid Form Body (name: 1 to 100 characters)")
        channel.name = name
    if channel.is_thread:
        if "auto_archive_duration" in body:
            if body["auto_archive_duration"] not in ARCHIVE_DURATIONS:
                return discord_error(400, 50035, "Invalid Form Body (auto_archive_duration)")
            channel.auto_archive_duration = int(body["auto_archive_duration"])
        if "archived" in body:
            channel.archived = bool(body["archived"])
        if "locked" in body:
            channel.locked = bool(body["locked"])
        update(fake, channel)
    else:
        if "topic" in body:
            channel.topic = body["topic"]
        fake.gateway.dispatch("CHANNEL_UPDATE", channel.payload())
    return Reply(200, channel.payload())


async def delete_channel(rest: RestApi, call: Call) -> Reply:
    from .rest import Reply, discord_error

    fake = rest.fake
    channel = rest._channel(call)
    if channel is None or channel.guild is None:
        return discord_error(404, 10003, "Unknown Channel")
    held = channel.guild.permissions_of(fake.bot_user)
    owns = channel.is_thread and channel.owner_id == fake.bot_user.id
    needed = (
        MANAGE_THREADS if channel.is_thread else discord.Permissions(manage_channels=True).value
    )
    if not owns and not held & needed:
        return discord_error(403, 50013, "Missing Permissions")
    payload = channel.payload()
    fake.delete_channel(channel)
    return Reply(200, payload)


__all__ = [
    "ARCHIVE_DURATIONS",
    "CREATE_PUBLIC_THREADS",
    "archive",
    "delete",
    "delete_channel",
    "modify_channel",
    "unarchive_on_send",
]
