"""``/siege tournament …``: create, list and show tournaments (issue 27); the flows are
:class:`cogs.tournaments.Tournaments`. A group of its own, added to ``/siege`` when the cog loads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from cogs.choices import GameKey, time_control_choices
from cogs.choices import time_control as read_time_control
from engine import get_game
from engine.tournament import FORMATS
from engine.tournament.records import Format

if TYPE_CHECKING:
    from bot import SiegeBot

TOURNAMENT_FORMATS = [app_commands.Choice(name=name, value=key) for key, name in FORMATS.items()]
#: The games a tournament can be of: those that seat two (pairings) or more (tables).
TournamentGame = app_commands.Transform[
    str, GameKey(lambda game: game.min_seats <= 2 <= game.max_seats, "a game for two or more")
]


class TournamentCommands(app_commands.Group):
    """``/siege tournament …``: added to the ``/siege`` group when the cog loads."""

    def __init__(self, bot: SiegeBot) -> None:
        super().__init__(name="tournament", description="Tournaments")
        self.bot = bot

    @app_commands.command(
        name="create", description="A tournament here (Manage Server or moderators)."
    )
    @app_commands.describe(
        game="The game",
        time_control="Time per move (required)",
        start="<t:…> or 30m, 2h, 1d",
        format="Default: Swiss, or tables",
        rounds="Swiss rounds (3)",
        max_players="Most players (16)",
        rated="Rated (yes)",
    )
    @app_commands.choices(format=TOURNAMENT_FORMATS)
    @app_commands.autocomplete(time_control=time_control_choices)
    async def create(
        self,
        interaction: discord.Interaction[Any],
        game: TournamentGame,
        time_control: str,
        start: str,
        format: app_commands.Choice[str] | None = None,
        rounds: app_commands.Range[int, 1, 15] | None = None,
        max_players: app_commands.Range[int, 2, 64] | None = None,
        rated: bool = True,
    ) -> None:
        async def flow() -> None:
            two_seats = get_game(game).max_seats == 2
            chosen = format.value if format is not None else "swiss" if two_seats else "tables"
            fmt = cast(Format, chosen)  # a choice's value is one of FORMATS' keys
            most = 10 if fmt in ("robin", "double_robin") else 16
            await self.bot.hall.tournaments.create(
                interaction,
                game=game,
                fmt=fmt,
                rounds=rounds or 3,
                time_control=read_time_control(time_control),
                start=start,
                max_players=max_players or most,
                rated=rated,
            )

        await self.bot.hall.guarded(interaction, flow)

    @app_commands.command(name="list", description="This server's tournaments.")
    async def list(self, interaction: discord.Interaction[Any]) -> None:
        flows = self.bot.hall.tournaments
        await self.bot.hall.guarded(interaction, lambda: flows.list(interaction), private=True)

    @app_commands.command(name="info", description="A tournament.")
    @app_commands.describe(number="Its number")
    async def info(self, interaction: discord.Interaction[Any], number: int) -> None:
        flows = self.bot.hall.tournaments
        await self.bot.hall.guarded(
            interaction, lambda: flows.info(interaction, number), private=True
        )

    @app_commands.command(name="standings", description="A tournament's standings.")
    @app_commands.describe(number="Its number")
    async def standings(self, interaction: discord.Interaction[Any], number: int) -> None:
        flows = self.bot.hall.tournaments
        await self.bot.hall.guarded(
            interaction, lambda: flows.standings(interaction, number), private=True
        )


class TournamentCog(commands.Cog):
    def __init__(self, bot: SiegeBot) -> None:
        self.bot = bot
        self.group = TournamentCommands(bot)

    async def cog_load(self) -> None:
        siege = self.bot.tree.get_command("siege")
        assert isinstance(siege, app_commands.Group), "load cogs.siege before this cog"
        siege.add_command(self.group)

    async def cog_unload(self) -> None:
        siege = self.bot.tree.get_command("siege")
        if isinstance(siege, app_commands.Group):
            siege.remove_command(self.group.name)


async def setup(bot: SiegeBot) -> None:
    await bot.add_cog(TournamentCog(bot))


__all__ = ["TournamentCog", "TournamentCommands"]
