"""Leaderboards, player stats, game history and replays: what a finished game leaves behind.
(The replay itself, its controls and the export are :mod:`cogs.replays`.)

Everything is scoped to the server the command runs in. People are named by the name they were
last seen under (stored), so someone who has left the server still reads as themselves; a player
never seen gets a mention instead. The buttons (board pages, replay steps, export) are
:class:`discord.ui.DynamicItem` s like the table's, so they work after a restart.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import discord

from cogs import fairness
from cogs.flow import Guarding
from cogs.replays import REPLAY_ITEMS, ReplayParts, Replays, ReplayStep, finished_table
from engine import get_game
from engine.rules import ABANDONED
from engine.verify import verify
from presentation import playable_games
from presentation.base import OVER_COLOUR, count, fit_alt
from presentation.charts import rating_alt, rating_chart
from storage import Standing, Store, TableError, TableRecord, computers
from storage.export import export_script
from storage.results import ALL_TIME, GameResult
from storage.seasons import MONTHLY, SEASON_PATTERN, parse_season, season_of

PAGE = 10
NEVER = "Nobody has a rated game of {title} here yet: finish one against someone to start it."


def boards_of(interaction: discord.Interaction[Any]) -> Boards:
    boards: Boards = getattr(interaction.client, "boards")  # noqa: B009 - set by SiegeBot
    return boards


def season_name(season: str) -> str:
    """``"2026-11"`` as "the November 2026 season"; ``"all"`` as "all time".

    >>> season_name("2026-11"), season_name("all"), season_name("2026-Q4"), season_name("2026")
    ('the November 2026 season', 'all time', 'the Q4 2026 season', 'the 2026 season')
    """
    if season == ALL_TIME:
        return "all time"
    if len(season) == 4:
        return f"the {season} season"
    if season[5] == "Q":
        return f"the {season[5:]} {season[:4]} season"
    month = datetime.strptime(season, "%Y-%m").replace(tzinfo=UTC)
    return f"the {month:%B %Y} season"


def signed(value: float) -> str:
    return f"{value:+.0f}"


#: How a history line names an ending the game's own reason does not (migration 013).
HOW_IT_ENDED = {
    "time": "a forfeit on time",
    "claim": "claimed: abandoned",
    "resigned": "resigned",
}


class Boards:
    """The flows of ``/siege leaderboard``, ``stats``, ``history``, replays and the recompute."""

    def __init__(self, hall: Guarding, store: Store, clock: Callable[[], datetime]) -> None:
        self.hall = hall
        self.store = store
        self.clock = clock
        self.replays = Replays(hall, store, self.names)

    def current_season(self, length: str = MONTHLY) -> str:
        """The season running now, for a server whose seasons last ``length``."""
        return season_of(self.clock().astimezone(UTC).isoformat(), length)

    async def names(self, user_ids: Sequence[int]) -> dict[int, str]:
        """How boards, histories and replays name each seat: a player's display name as last
        seen (a mention if never seen), a computer as "🤖 Computer 1 (hard)", a player who
        deleted their data as "former player"."""
        people = [uid for uid in user_ids if not computers.is_computer(uid)]
        stored = await self.store.names(people)
        return {
            uid: computers.label(uid)
            if computers.is_computer(uid)
            else stored.get(uid, f"<@{uid}>")
            for uid in user_ids
        }

    async def seen(self, interaction: discord.Interaction[Any], *users: Any) -> None:
        """Remember the names of the people a command names (and of the one who ran it)."""
        people = {interaction.user.id: interaction.user.display_name}
        people.update({u.id: u.display_name for u in users if u is not None})
        await self.store.remember_names(people)

    def _guild(self, interaction: discord.Interaction[Any]) -> int:
        if interaction.guild_id is None:
            raise TableError("Boards belong to a server: run this in one of its channels.")
        return interaction.guild_id

    # -- the leaderboard --------------------------------------------------------------------------

    def parse_season(self, season: str | None) -> str | None:
        """A season as typed; ``None`` for the current one (its length is the server's)."""
        if season is None or not season.strip():
            return None
        chosen = parse_season(season)
        if chosen is None:
            raise TableError(
                "A season is a month like 2026-11, a quarter like 2026-Q4, a year like 2026, "
                "or `all` for all time."
            )
        return chosen

    async def leaderboard(
        self, interaction: discord.Interaction[Any], game: str, season: str | None, page: int
    ) -> tuple[discord.Embed, discord.ui.View]:
        guild = self._guild(interaction)
        settings = await self.store.server_settings(guild)
        if not settings.leaderboards:
            raise TableError(
                "Leaderboards are off in this server. Ratings are still kept: a server manager "
                "can turn the boards back on with /siege-admin leaderboards."
            )
        if season is None:
            season = self.current_season(settings.season)
        title = get_game(game).title
        if get_game(game).max_seats == 1:
            return await self.solo_board(interaction, game), discord.ui.View(timeout=None)
        size = await self.store.board_size(guild, game, season)
        pages = max(1, -(-size // PAGE))
        page = min(max(page, 0), pages - 1)
        lines = await self.store.leaderboard(guild, game, season, offset=page * PAGE, limit=PAGE)
        mine = await self.store.standing(guild, game, interaction.user.id, season)
        names = await self.names([s.user_id for s in lines] + [interaction.user.id])
        embed = discord.Embed(
            title=f"{title} — leaderboard, {season_name(season)}", colour=OVER_COLOUR
        )
        if not lines:
            embed.description = (
                NEVER.format(title=title)
                if season == ALL_TIME
                else (
                    f"No rated {title} games in {season_name(season)}. "
                    "Try `season: all` for all time."
                )
            )
        else:
            embed.description = "\n".join(self.board_line(s, names[s.user_id]) for s in lines)
        if mine is not None and not any(s.user_id == mine.user_id for s in lines):
            embed.add_field(
                name="You",
                value=self.board_line(mine, names[interaction.user.id]) + f" — of {size}",
                inline=False,
            )
        elif mine is None and lines:
            embed.add_field(name="You", value="No rated game on this board yet.", inline=False)
        embed.set_footer(
            text=f"Page {page + 1}/{pages} · rating = skill minus three times its uncertainty "
            "(start 1500) · ? provisional (few games)"
            + (
                " · repeat games with the same players on one day count less"
                if settings.repeats_count_less
                else ""
            )
        )
        view = discord.ui.View(timeout=None)
        view.add_item(BoardPage(game, season, page - 1, "Previous", disabled=page == 0))
        view.add_item(BoardPage(game, season, page + 1, "Next", disabled=page >= pages - 1))
        return embed, view

    async def solo_board(self, interaction: discord.Interaction[Any], game: str) -> discord.Embed:
        """A solo game has no rating: each difficulty ranks best score, then wins."""
        guild = self._guild(interaction)
        engine = get_game(game)
        embed = discord.Embed(title=f"{engine.title} — best defenders", colour=OVER_COLOUR)
        difficulty = next(o for o in engine.options if o.name == "difficulty")
        for level, label in zip(difficulty.choices, difficulty.labels, strict=True):
            lines = await self.store.solo_board(guild, game, str(level))
            names = await self.names([line.user_id for line in lines])
            embed.add_field(
                name=label,
                value="\n".join(
                    f"**{line.rank}.** {names[line.user_id]} — best **{line.best}**, "
                    f"{line.wins} won of {line.games}"
                    for line in lines
                )
                or "No finished game yet.",
                inline=False,
            )
        embed.set_footer(text="Played alone, so not rated. The day's challenge: /siege daily board")
        return embed

    @staticmethod
    def board_line(line: Standing, name: str) -> str:
        mark = "?" if line.provisional else ""
        record = f"{line.games} game{'s' if line.games != 1 else ''}, {line.wins} won"
        if line.draws:
            record += f", {line.draws} drawn"
        return f"**{line.rank}.** {name} — **{line.rating:.0f}{mark}** ({record})"

    # -- stats ----------------------------------------------------------------------------------

    async def stats(
        self, interaction: discord.Interaction[Any], user_id: int
    ) -> tuple[list[discord.Embed], list[discord.File]]:
        guild = self._guild(interaction)
        name = (await self.names([user_id]))[user_id]
        embeds: list[discord.Embed] = []
        files: list[discord.File] = []
        for game in playable_games():
            line = await self.store.standing(guild, game, user_id)
            if line is None:
                continue
            title = get_game(game).title
            points = await self.store.rating_history(guild, game, user_id)
            history = [rating for _, rating in points]
            trend = history[-1] - history[max(0, len(history) - 6)] if len(history) > 1 else 0.0
            mark = " (provisional)" if line.provisional else ""
            embed = discord.Embed(title=f"{name} — {title}", colour=OVER_COLOUR)
            over = min(5, len(history) - 1) or 1
            embed.description = (
                f"Rating **{line.rating:.0f}**{mark}, #{line.rank} here all time\n"
                f"{count(line.games, 'game')}: {line.wins} won, {line.losses} lost, "
                f"{line.draws} drawn\n"
                f"Trend over the last {count(over, 'game')}: {signed(trend)}\n"
                f"Ratings after each game: " + ", ".join(f"{value:.0f}" for value in history[-12:])
            )
            if points:
                file_name = f"stats-{game}.png"
                chart = (f"{title}: rating", [tuple(p) for p in points])
                png = await self.hall.pictures.render("stats", rating_chart, *chart)
                alt = fit_alt(rating_alt(title, points))
                files.append(discord.File(io.BytesIO(png), filename=file_name, description=alt))
                embed.set_image(url=f"attachment://{file_name}")
            embeds.append(embed)
        if not embeds:
            raise TableError(f"{name} has no rated game in this server yet.")
        return embeds, files

    # -- history and replays ------------------------------------------------------------------

    async def history(
        self, interaction: discord.Interaction[Any], user_id: int, game: str | None
    ) -> tuple[discord.Embed, discord.ui.View]:
        guild = self._guild(interaction)
        games = await self.store.recent_results(guild, user_id, game, limit=PAGE)
        everyone = [uid for g in games for uid in g.seats] + [user_id]
        names = await self.names(everyone)
        what = get_game(game).title if game else "games"
        embed = discord.Embed(title=f"{names[user_id]} — recent {what}", colour=OVER_COLOUR)
        if not games:
            embed.description = "No finished games here yet."
        else:
            embed.description = "\n".join(
                self.history_line(g, user_id, names, interaction.guild_id) for g in games
            )
        embed.set_footer(
            text="Replay shows a finished game move by move: its table picture, every player's "
            "hand and a list to jump to any move."
        )
        view = discord.ui.View(timeout=None)
        for g in games:
            view.add_item(ReplayStep(g.table_id, 0, "open", label=f"Replay #{g.table_id}"))
        return embed, view

    @staticmethod
    def history_line(
        game: GameResult, user_id: int, names: dict[int, str], guild_id: int | None
    ) -> str:
        seat = game.seats.index(user_id)
        place = game.places[seat]
        if all(p == 1 for p in game.places):
            verdict = "Drew"
        elif place == 1:
            verdict = "Won"
        else:
            verdict = "Lost" if len(game.seats) == 2 else f"Placed {place}"
        others = ", ".join(names[u] for u in game.seats if u != user_id) or "alone"
        when = int(datetime.fromisoformat(game.ended_at).timestamp())
        bits = [
            f"<t:{when}:d>",
            get_game(game.game).title,
            f"**{verdict}** vs {others}",
            count(game.plies, "move"),
            "a claimed draw: abandoned"
            if game.reason == ABANDONED
            else HOW_IT_ENDED.get(game.ending or "", game.reason.replace("_", " ")),
        ]
        if game.rating_change is not None:
            bits.append(signed(game.rating_change))
        if game.message_id is not None and guild_id is not None:
            bits.append(
                f"[table](https://discord.com/channels/{guild_id}/{game.channel_id}/"
                f"{game.message_id})"
            )
        return f"#{game.table_id} · " + " · ".join(bits)

    async def _open_deal(self, interaction: discord.Interaction[Any], tid: int) -> TableRecord:
        """A finished table whose seed may be shown: not a daily game before its day is over."""
        table = await finished_table(self.store, interaction, tid)
        day = await fairness.closed_day(self.store, table)
        if day is not None:
            raise TableError(
                f"Table #{tid} is a daily challenge game of {day}: its seed and deal stay closed "
                "until that UTC day is over, since everyone here is dealt the same today."
            )
        return table

    async def replay(
        self, interaction: discord.Interaction[Any], tid: int, step: int, page: int | None = None
    ) -> ReplayParts:
        """Step ``step`` of a finished game (see :mod:`cogs.replays`)."""
        return await self.replays.show(interaction, tid, step, page)

    async def export(self, interaction: discord.Interaction[Any], tid: int) -> discord.File:
        """The game as a script (``../shared/spec/README.md``): ``python -m engine.script``
        reproduces it. A resignation is a table action outside the script format: the script
        stops before it."""
        table = await self._open_deal(interaction, tid)
        script = await export_script(self.store, table)
        data = json.dumps(script, indent=1).encode()
        return discord.File(io.BytesIO(data), filename=f"siege-table-{tid}.json")

    async def verify(self, interaction: discord.Interaction[Any], tid: int) -> str:
        """``python -m engine.verify`` on the game as exported, answered in Discord."""
        table = await self._open_deal(interaction, tid)
        verdict = verify(await export_script(self.store, table))
        return f"**Table #{tid}**\n" + verdict.text()[:1900]


class BoardPage(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=rf"sh:board:(?P<game>[a-z]{{1,12}}):(?P<season>{SEASON_PATTERN}):(?P<page>[0-9]{{1,6}})",
):
    def __init__(self, game: str, season: str, page: int, label: str, *, disabled: bool = False):
        super().__init__(
            discord.ui.Button(
                label=label,
                style=discord.ButtonStyle.secondary,
                custom_id=f"sh:board:{game}:{season}:{max(page, 0)}",
                disabled=disabled,
            )
        )
        self.game, self.season, self.page = game, season, max(page, 0)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> BoardPage:
        return cls(match["game"], match["season"], int(match["page"]), "page")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        boards = boards_of(interaction)

        async def flow() -> None:
            if self.game not in playable_games():
                raise TableError("That board no longer exists.")
            embed, view = await boards.leaderboard(interaction, self.game, self.season, self.page)
            await interaction.response.edit_message(embed=embed, view=view)

        await boards.hall.guarded(interaction, flow)


BOARD_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (BoardPage, *REPLAY_ITEMS)

__all__ = ["BOARD_ITEMS", "Boards", "season_name"]
