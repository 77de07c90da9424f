"""The ``/siege`` slash commands and the listeners that keep tables tidy.

Thin by design: each command parses its options and hands over to :class:`cogs.hall.Hall`.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from cogs.choices import (
    AnyGame,
    SeekableGame,
    TwoPlayerGame,
    command_failed,
    time_control_choices,
)
from cogs.choices import time_control as read_time_control
from cogs.guide import help_embed, welcome
from engine import daily_game, daily_option, get_game
from presentation import playable_games
from storage import TableError, players

if TYPE_CHECKING:
    from bot import SiegeBot

log = logging.getLogger("siege.commands")


def daily_difficulties() -> list[app_commands.Choice[str]]:
    """The boards of the daily challenge: the values of the option its declaration names."""
    option = daily_option()
    if option is None:
        return []
    labels = option.labels or tuple(map(str, option.choices))
    return [
        app_commands.Choice(name=label, value=str(value))
        for label, value in zip(labels, option.choices, strict=True)
    ]


DIFFICULTY_CHOICES = daily_difficulties()
EMBED_DESCRIPTION_MAX = 4096
MESSAGE_EMBEDS_TOTAL_MAX = 5800


def rules_pages(title: str, text: str) -> list[discord.Embed]:
    """A rules document as embeds: split on blank lines into descriptions of at most 4096."""
    pages: list[str] = []
    current = ""
    for block in text.strip().split("\n\n"):
        candidate = f"{current}\n\n{block}" if current else block
        if len(candidate) > EMBED_DESCRIPTION_MAX - 100:
            pages.append(current)
            current = block
        else:
            current = candidate
    if current:
        pages.append(current)
    embeds = []
    for n, page in enumerate(pages, start=1):
        suffix = f" ({n}/{len(pages)})" if len(pages) > 1 else ""
        embeds.append(discord.Embed(title=f"{title} — rules{suffix}", description=page))
    return embeds


class Siege(commands.Cog):
    siege = app_commands.Group(
        name="siege", description="Siege Hall: siege-themed tabletop games", guild_only=True
    )
    dm = app_commands.Group(name="dm", description="Where your private panels go", parent=siege)
    daily = app_commands.Group(
        name="daily", description=f"{daily_game().title}'s daily challenge", parent=siege
    )
    privacy = app_commands.Group(
        name="privacy", description="What Siege Hall keeps about you", parent=siege
    )

    def __init__(self, bot: SiegeBot) -> None:
        self.bot = bot

    @property
    def hall(self) -> Any:
        return self.bot.hall

    @siege.command(name="challenge", description="Challenge a member to a two-player game here.")
    @app_commands.describe(
        user="Who you challenge (they get Accept / Decline for a day)",
        game="The game to play (a two-player game)",
        time_control="Time per move (default: no clock)",
    )
    @app_commands.autocomplete(time_control=time_control_choices)
    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User,
        game: TwoPlayerGame,
        time_control: str | None = None,
    ) -> None:
        offers = self.hall.offers

        async def flow() -> None:
            control = None if time_control is None else read_time_control(time_control)
            await offers.challenge(interaction, user, game, control)

        await self.hall.guarded(interaction, flow)

    @siege.command(name="seek", description="Offer a game here that anyone may accept.")
    @app_commands.describe(
        game="The game to play (for two or more)",
        time_control="Time per move (default: no clock)",
        rated="Whether the game counts for ratings (default: yes)",
        rating_range="Only players rated within this many points of you (default: anyone)",
    )
    @app_commands.autocomplete(time_control=time_control_choices)
    async def seek(
        self,
        interaction: discord.Interaction[Any],
        game: SeekableGame,
        time_control: str | None = None,
        rated: bool = True,
        rating_range: app_commands.Range[int, 50, 1000] | None = None,
    ) -> None:
        async def flow() -> None:
            control = None if time_control is None else read_time_control(time_control)
            await self.hall.seeks.seek(interaction, game, control, rated, rating_range)

        await self.hall.guarded(interaction, flow)

    @siege.command(name="seeks", description="The open seeks in this server.")
    async def seeks(self, interaction: discord.Interaction[Any]) -> None:
        async def flow() -> None:
            embed = await self.hall.seeks.listing(interaction)
            await interaction.response.send_message(embed=embed, ephemeral=True)

        await self.hall.guarded(interaction, flow, private=True)

    @siege.command(name="cancel", description="Close this channel's lobby, or abort its game.")
    async def cancel(self, interaction: discord.Interaction[Any]) -> None:
        await self.hall.guarded(interaction, lambda: self.hall.cancel_in_channel(interaction))

    @siege.command(name="claim", description="Claim a game whose player to move is long gone.")
    @app_commands.describe(draw="Claim a draw instead of the win (games that have drawn results).")
    async def claim(self, interaction: discord.Interaction[Any], draw: bool = False) -> None:
        await self.hall.guarded(interaction, lambda: self.hall.claim_in_channel(interaction, draw))

    @siege.command(name="table", description="Post this channel's table again at the bottom.")
    async def table(self, interaction: discord.Interaction[Any]) -> None:
        await self.hall.guarded(interaction, lambda: self.hall.repost_table(interaction))

    @siege.command(name="help", description="How Siege Hall works: starting, playing, rules.")
    async def help(self, interaction: discord.Interaction[Any]) -> None:
        async def flow() -> None:
            await interaction.response.send_message(embed=help_embed(), ephemeral=True)

        await self.hall.guarded(interaction, flow, private=True)

    @siege.command(name="rules", description="How a game plays on Discord, then its rules.")
    @app_commands.describe(game="The game whose rules to show", show="Post them for the channel")
    async def rules(
        self,
        interaction: discord.Interaction[Any],
        game: AnyGame,
        show: bool = False,
    ) -> None:
        async def flow() -> None:
            text = await self.hall.rules_text(game)
            embeds = rules_pages(get_game(game).title, text)
            batch: list[discord.Embed] = []
            sent = False
            for embed in embeds:
                size = sum(len(e) for e in batch) + len(embed)
                if batch and (size > MESSAGE_EMBEDS_TOTAL_MAX or len(batch) == 10):
                    await self._send_rules(interaction, batch, sent, show)
                    sent, batch = True, []
                batch.append(embed)
            await self._send_rules(interaction, batch, sent, show)

        await self.hall.guarded(interaction, flow, private=not show)

    @staticmethod
    async def _send_rules(
        interaction: discord.Interaction[Any],
        embeds: list[discord.Embed],
        followup: bool,
        show: bool,
    ) -> None:
        if followup:
            await interaction.followup.send(embeds=embeds, ephemeral=not show)
        else:
            await interaction.response.send_message(embeds=embeds, ephemeral=not show)

    @dm.command(name="on", description="Send my hands and panels to my DMs.")
    async def dm_on(self, interaction: discord.Interaction[Any]) -> None:
        await self.hall.guarded(
            interaction, lambda: self.hall.set_dms(interaction, True), private=True
        )

    @dm.command(name="off", description="Stop DMs; open your panel from the table's button.")
    async def dm_off(self, interaction: discord.Interaction[Any]) -> None:
        await self.hall.guarded(
            interaction, lambda: self.hall.set_dms(interaction, False), private=True
        )

    @property
    def boards(self) -> Any:
        return self.bot.boards

    @siege.command(name="settings", description="Your time zone, quiet hours and daily digest.")
    @app_commands.describe(
        timezone="Your time zone, like Europe/Paris or America/Chicago (default: UTC)",
        quiet_hours="Hours without reminders, like 22-8 (your time), or off",
        digest="A DM each morning listing the games waiting for your move",
    )
    async def settings(
        self,
        interaction: discord.Interaction[Any],
        timezone: str | None = None,
        quiet_hours: str | None = None,
        digest: bool | None = None,
    ) -> None:
        async def flow() -> None:
            current = await self.bot.store.settings(interaction.user.id)
            changed = replace(
                current,
                timezone=current.timezone if timezone is None else _timezone(timezone),
                digest=current.digest if digest is None else digest,
            )
            if quiet_hours is not None:
                start, end = _quiet_hours(quiet_hours)
                changed = replace(changed, quiet_from=start, quiet_to=end)
            if changed != current:
                await self.bot.store.set_settings(interaction.user.id, changed)
            quiet = (
                "off"
                if changed.quiet_from is None
                else f"{changed.quiet_from:02d}:00–{changed.quiet_to:02d}:00"
            )
            await interaction.response.send_message(
                f"Time zone **{changed.timezone}** · quiet hours **{quiet}** (reminders wait; "
                f"deadlines do not) · daily digest **{'on' if changed.digest else 'off'}**.",
                ephemeral=True,
            )

        await self.hall.guarded(interaction, flow, private=True)

    @siege.command(name="vacation", description="Pause your daily clocks for a few days.")
    @app_commands.describe(days="Days off (14 a month at most)")
    async def vacation(
        self, interaction: discord.Interaction[Any], days: app_commands.Range[int, 1, 14]
    ) -> None:
        async def flow() -> None:
            moved, left = await self.bot.store.take_vacation(interaction.user.id, days)
            await interaction.response.send_message(
                f"Enjoy your {days} day{'s' if days != 1 else ''} off: your daily-clock moves "
                f"wait that much longer ({moved} game{'s' if moved != 1 else ''} waiting for you "
                f"now). {left} vacation day{'s' if left != 1 else ''} left this month.",
                ephemeral=True,
            )

        await self.hall.guarded(interaction, flow, private=True)

    @siege.command(name="turns", description="Every game, in every server, waiting for you.")
    async def turns(self, interaction: discord.Interaction[Any]) -> None:
        async def flow() -> None:
            embed = await self.bot.clockwork.turns(interaction.user.id)
            await interaction.response.send_message(embed=embed, ephemeral=True)

        await self.hall.guarded(interaction, flow, private=True)

    @siege.command(name="leaderboard", description="The server's best players of a game.")
    @app_commands.describe(
        game="The game whose board to show",
        season="Like 2026-11, 2026-Q4 or 2026 (as the server's seasons go), or all (default: now)",
    )
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        game: AnyGame,
        season: str | None = None,
    ) -> None:
        async def flow() -> None:
            await self.boards.seen(interaction)
            chosen = self.boards.parse_season(season)
            embed, view = await self.boards.leaderboard(interaction, game, chosen, 0)
            await interaction.response.send_message(embed=embed, view=view)

        await self.hall.guarded(interaction, flow)

    @leaderboard.autocomplete("season")
    async def season_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        game = str(dict(interaction.namespace).get("game") or "")
        if interaction.guild_id is None or game not in playable_games():
            return []
        seasons = ["all", *await self.bot.store.seasons(interaction.guild_id, game)]
        return [app_commands.Choice(name=s, value=s) for s in seasons if current in s][:25]

    @siege.command(name="stats", description="A player's games, results and rating over time.")
    @app_commands.describe(user="Whose stats (default: yours)")
    async def stats(
        self, interaction: discord.Interaction[Any], user: discord.User | None = None
    ) -> None:
        async def flow() -> None:
            await self.boards.seen(interaction, user)
            who = user or interaction.user
            embeds, files = await self.boards.stats(interaction, who.id)
            await interaction.response.send_message(embeds=embeds, files=files)

        await self.hall.guarded(interaction, flow)

    @siege.command(name="history", description="A player's recent games, with replays.")
    @app_commands.describe(user="Whose games (default: yours)", game="Only this game")
    async def history(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | None = None,
        game: AnyGame | None = None,
    ) -> None:
        async def flow() -> None:
            await self.boards.seen(interaction, user)
            who = user or interaction.user
            embed, view = await self.boards.history(interaction, who.id, game)
            await interaction.response.send_message(embed=embed, view=view)

        await self.hall.guarded(interaction, flow)

    @siege.command(name="verify", description="Check a finished game's deal against its seed.")
    @app_commands.describe(table="The table's number (#12 in /siege history)")
    async def verify(
        self, interaction: discord.Interaction[Any], table: app_commands.Range[int, 1]
    ) -> None:
        async def flow() -> None:
            text = await self.boards.verify(interaction, table)
            await interaction.response.send_message(text, ephemeral=True)

        await self.hall.guarded(interaction, flow, private=True)

    @siege.command(
        name="recompute", description="Rebuild this server's ratings from every stored result."
    )
    @app_commands.default_permissions(manage_guild=True)
    async def recompute(self, interaction: discord.Interaction[Any]) -> None:
        async def flow() -> None:
            perms = getattr(interaction, "permissions", None)
            if not (perms and perms.manage_guild) or interaction.guild_id is None:
                raise TableError("Only a server manager can rebuild the ratings.")
            count = await self.bot.store.recompute_ratings(interaction.guild_id)
            await interaction.response.send_message(
                f"Rebuilt this server's ratings from {count} rated games, in the order they "
                "were played.",
                ephemeral=True,
            )

        await self.hall.guarded(interaction, flow, private=True)

    @daily.command(name="start", description=f"Play today's {daily_game().title} challenge here.")
    @app_commands.describe(difficulty="How many overrun locations lose (default: normal)")
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES)
    async def daily_start(
        self,
        interaction: discord.Interaction[Any],
        difficulty: app_commands.Choice[str] | None = None,
    ) -> None:
        chosen = "normal" if difficulty is None else difficulty.value
        await self.hall.guarded(interaction, lambda: self.bot.daily.start(interaction, chosen))

    @daily.command(name="board", description="Today's daily challenge results in this server.")
    @app_commands.describe(
        difficulty="Which board (default: normal)", day="A past day, like 2026-11-24"
    )
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES)
    async def daily_board(
        self,
        interaction: discord.Interaction[Any],
        difficulty: app_commands.Choice[str] | None = None,
        day: str | None = None,
    ) -> None:
        async def flow() -> None:
            await self.boards.seen(interaction)
            chosen = "normal" if difficulty is None else difficulty.value
            embed = await self.bot.daily.board(interaction, chosen, day)
            await interaction.response.send_message(embed=embed)

        await self.hall.guarded(interaction, flow)

    @privacy.command(name="info", description="What is kept about you, why and for how long.")
    async def privacy_info(self, interaction: discord.Interaction[Any]) -> None:
        data = self.bot.player_data
        await self.hall.guarded(interaction, lambda: data.info(interaction), private=True)

    @privacy.command(name="export", description="A file of everything kept about you.")
    async def privacy_export(self, interaction: discord.Interaction[Any]) -> None:
        data = self.bot.player_data
        await self.hall.guarded(interaction, lambda: data.export(interaction), private=True)

    @privacy.command(name="delete", description="Delete your data (asks first).")
    async def privacy_delete(self, interaction: discord.Interaction[Any]) -> None:
        data = self.bot.player_data
        await self.hall.guarded(interaction, lambda: data.ask_forget(interaction), private=True)

    async def cog_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await command_failed(self.hall, interaction, error)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.bot.player_data.guild_back(guild.id)
        await welcome(guild)

    @commands.Cog.listener()
    async def on_guild_available(self, guild: discord.Guild) -> None:
        await self.bot.player_data.guild_back(guild.id)  # added back while the bot was down

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        await self.bot.player_data.guild_left(guild.id)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self.hall.channel_gone(channel.id)
        await self.hall.seeks.channel_gone(channel.id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self.hall.channel_gone(payload.thread_id)
        await self.hall.seeks.channel_gone(payload.thread_id)


def _timezone(name: str) -> str:
    try:
        return players.check_timezone(name.strip())
    except ValueError as exc:
        raise TableError(str(exc)) from None


def _quiet_hours(text: str) -> tuple[int | None, int | None]:
    """``"22-8"`` as (22, 8); ``"off"`` as no quiet hours.

    >>> _quiet_hours("22-8"), _quiet_hours(" off ")
    ((22, 8), (None, None))
    """
    words = text.strip().lower()
    if words in ("off", "none", "no"):
        return None, None
    start, _, end = words.partition("-")
    if not (start.strip().isdecimal() and end.strip().isdecimal()):
        raise TableError(
            "Quiet hours are a start and an end hour, like 22-8 (10 pm to 8 am your time), or off."
        )
    first, last = int(start), int(end)
    if not (0 <= first <= 23 and 0 <= last <= 23) or first == last:
        raise TableError("Quiet hours are two different hours from 0 to 23, like 22-8.")
    return first, last


async def setup(bot: SiegeBot) -> None:
    await bot.add_cog(Siege(bot))
