"""The ``/siege`` slash commands and the listeners that keep tables tidy.

Thin by design: each command parses its options and hands over to :class:`cogs.hall.Hall`.
"""

from __future__ import annotations

import logging
import random
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from cogs.guide import blurb, command_name, help_embed, welcome
from cogs.offers import Offers
from cogs.render import playable_games
from engine import get_game
from engine.rules import IntRange, SetupError
from storage import Seating, TableError, clock, players

if TYPE_CHECKING:
    from bot import SiegeBot

log = logging.getLogger("siege.commands")

GAME_CHOICES = [app_commands.Choice(name=get_game(k).title, value=k) for k in playable_games()]
TWO_PLAYER_CHOICES = [choice for choice in GAME_CHOICES if get_game(choice.value).max_seats == 2]
TIME_HELP = "Time per move (default: no clock)"
MISSES_HELP = "Missed moves before a seat forfeits (default 2)"


async def time_control_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    """The clocks to choose from, narrowed by what has been typed."""
    typed = current.strip().lower()
    return [c for c in CLOCK_CHOICES if typed in c.name.lower() or typed in c.value][:25]


def _time_control(text: str) -> str:
    """A clock chosen from the list, or typed as its name or value ("live:10")."""
    typed = text.strip().lower()
    for choice in CLOCK_CHOICES:
        if typed in (choice.value, choice.name.lower()):
            return choice.value
    names = ", ".join(choice.name for choice in CLOCK_CHOICES)
    raise TableError(f"Pick a time control from the list: {names}.")


DEALER_CHOICES = [
    app_commands.Choice(name="Random", value="random"),
    app_commands.Choice(name="The host (seat 1)", value="0"),
    app_commands.Choice(name="The second player (seat 2)", value="1"),
]
SIDE_CHOICES = [
    app_commands.Choice(name="The attacking Knights", value="host_first"),
    app_commands.Choice(name="The defending castle", value="host_second"),
    app_commands.Choice(name="Random", value="random"),
]
DIFFICULTY_CHOICES = [
    app_commands.Choice(name="Easy (5 overrun)", value="easy"),
    app_commands.Choice(name="Normal (4 overrun)", value="normal"),
    app_commands.Choice(name="Advanced (3 overrun)", value="advanced"),
]
TOWERS = get_game("towers")
_TOWERS_RANGES = {o.name: o for o in TOWERS.options if isinstance(o, IntRange)}


def _bounds(name: str) -> tuple[int, int]:
    option = _TOWERS_RANGES[name]
    return option.low, option.high


# Whole-number table options of tower poker, with Discord's min/max taken from the engine's ranges.
StartChips = app_commands.Range[int, _bounds("start_chips")[0], _bounds("start_chips")[1]]
Ante = app_commands.Range[int, _bounds("ante")[0], _bounds("ante")[1]]
TowerHeight = app_commands.Range[int, _bounds("tower_height")[0], _bounds("tower_height")[1]]
SmallBet = app_commands.Range[int, _bounds("small_bet")[0], _bounds("small_bet")[1]]
BigBet = app_commands.Range[int, _bounds("big_bet")[0], _bounds("big_bet")[1]]
MaxRaises = app_commands.Range[int, _bounds("max_raises")[0], _bounds("max_raises")[1]]
CLOCK_CHOICES = [
    app_commands.Choice(name=clock.describe(control).capitalize(), value=control)
    for control in clock.choices()
]
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
        name="daily", description="Siege at Kurth's daily challenge", parent=siege
    )
    new = app_commands.Group(
        name="new", description="Open a table for a game in this channel", parent=siege
    )

    def __init__(self, bot: SiegeBot) -> None:
        self.bot = bot

    @property
    def hall(self) -> Any:
        return self.bot.hall

    # -- /siege new <game>: one subcommand per game, each with only its own options ----------------

    async def _open(
        self,
        interaction: discord.Interaction[Any],
        game_key: str,
        options: dict[str, Any],
        seating: Seating = "join",
        time_control: str | None = None,
        forfeit_after: int | None = None,
    ) -> None:
        async def flow() -> None:
            engine = get_game(game_key)
            if options:
                try:  # options that only make sense together (big bet ≥ small bet)
                    engine.setup(engine.min_seats, options, random.Random(0))
                except SetupError as exc:
                    raise TableError(str(exc)) from None
            control = clock.NONE if time_control is None else _time_control(time_control)
            misses = 2 if forfeit_after is None else forfeit_after
            await self.hall.open_table(interaction, game_key, options, seating, control, misses)

        await self.hall.guarded(interaction, flow)

    @new.command(name=command_name("castles"), description=blurb("castles"))
    @app_commands.describe(
        dealer="Who deals (the other player moves first)",
        time_control=TIME_HELP,
        forfeit_after=MISSES_HELP,
    )
    @app_commands.choices(dealer=DEALER_CHOICES)
    @app_commands.autocomplete(time_control=time_control_choices)
    async def new_castles(
        self,
        interaction: discord.Interaction[Any],
        dealer: app_commands.Choice[str] | None = None,
        time_control: str | None = None,
        forfeit_after: app_commands.Range[int, 1, 5] | None = None,
    ) -> None:
        options: dict[str, Any] = {}
        if dealer is not None:
            options["dealer"] = None if dealer.value == "random" else int(dealer.value)
        await self._open(interaction, "castles", options, "join", time_control, forfeit_after)

    @new.command(name=command_name("king"), description=blurb("king"))
    @app_commands.describe(
        specials="Play with the special cards (default: on)",
        time_control=TIME_HELP,
        forfeit_after=MISSES_HELP,
    )
    @app_commands.autocomplete(time_control=time_control_choices)
    async def new_king(
        self,
        interaction: discord.Interaction[Any],
        specials: bool | None = None,
        time_control: str | None = None,
        forfeit_after: app_commands.Range[int, 1, 5] | None = None,
    ) -> None:
        options: dict[str, Any] = {} if specials is None else {"specials": specials}
        await self._open(interaction, "king", options, "join", time_control, forfeit_after)

    @new.command(name=command_name("knights"), description=blurb("knights"))
    @app_commands.describe(
        side="The side you play", time_control=TIME_HELP, forfeit_after=MISSES_HELP
    )
    @app_commands.choices(side=SIDE_CHOICES)
    @app_commands.autocomplete(time_control=time_control_choices)
    async def new_knights(
        self,
        interaction: discord.Interaction[Any],
        side: app_commands.Choice[str] | None = None,
        time_control: str | None = None,
        forfeit_after: app_commands.Range[int, 1, 5] | None = None,
    ) -> None:
        seating: Seating = "join" if side is None else cast(Seating, side.value)
        await self._open(interaction, "knights", {}, seating, time_control, forfeit_after)

    @new.command(name=command_name("towers"), description=blurb("towers"))
    @app_commands.describe(
        start_chips="Starting chips (default 100)",
        ante="Ante per hand (default 1)",
        tower_height="Cards per tower (default 10)",
        small_bet="Bet up to 2 tower cards up (default 1)",
        big_bet="Bet from 3 tower cards up (default 2)",
        max_raises="Raises per round (default 3)",
        time_control=TIME_HELP,
        forfeit_after=MISSES_HELP,
    )
    @app_commands.autocomplete(time_control=time_control_choices)
    async def new_towers(
        self,
        interaction: discord.Interaction[Any],
        start_chips: StartChips | None = None,
        ante: Ante | None = None,
        tower_height: TowerHeight | None = None,
        small_bet: SmallBet | None = None,
        big_bet: BigBet | None = None,
        max_raises: MaxRaises | None = None,
        time_control: str | None = None,
        forfeit_after: app_commands.Range[int, 1, 5] | None = None,
    ) -> None:
        numbers = {
            "start_chips": start_chips,
            "ante": ante,
            "tower_height": tower_height,
            "small_bet": small_bet,
            "big_bet": big_bet,
            "max_raises": max_raises,
        }
        options = {name: number for name, number in numbers.items() if number is not None}
        await self._open(interaction, "towers", options, "join", time_control, forfeit_after)

    @new.command(name=command_name("kurth"), description=blurb("kurth"))
    @app_commands.describe(difficulty="How many overrun locations lose (default: normal)")
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES)
    async def new_kurth(
        self,
        interaction: discord.Interaction[Any],
        difficulty: app_commands.Choice[str] | None = None,
    ) -> None:
        options = {} if difficulty is None else {"difficulty": difficulty.value}
        await self._open(interaction, "kurth", options)

    @siege.command(name="challenge", description="Challenge a member to a two-player game here.")
    @app_commands.describe(
        user="Who you challenge (they get Accept / Decline for a day)",
        game="The game to play (a two-player game)",
        time_control="Time per move (default: no clock)",
    )
    @app_commands.choices(game=TWO_PLAYER_CHOICES)
    @app_commands.autocomplete(time_control=time_control_choices)
    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User,
        game: app_commands.Choice[str],
        time_control: str | None = None,
    ) -> None:
        offers = Offers(self.hall)

        async def flow() -> None:
            control = clock.NONE if time_control is None else _time_control(time_control)
            await offers.challenge(interaction, user, game.value, control)

        await self.hall.guarded(interaction, flow)

    @siege.command(name="cancel", description="Close this channel's open table.")
    async def cancel(self, interaction: discord.Interaction[Any]) -> None:
        await self.hall.guarded(interaction, lambda: self.hall.cancel_in_channel(interaction))

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
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(
        self,
        interaction: discord.Interaction[Any],
        game: app_commands.Choice[str],
        show: bool = False,
    ) -> None:
        async def flow() -> None:
            text = await self.hall.rules_text(game.value)
            embeds = rules_pages(get_game(game.value).title, text)
            batch: list[discord.Embed] = []
            sent = False
            for embed in embeds:
                size = sum(len(e) for e in batch) + len(embed)
                if batch and (size > MESSAGE_EMBEDS_TOTAL_MAX or len(batch) == 10):
                    await self._send_rules(interaction, batch, sent, show)
                    sent, batch = True, []
                batch.append(embed)
            await self._send_rules(interaction, batch, sent, show)

        await self.hall.guarded(interaction, flow)

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
        season="A month like 2026-11, or all for all time (default: this month's season)",
    )
    @app_commands.choices(game=GAME_CHOICES)
    async def leaderboard(
        self,
        interaction: discord.Interaction[Any],
        game: app_commands.Choice[str],
        season: str | None = None,
    ) -> None:
        async def flow() -> None:
            await self.boards.seen(interaction)
            chosen = self.boards.parse_season(season)
            embed, view = await self.boards.leaderboard(interaction, game.value, chosen, 0)
            await interaction.response.send_message(embed=embed, view=view)

        await self.hall.guarded(interaction, flow)

    @leaderboard.autocomplete("season")
    async def season_choices(
        self, interaction: discord.Interaction[Any], current: str
    ) -> list[app_commands.Choice[str]]:
        game = str(dict(interaction.namespace).get("game") or "castles")
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
    @app_commands.choices(game=GAME_CHOICES)
    async def history(
        self,
        interaction: discord.Interaction[Any],
        user: discord.User | None = None,
        game: app_commands.Choice[str] | None = None,
    ) -> None:
        async def flow() -> None:
            await self.boards.seen(interaction, user)
            who = user or interaction.user
            chosen = None if game is None else game.value
            embed, view = await self.boards.history(interaction, who.id, chosen)
            await interaction.response.send_message(embed=embed, view=view)

        await self.hall.guarded(interaction, flow)

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

    @daily.command(name="start", description="Play today's Siege at Kurth challenge here.")
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

    async def cog_app_command_error(
        self, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        # Flows run inside Hall.guarded; this catches what fails before a flow starts.
        log.error("slash command failed", exc_info=error)
        await self.hall.refuse(interaction, "Sorry, something went wrong handling that command.")

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await welcome(guild)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        await self.hall.channel_gone(channel.id)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        await self.hall.channel_gone(payload.thread_id)


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
        raise TableError("Quiet hours are two hours of your day, like 22-8, or off.")
    first, last = int(start), int(end)
    if not (0 <= first <= 23 and 0 <= last <= 23) or first == last:
        raise TableError("Quiet hours are two different hours from 0 to 23, like 22-8.")
    return first, last


async def setup(bot: SiegeBot) -> None:
    await bot.add_cog(Siege(bot))
