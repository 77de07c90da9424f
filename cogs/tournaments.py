"""Tournaments on Discord: created by a moderator, joined with buttons, played in threads.

``/siege tournament create`` posts the tournament message with **Join** / **Leave** (restart-proof
buttons) in the channel. At its start time the sweeper (:mod:`cogs.clockwork`) pushes it:
too few players cancel it (everyone is told why); otherwise each match of the round gets a
public thread of the channel with its table in it, opened the way accepted offers open theirs,
and its players are told by DM. A game's result is written by the store in the transaction that
ends the game; the end of a game (:meth:`cogs.endings.Endings.announce_end`) and the sweeper
push the tournament on, and every push is exactly once in the store, so a result, a sweep and
a restart can all arrive at once. A round whose games are stuck is ended by their clocks (a
tournament always has one). Between rounds, players who have left the server are withdrawn.
The standings message is edited after every result; the end posts the podium and the
crosstable.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from datetime import datetime, timedelta
from typing import Any, ClassVar, Literal, Protocol

import discord

from cogs.flow import USER_MENTIONS, Guard, Notifying, Redrawing
from cogs.server_rules import has_moderator_role, settings_for_new_game
from cogs.tournament_view import (
    crosstable_text,
    info_embed,
    podium,
    standings_embed,
    title,
    when,
)
from engine import get_game
from engine.tournament import Format
from storage import Store, TableError, TableRecord, clock
from storage.shards import Shards
from storage.tournament_records import MatchRecord, TournamentPlan, TournamentRecord
from storage.tournaments import Advance

log = logging.getLogger("siege.tournaments")

NO_MENTIONS = discord.AllowedMentions.none()
_STAMP = re.compile(r"^<t:(-?\d{1,12})(?::[tTdDfFR])?>$")
_RELATIVE = re.compile(r"^(?:in\s+)?(\d{1,4})\s*(m|min|minutes?|h|hours?|d|days?)$")
#: How far ahead a tournament may start.
LONGEST_WAIT = timedelta(days=30)
#: How long a thread stays unarchived without a message (Discord's choices: up to a week).
THREAD_ARCHIVE_MINUTES: Literal[10080] = 10080


class TablePosting(Protocol):
    """A started table posted in its channel with panels and turn ping
    (:meth:`cogs.offers.Offers.post_table`)."""

    async def post_table(self, table: TableRecord) -> None: ...


class TournamentButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sh:tour:(?P<tid>[0-9]{1,18}):(?P<op>join|leave|withdraw)",
):
    LABELS: ClassVar[dict[str, tuple[str, discord.ButtonStyle]]] = {
        "join": ("Join", discord.ButtonStyle.success),
        "leave": ("Leave", discord.ButtonStyle.secondary),
        "withdraw": ("Withdraw", discord.ButtonStyle.secondary),
    }

    def __init__(self, tid: int, op: str) -> None:
        label, style = self.LABELS[op]
        super().__init__(
            discord.ui.Button(label=label, style=style, custom_id=f"sh:tour:{tid}:{op}")
        )
        self.tid, self.op = tid, op

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> TournamentButton:
        return cls(int(match["tid"]), match["op"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        flows: Tournaments = getattr(interaction.client, "hall").tournaments  # noqa: B009
        await flows.on_button(interaction, self.tid, self.op)


TOURNAMENT_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (TournamentButton,)


def buttons(tid: int, status: str = "open") -> discord.ui.View | None:
    """Join / Leave until the start; Withdraw while it runs; nothing once it is over."""
    ops = {"open": ("join", "leave"), "running": ("withdraw",)}.get(status, ())
    if not ops:
        return None
    view = discord.ui.View(timeout=None)
    for op in ops:
        view.add_item(TournamentButton(tid, op))
    return view


def start_time(text: str, now: datetime) -> datetime:
    """A start time typed as a Discord timestamp (``<t:1764000000:R>``, or its bare number) or
    relative to now (``30m``, ``2h``, ``in 1 day``); a clear refusal otherwise.

    >>> from datetime import UTC
    >>> now = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)
    >>> start_time("2h", now).hour, start_time("<t:1764082800:R>", now).isoformat()
    (11, '2025-11-25T15:00:00+00:00')
    """
    typed = text.strip().lower()
    found = _STAMP.match(text.strip()) or re.match(r"^(\d{9,12})$", typed)
    if found:
        return datetime.fromtimestamp(int(found.group(1)), now.tzinfo)
    relative = _RELATIVE.match(typed)
    if relative:
        amount, unit = int(relative.group(1)), relative.group(2)[0]
        span = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}
        return now + amount * span[unit]
    raise TableError(
        "Give the start as a Discord timestamp (<t:1764000000:R>) or from now: 30m, 2h, 1d."
    )


class Tournaments:
    """The tournament flows; holds one lock per tournament so one process pushes each at a
    time (the store makes every push exactly once across processes too)."""

    def __init__(
        self,
        client: discord.Client,
        store: Store,
        guard: Guard,
        tables: TablePosting,
        notices: Notifying,
        redraw: Redrawing,
    ) -> None:
        self.client = client
        self.store = store
        self.guard = guard
        self.tables = tables
        self.notices = notices
        self.redraw = redraw
        self._locks: dict[int, asyncio.Lock] = {}
        #: Tournaments told that their threads cannot be opened (told once).
        self._blocked: set[int] = set()

    # -- commands --------------------------------------------------------------------------------

    async def create(
        self,
        interaction: discord.Interaction[Any],
        *,
        game: str,
        fmt: Format,
        rounds: int | None,
        time_control: str,
        start: str,
        max_players: int,
        rated: bool,
    ) -> None:
        """``/siege tournament create`` (Manage Server, or the server's moderator role): post the
        tournament message here, where the server's settings let its game open."""
        if interaction.guild_id is None or interaction.channel_id is None:
            raise TableError("Tournaments live in server channels; run this in a channel.")
        perms = getattr(interaction, "permissions", None)
        settings = await self.store.server_settings(interaction.guild_id)
        if not (perms and perms.manage_guild) and not has_moderator_role(
            interaction.user, settings
        ):
            raise TableError(
                "Creating a tournament needs the Manage Server permission or the server's "
                "moderator role (`/siege-admin moderator`)."
            )
        await settings_for_new_game(self.store, interaction, game)
        channel = interaction.channel
        if isinstance(channel, discord.Thread):
            raise TableError("Create the tournament in a text channel: its games get threads.")
        now = self.store.now()
        starts_at = start_time(start, now)
        if starts_at > now + LONGEST_WAIT:
            raise TableError("A tournament starts within 30 days.")
        plan = TournamentPlan(
            guild_id=interaction.guild_id,
            channel_id=interaction.channel_id,
            host_id=interaction.user.id,
            game=game,
            fmt=fmt,
            rounds=rounds,
            time_control=time_control,
            starts_at=starts_at,
            max_players=max_players,
            rated=rated,
        )
        tournament = await self.store.create_tournament(plan)
        view = buttons(tournament.id)
        assert view is not None
        response = await interaction.response.send_message(embed=info_embed(tournament), view=view)
        message_id = response.message_id
        if message_id is None:
            message_id = (await interaction.original_response()).id
        await self.store.set_tournament_message(tournament.id, message_id)

    async def on_button(self, interaction: discord.Interaction[Any], tid: int, op: str) -> None:
        async def flow() -> None:
            user = interaction.user.id
            if op == "join":
                await self.guard.remember(interaction)
                tournament = await self.store.join_tournament(tid, user)
                said = "You are in. Your games open in threads here; you are told by DM."
            else:
                tournament, resigned = await self.store.leave_tournament(tid, user)
                said = (
                    "You left the tournament."
                    if tournament.status == "open"
                    else "You withdrew: your game in progress is lost and you are paired no more."
                )

            async def follow_up() -> None:
                if tournament.status == "open":
                    await interaction.response.edit_message(
                        embed=info_embed(tournament), view=buttons(tid)
                    )
                    await interaction.followup.send(said, ephemeral=True)
                    return
                await interaction.response.send_message(said, ephemeral=True)
                await self._say(tournament, f"<@{user}> withdrew from {title(tournament)}.")
                await self._edit_message(tournament)
                for table in resigned:  # its end announced, which pushes the tournament on
                    await self.redraw.redraw_after(table, user)
                await self.push(tid)

            await self.guard.after_commit(interaction, follow_up(), done="Done")

        await self.guard.guarded(interaction, flow)

    async def list(self, interaction: discord.Interaction[Any]) -> None:
        """``/siege tournament list``: the server's tournaments, newest first, with winners."""
        assert interaction.guild_id is not None
        found = await self.store.tournaments_of(interaction.guild_id, 15)
        embed = discord.Embed(title="Tournaments of this server", colour=discord.Colour(0xD4A017))
        lines = []
        for t in found:
            line = f"**#{t.id}** {get_game(t.game).title} · {t.format.replace('_', ' ')}"
            if t.status == "open":
                line += f" · starts {when(t.starts_at)} · {len(t.entrants)}/{t.max_players}"
            elif t.status == "running":
                line += f" · round {t.round} · {len(t.entrants)} players"
            elif t.status == "over":
                matches = await self.store.tournament_matches(t.id)
                line += " · " + podium(t, matches).split(". ", 1)[-1].rstrip(".")
            else:
                line += " · cancelled"
            lines.append(line)
        embed.description = "\n".join(lines) or "No tournament yet: `/siege tournament create`."
        await interaction.response.send_message(embed=embed, ephemeral=True)

    async def info(self, interaction: discord.Interaction[Any], tid: int) -> None:
        tournament = await self._of_guild(interaction, tid)
        await interaction.response.send_message(embed=info_embed(tournament), ephemeral=True)

    async def standings(self, interaction: discord.Interaction[Any], tid: int) -> None:
        tournament = await self._of_guild(interaction, tid)
        matches = await self.store.tournament_matches(tid)
        await interaction.response.send_message(
            embed=standings_embed(tournament, matches), ephemeral=True
        )

    async def _of_guild(self, interaction: discord.Interaction[Any], tid: int) -> TournamentRecord:
        tournament = await self.store.get_tournament(tid)
        if tournament is None or tournament.guild_id != interaction.guild_id:
            raise TableError(f"This server has no tournament #{tid}: see /siege tournament list.")
        return tournament

    # -- pushing on ------------------------------------------------------------------------------

    async def game_over(self, table: TableRecord) -> None:
        """A table's game ended: if it is a tournament's, push the tournament on."""
        tid = await self.store.tournament_of_table(table.id)
        if tid is not None:
            await self.push(tid)

    async def sweep(self, shards: Shards | None = None) -> int:
        """The sweeper's part: every tournament with something due (of the servers on
        ``shards``) is pushed; returns how many did something."""
        handled = 0
        for tid in await self.store.tournaments_due(shards=shards):
            try:
                handled += await self.push(tid)
            except Exception:
                log.exception("tournament %s: the push failed", tid)
        return handled

    async def push(self, tid: int) -> int:
        """Start, advance or end the tournament if it is due, open the tables of matches that
        have none (after a restart too), and bring the standings up to date."""
        lock = self._locks.setdefault(tid, asyncio.Lock())
        async with lock:
            await self._withdraw_gone(tid)
            outcome = await self.store.push_tournament(tid)
            if outcome is not None:
                await self._announce(outcome)
            seated = await self._seat_waiting(tid)
            tournament = await self.store.get_tournament(tid)
            if tournament is not None and tournament.status in ("running", "over"):
                await self._show_standings(tournament)
            if tournament is not None and tournament.status in ("over", "cancelled"):
                self._locks.pop(tid, None)
            return int(outcome is not None) + seated

    async def _withdraw_gone(self, tid: int) -> None:
        """Between rounds, entrants who have left the server are withdrawn (the bot has no
        member events: it asks Discord about each player once a round)."""
        tournament = await self.store.get_tournament(tid)
        if tournament is None or tournament.status != "running":
            return
        matches = await self.store.tournament_matches(tid)
        if any(m.round == tournament.round and m.points is None for m in matches):
            return
        guild = self.client.get_guild(tournament.guild_id)
        if guild is None:
            return
        for entrant in tournament.entrants:
            if entrant.withdrawn:
                continue
            try:
                await guild.fetch_member(entrant.user_id)
            except discord.NotFound:
                await self.store.leave_tournament(tid, entrant.user_id)
                await self._say(
                    tournament,
                    f"<@{entrant.user_id}> left the server and is out of the tournament.",
                )
            except discord.HTTPException:
                return  # Discord unsure: ask again next time

    async def _announce(self, outcome: Advance) -> None:
        t = outcome.tournament
        if outcome.what == "cancelled":
            text = f"❌ {title(t)} is cancelled: {t.ended_reason}."
            await self._edit_message(t)
            await self._say(t, text)
            for entrant in t.entrants:
                await self.notices.dm(entrant.user_id, text)
            return
        if outcome.what == "over":
            matches = await self.store.tournament_matches(t.id)
            await self._say(t, podium(t, matches))
            for text in crosstable_text(t, matches):
                await self._say(t, text, mentions=False)
            await self._edit_message(t)
            return
        if outcome.what == "started":
            await self._edit_message(t)
            await self._say(t, f"⚔️ {title(t)} has started: round 1 is on, each game in a thread.")
        for match in outcome.matches:
            if match.points is not None and len(match.players) == 1 and match.reason == "bye":
                await self.notices.dm(
                    match.players[0],
                    f"You have a bye in round {match.round} of {title(t)} (a point). "
                    "Your next game comes with the next round.",
                )

    async def _seat_waiting(self, tid: int) -> int:
        """Open the tables of the current round's matches that have none: a thread each, the
        table in it, the players told by DM."""
        tournament = await self.store.get_tournament(tid)
        if tournament is None or tournament.status != "running":
            return 0
        seated = 0
        for match in await self.store.tournament_matches(tid):
            if match.round != tournament.round or not match.needs_table:
                continue
            thread = await self._open_thread(tournament, match)
            if thread is None:  # said once; the sweeper tries again every sweep
                if tournament.id not in self._blocked:
                    self._blocked.add(tournament.id)
                    await self._say(
                        tournament,
                        f"⚠️ {title(tournament)} cannot open its games' threads here: give "
                        "Siege Hall **Create Public Threads** in this channel. The round starts "
                        "as soon as it can.",
                    )
                return seated
            self._blocked.discard(tournament.id)
            table = await self.store.seat_match(match.id, thread.id)
            if table is None:  # another push seated it meanwhile: this thread is spare
                with contextlib.suppress(discord.HTTPException):
                    await thread.delete()
                continue
            seated += 1
            await self.tables.post_table(table)
            names = " vs ".join(f"<@{p}>" for p in match.players)
            for player in match.players:
                await self.notices.dm(
                    player,
                    f"⚔️ Round {match.round} of {title(tournament)}: {names}. Your table is in "
                    f"<#{thread.id}> ({clock.describe(tournament.time_control)}).",
                )
        return seated

    async def _open_thread(
        self, tournament: TournamentRecord, match: MatchRecord
    ) -> discord.Thread | None:
        channel = self.client.get_channel(tournament.channel_id)
        if not isinstance(channel, discord.TextChannel):
            try:
                fetched = await self.client.fetch_channel(tournament.channel_id)
            except discord.HTTPException:
                log.warning("tournament %s: its channel cannot be reached", tournament.id)
                return None
            if not isinstance(fetched, discord.TextChannel):
                return None
            channel = fetched
        name = f"Tournament #{tournament.id} · round {match.round} · table {match.board}"
        try:
            return await channel.create_thread(
                name=name,
                type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
            )
        except discord.HTTPException:
            log.warning("tournament %s: could not open a thread for a game", tournament.id)
            return None

    # -- messages --------------------------------------------------------------------------------

    async def _show_standings(self, t: TournamentRecord) -> None:
        """The standings message: edited in place, posted once if it has none (or was
        deleted)."""
        matches = await self.store.tournament_matches(t.id)
        embed = standings_embed(t, matches)
        channel = self.client.get_partial_messageable(t.channel_id, guild_id=t.guild_id)
        if t.standings_message_id is not None:
            try:
                await channel.get_partial_message(t.standings_message_id).edit(embed=embed)
                return
            except discord.NotFound:
                pass
            except discord.HTTPException:
                return
        with contextlib.suppress(discord.HTTPException):
            sent = await channel.send(embed=embed)
            await self.store.set_tournament_message(t.id, sent.id, standings=True)

    async def _edit_message(self, t: TournamentRecord) -> None:
        if t.message_id is None:
            return
        channel = self.client.get_partial_messageable(t.channel_id, guild_id=t.guild_id)
        with contextlib.suppress(discord.HTTPException):
            await channel.get_partial_message(t.message_id).edit(
                embed=info_embed(t), view=buttons(t.id, t.status)
            )

    async def _say(self, t: TournamentRecord, text: str, *, mentions: bool = True) -> None:
        channel = self.client.get_partial_messageable(t.channel_id, guild_id=t.guild_id)
        try:
            await channel.send(text, allowed_mentions=USER_MENTIONS if mentions else NO_MENTIONS)
        except discord.HTTPException:
            log.warning("tournament %s: could not post a notice", t.id)


__all__ = ["TOURNAMENT_ITEMS", "TournamentButton", "Tournaments", "start_time"]
