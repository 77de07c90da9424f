"""What the hall's flows share, and the small interfaces through which they call each other.

The hall is split by concern: the table message (:mod:`cogs.table_view`), the lobby
(:mod:`cogs.lobby`), moves and two-step stages (:mod:`cogs.moves`), private panels and DM
delivery (:mod:`cogs.panels`), turn pings and DMs (:mod:`cogs.notices`), endings, resign and
rematch (:mod:`cogs.endings`). Each flow is a class given exactly what it uses; what it needs of
another flow is one of the :class:`typing.Protocol` s declared here, so the flows, the components,
offers, computers and the sweeper depend on this module and never on each other or on
:class:`cogs.hall.Hall`, which only builds them and wires them together. This module holds the
one error path (:class:`Guard`), the pieces of one message (:class:`Parts`), the per-table locks
and the commit hook, and how seats and tables are named in messages.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import discord

from cogs.deadline import Deadline, DeadlineResponse
from cogs.delivery import fingerprint
from cogs.held_locks import HeldLocks
from engine.rules import RuleError
from storage import DmTarget, StorageUnavailable, Store, TableError, TableRecord, computers

if TYPE_CHECKING:
    from cogs.metrics import Metrics
    from cogs.pictures import Pictures
    from storage.endings import CancelOffer
    from storage.offers import OfferRecord
    from storage.shards import Shards

#: Every flow logs as the hall did before it was split, so operators' filters still match.
log = logging.getLogger("siege.hall")

APOLOGY = "Sorry, something went wrong on our side. The table is safe; try again in a moment."
COMMITTED_BUT_NOT_SHOWN = (
    ", but the table could not be redrawn just now. Use /siege table to show it again."
)
#: A table as its DM panels were just drawn, and how each seat is reached now (see
#: :meth:`cogs.panels.Panels.refresh_panels`).
Reached = tuple[TableRecord, dict[int, DmTarget]]
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
    #: What identifies the picture (:meth:`cogs.pictures.Pictures.render_keyed`): fingerprinted
    #: in place of its bytes.
    image_print: str | None = field(default=None, repr=False, compare=False)
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
            self._print = fingerprint(shown, self.image, self.image_print)
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
        return computers.label(user_id)
    return f"<@{user_id}>"


def seat_names(table: TableRecord) -> list[str]:
    return [mention(uid) for uid in table.seats]


def jump_url(table: TableRecord) -> str | None:
    if table.message_id is None:
        return None
    guild = table.guild_id if table.guild_id is not None else "@me"
    return f"https://discord.com/channels/{guild}/{table.channel_id}/{table.message_id}"


def turn_passed_to(table: TableRecord, actor: int | None) -> int | None:
    """The player whose turn it now is, if it is not the one who just acted (``None``: nobody
    acted, as at the start)."""
    if table.state is None or table.status != "running":
        return None
    to_act = table.engine.to_act(table.state)
    if to_act is None or table.seats[to_act] == actor:
        return None
    return table.seats[to_act]


# -- what a flow needs of the others -----------------------------------------------------------


class Thinking(Protocol):
    """The computer seats (:class:`cogs.computer.Computers`)."""

    def poke(self, table: TableRecord) -> None: ...

    async def hint(self, table: TableRecord, seat: int) -> str: ...

    async def resume(self) -> int: ...


class TableShowing(Protocol):
    """The public table message (:class:`cogs.table_view.TableView`)."""

    async def table_parts(self, table: TableRecord) -> Parts: ...

    async def refresh_table(self, table: TableRecord) -> bool: ...

    async def still_shown(self, rendered: TableRecord, shown: str) -> bool: ...


class PanelShowing(Protocol):
    """The players' private panels (:class:`cogs.panels.Panels`)."""

    async def panel_parts(
        self, table: TableRecord, user_id: int, *, for_dm: bool, stage: str | None = None
    ) -> Parts: ...

    async def refresh_panels(
        self, table: TableRecord, *, notify: int | None = None, actor: int | None = None
    ) -> Reached | None: ...

    def keep_hand_before(self, table: TableRecord, seat: int, state: Any) -> None: ...

    def forget_player(self, user_id: int) -> None: ...


class Notifying(Protocol):
    """Turn pings and plain DMs (:class:`cogs.notices.Notices`)."""

    async def dm(self, user_id: int, text: str) -> bool: ...

    async def dm_message(self, user_id: int, **kwargs: Any) -> discord.Message | None: ...

    async def turn_ping(
        self,
        table: TableRecord,
        user_id: int | None,
        via: discord.Interaction[Any] | None = None,
        reached: Reached | None = None,
    ) -> None: ...


class Announcing(Protocol):
    """The end of a game told to its players (:class:`cogs.endings.Endings`)."""

    async def announce_end(self, table: TableRecord) -> None: ...


class Posting(Protocol):
    """New table messages (:class:`cogs.lobby.Lobby`)."""

    async def post_new_table(
        self, interaction: discord.Interaction[Any], table: TableRecord
    ) -> None: ...


class StartedPosting(Protocol):
    """A started game posted as a new table message with its panels and first ping, when the
    answer that started it came from elsewhere (:meth:`cogs.offers.Offers.post_table`)."""

    async def post_table(self, table: TableRecord) -> None: ...


class Withdrawing(Protocol):
    """Open seeks (:class:`cogs.seeks.Seeks`): those of players just seated elsewhere have
    closed, and the sweeper's turn."""

    async def withdrawn_for(self, user_ids: tuple[int, ...] | list[int]) -> int: ...

    async def sweep(self, shards: Shards | None = None) -> int: ...


class Rematching(Protocol):
    """The Rematch offer (:class:`cogs.offers.Offers`)."""

    async def rematch(self, interaction: discord.Interaction[Any], tid: int) -> None: ...


class Redrawing(Protocol):
    """A change nobody clicked brought up to date (:meth:`cogs.moves.Moves.redraw_after`)."""

    async def redraw_after(self, table: TableRecord, actor: int | None) -> None: ...


class Expiring(Protocol):
    """Offers nobody answered in time (:meth:`cogs.offers.Offers.expired`)."""

    async def expired(self, offer: OfferRecord) -> None: ...


class Closing(Protocol):
    """What the sweeper needs of the flows that close games early (:class:`cogs.closing.Closing`):
    cancel offers nobody answered, and games without a clock that became claimable."""

    async def expired(self, offer: CancelOffer) -> None: ...

    async def claimable(self, table: TableRecord) -> None: ...


class Pushing(Protocol):
    """Tournaments pushed on when a game ends or the sweeper finds one due
    (:class:`cogs.tournaments.Tournaments`)."""

    async def game_over(self, table: TableRecord) -> None: ...

    async def sweep(self, shards: Shards | None = None) -> int: ...


class Sweeping(Protocol):
    """What the sweeper (:mod:`cogs.clockwork`) needs of the hall."""

    @property
    def computers(self) -> Thinking | None: ...

    @property
    def tournaments(self) -> Pushing: ...

    @property
    def offers(self) -> Expiring: ...

    @property
    def seeks(self) -> Withdrawing: ...

    @property
    def closing(self) -> Closing: ...

    def committed(self, table: TableRecord) -> None: ...

    async def dm(self, user_id: int, text: str) -> bool: ...

    async def dm_message(self, user_id: int, **kwargs: Any) -> discord.Message | None: ...

    async def redraw_after(self, table: TableRecord, actor: int | None) -> None: ...


class Guarding(Protocol):
    """What the boards (:mod:`cogs.boards`) need of the hall: the error path and pictures."""

    @property
    def pictures(self) -> Pictures: ...

    async def guarded(
        self,
        interaction: discord.Interaction[Any],
        flow: Callable[[], Awaitable[None]],
        *,
        private: bool = False,
    ) -> None: ...


class Starting(Posting, Protocol):
    """What the daily challenge (:mod:`cogs.daily`) needs of the hall."""

    async def remember(self, interaction: discord.Interaction[Any]) -> None: ...


class Clicks(Protocol):
    """What the restart-proof components (:mod:`cogs.components`) hand a click to."""

    async def on_lobby(self, interaction: discord.Interaction[Any], tid: int, op: str) -> None: ...

    async def on_act(
        self, interaction: discord.Interaction[Any], tid: int, ply: int, idx: int
    ) -> None: ...

    async def on_stage(
        self, interaction: discord.Interaction[Any], tid: int, ply: int, stage: str | None
    ) -> None: ...

    async def on_hand(self, interaction: discord.Interaction[Any], tid: int) -> None: ...

    async def on_hint(self, interaction: discord.Interaction[Any], tid: int) -> None: ...

    async def on_resign(self, interaction: discord.Interaction[Any], tid: int) -> None: ...

    async def on_resign_confirmed(
        self, interaction: discord.Interaction[Any], tid: int
    ) -> None: ...

    async def on_rematch(self, interaction: discord.Interaction[Any], tid: int) -> None: ...

    async def on_claim(self, interaction: discord.Interaction[Any], tid: int) -> None: ...
    async def on_claim_draw(self, interaction: discord.Interaction[Any], tid: int) -> None: ...

    async def on_cancel_confirmed(
        self, interaction: discord.Interaction[Any], tid: int
    ) -> None: ...


# -- shared by every flow ------------------------------------------------------------------------


class Hooks:
    """After any committed change to a table: it is counted, and a computer whose turn it is
    now moves. Both are set by the bot after the hall is built (``None``: not running)."""

    def __init__(self) -> None:
        #: Takes the computer seats' turns (``None``: no computer ever moves).
        self.computers: Thinking | None = None
        #: Counts the moves (set by the bot when ``METRICS_PORT`` is set).
        self.metrics: Metrics | None = None
        #: Told of every game's end (a tournament's game pushes its tournament on).
        self.tournaments: Pushing | None = None
        #: The open seeks (set by the hall): those of players seated in a game close.
        self.seeks: Withdrawing | None = None

    def committed(self, table: TableRecord) -> None:
        if self.metrics is not None:
            self.metrics.committed(table)
        if self.computers is not None:
            self.computers.poke(table)

    async def seated(self, user_ids: tuple[int, ...] | list[int]) -> None:
        """These players just took a seat in a game: the seeks that closed for it say so."""
        if self.seeks is not None:
            await self.seeks.withdrawn_for(user_ids)


class Locks:
    """One flow at a time draws and sends a table's message, and one its panels: with the
    pictures drawn by a worker, two flows at once could otherwise send in the wrong order and
    leave an older position showing. Each re-reads the newest table inside. A click's own answer
    never waits for these (see :meth:`cogs.moves.Moves._after_change`). A table has its locks
    only while a flow holds or waits for them (:mod:`cogs.held_locks`)."""

    def __init__(self) -> None:
        self._table = HeldLocks()
        self._panels = HeldLocks()

    def table(self, table_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        return self._table.hold(table_id)

    def panels(self, table_id: int) -> contextlib.AbstractAsyncContextManager[None]:
        return self._panels.hold(table_id)


#: Flows doing their work at once. More clicks than this wait their turn (in the order they
#: came), deferred by the deadline guard if the wait runs long: an overloaded process then spends
#: its loop on a bounded set of flows, so its timers (the deferrals) fire on time and every
#: interaction is answered or deferred within Discord's 3 seconds, however many clicks queue.
FLOWS_AT_ONCE = 32


class Guard:
    """The one error path: every flow an interaction starts runs inside :meth:`guarded`."""

    def __init__(
        self, store: Store, deadline: Deadline, hooks: Hooks, *, flows: int = FLOWS_AT_ONCE
    ) -> None:
        self.store = store
        #: Every guarded flow answered or deferred within its budget.
        self.deadline = deadline
        self.hooks = hooks
        #: Admission: at most ``flows`` flows run at once (a flow within a flow takes none).
        self.admission = asyncio.Semaphore(flows)
        #: Flows that had to wait for their turn (an overloaded process).
        self.queued = 0

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
        outer = not isinstance(interaction.response, DeadlineResponse)  # not a flow in a flow
        try:
            async with self.deadline.guard(interaction, private=private):
                if not outer:
                    await flow()
                    return
                if self.admission.locked():
                    self.queued += 1
                async with self.admission:
                    await flow()
        except StorageUnavailable as exc:  # logged once per outage by the store
            if self.hooks.metrics is not None:
                self.hooks.metrics.storage_unavailable()
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
        finally:
            response = interaction.response
            if outer and isinstance(response, DeadlineResponse):
                response.release()  # freed by reference counting, not by the collector

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

    async def table(self, table_id: int) -> TableRecord:
        table = await self.store.get_table(table_id)
        if table is None:
            raise TableError("That table no longer exists.")
        return table


def _interaction_name(interaction: discord.Interaction[Any]) -> str:
    data: dict[str, Any] = dict(interaction.data or {})
    return str(data.get("custom_id") or data.get("name") or "?")
