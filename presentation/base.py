"""The shared vocabulary of game renderers: sheets, controls, colours and the Renderer protocol.

A renderer turns engine *views* (never raw states) and events into :class:`Sheet` s and
*controls*, both plain data: a front end decides how they look (Discord embeds and buttons, or
terminal text). No rule lives here: renderers only describe what the engine says.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.rules import Action, Event, Result

View = dict[str, Any]
# Colours (RGB): calm blue for a lobby, gold while playing, green for a finished game, grey
# cancelled.
LOBBY_COLOUR = 0x3B82F6
PLAYING_COLOUR = 0xD4A017
OVER_COLOUR = 0x2E9D5B
CLOSED_COLOUR = 0x6B7280


@dataclass(frozen=True)
class Field:
    """A named block of a sheet; ``inline`` fields may stand side by side."""

    name: str
    value: str
    inline: bool = True


@dataclass
class Sheet:
    """What one message shows, apart from its controls: a title, text, named fields, a footer
    and a picture (the file name of an attached image). Discord shows it as an embed, the
    terminal as lines of text. The builder methods read like discord.py's ``Embed``'s, so a
    renderer reads the same whatever shows it."""

    title: str | None = None
    description: str | None = None
    colour: int | None = None
    fields: list[Field] = field(default_factory=list)
    footer: str | None = None
    image: str | None = None

    def add_field(self, *, name: str, value: str, inline: bool = True) -> Sheet:
        self.fields.append(Field(name, value, inline))
        return self

    def insert_field_at(self, index: int, *, name: str, value: str, inline: bool = True) -> Sheet:
        self.fields.insert(index, Field(name, value, inline))
        return self

    def set_footer(self, *, text: str) -> Sheet:
        self.footer = text
        return self

    def set_image(self, *, name: str) -> Sheet:
        """Show the attached picture called ``name``."""
        self.image = name
        return self


class Style(enum.Enum):
    """How a button stands out: the main choice, a quiet one, a good one, a dangerous one."""

    PRIMARY = "primary"
    SECONDARY = "secondary"
    SUCCESS = "success"
    DANGER = "danger"


@dataclass(frozen=True)
class ActionButton:
    """A button that takes the legal action at ``index``."""

    label: str
    index: int
    style: Style = Style.SECONDARY
    emoji: str | None = None


@dataclass(frozen=True)
class ActionChoice:
    label: str
    index: int
    description: str | None = None
    emoji: str | None = None


@dataclass(frozen=True)
class ActionSelect:
    """A select menu whose options take legal actions (split into menus of 25 by the layout)."""

    placeholder: str
    choices: tuple[ActionChoice, ...] = field(default=())


@dataclass(frozen=True)
class StageChoice:
    """A first step of a two-step choice (a card, then its target): ``key`` is the renderer's own
    name for the step, handed back to ``panel_controls`` as ``stage``."""

    label: str
    key: str
    description: str | None = None
    emoji: str | None = None


@dataclass(frozen=True)
class StageSelect:
    """A select menu that narrows the panel to one first step; it takes no action by itself."""

    placeholder: str
    choices: tuple[StageChoice, ...] = field(default=())


@dataclass(frozen=True)
class BackButton:
    """Leaves a chosen first step and shows the whole panel again."""

    label: str = "Back"


Control = ActionButton | ActionSelect | StageSelect | BackButton


class Renderer(Protocol):
    """What a game provides to be shown on Discord."""

    game: str
    title: str
    # The table button that opens a seat's private panel ("My hand" for card games).
    panel_label: str
    # Whether the panel marks the cards that came into the hand since the seat's last turn (the
    # hall then works out which, from the log): card games with a hand to draw into.
    marks_new_cards: bool
    # Whether ``panel_image`` ever draws (the hall skips the call, and its thread hop, if not).
    panel_pictures: bool

    def table_image(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> bytes | None:
        """A PNG for the table embed, else None. ``last_events`` are the (public) events of the
        last action, for pictures that mark the last move; ``names`` the seats' names as plain
        text (display names, never mentions; a seat without one reads "Player N"). A finished
        game's picture opens with a banner saying the result."""
        ...

    def image_alt(
        self, view: View, last_events: Sequence[Event] = (), names: Sequence[str] = ()
    ) -> str:
        """The table picture's alt text (Discord's attachment ``description``, at most 1024
        characters): the picture in words, from the spectator view, naming the seats by
        ``names`` as the picture does (never by mentions)."""
        ...

    def table_embed(self, view: View, names: list[str], recent: list[str]) -> Sheet:
        """The public table: ``view`` is the spectator view (seat None)."""
        ...

    def panel_embed(
        self,
        view: View,
        names: list[str],
        since: Sequence[str] = (),
        new_cards: Sequence[str] = (),
    ) -> Sheet:
        """A seat's private panel: ``view`` is that seat's own view. It opens with ``since``,
        what happened at the table since the seat's last turn (event lines, oldest first), then
        the position, then the choices. ``new_cards`` are the hand's cards that arrived since
        that turn (only asked for when ``marks_new_cards``)."""
        ...

    def panel_image(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> tuple[bytes, str] | None:
        """A picture for the seat's panel and its alt text, or None (most games)."""
        ...

    def hand_words(self, view: View, name: str) -> str | None:
        """What a seat's own view holds beyond the table (its hand, a hidden castle), in the
        third person for replays: opens with a bold line such as "**bob's hand** (3)". ``view``
        is that seat's view, ``name`` its player; None when the game hides nothing."""
        ...

    def table_controls(self, view: View, legal: list[Action]) -> list[Control]:
        """Public actions of the seat to act, shown on the table message."""
        ...

    def panel_controls(
        self, view: View, legal: list[Action], stage: str | None = None
    ) -> list[Control]:
        """Every legal action of the seat, shown on its private panel. Games whose moves take
        two steps offer a StageSelect first; its key comes back here as ``stage``, and the
        controls then show the second step (with a BackButton)."""
        ...

    def event_line(self, event: Event, names: list[str]) -> str | None:
        """One past-tense line for the table's recent events (None: not worth a line)."""
        ...

    def result_line(self, result: Result, names: list[str]) -> str: ...

    def turn_number(self, view: View, ply: int) -> int:
        """The one turn counter shown everywhere (table footer, embeds, summary): the turn
        being played, or once the game is over the number of turns it lasted. ``ply`` is the
        number of logged actions, for games whose state keeps no count of its own."""
        ...

    def end_summary(self, view: View, names: list[str], result: Result, turns: int) -> str:
        """The end of the game in a few lines: the result, what decided it, the length
        (``turns``, as :meth:`turn_number` counts) and each player's main figures."""
        ...


#: Discord's longest attachment description (a picture's alt text).
ALT_MAX = 1024


def fit_alt(text: str) -> str:
    """A picture's alt text, cut to Discord's limit."""
    return text if len(text) <= ALT_MAX else text[: ALT_MAX - 1] + "…"


def count(number: int, noun: str) -> str:
    """A number of things, in the singular for one.

    >>> count(1, "game"), count(0, "game"), count(5, "rated game")
    ('1 game', '0 games', '5 rated games')
    """
    return f"{number} {noun}" + ("" if number == 1 else "s")


def since_block(since: Sequence[str]) -> str:
    """The panel's opening: what happened since the seat's last turn, as a quoted block."""
    return "\n".join(f"> {line}" for line in since)


def ply_turn(view: View, ply: int) -> int:
    """The turn counter of a game of one action per turn: the turn being played, or the number
    of turns once over."""
    return ply if view.get("result") is not None else ply + 1
