"""Replays: a finished game step by step, as its table showed it, with what each player held.

Every step shows the table picture of that position (drawn like the table's, through
:class:`~cogs.pictures.Pictures`, so a step seen before is not drawn again), the recent moves,
and each player's hand labelled by player ("bob's hand"). The last step is the ending: the
result as the table said it, whether the game ended by the rules or at the table (a resignation,
a loss on time). Buttons step through the game; a select menu lists the moves, 25 to a page with
buttons for the pages before and after, to jump to any of them.

Only finished games are replayed: a running game keeps its secrets. Once a game is over its
seed is shown, so every hidden card could be worked out anyway, and each player's hand is shown
at every step; a daily challenge game, whose seed stays closed until its UTC day is over, is
replayed only to its own player, with only what they saw. The buttons and the menu are
:class:`discord.ui.DynamicItem` s, so a replay keeps working after a restart.
"""

from __future__ import annotations

import io
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import discord

from cogs import fairness
from cogs.flow import Guarding
from cogs.names import plain_names
from cogs.sheets import as_embed
from presentation import get_renderer
from presentation.base import Renderer, count, fit_alt
from presentation.picture_text import seat_names
from storage import RESIGN, ActionRecord, Store, TableError, TableRecord
from storage.fairness import commitment_of

#: Moves a page of the move list offers (Discord's most options for one select menu).
PAGE_SIZE = 25
LABEL_MAX = 100  # Discord's longest select option label
RECENT = 5
STEP = re.compile(r"[0-9]{1,7}")


@dataclass
class ReplayParts:
    """One step of a replay as a message: its embeds, its controls and its table picture."""

    embeds: list[discord.Embed]
    view: discord.ui.View
    picture: discord.File | None

    def send_kwargs(self) -> dict[str, Any]:
        files = [] if self.picture is None else [self.picture]
        return {"embeds": self.embeds, "view": self.view, "files": files}

    def edit_kwargs(self) -> dict[str, Any]:
        files = [] if self.picture is None else [self.picture]
        return {"embeds": self.embeds, "view": self.view, "attachments": files}


async def finished_table(
    store: Store, interaction: discord.Interaction[Any], tid: int
) -> TableRecord:
    """A finished table of this server (a running game keeps its secrets)."""
    table = await store.get_table(tid)
    if table is None or table.guild_id != interaction.guild_id:
        raise TableError("That game is not one of this server's.")
    if table.status != "over":
        raise TableError("Only finished games can be replayed: a running game keeps its secrets.")
    return table


def is_table_action(record: ActionRecord) -> bool:
    """Whether a logged action ended the game at the table (a resignation, a loss on time)
    rather than being a move of the game."""
    return bool(record.action.get("type") == RESIGN["type"])


def step_line(renderer: Renderer, record: ActionRecord, names: list[str]) -> str:
    """What a logged action did, in one line without markdown (a move list's label)."""
    lines = [line for e in record.events if (line := renderer.event_line(e, names))]
    text = " ".join(lines).replace("**", "").replace("*", "")
    return text or f"{names[record.seat]} moved."


class Replays:
    """The replay flow: one step of a finished game as a message."""

    def __init__(
        self,
        hall: Guarding,
        store: Store,
        names: Callable[[Sequence[int]], Awaitable[dict[int, str]]],
    ) -> None:
        self.hall = hall
        self.store = store
        self.names = names

    async def show(
        self, interaction: discord.Interaction[Any], tid: int, step: int, page: int | None = None
    ) -> ReplayParts:
        """Step ``step`` of table ``tid`` (0: the deal; the last: the ending), its move list at
        ``page`` (the page holding ``step`` if None)."""
        table = await finished_table(self.store, interaction, tid)
        day = await fairness.closed_day(self.store, table)
        if day is not None and interaction.user.id not in table.seats:
            raise TableError(
                f"Table #{tid} is a daily challenge game of {day}: its replay opens to everyone "
                "when that UTC day is over, since everyone here is dealt the same today."
            )
        log = await self.store.actions(tid)
        last = len(log)
        step = min(max(step, 0), last)
        state = await self.store.replay(tid, upto=step)
        renderer = get_renderer(table.game)
        game = table.engine
        by_id = await self.names(table.seats)
        names = [by_id[uid] for uid in table.seats]
        plain = await plain_names(self.store, table.seats)
        moves = last - 1 if log and is_table_action(log[-1]) else last
        view = game.view(state, None)
        recent = [
            line
            for record in log[max(0, step - RECENT) : step]
            for event in record.events
            if (line := renderer.event_line(event, names))
        ]
        board = as_embed(renderer.table_embed(view, names, recent[-RECENT:]))
        ending = step == last and table.result is not None
        if ending:
            assert table.result is not None
            board.title = f"Replay of table #{tid} — the end, after {count(moves, 'move')}"
            board.insert_field_at(
                0, name="Result", value=renderer.result_line(table.result, names), inline=False
            )
        else:
            board.title = f"Replay of table #{tid} — move {step} of {moves}"
        events = log[step - 1].events if step else []
        picture = await self._picture(table, renderer, view, events, plain)
        if picture is not None:
            board.set_image(url=f"attachment://{picture.filename}")
        embeds = [board]
        held = []
        for seat, name in enumerate(names):  # what each seat saw: hands and hidden cards
            if day is not None and table.seats[seat] != interaction.user.id:
                continue
            words = renderer.hand_words(game.view(state, seat), name)
            if words:
                held.append(words)
        self._footer(board, table, day, bool(held))
        if held:
            embeds.append(discord.Embed(description="\n\n".join(held)[:4096], colour=board.colour))
        if sum(len(e) for e in embeds) > 5800:  # Discord's total for one message
            embeds = embeds[:1]
        labels = seat_names(plain, len(table.seats))
        controls = self._controls(table, renderer, log, labels, step, page, day is None)
        return ReplayParts(embeds, controls, picture)

    @staticmethod
    def _footer(board: discord.Embed, table: TableRecord, day: str | None, hands: bool) -> None:
        seal = commitment_of(table)
        shown = "Every player's hand is shown" if hands else "Nothing was hidden in this game"
        if day is not None:  # the owner's own daily game: what they saw, nothing of the seed
            board.set_footer(
                text=f"Your daily game of {day}: only what you saw. Its seed, export and replay "
                "for others open when that UTC day is over."
            )
        elif seal is not None:
            board.set_footer(text=f"{shown}.\n" + fairness.reveal_line(table, seal))
        else:
            board.set_footer(text=f"{shown}: this game is over.")

    async def _picture(
        self,
        table: TableRecord,
        renderer: Renderer,
        view: dict[str, Any],
        events: list[dict[str, Any]],
        plain: list[str],
    ) -> discord.File | None:
        """The table picture of the step's position (the step's move marked), with its alt
        text, as the table showed it."""
        png = await self.hall.pictures.render(table.game, renderer.table_image, view, events, plain)
        if png is None:
            return None
        alt = fit_alt(renderer.image_alt(view, events, plain))
        name = f"replay-{table.id}.png"
        return discord.File(io.BytesIO(png), filename=name, description=alt)

    @staticmethod
    def _controls(
        table: TableRecord,
        renderer: Renderer,
        log: list[ActionRecord],
        names: list[str],
        step: int,
        page: int | None,
        exports: bool,
    ) -> discord.ui.View:
        last = len(log)
        pages = last // PAGE_SIZE + 1  # steps 0..last, 25 to a page
        page = min(max(step // PAGE_SIZE if page is None else page, 0), pages - 1)
        tid = table.id
        view = discord.ui.View(timeout=None)
        view.add_item(ReplayStep(tid, 0, "first", disabled=step == 0))
        view.add_item(ReplayStep(tid, step - 1, "back", disabled=step == 0))
        view.add_item(ReplayStep(tid, step + 1, "next", disabled=step >= last))
        view.add_item(ReplayStep(tid, last, "last", disabled=step >= last))
        first = page * PAGE_SIZE
        steps = range(first, min(last, first + PAGE_SIZE - 1) + 1)
        options: list[discord.SelectOption] = []
        for k in steps:
            if k == 0:
                label = "Start: the deal"
            else:
                end = "The end: " if k == last and table.result is not None else ""
                label = f"{k}. {end}{step_line(renderer, log[k - 1], names)}"
            cut = label if len(label) <= LABEL_MAX else label[: LABEL_MAX - 1] + "…"
            options.append(discord.SelectOption(label=cut, value=str(k), default=k == step))
        menu: discord.ui.Select[Any] = discord.ui.Select(
            placeholder="Jump to a move…" + (f" (page {page + 1} of {pages})" if pages > 1 else ""),
            options=options,
            row=1,
        )
        view.add_item(ReplayJump(tid, page, menu))
        if pages > 1:
            view.add_item(ReplayPage(tid, step, page - 1, "earlier", disabled=page == 0))
            view.add_item(ReplayPage(tid, step, page + 1, "later", disabled=page >= pages - 1))
        if exports:
            view.add_item(ExportGame(tid))
            view.add_item(ExportGame(tid, verify=True))
        return view


class Replaying(Protocol):
    """What the replay's controls need of the boards (:mod:`cogs.boards`)."""

    @property
    def replays(self) -> Replays: ...

    async def export(self, interaction: discord.Interaction[Any], tid: int) -> discord.File: ...

    async def verify(self, interaction: discord.Interaction[Any], tid: int) -> str: ...


def boards_of(interaction: discord.Interaction[Any]) -> Replaying:
    boards: Replaying = getattr(interaction.client, "boards")  # noqa: B009 - set by SiegeBot
    return boards


def replays_of(interaction: discord.Interaction[Any]) -> Replays:
    return boards_of(interaction).replays


async def _answer(
    interaction: discord.Interaction[Any], tid: int, step: int, page: int | None, *, new: bool
) -> None:
    replays = replays_of(interaction)

    async def flow() -> None:
        parts = await replays.show(interaction, tid, step, page)
        if new:
            await interaction.response.send_message(**parts.send_kwargs(), ephemeral=True)
        else:
            await interaction.response.edit_message(**parts.edit_kwargs())

    await replays.hall.guarded(interaction, flow)


class ReplayStep(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sh:replay:(?P<tid>[0-9]{1,18}):(?P<step>[0-9]{1,7}):(?P<tag>open|first|back|next|last)",
):
    """A step of a replay (edits the replay in place), or, tagged ``open``, the button of a
    history line (opens a replay only the clicker sees). The tag keeps the four step buttons'
    custom ids apart when two of them lead to the same step."""

    LABELS: ClassVar[dict[str, str]] = {"first": "⏮", "back": "◀", "next": "▶", "last": "⏭"}

    def __init__(
        self, tid: int, step: int, tag: str, *, label: str | None = None, disabled: bool = False
    ):
        step = max(step, 0)
        super().__init__(
            discord.ui.Button(
                label=label or self.LABELS.get(tag, "Replay"),
                style=discord.ButtonStyle.secondary,
                custom_id=f"sh:replay:{tid}:{step}:{tag}",
                disabled=disabled,
                row=None if tag == "open" else 0,
            )
        )
        self.tid, self.step, self.open = tid, step, tag == "open"

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ReplayStep:
        return cls(int(match["tid"]), int(match["step"]), match["tag"])

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _answer(interaction, self.tid, self.step, None, new=self.open)


class ReplayJump(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"sh:rjump:(?P<tid>[0-9]{1,18}):(?P<page>[0-9]{1,5})",
):
    """The move list: a page of the game's steps; choosing one shows it."""

    def __init__(self, tid: int, page: int, select: discord.ui.Select[Any]):
        select.custom_id = f"sh:rjump:{tid}:{page}"
        super().__init__(select)
        self.tid, self.page = tid, page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ReplayJump:
        assert isinstance(item, discord.ui.Select)
        return cls(int(match["tid"]), int(match["page"]), item)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        value = values[0] if len(values) == 1 else ""
        if not STEP.fullmatch(value):  # a forged payload: answered as an out of date choice
            await replays_of(interaction).hall.guarded(interaction, _stale)
            return
        await _answer(interaction, self.tid, int(value), self.page, new=False)


async def _stale() -> None:
    raise TableError("That choice is out of date: open the replay again from /siege history.")


class ReplayPage(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sh:rpage:(?P<tid>[0-9]{1,18}):(?P<step>[0-9]{1,7}):(?P<page>[0-9]{1,5})",
):
    """The move list's page before or after this one (the step shown stays)."""

    LABELS: ClassVar[dict[str, str]] = {"earlier": "◀ Earlier moves", "later": "Later moves ▶"}

    def __init__(self, tid: int, step: int, page: int, tag: str, *, disabled: bool = False):
        page = max(page, 0)
        super().__init__(
            discord.ui.Button(
                label=self.LABELS.get(tag, "Moves"),
                style=discord.ButtonStyle.secondary,
                custom_id=f"sh:rpage:{tid}:{step}:{page}",
                disabled=disabled,
                row=2,
            )
        )
        self.tid, self.step, self.page = tid, step, page

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ReplayPage:
        return cls(int(match["tid"]), int(match["step"]), int(match["page"]), "page")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _answer(interaction, self.tid, self.step, self.page, new=False)


class ExportGame(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sh:(?P<what>export|verify):(?P<tid>[0-9]{1,18})",
):
    """Export script (a file ``python -m engine.script`` plays and ``python -m engine.verify``
    checks), or with ``verify`` the check itself, answered only to the clicker."""

    def __init__(self, tid: int, *, verify: bool = False):
        what = "verify" if verify else "export"
        super().__init__(
            discord.ui.Button(
                label="Verify the deal" if verify else "Export script",
                style=discord.ButtonStyle.secondary,
                custom_id=f"sh:{what}:{tid}",
                row=2,
            )
        )
        self.tid, self.verify = tid, verify

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ExportGame:
        return cls(int(match["tid"]), verify=match["what"] == "verify")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        boards = boards_of(interaction)

        async def flow() -> None:
            if self.verify:
                text = await boards.verify(interaction, self.tid)
                await interaction.response.send_message(text, ephemeral=True)
                return
            script = await boards.export(interaction, self.tid)
            await interaction.response.send_message(
                "The game as a script: `python -m engine.script` plays it again exactly"
                " (a resignation, being a table action, is not part of the format), and"
                " `python -m engine.verify` checks its seed, salt and every card and die.",
                file=script,
                ephemeral=True,
            )

        await boards.replays.hall.guarded(interaction, flow)


REPLAY_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    ReplayStep,
    ReplayJump,
    ReplayPage,
    ExportGame,
)

__all__ = [
    "PAGE_SIZE",
    "REPLAY_ITEMS",
    "ExportGame",
    "ReplayParts",
    "ReplayStep",
    "Replays",
    "finished_table",
]
