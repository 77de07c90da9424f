"""The daily challenge (of the game whose declaration has one: Siege at Kurth): ``/siege daily
start`` and ``/siege daily board``.

Every player of a server defends against the same draws and dice on a UTC day at a difficulty
(each difficulty has its own deal); a daily game's seed, replay and export stay closed until its
day is over (cogs/fairness.py). The first game of
a player per day and difficulty is scored; any other that day is practice, and the table says so.
(A Discord command group cannot also be a command, hence ``start`` and ``board`` under ``daily``.)
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import discord

from cogs.flow import Starting
from cogs.server_rules import settings_for_new_game
from engine import daily_game, daily_option
from presentation.base import OVER_COLOUR
from storage import Store, TableError, TableExists

if TYPE_CHECKING:
    from cogs.boards import Boards

GAME = daily_game()
#: The values of the option that gives each its own board (Siege at Kurth's difficulty).
DIFFICULTIES: tuple[str, ...] = tuple(map(str, getattr(daily_option(), "choices", ("",))))
PAGE = 10


class Daily:
    def __init__(
        self, hall: Starting, boards: Boards, store: Store, clock: Callable[[], datetime]
    ) -> None:
        self.hall = hall
        self.boards = boards
        self.store = store
        self.clock = clock

    def today(self) -> str:
        return f"{self.clock().astimezone(UTC):%Y-%m-%d}"

    async def start(self, interaction: discord.Interaction[Any], difficulty: str) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise TableError("The daily challenge is a server's: start it in one of its channels.")
        if difficulty not in DIFFICULTIES:
            raise TableError(
                f"The difficulty is {', '.join(DIFFICULTIES[:-1])} or {DIFFICULTIES[-1]}."
            )
        await settings_for_new_game(self.store, interaction, daily_game().key)
        await self.hall.remember(interaction)
        day = self.today()
        try:
            table, scored = await self.store.start_daily(
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                user_id=interaction.user.id,
                difficulty=difficulty,
                day=day,
            )
        except TableExists:
            raise TableError(
                "This channel already has an open table. Start a thread for your daily game "
                "(each thread is a channel of its own) and run the command there."
            ) from None
        await self.hall.post_new_table(interaction, table)
        note = (
            f"Daily challenge {day}, {difficulty}: this game is **scored** — your result goes on "
            "`/siege daily board`. Everyone here faces the same draws and dice today at this "
            "difficulty."
            if scored
            else f"Daily challenge {day}, {difficulty}: you already played today's scored game "
            "at this difficulty, so this one is **practice** and does not go on the board."
        )
        await interaction.followup.send(note, ephemeral=True)

    async def board(
        self, interaction: discord.Interaction[Any], difficulty: str, day: str | None
    ) -> discord.Embed:
        if interaction.guild_id is None:
            raise TableError("The daily board is a server's: ask in one of its channels.")
        chosen = self.parse_day(day)
        guild = interaction.guild_id
        lines = await self.store.daily_board(guild, chosen, difficulty, limit=PAGE)
        mine = await self.store.daily_standing(guild, chosen, difficulty, interaction.user.id)
        names = await self.boards.names([line.user_id for line in lines] + [interaction.user.id])
        embed = discord.Embed(
            title=f"{GAME.title} — daily challenge {chosen}, {difficulty}", colour=OVER_COLOUR
        )
        today = chosen == self.today()
        if lines:
            embed.description = "\n".join(self.line(line, names[line.user_id]) for line in lines)
        elif today:
            embed.description = (
                "No scored game finished yet today: `/siege daily start` to be the first."
            )
        else:
            embed.description = f"Nobody finished a scored {difficulty} game that day ({chosen})."
        if not today:
            embed.title = f"{GAME.title} — daily challenge of {chosen} (a past day), {difficulty}"
        if mine is not None and all(line.user_id != mine.user_id for line in lines):
            embed.add_field(name="You", value=self.line(mine, names[mine.user_id]), inline=False)
        embed.set_footer(text="Best score first, then fewest turns. One scored game a day each.")
        return embed

    def parse_day(self, day: str | None) -> str:
        if day is None or not day.strip():
            return self.today()
        try:
            chosen = f"{datetime.strptime(day.strip(), '%Y-%m-%d'):%Y-%m-%d}"
        except ValueError:
            raise TableError("A day is written like 2026-11-25.") from None
        if chosen > self.today():
            raise TableError(
                f"{chosen} has not come yet (days are UTC; today is {self.today()}): its board "
                "opens when its challenge does."
            )
        return chosen

    @staticmethod
    def line(line: Any, name: str) -> str:
        verdict = "relieved" if line.won else "fell"
        return f"**{line.rank}.** {name} — **{line.score}** ({verdict}, {line.turns} turns)"


__all__ = ["DIFFICULTIES", "Daily"]
