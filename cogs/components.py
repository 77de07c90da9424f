"""Buttons and select menus that survive a restart, and the layout that builds them.

Every component is a :class:`discord.ui.DynamicItem` whose custom id carries what it needs (the
table id, and for game actions the ply and the index of the action in the engine's legal list),
so a click on a message sent before a restart still routes. The callbacks only hand over to
the hall's flows (:class:`cogs.flow.Clicks`); no rule lives here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, ClassVar, TypeVar

import discord

from cogs.flow import Clicks
from cogs.sheets import button_style
from presentation.base import (
    ActionButton,
    ActionChoice,
    BackButton,
    Control,
    StageChoice,
    StageSelect,
)

SELECT_MAX_OPTIONS = 25
ROWS_MAX = 5
ROW_BUTTONS_MAX = 5
OPTION_INDEX = re.compile(r"[0-9]{1,4}")


def hall_of(interaction: discord.Interaction[Any]) -> Clicks:
    hall: Clicks = getattr(interaction.client, "hall")  # noqa: B009 - set by SiegeBot.setup_hook
    return hall


def option_index(select: discord.ui.Select[Any]) -> int:
    """The index into the legal list that the picked option carries, or -1 (answered as an out
    of date choice) for anything else a forged payload could hold, such as "²" or "-1"
    (``str.isdigit`` accepts "²", which ``int`` then refuses)."""
    values = select.values
    value = values[0] if len(values) == 1 else ""
    return int(value) if OPTION_INDEX.fullmatch(value) else -1


Callback = TypeVar("Callback", bound=Callable[..., Awaitable[None]])


def frees_click(callback: Callback) -> Callback:
    """Let go of what a click brought once its callback is done, so that reference counting
    frees it at once instead of a full garbage collection (which had to free mostly this, with
    the event loop standing still for tens of milliseconds):

    * discord.py builds a whole View of the clicked message for each click on a dynamic item,
      and its items and the view point at each other: the view is emptied;
    * the interaction and its response object point at each other, and the interaction holds
      the clicked message, parsed (embeds, components, users): the message is let go (nothing
      reads ``interaction.message`` after the callback; Delivery keeps only the webhook)."""

    @functools.wraps(callback)
    async def wrapped(self: discord.ui.DynamicItem[Any], interaction: Any) -> None:
        try:
            await callback(self, interaction)
        finally:
            if self.view is not None:
                self.view.clear_items()
            if getattr(interaction, "message", None) is not None:
                interaction.message = None

    return wrapped  # type: ignore[return-value]


def act_id(tid: int, ply: int, index: int) -> str:
    return f"sh:act:{tid}:{ply}:{index}"


def back_id(tid: int, ply: int) -> str:
    return f"sh:back:{tid}:{ply}"


def pick_id(tid: int, ply: int, n: int) -> str:
    return f"sh:pick:{tid}:{ply}:{n}"


def stage_id(tid: int, ply: int, n: int) -> str:
    return f"sh:stage:{tid}:{ply}:{n}"


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class LobbyButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=(
        r"sh:lobby:(?P<tid>[0-9]{1,18}):"
        r"(?P<op>join|leave|start|cancel|cpu-easy|cpu-normal|cpu-hard|cpu-remove)"
    ),
):
    LABELS: ClassVar[dict[str, tuple[Any, ...]]] = {
        "join": ("Join", discord.ButtonStyle.success),
        "leave": ("Leave", discord.ButtonStyle.secondary),
        "start": ("Start", discord.ButtonStyle.primary),
        "cancel": ("Cancel", discord.ButtonStyle.danger),
        "cpu-easy": ("Add computer: easy", discord.ButtonStyle.secondary),
        "cpu-normal": ("Add computer: normal", discord.ButtonStyle.secondary),
        "cpu-hard": ("Add computer: hard", discord.ButtonStyle.secondary),
        "cpu-remove": ("Remove a computer", discord.ButtonStyle.secondary),
    }

    def __init__(
        self,
        tid: int,
        op: str,
        *,
        disabled: bool = False,
        label: str | None = None,
        row: int | None = None,
    ):
        default_label, style = self.LABELS[op]
        super().__init__(
            discord.ui.Button(
                label=label or default_label,
                style=style,
                custom_id=f"sh:lobby:{tid}:{op}",
                disabled=disabled,
                row=row,
            )
        )
        self.tid = tid
        self.op = op

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> LobbyButton:
        return cls(int(match["tid"]), match["op"])

    @frees_click
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await hall_of(interaction).on_lobby(interaction, self.tid, self.op)


class ActButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sh:act:(?P<tid>[0-9]{1,18}):(?P<ply>[0-9]{1,9}):(?P<idx>[0-9]{1,4})",
):
    def __init__(self, tid: int, ply: int, control: ActionButton | None = None, idx: int = 0):
        index = control.index if control else idx
        super().__init__(
            discord.ui.Button(
                label=_truncate(control.label, 80) if control else "Act",
                style=button_style(control.style) if control else discord.ButtonStyle.secondary,
                emoji=control.emoji if control else None,
                custom_id=act_id(tid, ply, index),
            )
        )
        self.tid, self.ply, self.idx = tid, ply, index

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ActButton:
        return cls(int(match["tid"]), int(match["ply"]), idx=int(match["idx"]))

    @frees_click
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await hall_of(interaction).on_act(interaction, self.tid, self.ply, self.idx)


class ActSelect(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"sh:pick:(?P<tid>[0-9]{1,18}):(?P<ply>[0-9]{1,9}):(?P<n>[0-9]{1,2})",
):
    def __init__(self, tid: int, ply: int, n: int, select: discord.ui.Select[Any]):
        select.custom_id = pick_id(tid, ply, n)
        super().__init__(select)
        self.tid, self.ply = tid, ply

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ActSelect:
        assert isinstance(item, discord.ui.Select)
        return cls(int(match["tid"]), int(match["ply"]), int(match["n"]), item)

    @frees_click
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await hall_of(interaction).on_act(interaction, self.tid, self.ply, option_index(self.item))


class StageMenu(
    discord.ui.DynamicItem[discord.ui.Select[Any]],
    template=r"sh:stage:(?P<tid>[0-9]{1,18}):(?P<ply>[0-9]{1,9}):(?P<n>[0-9]{1,2})",
):
    """The first step of a two-step choice; its option values are the renderer's stage keys."""

    def __init__(self, tid: int, ply: int, n: int, select: discord.ui.Select[Any]):
        select.custom_id = stage_id(tid, ply, n)
        super().__init__(select)
        self.tid, self.ply = tid, ply

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> StageMenu:
        assert isinstance(item, discord.ui.Select)
        return cls(int(match["tid"]), int(match["ply"]), int(match["n"]), item)

    @frees_click
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = self.item.values
        key = values[0] if values else None
        await hall_of(interaction).on_stage(interaction, self.tid, self.ply, key)


class BackToPanel(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sh:back:(?P<tid>[0-9]{1,18}):(?P<ply>[0-9]{1,9})",
):
    def __init__(self, tid: int, ply: int, label: str = "Back"):
        super().__init__(
            discord.ui.Button(
                label=label, style=discord.ButtonStyle.secondary, custom_id=back_id(tid, ply)
            )
        )
        self.tid, self.ply = tid, ply

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> BackToPanel:
        return cls(int(match["tid"]), int(match["ply"]))

    @frees_click
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await hall_of(interaction).on_stage(interaction, self.tid, self.ply, None)


class TableButton(
    discord.ui.DynamicItem[discord.ui.Button[Any]],
    template=r"sh:(?P<op>hand|resign|resignok|rematch|hint|claim|claimdraw|cancelok):(?P<tid>[0-9]{1,18})",
):
    LABELS: ClassVar[dict[str, tuple[Any, ...]]] = {
        # Button emoji must be ones Discord knows (the playing-card block is not among them).
        "hand": ("My hand", discord.ButtonStyle.secondary, "🔒"),
        # Resign is the one red button on a table: ordinary moves, attacks too, never are.
        "resign": ("Resign", discord.ButtonStyle.danger, "🏳️"),
        "resignok": ("Yes, resign", discord.ButtonStyle.danger, None),
        "rematch": ("Rematch", discord.ButtonStyle.success, "🔁"),
        "hint": ("What would the computer do?", discord.ButtonStyle.secondary, "💡"),
        "claim": ("Claim the win", discord.ButtonStyle.danger, "🏚️"),
        "claimdraw": ("Claim a draw", discord.ButtonStyle.secondary, "🤝"),
        "cancelok": ("Yes, cancel the game", discord.ButtonStyle.danger, None),
    }

    def __init__(self, tid: int, op: str, *, label: str | None = None):
        default_label, style, emoji = self.LABELS[op]
        super().__init__(
            discord.ui.Button(
                label=label or default_label, style=style, emoji=emoji, custom_id=f"sh:{op}:{tid}"
            )
        )
        self.tid, self.op = tid, op

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str]
    ) -> TableButton:
        return cls(int(match["tid"]), match["op"])

    @frees_click
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        hall = hall_of(interaction)
        handlers = {
            "hand": hall.on_hand,
            "resign": hall.on_resign,
            "resignok": hall.on_resign_confirmed,
            "rematch": hall.on_rematch,
            "hint": hall.on_hint,
            "claim": hall.on_claim,
            "claimdraw": hall.on_claim_draw,
            "cancelok": hall.on_cancel_confirmed,
        }
        await handlers[self.op](interaction, self.tid)


DYNAMIC_ITEMS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    LobbyButton,
    ActButton,
    ActSelect,
    StageMenu,
    BackToPanel,
    TableButton,
)


def _choice_value(choice: ActionChoice | StageChoice) -> str:
    """Action menus carry the index into the legal list; stage menus the renderer's key."""
    return choice.key if isinstance(choice, StageChoice) else str(choice.index)


class Rows(discord.ui.View):
    """A message's components given as Discord's JSON rows (see :func:`layout`). The buttons and
    menus in it are dynamic items, routed by their custom ids (``DYNAMIC_ITEMS``, registered by
    the bot), so discord.py has nothing to keep for this view once it is sent."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        super().__init__(timeout=None)
        self.rows = rows

    def to_components(self) -> list[dict[str, Any]]:
        return self.rows

    def add_item(self, item: discord.ui.Item[Any]) -> Rows:
        raise TypeError("Rows are laid out whole by layout(): pass extra items to it")


# What discord.py writes for a button or a menu of a given look, the custom id (and a menu's
# options) aside: worked out by discord.py once per look, then copied with the ids of each
# message. Building the items themselves for every message drawn cost about 65 us a panel.
# The cached dicts (a menu's options, a button's emoji) are shared between messages: read-only,
# as discord.py and the fingerprints only serialize them.


@functools.lru_cache(maxsize=4096)
def _button_shape(label: str, style: discord.ButtonStyle, emoji: str | None) -> dict[str, Any]:
    button: discord.ui.Button[Any] = discord.ui.Button(
        label=label, style=style, emoji=emoji, custom_id="-"
    )
    return dict(button.to_component_dict())


@functools.lru_cache(maxsize=8192)
def _option(label: str, value: str, description: str | None, emoji: str | None) -> dict[str, Any]:
    option = discord.SelectOption(label=label, value=value, description=description, emoji=emoji)
    return dict(option.to_dict())


@functools.lru_cache(maxsize=1024)
def _select_shape(placeholder: str) -> dict[str, Any]:
    select: discord.ui.Select[Any] = discord.ui.Select(
        placeholder=placeholder, custom_id="-", options=[discord.SelectOption(label="-")]
    )
    return dict(select.to_component_dict())


def _button(
    custom_id: str, label: str, style: discord.ButtonStyle, emoji: str | None = None
) -> dict[str, Any]:
    return {**_button_shape(label, style, emoji), "custom_id": custom_id}


def table_button(tid: int, op: str, label: str | None = None) -> dict[str, Any]:
    """A :class:`TableButton` as it writes itself, for :func:`layout`, without building it."""
    default_label, style, emoji = TableButton.LABELS[op]
    return _button(f"sh:{op}:{tid}", label or default_label, style, emoji)


@functools.lru_cache(maxsize=64)
def _link_shape(label: str) -> dict[str, Any]:
    link: discord.ui.Button[Any] = discord.ui.Button(label=label, url="https://discord.com")
    shape = dict(link.to_component_dict())
    del shape["url"]
    return shape


def link_button(label: str, url: str) -> dict[str, Any]:
    """A link button (``discord.ui.Button`` with a url) as it writes itself, for :func:`layout`."""
    return {**_link_shape(label), "url": url}


def _menu(
    custom_id: str, placeholder: str, choices: Iterable[ActionChoice | StageChoice]
) -> dict[str, Any]:
    options = [
        _option(
            _truncate(choice.label, 100),
            _choice_value(choice),
            _truncate(choice.description, 100) if choice.description else None,
            choice.emoji,
        )
        for choice in choices
    ]
    return {
        **_select_shape(_truncate(placeholder, 150)),
        "custom_id": custom_id,
        "options": options,
    }


def layout(
    tid: int,
    ply: int,
    controls: Iterable[Control],
    extra: Iterable[discord.ui.Item[Any] | dict[str, Any]] = (),
) -> Rows:
    """A view of action controls: buttons first (five to a row, ``extra`` items after them), then
    one row per select menu of at most 25 options. Fits Discord's five rows by construction for
    the controls renderers produce; anything beyond is dropped rather than sent broken.

    The components are written as the dynamic items (``ActButton``, ``BackToPanel``,
    ``ActSelect``, ``StageMenu``) would write themselves, custom ids included, without building
    them: a click on one is routed by its custom id as ever. ``extra`` items may be given so too
    (:func:`table_button`, :func:`link_button`)."""
    buttons: list[dict[str, Any]] = []
    selects: list[dict[str, Any]] = []
    n = 0
    for control in controls:
        if isinstance(control, ActionButton):
            buttons.append(
                _button(
                    act_id(tid, ply, control.index),
                    _truncate(control.label, 80),
                    button_style(control.style),
                    control.emoji,
                )
            )
            continue
        if isinstance(control, BackButton):
            buttons.append(_button(back_id(tid, ply), control.label, discord.ButtonStyle.secondary))
            continue
        chunks = [
            control.choices[i : i + SELECT_MAX_OPTIONS]
            for i in range(0, len(control.choices), SELECT_MAX_OPTIONS)
        ]
        menu_id = stage_id if isinstance(control, StageSelect) else pick_id
        for part, chunk in enumerate(chunks, start=1):
            placeholder = control.placeholder
            if len(chunks) > 1:
                placeholder = f"{placeholder} ({part}/{len(chunks)})"
            selects.append(_menu(menu_id(tid, ply, n), placeholder, chunk))
            n += 1
    buttons.extend(item if isinstance(item, dict) else item.to_component_dict() for item in extra)
    rows = [
        {"type": 1, "components": buttons[i : i + ROW_BUTTONS_MAX]}
        for i in range(0, len(buttons), ROW_BUTTONS_MAX)
    ][:ROWS_MAX]
    rows.extend({"type": 1, "components": [select]} for select in selects[: ROWS_MAX - len(rows)])
    return Rows(rows)
