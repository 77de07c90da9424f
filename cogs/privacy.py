"""Players' data (issue 28): ``/siege privacy info``, ``export`` and ``delete``, and what happens
to a server's data when the bot is removed from it.

What is kept is declared once, table by table, in :mod:`storage.kept`: the answer to ``info`` is
read from it, the export holds every row it says names the player, and deleting follows it
(:mod:`storage.privacy`). Deleting asks first (a button only the asking player can use, which
survives a restart); the player's running games are resigned with the usual notices, and their
lobbies, offers and DM panels are closed. A server the bot is removed from has its open tables
closed at once and its data deleted by the sweeper after ``SERVER_DATA_DAYS``
(:mod:`storage.departures`); the bot's return before then cancels that.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import logging
import re
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import discord

from cogs.flow import Guard, Notifying, PanelShowing, TableShowing
from storage import Store, TableError, TableRecord
from storage.kept import GAMES, KEPT
from storage.privacy import Forgotten

log = logging.getLogger("siege.privacy")

#: Above this the export goes out gzipped (Discord takes files up to 10 MiB from a bot).
EXPORT_PLAIN_MAX = 8 * 1024 * 1024
WITHDRAWN = "This offer was withdrawn: a player deleted their data."
SEEK_WITHDRAWN = "This open challenge was withdrawn: its author deleted their data."


def about_text(server_days: int) -> str:
    """What ``/siege privacy info`` says: every table that names players, in plain words."""
    yours = [kept for kept in KEPT.values() if kept.names_players]
    lines = [
        "Siege Hall keeps only what its games need. It reads no messages: it sees its own "
        "commands and buttons, your user id and the name you go by (for boards after you leave "
        "a server). Its logs name tables and moves, never players' hands.",
        "",
        "**What is kept about you, and why**",
        *(f"• {kept.what[:1].upper()}{kept.what[1:]}." for kept in yours if kept.kept != GAMES),
        *(f"• {kept.what[:1].upper()}{kept.what[1:]}." for kept in yours if kept.kept == GAMES),
        "",
        "**For how long**",
        "• Your settings, DM panel ids, offers and challenges: until you delete your data.",
        f"• Games, moves, results and ratings: {GAMES}.",
        f"• When the bot is removed from a server, its open tables close at once and everything "
        f"of that server is deleted after {server_days} days, unless the bot is added back first.",
        "",
        "`/siege privacy export` sends you a file with all of it; `/siege privacy delete` "
        "deletes it (it asks first).",
    ]
    return "\n".join(lines)


class ForgetButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sh:forget:(?P<uid>[0-9]{1,20})",
):
    """The confirmation of ``/siege privacy delete``: only the player who asked can use it."""

    def __init__(self, uid: int) -> None:
        super().__init__(
            discord.ui.Button(
                label="Delete my data",
                style=discord.ButtonStyle.danger,
                custom_id=f"sh:forget:{uid}",
            )
        )
        self.uid = uid

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ForgetButton:
        return cls(int(match["uid"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        data: PlayerData = getattr(interaction.client, "player_data")  # noqa: B009 - the bot's
        await data.on_forget(interaction, self.uid)


PRIVACY_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (ForgetButton,)


class PlayerData:
    """The flows of ``/siege privacy`` and of the bot's removal from a server."""

    def __init__(
        self,
        client: discord.Client,
        store: Store,
        guard: Guard,
        tables: TableShowing,
        panels: PanelShowing,
        notices: Notifying,
        announce_end: Callable[[TableRecord], Awaitable[None]],
        *,
        server_days: int,
    ) -> None:
        self.client = client
        self.store = store
        self.guard = guard
        self.tables = tables
        self.panels = panels
        self.notices = notices
        #: The result told to every player (cogs/endings.py), as after any resignation.
        self.announce_end = announce_end
        self.server_days = server_days
        #: The servers this process saw the bot leave whose data is not deleted yet (read once:
        #: every server is seen again at start-up, and only these need a write).
        self._departed: set[int] | None = None

    # -- /siege privacy ----------------------------------------------------------------------------

    async def info(self, interaction: discord.Interaction[Any]) -> None:
        embed = discord.Embed(
            title="Your data in Siege Hall", description=about_text(self.server_days)
        )
        await interaction.response.send_message(embed=embed, ephemeral=True)

    async def export(self, interaction: discord.Interaction[Any]) -> None:
        user_id = interaction.user.id
        rows = await self.store.export_player(user_id)
        document = {
            "user_id": user_id,
            "exported_at": self.store.now().isoformat(),
            "tables": {name: KEPT[name].what for name in rows},
            "left_out": "a running game's hidden state, the seeds and salts of games and the "
            "events of moves, which can hold other players' secrets",
            "rows": rows,
        }
        body = json.dumps(document, indent=1, default=str).encode()
        name = "siege-hall-my-data.json"
        if len(body) > EXPORT_PLAIN_MAX:
            body, name = gzip.compress(body), name + ".gz"
        count = sum(len(found) for found in rows.values())
        await interaction.response.send_message(
            f"Everything Siege Hall keeps about you: {count} record{'s' if count != 1 else ''}, "
            "by table (`/siege privacy info` says what each is for).",
            file=discord.File(io.BytesIO(body), filename=name),
            ephemeral=True,
        )

    async def ask_forget(self, interaction: discord.Interaction[Any]) -> None:
        view = discord.ui.View(timeout=None)
        view.add_item(ForgetButton(interaction.user.id))
        await interaction.response.send_message(
            "Delete your data? Your settings, DM panels, challenges and offers are deleted, your "
            "running games are resigned, your open lobbies and open challenges (seeks) closed, "
            "and in finished games you "
            "become an anonymous former player (the other players' games and ratings stay as "
            "they were). This cannot be undone.",
            view=view,
            ephemeral=True,
        )

    async def on_forget(self, interaction: discord.Interaction[Any], uid: int) -> None:
        async def flow() -> None:
            if interaction.user.id != uid:
                raise TableError("This button is for the player who asked to delete their data.")
            forgotten = await self.store.forget_player(uid)
            self.panels.forget_player(uid)  # what the panels keep of them in memory
            games = len(forgotten.resigned)
            await interaction.response.edit_message(
                content="Your data is deleted: you are a former player in the games you played"
                + (
                    f", and {games} running game{'s' if games != 1 else ''} resigned"
                    if games
                    else ""
                )
                + ". Playing again starts afresh.",
                view=None,
            )
            await self.guard.after_commit(
                interaction, self._after_forget(forgotten), done="Your data is deleted"
            )

        await self.guard.guarded(interaction, flow, private=True)

    async def _after_forget(self, forgotten: Forgotten) -> None:
        """The usual notices of each resignation; the tables, offers and panels brought up to
        date."""
        for table, _events in forgotten.resigned:
            if await self.tables.refresh_table(table):
                await self.panels.refresh_panels(table)
                await self.notices.turn_ping(table, None)
                await self.announce_end(table)
        for table in forgotten.changed:
            await self.tables.refresh_table(table)
        for offer in forgotten.withdrawn:
            if offer.message_channel_id is None or offer.message_id is None:
                continue
            channel = self.client.get_partial_messageable(offer.message_channel_id)
            with contextlib.suppress(discord.HTTPException):
                await channel.get_partial_message(offer.message_id).edit(
                    content=WITHDRAWN, view=None
                )
        for channel_id, message_id in forgotten.seeks:
            channel = self.client.get_partial_messageable(channel_id)
            with contextlib.suppress(discord.HTTPException):
                await channel.get_partial_message(message_id).edit(
                    content=SEEK_WITHDRAWN, embed=None, view=None
                )
        for channel_id, message_id in forgotten.panels:
            dm = self.client.get_partial_messageable(channel_id)
            with contextlib.suppress(discord.HTTPException):
                await dm.get_partial_message(message_id).delete()

    # -- the bot's removal from a server -----------------------------------------------------------

    async def departed(self) -> set[int]:
        if self._departed is None:
            self._departed = await self.store.departed_guilds()
        return self._departed

    async def guild_left(self, guild_id: int) -> None:
        """Removed from a server: its open tables close now, its data goes after the window."""
        departure = await self.store.guild_left(guild_id, timedelta(days=self.server_days))
        (await self.departed()).add(guild_id)
        log.info(
            "removed from a server: %s open tables closed, its data deleted at %s",
            len(departure.closed),
            departure.delete_at,
        )
        for table in departure.closed:  # the players' DM panels say the table closed
            try:
                await self.panels.refresh_panels(table)
            except discord.HTTPException:
                continue

    async def guild_back(self, guild_id: int) -> None:
        """In a server again (added back, or seen again at start-up): a planned deletion of its
        data is cancelled."""
        departed = await self.departed()
        if guild_id not in departed:
            return
        departed.discard(guild_id)
        if await self.store.guild_returned(guild_id):
            log.info("back in a server before its data was deleted: nothing is deleted")


__all__ = ["PRIVACY_ITEMS", "ForgetButton", "PlayerData", "about_text"]
