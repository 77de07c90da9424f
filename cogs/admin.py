"""``/siege-admin``: a server's settings for Siege Hall (issue 28), for members with Manage
Server.

Where games open (channels, and the threads in them), who moderates tables (a role, beside
Manage Messages), the defaults of new tables (clock, forfeit rule, threads), which games are
offered, and how the leaderboards count (shown or not, the season's length, whether repeat
games of the same players on one day count less). Every change is stored with who made it
(:mod:`storage.servers`) and answered privately with what changed; ``/siege-admin show`` lists
the settings and the latest changes. Nothing here names a game: games come from the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.choices import AnyGame, command_failed, time_control_choices
from cogs.choices import time_control as read_time_control
from engine import GAMES, get_game
from storage import TableError, clock
from storage.seasons import LENGTHS
from storage.servers import ServerSettings, SettingChange

if TYPE_CHECKING:
    from bot import SiegeBot

LABELS = {
    "channels": "Channels",
    "moderator_role": "Moderator role",
    "time_control": "Default clock",
    "forfeit_after": "Default forfeit",
    "threads": "Game threads",
    "games_off": "Games offered",
    "leaderboards": "Leaderboards",
    "season": "Season length",
    "repeats_count_less": "Repeat games",
}
NOT_A_MANAGER = "Only a server manager (Manage Server) can change Siege Hall's settings."
NOTHING_GIVEN = "Give at least one option to change; `/siege-admin show` lists the settings."


def shown(name: str, value: Any) -> str:
    """A setting's value in words.

    >>> shown("channels", ()), shown("forfeit_after", 1), shown("season", "quarterly")
    ('every channel', 'after 1 missed move', 'quarterly')
    """
    if name == "channels":
        if not value:
            return "every channel"
        return ", ".join(f"<#{c}>" for c in value) + " (and the threads in them)"
    if name == "moderator_role":
        return "none (Manage Messages moderates)" if value is None else f"<@&{value}>"
    if name == "time_control":
        return str(clock.describe(value))
    if name == "forfeit_after":
        return f"after {value} missed move{'s' if value != 1 else ''}"
    if name == "threads":
        return "each game in a thread of its own" if value else "in the channel"
    if name == "games_off":
        titles = [get_game(key).title for key in value if key in GAMES]
        return "all but " + ", ".join(titles) if titles else "all"
    if name == "leaderboards":
        return "shown" if value else "off (ratings are still kept)"
    if name == "repeats_count_less":
        return (
            "the n-th rated game of the same players on one day counts 1/n"
            if value
            else "every game counts fully"
        )
    return str(value)


def change_line(change: SettingChange, *, who: bool = False) -> str:
    line = (
        f"**{LABELS[change.name]}**: {shown(change.name, change.old)} → "
        f"{shown(change.name, change.new)}"
    )
    return line + (f" — <@{change.user_id}>, {change.changed_at[:16]} UTC" if who else "")


def settings_embed(settings: ServerSettings, changes: list[SettingChange]) -> discord.Embed:
    embed = discord.Embed(title="Siege Hall — this server's settings")
    for name, label in LABELS.items():
        embed.add_field(name=label, value=shown(name, getattr(settings, name)), inline=False)
    embed.add_field(
        name="Latest changes",
        value="\n".join(change_line(c, who=True) for c in changes) or "None yet.",
        inline=False,
    )
    embed.set_footer(text="Change them with the other /siege-admin commands (Manage Server).")
    return embed


class AdminCommands(app_commands.Group):
    """``/siege-admin …``: a command of its own beside ``/siege``, so that Discord shows it only
    to members with Manage Server (a default permission is per top-level command) and ``/siege``
    keeps its room under Discord's 4,000 characters a command."""

    def __init__(self, bot: SiegeBot) -> None:
        super().__init__(
            name="siege-admin",
            description="Siege Hall's settings for this server (Manage Server)",
            guild_only=True,
            default_permissions=discord.Permissions(manage_guild=True),
        )
        self.bot = bot

    def _guild(self, interaction: discord.Interaction[Any]) -> int:
        perms = getattr(interaction, "permissions", None)
        if interaction.guild_id is None or not (perms and perms.manage_guild):
            raise TableError(NOT_A_MANAGER)
        return interaction.guild_id

    async def _change(
        self,
        interaction: discord.Interaction[Any],
        build: Callable[[ServerSettings], dict[str, Any]],
    ) -> None:
        """Change what ``build`` makes of the current settings (an empty dict: nothing was
        given), logged as the command's user, and say privately what changed."""

        async def flow() -> None:
            guild = self._guild(interaction)
            given = build(await self.bot.store.server_settings(guild))
            if not given:
                raise TableError(NOTHING_GIVEN)
            _, done = await self.bot.store.change_server_settings(
                guild, interaction.user.id, **given
            )
            text = "\n".join(change_line(c) for c in done) or "Nothing changed: that is how it is."
            await interaction.response.send_message(
                text, ephemeral=True, allowed_mentions=discord.AllowedMentions.none()
            )

        await self.bot.hall.guarded(interaction, flow, private=True)

    async def on_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await command_failed(self.bot.hall, interaction, error)

    @app_commands.command(name="show", description="The settings and their latest changes.")
    async def show(self, interaction: discord.Interaction[Any]) -> None:
        async def flow() -> None:
            guild = self._guild(interaction)
            settings = await self.bot.store.server_settings(guild)
            changes = await self.bot.store.server_setting_history(guild)
            await interaction.response.send_message(
                embed=settings_embed(settings, changes), ephemeral=True
            )

        await self.bot.hall.guarded(interaction, flow, private=True)

    @app_commands.command(name="channels", description="Where games may open (and their threads).")
    @app_commands.describe(
        add="A channel where games may open",
        remove="A channel to take off",
        everywhere="Games in every channel again",
    )
    async def channels(
        self,
        interaction: discord.Interaction[Any],
        add: discord.TextChannel | None = None,
        remove: discord.TextChannel | None = None,
        everywhere: bool | None = None,
    ) -> None:

        def build(current: ServerSettings) -> dict[str, Any]:
            if add is None and remove is None and not everywhere:
                return {}
            chosen = set() if everywhere else set(current.channels)
            if add is not None:
                chosen.add(add.id)
            if remove is not None:
                chosen.discard(remove.id)
            return {"channels": sorted(chosen)}

        await self._change(interaction, build)

    @app_commands.command(
        name="moderator", description="A role that may cancel and re-post tables."
    )
    @app_commands.describe(role="The moderators' role", none="Remove the role")
    async def moderator(
        self,
        interaction: discord.Interaction[Any],
        role: discord.Role | None = None,
        none: bool | None = None,
    ) -> None:

        def build(current: ServerSettings) -> dict[str, Any]:
            if role is not None and none:
                raise TableError("Name a role, or none, not both.")
            if none:
                return {"moderator_role": None}
            return {} if role is None else {"moderator_role": role.id}

        await self._change(interaction, build)

    @app_commands.command(name="defaults", description="New tables' clock, forfeit rule, threads.")
    @app_commands.describe(
        time_control="The clock when the host names none",
        forfeit_after="Missed moves before a seat forfeits",
        threads="Each new game in a thread of its own",
    )
    @app_commands.autocomplete(time_control=time_control_choices)
    async def defaults(
        self,
        interaction: discord.Interaction[Any],
        time_control: str | None = None,
        forfeit_after: app_commands.Range[int, 1, 5] | None = None,
        threads: bool | None = None,
    ) -> None:

        def build(current: ServerSettings) -> dict[str, Any]:
            control = None if time_control is None else read_time_control(time_control)
            return given(time_control=control, forfeit_after=forfeit_after, threads=threads)

        await self._change(interaction, build)

    @app_commands.command(name="games", description="Offer a game on this server, or not.")
    @app_commands.describe(game="The game", offered="Whether tables of it may open here")
    async def games(
        self, interaction: discord.Interaction[Any], game: AnyGame, offered: bool
    ) -> None:

        def build(current: ServerSettings) -> dict[str, Any]:
            off = set(current.games_off) - {game} if offered else {*current.games_off, game}
            return {"games_off": sorted(key for key in off if key in GAMES)}

        await self._change(interaction, build)

    @app_commands.command(name="leaderboards", description="Boards shown, season length, repeats.")
    @app_commands.describe(
        shown="Show the boards (ratings are kept either way)",
        season="Season length, from the next game on",
        repeats_count_less="The n-th game of the same players on one day counts 1/n",
    )
    @app_commands.choices(
        season=[app_commands.Choice(name=length, value=length) for length in LENGTHS]
    )
    async def leaderboards(
        self,
        interaction: discord.Interaction[Any],
        shown: bool | None = None,
        season: app_commands.Choice[str] | None = None,
        repeats_count_less: bool | None = None,
    ) -> None:
        chosen = given(
            leaderboards=shown,
            season=None if season is None else season.value,
            repeats_count_less=repeats_count_less,
        )
        await self._change(interaction, lambda current: chosen)


def given(**options: Any) -> dict[str, Any]:
    """The options a command was given (``None``: left out).

    >>> given(threads=False, season=None)
    {'threads': False}
    """
    return {name: value for name, value in options.items() if value is not None}


class Admin(commands.Cog):
    def __init__(self, bot: SiegeBot) -> None:
        self.bot = bot
        self.group = AdminCommands(bot)

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.group)

    async def cog_unload(self) -> None:
        self.bot.tree.remove_command(self.group.name)


async def setup(bot: SiegeBot) -> None:
    await bot.add_cog(Admin(bot))


__all__ = ["Admin", "AdminCommands", "change_line", "settings_embed", "shown"]
