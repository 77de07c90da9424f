"""The hall: what happens when someone clicks or types, for every game alike.

Each flow is thin: parse → load → engine (through the store) → commit → reply → render. The
reply to an interaction is sent only after the action is committed. Game-specific looks come from
:mod:`presentation`; rules come from the engine; persistence from :mod:`storage`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import logging
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import discord

from cogs import fairness
from cogs.components import LobbyButton, TableButton, layout
from cogs.deadline import Deadline
from cogs.delivery import Delivery, fingerprint
from cogs.pictures import Pictures
from cogs.redraws import Redraw, Redraws
from cogs.sheets import as_embed
from engine import get_game
from engine.rules import IntRange, RuleError
from presentation import get_renderer
from presentation.base import (
    CLOSED_COLOUR,
    LOBBY_COLOUR,
)
from storage import (
    CorruptTable,
    Seating,
    StaleAction,
    StorageUnavailable,
    Store,
    TableError,
    TableExists,
    TableRecord,
    clock,
    computers,
)

if TYPE_CHECKING:
    from cogs.computer import Computers
    from cogs.metrics import Metrics

#: Games whose table offers "What would the computer do?" (the solo game; in the others the
#: computer is an opponent instead).

log = logging.getLogger("siege.hall")

RECENT_EVENTS = 5
# A panel opens with what happened since its seat's last turn: the log is read this far back to
# find that turn, and at most this many lines are shown (the table keeps the full story).
SINCE_SCAN = 40
HANDS_KEPT = 4096  # (table, ply) hands before a seat's action, for the new-card marks
SINCE_LINES = 4
RULES_DIR = Path(__file__).resolve().parent.parent / "docs" / "rules"
#: Answers to a click whose message was deleted on the way (see ``Delivery.answer_by_edit``).
PANEL_REPLACED = (
    "Your move counted. Your panel was just replaced by a newer one: use the newest message."
)
STAGE_REPLACED = "That panel was just replaced by a newer one: use the newest message."
TABLE_GONE = "Your move counted. The table message was gone, so it is posted again."
APOLOGY = "Sorry, something went wrong on our side. The table is safe; try again in a moment."
LOBBY_DONE = {
    "cpu-easy": "A computer took a seat",
    "cpu-normal": "A computer took a seat",
    "cpu-hard": "A computer took a seat",
    "cpu-remove": "The computer left the table",
    "join": "You took a seat",
    "leave": "You left the table",
    "start": "The game started",
    "cancel": "The table was cancelled",
}
COMMITTED_BUT_NOT_SHOWN = (
    ", but the table could not be redrawn just now. Use /siege table to show it again."
)
NO_MENTIONS = discord.AllowedMentions.none()
USER_MENTIONS = discord.AllowedMentions(users=True, roles=False, everyone=False)
DM_CLOSED_CODE = 50007
UNKNOWN_CHANNEL_CODE = 10003


@dataclass
class Parts:
    """The pieces of one message: what to send or to edit in place."""

    content: str | None = None
    embed: discord.Embed | None = None
    view: discord.ui.View | None = None
    mentions: discord.AllowedMentions = field(default_factory=lambda: NO_MENTIONS)
    image: tuple[str, bytes] | None = None  # (file name, PNG) shown as the embed's image
    alt: str | None = None  # the picture's alt text: the position in words
    _print: str | None = field(default=None, repr=False, compare=False)

    def __del__(self) -> None:
        # A View and its items point at each other: left alone, every message drawn would wait
        # for a full garbage collection to be freed (most of what such a collection freed, with
        # the event loop standing still). Parts are built for one message and let go once it is
        # sent, so their view is emptied then and goes at once.
        view = getattr(self, "view", None)  # None too if __init__ never got that far
        if view is not None:
            view.clear_items()

    def _files(self) -> list[discord.File]:
        if self.image is None:
            return []
        name, data = self.image
        return [discord.File(io.BytesIO(data), filename=name, description=self.alt)]

    def edit_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "content": self.content,
            "embed": self.embed,
            "view": self.view,
            "allowed_mentions": self.mentions,
        }
        if self.image is not None:
            kwargs["attachments"] = self._files()  # replaces the previous picture
        return kwargs

    def fingerprint(self) -> str:
        """A digest of what the message shows (see :func:`cogs.delivery.fingerprint`), worked
        out once: parts are not changed once they are sent."""
        if self._print is None:
            shown = {"content": self.content, "embed": self.embed, "view": self.view}
            self._print = fingerprint(shown, self.image)
        return self._print

    def send_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"allowed_mentions": self.mentions}
        if self.image is not None:
            kwargs["files"] = self._files()
        if self.content is not None:
            kwargs["content"] = self.content
        if self.embed is not None:
            kwargs["embed"] = self.embed
        if self.view is not None:
            kwargs["view"] = self.view
        return kwargs


def mention(user_id: int) -> str:
    """How a seat is named in messages: a mention, or a computer's name."""
    if computers.is_computer(user_id):
        return f"🤖 {computers.name_of(user_id)}"
    return f"<@{user_id}>"


def jump_url(table: TableRecord) -> str | None:
    if table.message_id is None:
        return None
    guild = table.guild_id if table.guild_id is not None else "@me"
    return f"https://discord.com/channels/{guild}/{table.channel_id}/{table.message_id}"


class Hall:
    def __init__(
        self,
        client: discord.Client,
        store: Store,
        *,
        picture_processes: int = 0,
        deadline: Deadline | None = None,
    ) -> None:
        self.client = client
        self.store = store
        #: Every guarded flow answered or deferred within its budget.
        self.deadline = deadline or Deadline()
        #: What each message shows and which interactions reach it (fewer requests per move).
        self.delivery = Delivery()
        #: Pictures drawn in worker processes (or a thread), kept by what they show.
        self.pictures = Pictures(processes=picture_processes)
        self._rules: dict[str, str] = {}
        #: Takes the computer seats' turns (set by the bot; None: no computer ever moves).
        self.computers: Computers | None = None
        #: Counts the moves (set by the bot when ``METRICS_PORT`` is set).
        self.metrics: Metrics | None = None
        #: One flow at a time draws and sends a table's message, and one its panels: with the
        #: pictures drawn by a worker, two flows at once could otherwise send in the wrong
        #: order and leave an older position showing. Each re-reads the newest table inside.
        #: A click's own answer never waits for these (see ``_after_change``).
        self._table_locks: dict[int, asyncio.Lock] = {}
        self._panel_locks: dict[int, asyncio.Lock] = {}
        #: A seat's hand just before its own last action, by (table, ply): what the panel's
        #: new-card marks compare with. Filled when the seat acts; a miss replays the log.
        self._hands_before: OrderedDict[tuple[int, int], list[Any]] = OrderedDict()
        #: What follows a move's answer, queued behind the answers (one redraw per table).
        self.redraws = Redraws(self._redraw)

    def summary(self) -> str:
        """What this hall has sent and drawn since it started, in one line (logged at close)."""
        counts = self.delivery.counts
        return (
            f"pictures drawn {self.pictures.drawn}, reused {self.pictures.reused}; requests "
            f"through a click's webhook {counts['webhook']}, through the channel routes "
            f"{counts['route']}; edits left out as unchanged {counts['unchanged']}; clicks on a "
            f"message replaced meanwhile {counts['replaced']}; interactions answered "
            f"{self.deadline.counts['answered']}, deferred {self.deadline.counts['deferred']}; "
            f"redraws merged {self.redraws.merged}"
        )

    def committed(self, table: TableRecord) -> None:
        """After any committed change to ``table``: it is counted, and a computer whose turn it
        is now moves."""
        if self.metrics is not None:
            self.metrics.committed(table)
        if self.computers is not None:
            self.computers.poke(table)

    async def redraw_after(self, table: TableRecord, actor: int | None) -> None:
        """Bring a table, its panels and its notifications up to date after a change nobody
        clicked (a computer's move, a move played when time ran out)."""
        try:
            if await self.refresh_table(table) and table.state is not None:
                notify = self.turn_passed_to(table, actor)
                await self.refresh_panels(table, notify=notify)
                await self.turn_ping(table, notify)
                await self.announce_end(table)
        finally:
            self.committed(table)

    # -- the one error path ------------------------------------------------------------------

    async def guarded(
        self,
        interaction: discord.Interaction[Any],
        flow: Callable[[], Awaitable[None]],
        *,
        private: bool = False,
    ) -> None:
        """Run a flow: refusals (rule or table) become polite ephemeral replies; anything else
        is logged with its traceback and the user gets a one-line apology. A flow too slow to
        answer in time is deferred meanwhile (see :mod:`cogs.deadline`; ``private``: a command
        whose answer is ephemeral)."""
        try:
            async with self.deadline.guard(interaction, private=private):
                await flow()
        except StorageUnavailable as exc:  # logged once per outage by the store
            if self.metrics is not None:
                self.metrics.storage_unavailable()
            await self.refuse(interaction, str(exc))
        except (RuleError, TableError) as exc:
            await self.refuse(interaction, str(exc))
        except Exception:
            log.exception(
                "unhandled error in interaction %s (%s)",
                interaction.id,
                _interaction_name(interaction),
            )
            await self.refuse(interaction, APOLOGY)

    async def remember(self, interaction: discord.Interaction[Any]) -> None:
        """Keep the name a player goes by here, for boards and histories after they leave."""
        await self.store.remember_names({interaction.user.id: interaction.user.display_name})

    async def refuse(self, interaction: discord.Interaction[Any], text: str) -> None:
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except discord.HTTPException:
            log.warning("could not deliver a refusal for interaction %s", interaction.id)

    async def _table(self, table_id: int) -> TableRecord:
        table = await self.store.get_table(table_id)
        if table is None:
            raise TableError("That table no longer exists.")
        return table

    # -- rendering -----------------------------------------------------------------------------

    def names(self, table: TableRecord) -> list[str]:
        return [mention(uid) for uid in table.seats]

    async def recent_lines(self, table: TableRecord) -> list[str]:
        renderer = get_renderer(table.game)
        names = self.names(table)
        lines: list[str] = []
        try:
            records = await self.store.log_tail(table, RECENT_EVENTS)
        except CorruptTable as exc:
            # The log is history shown beside the position, not the position itself: a damaged
            # entry must not freeze a table whose state is fine.
            log.warning("table %s: recent moves unreadable (%s)", table.id, exc)
            return ["(Recent moves could not be read.)"]
        for record in records:
            for event in record.events:
                line = renderer.event_line(event, names)
                if line:
                    lines.append(line)
        return lines[-RECENT_EVENTS:]

    async def last_events(self, table: TableRecord) -> list[dict[str, Any]]:
        """The public events of the table's last action (the table picture marks that move)."""
        try:
            records = await self.store.log_tail(table, 1)
        except CorruptTable:
            return []
        return records[-1].events if records else []

    @staticmethod
    def _lock(locks: dict[int, asyncio.Lock], table_id: int) -> asyncio.Lock:
        return locks.setdefault(table_id, asyncio.Lock())

    def _release_locks(self, table: TableRecord) -> None:
        """An ended table's messages are final: its locks go (a flow still holding one
        finishes with the same final position)."""
        if table.status not in ("running", "lobby"):
            self._table_locks.pop(table.id, None)
            self._panel_locks.pop(table.id, None)

    def keep_hand_before(self, table: TableRecord, seat: int, state: Any) -> None:
        """Remember ``seat``'s hand in ``state``, the position it is about to act from (so its
        next panel marks the cards drawn since without replaying the game)."""
        if not get_renderer(table.game).marks_new_cards:
            return
        hand = table.engine.view(state, seat).get("hand")
        if hand is None:
            return
        self._hands_before[(table.id, table.ply)] = list(hand)
        while len(self._hands_before) > HANDS_KEPT:
            self._hands_before.popitem(last=False)

    async def _hand_before(self, table: TableRecord, seat: int, ply: int) -> list[Any]:
        kept = self._hands_before.get((table.id, ply))
        if kept is not None:
            return kept
        before = await self.store.replay(table.id, upto=ply)
        hand = list(table.engine.view(before, seat).get("hand") or [])
        self._hands_before[(table.id, ply)] = hand
        while len(self._hands_before) > HANDS_KEPT:
            self._hands_before.popitem(last=False)
        return hand

    async def since_last_turn(
        self, table: TableRecord, seat: int, view: dict[str, Any]
    ) -> tuple[list[str], list[str]]:
        """What a seat's panel opens with: the table's event lines since that seat's last
        action (the opponents' moves, rolls, cancellations, captures; at the start of a game,
        everything so far), and for games that mark them the hand's cards that arrived since
        (from the seat's own view before that action, so nothing hidden is involved)."""
        renderer = get_renderer(table.game)
        names = self.names(table)
        try:
            records = await self.store.log_tail(table, SINCE_SCAN)
        except CorruptTable as exc:
            log.warning("table %s: recent moves unreadable (%s)", table.id, exc)
            return [], []
        mine = [i for i, record in enumerate(records) if record.seat == seat]
        after = records[mine[-1] + 1 :] if mine else records
        if len(table.seats) == 1:
            # Solo: the city's own moves come inside the player's last action (its upkeep).
            after = records[-1:]
        lines = [
            line
            for record in after
            for event in record.events
            if (line := renderer.event_line(event, names))
        ]
        if len(lines) > SINCE_LINES:
            earlier = len(lines) - SINCE_LINES + 1
            lines = [
                f"…{earlier} earlier event{'s' if earlier > 1 else ''} (see the table)",
                *lines[-(SINCE_LINES - 1) :],
            ]
        new_cards: list[str] = []
        if renderer.marks_new_cards and mine and "hand" in view:
            try:
                hand_before = await self._hand_before(table, seat, records[mine[-1]].ply)
            except (TableError, ValueError) as exc:  # a damaged log: no marks, never a failure
                log.warning("table %s: could not replay for new cards (%s)", table.id, exc)
                return lines, []
            held = Counter(hand_before)
            for card in view["hand"]:
                if held[card] > 0:
                    held[card] -= 1
                else:
                    new_cards.append(card)
            if len(new_cards) > 1 and len(new_cards) == len(view["hand"]):
                new_cards = []  # a fresh deal: no card stands out as just drawn
        return lines, new_cards

    async def table_parts(self, table: TableRecord) -> Parts:
        if table.status == "lobby":
            return self.lobby_parts(table)
        if table.status == "cancelled":
            return self.cancelled_parts(table)
        renderer = get_renderer(table.game)
        game = table.engine
        state = table.running_state()
        names = self.names(table)
        view = game.view(state, None)
        embed = as_embed(renderer.table_embed(view, names, await self.recent_lines(table)))
        turn = renderer.turn_number(view, table.ply)
        embed.set_footer(text=f"Table #{table.id} · turn {turn} · /siege rules {table.game}")
        await fairness.stamp(embed, table, self.store)
        image = None
        alt = None
        last_events = await self.last_events(table)
        png = await self.pictures.render(table.game, renderer.table_image, view, last_events)
        if png is not None:
            name = f"{table.game}-{table.id}-{table.ply}.png"
            embed.set_image(url=f"attachment://{name}")
            image = (name, png)
            alt = renderer.image_alt(view, last_events)
        result = game.result(state)
        if result is not None:
            line = renderer.result_line(result, names)
            summary = renderer.end_summary(view, names, result, turn)
            embed.insert_field_at(0, name="Result", value=summary, inline=False)
            buttons = discord.ui.View(timeout=None)
            buttons.add_item(TableButton(table.id, "rematch"))
            return Parts(content=line, embed=embed, view=buttons, image=image, alt=alt)
        to_act = game.to_act(state)
        assert to_act is not None
        legal = game.legal_actions(state, to_act)
        controls = renderer.table_controls(view, legal)
        items = [
            TableButton(table.id, "hand", label=renderer.panel_label),
            TableButton(table.id, "resign"),
        ]
        if game.about.hint:
            items.insert(1, TableButton(table.id, "hint"))
        return Parts(
            content=f"{names[to_act]}, it's your turn"
            + (
                f" (due <t:{int(datetime.fromisoformat(table.deadline).timestamp())}:R>)."
                if table.deadline
                else "."
            ),
            embed=embed,
            view=layout(table.id, table.ply, controls, items),
            mentions=USER_MENTIONS,
            image=image,
            alt=alt,
        )

    def lobby_parts(self, table: TableRecord) -> Parts:
        game = table.engine
        seats = "\n".join(f"{i + 1}. {mention(uid)}" for i, uid in enumerate(table.seats))
        embed = discord.Embed(
            title=f"{game.title} — a table is open",
            colour=LOBBY_COLOUR,
            description=(
                f"Host: {mention(table.host_id)}\n\n"
                f"**Seats ({len(table.seats)}/{game.max_seats})**\n{seats}"
            ),
        )
        if game.options:
            embed.add_field(name="Options", value=self.options_text(table), inline=False)
        timing = clock.describe(table.time_control)
        if table.time_control != clock.NONE:
            timing += f" · a seat forfeits after {table.forfeit_after} missed move" + (
                "s" if table.forfeit_after != 1 else ""
            )
        embed.add_field(name="Clock", value=timing, inline=False)
        sides = game.about.sides
        if sides:
            embed.add_field(name="Sides", value=self.sides_text(table, sides), inline=False)
        if game.min_seats == game.max_seats:
            need = f"{game.min_seats} players"
        else:
            need = f"{game.min_seats}–{game.max_seats} players"
        embed.set_footer(
            text=f"Table #{table.id} · {need} · Join to take a seat; the host starts the game"
            + (" and may seat computer players." if game.max_seats > 1 else ".")
        )
        can_start = game.min_seats <= len(table.seats) <= game.max_seats
        view = discord.ui.View(timeout=None)
        view.add_item(LobbyButton(table.id, "join", disabled=len(table.seats) >= game.max_seats))
        view.add_item(LobbyButton(table.id, "leave"))
        view.add_item(
            LobbyButton(
                table.id,
                "start",
                disabled=not can_start,
                label="Start" if can_start else f"Start (needs {need})",
            )
        )
        view.add_item(LobbyButton(table.id, "cancel"))
        if game.max_seats > 1 and game.about.computer_levels:  # computers, in a row of their own
            full = len(table.seats) >= game.max_seats
            for level in game.about.computer_levels:
                view.add_item(LobbyButton(table.id, f"cpu-{level}", disabled=full, row=1))
            if any(computers.is_computer(uid) for uid in table.seats):
                view.add_item(LobbyButton(table.id, "cpu-remove", row=1))
        return Parts(embed=embed, view=view)

    def options_text(self, table: TableRecord) -> str:
        lines = []
        for option in table.engine.options:
            value = table.options.get(option.name, option.default)
            label = f"**{value}**"
            if isinstance(option, IntRange):
                # A range may hold thousands of values: the value and its bounds, not a list.
                label += f" ({option.low}–{option.high})"
            elif option.labels:
                label = f"**{option.labels[option.choices.index(value)]}**"
            name = option.name.replace("_", " ").capitalize()
            lines.append(f"{name}: {label} — {option.description}")
        return "\n".join(lines)

    @staticmethod
    def sides_text(table: TableRecord, sides: tuple[str, ...]) -> str:
        if table.seating == "random":
            return "Drawn at random when the game starts."
        if table.seating == "host_second":
            return f"The host plays **{sides[1]}**; the challenger plays {sides[0]}."
        return f"The host plays **{sides[0]}**; the challenger plays {sides[1]}."

    def cancelled_parts(self, table: TableRecord) -> Parts:
        embed = discord.Embed(
            title=f"{table.engine.title} — table closed",
            description="This table was cancelled.",
            colour=CLOSED_COLOUR,
        )
        embed.set_footer(text=f"Table #{table.id}")
        return Parts(embed=embed, view=discord.ui.View(timeout=None))

    async def panel_parts(
        self, table: TableRecord, user_id: int, *, for_dm: bool, stage: str | None = None
    ) -> Parts:
        """A player's private panel: what happened since their last turn, their own view, and
        their legal actions when it is their turn. The same panel is a DM and the ephemeral
        message of the table's panel button."""
        renderer = get_renderer(table.game)
        game = table.engine
        state = table.running_state()
        seat = table.seat_of(user_id)
        if seat is None:
            raise TableError("You are not playing at this table.")
        to_act = game.to_act(state)
        if to_act is not None and table.seats[to_act] == user_id:
            seat = to_act
        names = self.names(table)
        view = game.view(state, seat)
        since, new_cards = await self.since_last_turn(table, seat, view)
        embed = as_embed(renderer.panel_embed(view, names, since, new_cards))
        turn = renderer.turn_number(view, table.ply)
        where = f"Table #{table.id} · turn {turn}"
        if for_dm:
            guild = self.client.get_guild(table.guild_id) if table.guild_id else None
            channel = self.client.get_channel(table.channel_id)
            place = f"#{getattr(channel, 'name', 'a channel')}"
            if guild is not None:
                place += f" in {guild.name}"
            where = f"{where} · {place}"
        embed.set_footer(text=f"{where} · only you can see this")
        controls = []
        extra: list[discord.ui.Item[Any]] = []
        legal: list[dict[str, Any]] = []
        if table.status == "cancelled":
            embed.insert_field_at(0, name="Closed", value="This table was cancelled.")
        elif table.status == "running":
            if to_act == seat:
                legal = game.legal_actions(state, seat)
                controls = renderer.panel_controls(view, legal, stage)
            extra.append(TableButton(table.id, "resign"))
        url = jump_url(table)
        if for_dm and url:
            extra.append(discord.ui.Button(label="Open the table", url=url))
        image = None
        alt = None
        picture = None
        if renderer.panel_pictures:
            picture = await self.pictures.render(
                f"{table.game}:panel", renderer.panel_image, view, legal, stage
            )
        if picture is not None:
            name = f"{table.game}-{table.id}-{table.ply}-panel.png"
            embed.set_image(url=f"attachment://{name}")
            image, alt = (name, picture[0]), picture[1]
        return Parts(
            embed=embed,
            view=layout(table.id, table.ply, controls, extra),
            image=image,
            alt=alt,
        )

    # -- table message and DM panels -------------------------------------------------------------

    async def refresh_table(self, table: TableRecord) -> bool:
        """Edit the public table message in place (re-post it if it was deleted). Returns False
        when the channel turned out to be gone, in which case the table was closed."""
        async with self._lock(self._table_locks, table.id):
            try:
                return await self._refresh_table(table)
            finally:
                self._release_locks(table)

    async def _refresh_table(self, table: TableRecord) -> bool:
        # Render the newest stored table: a slower flow must not paint an older position over
        # the one a quicker, later flow has already shown.
        table = await self.store.newest(table) or table
        parts = await self.table_parts(table)
        channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
        try:
            if table.message_id is not None:
                # Not sent at all when the table already shows this; through a click's webhook
                # (exempt from the rate limit) when a recent click reached the table.
                message = channel.get_partial_message(table.message_id)
                await self.delivery.edit(message, parts.edit_kwargs(), parts.image)
                return True
        except discord.NotFound as exc:
            if exc.code == UNKNOWN_CHANNEL_CODE:
                await self.channel_gone(table.channel_id)
                return False
        try:
            message = await channel.send(**parts.send_kwargs())
        except discord.NotFound:
            await self.channel_gone(table.channel_id)
            return False
        except discord.Forbidden:
            log.warning("table %s: no permission to post in channel %s", table.id, table.channel_id)
            return True
        self.delivery.shown(message.id, parts.fingerprint())
        await self.store.set_message(table.id, message.id)
        return True

    async def _still_shown(self, rendered: TableRecord, shown: str) -> bool:
        """Whether the table message still shows what was drawn from ``rendered`` (its
        fingerprint ``shown``), and that is still the newest position (once any flow drawing
        this table meanwhile has finished)."""
        async with self._lock(self._table_locks, rendered.id):
            current = await self.store.newest(rendered)
        return (
            current is not None
            and current.version == rendered.version
            and current.message_id is not None
            and self.delivery.is_shown(current.message_id, shown)
        )

    async def channel_gone(self, channel_id: int) -> None:
        """A table's channel was deleted: its open table is closed, since nobody can see it."""
        closed = await self.store.close_channel(channel_id)
        if closed is None:
            return
        log.info("table %s closed: its channel %s is gone", closed, channel_id)
        table = await self.store.get_table(closed)
        if table is not None and table.state is not None:
            await self.refresh_panels(table)

    async def refresh_panels(
        self,
        table: TableRecord,
        *,
        notify: int | None = None,
    ) -> None:
        """Send or edit each seated player's DM panel (those who have DMs on). The player
        ``notify`` (whose turn it has just become) gets the panel as a fresh message, the old
        one deleted: Discord notifies on new messages, never on edits, and a correspondence
        game lives on that notification. Everyone else's panel is edited in place.

        One table's panels are refreshed by one flow at a time: two flows at once (two quick
        clicks, a computer's move) would both find no stored panel, or the same old one, and
        leave a player two panels. A flow that finds a later move already made leaves the
        panels to that move's flow, whose ``notify`` is the one that counts: drawing them here
        would show a player their turn in a panel that flow is about to replace."""
        async with self._lock(self._panel_locks, table.id):
            newest, targets = await self.store.delivery_targets(table)
            if newest is None or newest.ply > table.ply:
                return
            table = newest
            for user_id, target in targets.items():
                if target.mode == "on":
                    await self._send_panel(table, user_id, target.panel, fresh=user_id == notify)
            self._release_locks(table)

    async def _send_panel(
        self,
        table: TableRecord,
        user_id: int,
        stored: tuple[int, int] | None,
        *,
        fresh: bool = False,
    ) -> None:
        parts = await self.panel_parts(table, user_id, for_dm=True)
        try:
            old = None
            if stored is not None:
                dm = self.client.get_partial_messageable(
                    stored[0], type=discord.ChannelType.private
                )
                old = dm.get_partial_message(stored[1])
                if not fresh:
                    try:
                        # An unchanged panel is not touched; a recent click on it lends its
                        # webhook (exempt from the rate limit).
                        await self.delivery.edit(old, parts.edit_kwargs(), parts.image)
                        return
                    except discord.NotFound:
                        old = None  # the player deleted it: send a fresh one
            # A fresh panel notifies its player; as the follow-up of their latest click in
            # their DMs it is also exempt from the rate limit.
            sent = await self.delivery.send_dm(user_id, parts.send_kwargs())
            if sent is None:
                channel = await self.client.create_dm(discord.Object(user_id))
                message = await channel.send(**parts.send_kwargs())
                sent = channel.id, message.id
            self.delivery.shown(sent[1], parts.fingerprint())
            await self.store.set_dm_panel(table.id, user_id, *sent)
            if old is not None:
                # One panel per table: the new one replaces it (already gone is fine).
                with contextlib.suppress(discord.NotFound):
                    await self.delivery.delete(old)
        except discord.Forbidden as exc:
            if exc.code != DM_CLOSED_CODE:
                log.warning("table %s: DM to a player refused (code %s)", table.id, exc.code)
                return
            await self.store.set_dm_mode(user_id, "closed")
            await self._say_dms_closed(table, user_id)
        except discord.HTTPException as exc:
            log.warning("table %s: could not update a DM panel (HTTP %s)", table.id, exc.status)

    async def _say_dms_closed(self, table: TableRecord, user_id: int) -> None:
        channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
        button = get_renderer(table.game).panel_label
        text = (
            f"{mention(user_id)}, I can't send you direct messages, so your private panel stays "
            f"behind the table's **{button}** button. Once your DMs are open, run `/siege dm on`."
        )
        try:
            await channel.send(text, allowed_mentions=USER_MENTIONS)
        except discord.HTTPException:
            log.warning("table %s: could not post the closed-DM notice", table.id)

    # -- lobby -------------------------------------------------------------------------------------

    async def open_table(
        self,
        interaction: discord.Interaction[Any],
        game_key: str,
        options: dict[str, Any],
        seating: Seating = "join",
        time_control: str = clock.NONE,
        forfeit_after: int = 2,
    ) -> None:
        """``/play``: open a lobby in this channel, or point at the table already here. A
        solo game (one seat at most) needs no lobby: it starts at once."""
        if interaction.channel_id is None or interaction.guild_id is None:
            raise TableError("Tables live in server channels; run this in a channel or thread.")
        await self.remember(interaction)
        solo = get_game(game_key).max_seats == 1
        try:
            table = await self.store.create_table(
                guild_id=interaction.guild_id,
                channel_id=interaction.channel_id,
                game=game_key,
                host_id=interaction.user.id,
                options=options,
                seating=seating,
                seats=(interaction.user.id,) if solo else None,
                start=solo,
                time_control=time_control,
                forfeit_after=forfeit_after,
            )
        except TableExists as exc:
            url = jump_url(exc.table)
            where = f" here: {url}" if url else "."
            raise TableError(
                f"This channel already has an open {exc.table.engine.title} table{where} "
                "Start a thread to run another game alongside it."
            ) from None
        await self.post_new_table(interaction, table)

    async def post_new_table(
        self, interaction: discord.Interaction[Any], table: TableRecord
    ) -> None:
        """Post a new table as the interaction's answer; a game that starts at once (a solo
        game, a rematch, a daily challenge) also gets its panels and its first turn ping."""
        await self.post_table(interaction, table)
        if table.status == "running":
            await self.refresh_panels(table)
            await self.turn_ping(table, self.turn_passed_to(table, None))

    async def post_table(self, interaction: discord.Interaction[Any], table: TableRecord) -> int:
        """Answer the interaction with the table as a new public message and remember it as the
        table's message. Returns the message id."""
        parts = await self.table_parts(table)
        response = await interaction.response.send_message(**parts.send_kwargs())
        message_id = response.message_id
        if message_id is None:  # discord.py gives the id with the callback's answer
            message_id = (await interaction.original_response()).id
        self.delivery.shown(message_id, parts.fingerprint())
        self.delivery.reach(message_id, interaction)
        await self.store.set_message(table.id, message_id)
        return message_id

    async def on_lobby(self, interaction: discord.Interaction[Any], tid: int, op: str) -> None:
        async def flow() -> None:
            user = interaction.user.id
            if op == "join":
                await self.remember(interaction)
                table = await self.store.join(tid, user)
            elif op == "leave":
                table = await self.store.leave(tid, user)
            elif op == "start":
                table = await self.store.start(tid, user)
            elif op.startswith("cpu-") and op != "cpu-remove":
                table = await self.store.add_computer(tid, user, op.removeprefix("cpu-"))
            elif op == "cpu-remove":
                table = await self.store.remove_computer(tid, user)
            else:
                table = await self._table(tid)
                if user != table.host_id and not _can_manage(interaction):
                    raise TableError("Only the host or a server manager can cancel this table.")
                table = await self.store.cancel(tid)

            async def follow_up() -> None:
                parts = await self.table_parts(table)
                await self.delivery.answer_by_edit(interaction, parts.edit_kwargs(), parts.image)
                if table.status == "running":
                    try:
                        await self.refresh_panels(table)
                        await self.turn_ping(table, self.turn_passed_to(table, None))
                    finally:
                        self.committed(table)

            await self.after_commit(interaction, follow_up(), done=LOBBY_DONE[op])

        await self.guarded(interaction, flow)

    async def cancel_in_channel(self, interaction: discord.Interaction[Any]) -> None:
        """``/siege cancel``: the host, or a member with Manage Server, closes the open table."""
        assert interaction.channel_id is not None
        try:
            table = await self.store.open_table_in(interaction.channel_id)
        except CorruptTable:
            if not _can_manage(interaction):
                raise
            await self.store.close_channel(interaction.channel_id)
            await interaction.response.send_message("The unreadable table here was closed.")
            return
        if table is None:
            raise TableError("There is no open table in this channel.")
        if interaction.user.id != table.host_id and not _can_manage(interaction):
            raise TableError("Only the host or a server manager can cancel this table.")
        table = await self.store.cancel(table.id)
        await interaction.response.send_message(
            f"{mention(interaction.user.id)} cancelled table #{table.id} ({table.engine.title}).",
            allowed_mentions=NO_MENTIONS,
        )
        if await self.refresh_table(table) and table.state is not None:
            await self.refresh_panels(table)
            await self.turn_ping(table, None)

    async def repost_table(self, interaction: discord.Interaction[Any]) -> None:
        """``/siege table``: post the channel's table again at the bottom (for its players and
        moderators); the old message then points at the new one."""
        assert interaction.channel_id is not None
        table = await self.store.open_table_in(interaction.channel_id)
        if table is None:
            raise TableError("There is no open table in this channel. Start one with /play.")
        if interaction.user.id not in table.seats and not _can_moderate(interaction):
            raise TableError(
                "Only the players at this table, or a moderator, can move it down the channel."
            )
        old = table.message_id
        new = await self.post_table(interaction, table)
        if old is not None and old != new:
            where = f": {jump_url(dataclasses.replace(table, message_id=new))}"
            channel = self.client.get_partial_messageable(table.channel_id)
            # It may be lost or deleted: that is often why the table was re-posted.
            with contextlib.suppress(discord.HTTPException):
                await channel.get_partial_message(old).edit(
                    content=f"This table moved{where}", embed=None, view=None, attachments=[]
                )

    # -- playing -----------------------------------------------------------------------------------

    async def on_act(
        self, interaction: discord.Interaction[Any], tid: int, ply: int, idx: int
    ) -> None:
        async def flow() -> None:
            table = await self._table(tid)
            user = interaction.user.id
            if table.status != "running":
                raise TableError(
                    "This game is over." if table.status == "over" else "This table is closed."
                )
            if table.seat_of(user) is None:
                raise TableError("You are not playing at this table.")
            if ply != table.ply:
                raise StaleAction("That button is out of date: the game has moved on.")
            game = table.engine
            state = table.running_state()
            to_act = game.to_act(state)
            if to_act is None or table.seats[to_act] != user:
                raise RuleError("It is not your turn.")
            legal = game.legal_actions(state, to_act)
            if not 0 <= idx < len(legal):
                raise StaleAction("That choice is out of date: the game has moved on.")
            self.keep_hand_before(table, to_act, state)
            table, _ = await self.store.act(tid, user, legal[idx], ply)
            log.info("table %s: ply %s played (%s)", tid, ply, legal[idx]["type"])
            await self.after_commit(interaction, self._after_change(interaction, table))

        await self.guarded(interaction, flow)

    async def after_commit(
        self,
        interaction: discord.Interaction[Any],
        follow_up: Awaitable[None],
        *,
        done: str = "Your move counted",
    ) -> None:
        """Run what follows a committed action (replies, redraws). The action counts whatever
        happens here, so a failure is never reported as a failed move: the player is told it
        counted (``done``) and the table catches up on the next change."""
        try:
            await follow_up
        except Exception:
            log.exception("table follow-up failed after a committed action (%s)", interaction.id)
            await self.refuse(interaction, f"{done}{COMMITTED_BUT_NOT_SHOWN}")

    async def on_stage(
        self, interaction: discord.Interaction[Any], tid: int, ply: int, stage: str | None
    ) -> None:
        """A first step of a two-step move was chosen (or Back): show the panel narrowed to it.
        Nothing is committed; the second step's controls carry the actions."""

        async def flow() -> None:
            table = await self._table(tid)
            if table.status != "running":
                raise TableError("This table is no longer running.")
            if table.seat_of(interaction.user.id) is None:
                raise TableError("You are not playing at this table.")
            if ply != table.ply:
                raise StaleAction("That menu is out of date: the game has moved on.")
            parts = await self.panel_parts(
                table, interaction.user.id, for_dm=interaction.guild_id is None, stage=stage
            )
            await self.delivery.answer_by_edit(
                interaction, parts.edit_kwargs(), parts.image, gone=STAGE_REPLACED
            )

        await self.guarded(interaction, flow)

    async def _after_change(
        self, interaction: discord.Interaction[Any], table: TableRecord
    ) -> None:
        """Reply on the message that was clicked, then queue the rest (the table, the panels,
        the ping: see :mod:`cogs.redraws`). The click is answered first, without waiting for
        any other flow (an answer must come within 3 seconds, and another flow may be waiting
        out a rate limit); whatever a concurrent flow sent meanwhile (a later move included) is
        put right by the redraw, under the table's lock."""
        message = interaction.message
        shown = None
        try:
            if message is not None and message.id == table.message_id:
                parts = await self.table_parts(table)
                if await self.delivery.answer_by_edit(
                    interaction, parts.edit_kwargs(), parts.image, gone=TABLE_GONE
                ):
                    shown = parts.fingerprint()
            else:
                # The clicked panel is redrawn with the others: unchanged since this answer,
                # it costs nothing; painted over by a flow that was slower to send, it is put
                # right.
                parts = await self.panel_parts(
                    table, interaction.user.id, for_dm=interaction.guild_id is None
                )
                await self.delivery.answer_by_edit(
                    interaction, parts.edit_kwargs(), parts.image, gone=PANEL_REPLACED
                )
        finally:
            notify = self.turn_passed_to(table, interaction.user.id)
            self.redraws.push(Redraw(table, notify, interaction, shown))

    async def _redraw(self, redraw: Redraw) -> None:
        """Bring a table, its panels and its notifications up to date after the moves of
        ``redraw``, then a computer whose turn it is moves (after the refreshes, never racing
        them)."""
        table, notify = redraw.table, redraw.notify
        try:
            current = redraw.shown is not None and await self._still_shown(table, redraw.shown)
            if not current and not await self.refresh_table(table):  # posted again if deleted
                return
            await self.refresh_panels(table, notify=notify)
            if notify is not None or table.status != "running":
                await self.turn_ping(table, notify, redraw.via)
            await self.announce_end(table)
        except Exception:
            log.exception("table %s: redraw after a committed move failed", table.id)
            if redraw.via is not None:
                await self.refuse(redraw.via, f"Your move counted{COMMITTED_BUT_NOT_SHOWN}")
        finally:
            for change in redraw.changes:
                self.committed(change)

    async def announce_end(self, table: TableRecord) -> None:
        """When a game ends, every player gets a new message with the result (the table is
        edited in place, and Discord notifies nobody of an edit): a DM, or one channel message
        mentioning those who take no DMs."""
        if table.status != "over" or table.result is None:
            return
        renderer = get_renderer(table.game)
        names = self.names(table)
        line = renderer.result_line(table.result, names)
        text = f"🏁 {table.engine.title}, table #{table.id}: {line}"
        if table.result.scores is not None and len(table.seats) > 1:
            scores = ", ".join(
                f"{names[seat]} {score}" for seat, score in enumerate(table.result.scores)
            )
            text += f"\nFinal score: {scores}."
        url = jump_url(table)
        unreached = []
        for user_id in dict.fromkeys(table.seats):
            if computers.is_computer(user_id):
                continue
            if await self.store.dm_mode(user_id) == "on" and await self.dm(
                user_id, text + (f"\n{url}" if url else "")
            ):
                continue
            unreached.append(user_id)
        if unreached:
            channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
            try:
                await channel.send(text, allowed_mentions=USER_MENTIONS)
            except discord.HTTPException:
                log.warning("table %s: could not post the result notice", table.id)

    async def dm(self, user_id: int, text: str) -> bool:
        """A new DM; ``False`` when it cannot be sent (closed DMs are remembered)."""
        if computers.is_computer(user_id):
            return False
        try:
            channel = await self.client.create_dm(discord.Object(user_id))
            await channel.send(text, allowed_mentions=NO_MENTIONS)
        except discord.Forbidden as exc:
            if exc.code == DM_CLOSED_CODE:
                await self.store.set_dm_mode(user_id, "closed")
            return False
        except discord.HTTPException:
            return False
        return True

    async def turn_ping(
        self,
        table: TableRecord,
        user_id: int | None,
        via: discord.Interaction[Any] | None = None,
    ) -> None:
        """Ping the player to act in the channel when no DM panel notifies them (DMs off or
        closed): Discord notifies on new messages only, and the table is edited in place. The
        previous ping of the table is deleted, so at most one stands; ``None`` only clears.

        ``via`` is the click that passed the turn: when it was made in the table's channel, the
        ping is its follow-up (interaction webhooks are exempt from the rate limit)."""
        newest, targets = await self.store.delivery_targets(table)
        table = newest or table
        channel = self.client.get_partial_messageable(table.channel_id, guild_id=table.guild_id)
        if table.ping_message_id is not None:
            with contextlib.suppress(discord.HTTPException):
                await self.delivery.delete(channel.get_partial_message(table.ping_message_id))
            await self.store.set_ping(table.id, None)
        if user_id is None or computers.is_computer(user_id):
            return
        target = targets.get(user_id)
        if (target.mode if target else await self.store.dm_mode(user_id)) == "on":
            return
        url = jump_url(table)
        text = f"{mention(user_id)}, it's your turn at table #{table.id}" + (
            f": {url}" if url else "."
        )
        ping_id = None
        if via is not None and via.channel_id == table.channel_id and via.response.is_done():
            with contextlib.suppress(discord.HTTPException):
                followup = await via.followup.send(text, allowed_mentions=USER_MENTIONS, wait=True)
                self.delivery.reach(followup.id, via, followup.id)
                ping_id = followup.id
        if ping_id is None:
            try:
                ping_id = (await channel.send(text, allowed_mentions=USER_MENTIONS)).id
            except discord.HTTPException:
                log.warning("table %s: could not post the turn ping", table.id)
                return
        await self.store.set_ping(table.id, ping_id)

    @staticmethod
    def turn_passed_to(table: TableRecord, actor: int | None) -> int | None:
        """The player whose turn it now is, if it is not the one who just acted (``None``:
        nobody acted, as at the start)."""
        if table.state is None or table.status != "running":
            return None
        to_act = table.engine.to_act(table.state)
        if to_act is None or table.seats[to_act] == actor:
            return None
        return table.seats[to_act]

    async def on_hand(self, interaction: discord.Interaction[Any], tid: int) -> None:
        async def flow() -> None:
            table = await self._table(tid)
            if table.seat_of(interaction.user.id) is None:
                raise TableError("You are not playing at this table.")
            if table.state is None:
                raise TableError(
                    "The game has not started yet."
                    if table.status == "lobby"
                    else "This table is closed."
                )
            parts = await self.panel_parts(table, interaction.user.id, for_dm=False)
            await interaction.response.send_message(**parts.send_kwargs(), ephemeral=True)

        await self.guarded(interaction, flow)

    async def on_hint(self, interaction: discord.Interaction[Any], tid: int) -> None:
        """ "What would the computer do?": the computer's choice for the player's own position,
        with one sentence why, only for them (it thinks off the event loop)."""

        async def flow() -> None:
            table = await self._table(tid)
            seat = table.seat_of(interaction.user.id)
            if seat is None:
                raise TableError("You are not playing at this table.")
            if table.status != "running" or table.state is None:
                raise TableError("This game is over.")
            if self.computers is None or not table.engine.about.hint:
                raise TableError("There is no computer advice for this game.")
            await interaction.response.defer(ephemeral=True, thinking=True)
            advice = await self.computers.hint(table, seat)
            await interaction.followup.send(f"💡 The computer would say: {advice}", ephemeral=True)

        await self.guarded(interaction, flow)

    async def on_resign(self, interaction: discord.Interaction[Any], tid: int) -> None:
        async def flow() -> None:
            table = await self._table(tid)
            if table.seat_of(interaction.user.id) is None:
                raise TableError("You are not playing at this table.")
            if table.status != "running":
                raise TableError("This game is not running.")
            view = discord.ui.View(timeout=None)
            view.add_item(TableButton(tid, "resignok"))
            await interaction.response.send_message(
                "Resign this game? It ends at once and counts as a loss for you.",
                view=view,
                ephemeral=True,
            )

        await self.guarded(interaction, flow)

    async def on_resign_confirmed(self, interaction: discord.Interaction[Any], tid: int) -> None:
        async def flow() -> None:
            table, _ = await self.store.resign(tid, interaction.user.id)

            async def follow_up() -> None:
                await interaction.response.edit_message(
                    content="You resigned. The table shows the result.", embed=None, view=None
                )
                if await self.refresh_table(table):
                    await self.refresh_panels(table)
                    await self.turn_ping(table, None)
                    await self.announce_end(table)

            await self.after_commit(interaction, follow_up(), done="You resigned")

        await self.guarded(interaction, flow)

    async def on_rematch(self, interaction: discord.Interaction[Any], tid: int) -> None:
        """Rematch is an offer: the clicker says yes and the others are asked (cogs/offers.py);
        the game starts when every player has accepted."""
        from cogs.offers import Offers  # the offers' flows build on this hall

        await self.guarded(interaction, lambda: Offers(self).rematch(interaction, tid))

    # -- players -----------------------------------------------------------------------------------

    async def set_dms(self, interaction: discord.Interaction[Any], on: bool) -> None:
        user = interaction.user.id
        await self.store.set_dm_mode(user, "on" if on else "off")
        if not on:
            await interaction.response.send_message(
                "Done: no more DMs. Your panel opens from the table's button (My hand, My moves…).",
                ephemeral=True,
            )
            return
        await interaction.response.send_message(
            "Done: I'll keep your private panels in your DMs.", ephemeral=True
        )
        for table in await self.store.open_tables_of(user):
            if table.status == "running":
                await self.refresh_panels(table)

    async def rules_text(self, game_key: str) -> str:
        """The rules text, read once (in a worker thread: file reads stay off the event loop)."""
        text = self._rules.get(game_key)
        if text is None:
            path = RULES_DIR / f"{game_key}.md"
            text = await asyncio.to_thread(path.read_text, encoding="utf-8")
            self._rules[game_key] = text
        return text


def _interaction_name(interaction: discord.Interaction[Any]) -> str:
    data: dict[str, Any] = dict(interaction.data or {})
    return str(data.get("custom_id") or data.get("name") or "?")


def _can_moderate(interaction: discord.Interaction[Any]) -> bool:
    """A moderator of the channel: may manage its messages (or the whole server)."""
    perms = getattr(interaction, "permissions", None)
    return bool(perms and (perms.manage_messages or perms.manage_guild))


def _can_manage(interaction: discord.Interaction[Any]) -> bool:
    perms = getattr(interaction, "permissions", None)
    return bool(perms and perms.manage_guild)


__all__ = ["Hall", "Parts", "mention"]
