"""A game in a thread of its own (issue 25, item 12).

With the server's threads setting on (the default), ``/play`` opens a public thread off the
channel, named after the game and its host (renamed after its players when the game starts),
posts the table there and answers in the channel with a one-line pointer. The table's channel
*is* the thread from then on: moves, panels, pings, reminders, rematches and redraws all reach it
by the table's ``channel_id``, as they reach a channel. A thread stays open a week without a
message while its game runs and is archived an hour after the game ends (Discord's own
auto-archive); a table that opens again in it (a rematch) brings it back.

The table opens in the channel as before, when the server turned threads off, when the command
was run in a thread already, in a channel that holds no threads, or (with a sentence to the host)
when the bot may not create public threads there or Discord refused the thread.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass
from typing import Any, Final

import discord

from storage import Store, TableRecord, computers
from storage.servers import ServerSettings

log = logging.getLogger("siege.threads")

#: Minutes without a message before Discord archives a thread whose game runs (the longest).
ARCHIVE_RUNNING: Final = 10080
#: ... and once its game is over.
ARCHIVE_ENDED: Final = 60
#: Discord's answer to an edit in an archived thread.
THREAD_ARCHIVED_CODE = 50083
#: Discord's longest channel name.
NAME_MAX = 100
NO_PERMISSION = (
    "I opened this table here in the channel: I may not create public threads in it (I need "
    "Create Public Threads and Send Messages in Threads). A server manager can grant those, or "
    "turn game threads off with `/siege-admin defaults threads: False`."
)
REFUSED = (
    "I opened this table here in the channel: Discord did not let me create a thread for it "
    "just now."
)


@dataclass
class Place:
    """Where a new table goes: a thread made for it, or the channel the command was run in
    (then ``note``, if any, tells the host why not a thread)."""

    channel_id: int
    thread: discord.Thread | None = None
    note: str | None = None


def thread_name(title: str, players: list[str]) -> str:
    """A game thread's name: the game, then its players.

    >>> thread_name("Castles", ["alice", "bob"])
    'Castles — alice vs bob'
    >>> thread_name("Towers", ["a", "b", "c"])
    'Towers — a, b, c'
    """
    joined = " vs ".join(players) if len(players) == 2 else ", ".join(players)
    name = f"{title} — {joined}"
    return name if len(name) <= NAME_MAX else name[: NAME_MAX - 1] + "…"


class Threads:
    """Opens game threads and keeps them archived or not as their tables go."""

    def __init__(self, client: discord.Client, store: Store) -> None:
        self.client = client
        self.store = store

    async def place(
        self, interaction: discord.Interaction[Any], settings: ServerSettings, title: str
    ) -> Place:
        """Where a new table of ``title`` hosted by the interaction's user opens."""
        assert interaction.channel_id is not None
        here = Place(interaction.channel_id)
        channel = interaction.channel
        if not settings.threads or not isinstance(channel, discord.TextChannel):
            return here  # off, a thread already, a DM, or a channel that holds no threads
        perms = interaction.app_permissions
        if not (perms.create_public_threads and perms.send_messages_in_threads):
            here.note = NO_PERMISSION
            return here
        name = thread_name(title, [interaction.user.display_name])
        try:
            thread = await channel.create_thread(
                name=name,
                type=discord.ChannelType.public_thread,
                auto_archive_duration=ARCHIVE_RUNNING,
                reason=f"A {title} table opened by {interaction.user}",
            )
        except discord.Forbidden:
            here.note = NO_PERMISSION
            return here
        except discord.HTTPException as exc:
            log.warning("could not create a game thread in channel %s: %s", channel.id, exc)
            here.note = REFUSED
            return here
        return Place(thread.id, thread)

    @staticmethod
    async def abandon(place: Place) -> None:
        """A thread made for a table that was not opened after all goes again."""
        if place.thread is not None:
            with contextlib.suppress(discord.HTTPException):
                await place.thread.delete()

    def game_thread(self, table: TableRecord) -> discord.Thread | None:
        """The thread the bot made for a table's game (``None``: a channel, or not known)."""
        channel = self.client.get_channel(table.channel_id)
        me = self.client.user
        if isinstance(channel, discord.Thread) and me is not None and channel.owner_id == me.id:
            return channel
        return None

    async def name_after_players(self, table: TableRecord) -> None:
        """A game thread is named after its players once they are seated (at the start)."""
        thread = self.game_thread(table)
        if thread is None:
            return
        people = [uid for uid in table.seats if not computers.is_computer(uid)]
        known = await self.store.names(people)
        names = [
            f"🤖 {computers.name_of(uid)}"
            if computers.is_computer(uid)
            else known.get(uid, str(uid))
            for uid in table.seats
        ]
        name = thread_name(table.engine.title, names)
        if thread.name != name:
            with contextlib.suppress(discord.HTTPException):
                await thread.edit(name=name)

    async def keep(self, table: TableRecord) -> None:
        """Before a table's message is drawn: a game thread whose game runs is open and
        archives a week after its last message; once the game is over, an hour after it."""
        thread = self.game_thread(table)
        if thread is None:
            return
        wanted = ARCHIVE_RUNNING if table.is_open else ARCHIVE_ENDED
        changes: dict[str, Any] = {}
        if thread.auto_archive_duration != wanted:
            changes["auto_archive_duration"] = wanted
        if thread.archived and table.is_open:
            changes["archived"] = False
        if changes:
            try:
                await thread.edit(**changes)
            except discord.HTTPException as exc:
                log.warning("table %s: could not update its thread (%s)", table.id, exc)

    async def reopened(self, table: TableRecord, error: discord.HTTPException) -> bool:
        """After ``error`` editing a table's message: whether it was its thread being archived
        (one the cache had lost, as archived threads are), and the thread is open again."""
        if error.code != THREAD_ARCHIVED_CODE:
            return False
        try:
            await self.client.http.edit_channel(table.channel_id, archived=False)
        except discord.HTTPException:
            return False
        return True


__all__ = ["ARCHIVE_ENDED", "ARCHIVE_RUNNING", "Place", "Threads", "thread_name"]
