"""Play any Siege Hall game in a terminal: hot-seat, against computers, or both.

The engine plays the rules and the Discord renderers draw the position: a seat's private panel
(its embed's title, text and fields) and the table's event lines, printed as plain text. Choices
are the engine's legal actions, numbered, with the labels of Discord's buttons and menus. Moves
are taken by number; a JSON action (``{"type": "draw"}``) is accepted too and refused, when the
rules refuse it, with the engine's own sentence. No token, network or database is involved.

In hot-seat play only the seat to act sees its view, after a prompt to pass the keyboard.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import engine
from engine import ai, chance
from engine.rules import Action, Event, Game, Result, RuleError, State
from presentation import get_renderer
from presentation.base import (
    ActionButton,
    ActionSelect,
    BackButton,
    Control,
    Renderer,
    Sheet,
    StageSelect,
)

QUIT_WORDS = frozenset({"q", "quit", "exit"})


def thinking_cap() -> Callable[[], bool]:
    """The bot's cap on the computer's thinking (a second a move at most), from now."""
    began = time.monotonic()
    return lambda: time.monotonic() - began > ai.THINKING_SECONDS


@dataclass(frozen=True)
class Choice:
    """One numbered choice: the legal action it takes (its index) and its label."""

    index: int
    label: str


HINT_WORDS = frozenset({"h", "hint", "?"})


@dataclass(frozen=True)
class Seat:
    """Who plays a seat: a person at this keyboard (level None) or a computer at a level."""

    name: str
    level: str | None = None

    @property
    def is_computer(self) -> bool:
        return self.level is not None


class Quit(Exception):
    """The player typed quit."""


def sheet_text(sheet: Sheet) -> str:
    """A sheet as plain text: title, description, then each field's name and value."""
    parts: list[str] = []
    if sheet.title:
        parts.append(_plain(f"== {sheet.title} =="))
    if sheet.description:
        parts.append(_plain(sheet.description))
    for item in sheet.fields:
        parts.append(_plain(f"-- {item.name}"))
        parts.append(_plain(str(item.value)))
    if sheet.footer:
        parts.append(_plain(sheet.footer))
    return "\n".join(parts)


def _plain(text: str) -> str:
    """Discord's markdown without the markup a terminal would print literally."""
    text = text.replace("**", "").replace("__", "").replace("`", "")
    return re.sub(r"<@!?(\d+)>", r"player \1", text)


def choices(renderer: Renderer, view: dict[str, Any], legal: list[Action]) -> list[Choice]:
    """What the player may choose, as the panel offers it: one choice per button or menu
    entry (two-step menus are opened: "first step: second step"), each naming the legal action
    it takes. Actions the panel folds into one choice (two cards of one value) are one choice
    here too; actions no control names at all are described plainly."""
    found: dict[int, str] = {}

    def walk(controls: Sequence[Control], prefix: str) -> None:
        for control in controls:
            if isinstance(control, ActionButton):
                found.setdefault(control.index, _joined(prefix, control.label))
            elif isinstance(control, ActionSelect):
                for choice in control.choices:
                    text = choice.label
                    if choice.description:
                        text = f"{text} ({choice.description})"
                    if control.placeholder and not prefix:
                        text = f"{control.placeholder.rstrip('…. ')}: {text}"
                    found.setdefault(choice.index, _joined(prefix, text))
            elif isinstance(control, StageSelect) and not prefix:
                for stage in control.choices:
                    walk(renderer.panel_controls(view, legal, stage=stage.key), stage.label)
            elif isinstance(control, BackButton):
                continue

    try:
        walk(renderer.panel_controls(view, legal), "")
    except Exception:  # a renderer mid-change must not stop a terminal game
        found = {}
    if not found:
        return [Choice(i, describe(action)) for i, action in enumerate(legal)]
    return [Choice(i, found[i]) for i in sorted(found)]


def _joined(stage: str, label: str) -> str:
    """A second step's label after its first step's, unless it already names it (a first
    step's count of copies, "Defender 1 ×2", aside).

    >>> _joined("Defender 1 ×2", "Defender 1 → your left (10)")
    'Defender 1 → your left (10)'
    >>> _joined("Raise", "to 6")
    'Raise: to 6'
    """
    named = re.sub(r" ×\d+$", "", stage)
    if not stage or label.startswith(named):
        return label
    return f"{stage}: {label}"


def describe(action: Action) -> str:
    """An action in words when no control names it: its type, then its fields."""
    rest = ", ".join(f"{k} {json.dumps(v)}" for k, v in action.items() if k != "type")
    kind = str(action.get("type", "?")).replace("_", " ")
    return f"{kind} ({rest})" if rest else kind


class Terminal:
    def __init__(
        self,
        game: Game,
        seats: list[Seat],
        seed: int,
        options: dict[str, Any],
        out: TextIO,
        read: Callable[[str], str],
    ) -> None:
        self.game = game
        self.seats = seats
        self.seed = seed
        self.options = options
        self.out = out
        self.read = read
        self.renderer = get_renderer(game.key)
        self.names = [s.name for s in seats]
        self.humans = sum(not s.is_computer for s in seats)
        self.last_human: int | None = None

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def play(self) -> Result:
        game = self.game
        state = chance.deal(game, len(self.seats), self.options, self.seed)
        self.say(
            f"{game.title}: " + ", ".join(f"seat {i + 1} {n}" for i, n in enumerate(self.names))
        )
        ply = 0
        while True:
            result = game.result(state)
            if result is not None:
                break
            seat = game.to_act(state)
            assert seat is not None
            if self.seats[seat].is_computer:
                action = self.computer_move(state, seat, ply)
            else:
                action = self.human_move(state, seat, ply)
            state, events = chance.advance(game, state, seat, action, self.seed, ply)
            self.show_events(events)
            ply += 1
        self.say()
        self.say(sheet_text(self.renderer.table_embed(game.view(state, None), self.names, [])))
        self.say(_plain(self.renderer.result_line(result, self.names)))
        return result

    def computer_move(self, state: State, seat: int, ply: int) -> Action:
        level = self.seats[seat].level
        assert level is not None
        rng = random.Random(f"{self.seed}:computer:{ply}")
        view = self.game.view(state, seat)
        return ai.choose(
            self.game.key,
            view,
            seat,
            level,
            rng,
            options=self.options,
            deadline=thinking_cap(),
        )

    def human_move(self, state: State, seat: int, ply: int) -> Action:
        game = self.game
        if self.humans > 1 and self.last_human != seat:
            self.say()
            self.read(f"{self.names[seat]}, your turn: press Enter when only you can see. ")
        self.last_human = seat
        view = game.view(state, seat)
        legal = game.legal_actions(state, seat)
        offered = choices(self.renderer, view, legal)
        self.say()
        self.say(sheet_text(self.renderer.panel_embed(view, self.names)))
        self.say()
        for n, choice in enumerate(offered, start=1):
            self.say(f"  {n:>2}. {_plain(choice.label)}")
        extra = " h for a hint," if game.about.hint else ""
        while True:
            answer = self.read(f"Your choice (1-{len(offered)},{extra} q to quit): ").strip()
            if answer.lower() in QUIT_WORDS:
                raise Quit
            if game.about.hint and answer.lower() in HINT_WORDS:
                hinted, why = ai.hint(
                    game.key,
                    view,
                    seat,
                    random.Random(f"{self.seed}:hint:{ply}"),
                    deadline=thinking_cap(),
                )
                self.say(
                    f"The computer would choose {self.number_of(hinted, legal, offered)}. {why}"
                )
                continue
            action = self.parse(answer, [legal[c.index] for c in offered], state, seat)
            if action is not None:
                return action

    @staticmethod
    def number_of(action: Action, legal: list[Action], offered: list[Choice]) -> str:
        """The number a player types for ``action`` (the choice that takes it)."""
        index = legal.index(action)
        for n, choice in enumerate(offered, start=1):
            if choice.index == index:
                return str(n)
        return json.dumps(action)  # a legal action the panel folded into another: as typed

    def parse(self, answer: str, legal: list[Action], state: State, seat: int) -> Action | None:
        """The action the answer names, or None after saying why it is refused."""
        if answer.startswith("{"):
            try:
                action = json.loads(answer)
            except json.JSONDecodeError:
                self.say("That is not a move: type the number of a choice.")
                return None
            try:
                chance.advance(self.game, state, seat, action, self.seed, ply=0)
            except RuleError as refused:
                self.say(str(refused))
                return None
            return dict(action)
        if answer.isdigit() and 1 <= int(answer) <= len(legal):
            return legal[int(answer) - 1]
        self.say(f"That is not one of your choices: type a number from 1 to {len(legal)}.")
        return None

    def show_events(self, events: list[Event]) -> None:
        for event in events:
            try:
                line = self.renderer.event_line(event, self.names)
            except Exception:  # a renderer mid-change must not stop a terminal game
                line = None
            if line:
                self.say(_plain(f"* {line}"))


def seat_list(game: Game, vs: list[str], seats: int | None, me: int) -> list[Seat]:
    """The seats: computers from ``--vs`` (after the person's seat), people in the rest."""
    levels = []
    for item in vs:
        kind, _, level = item.partition(":")
        level = level or "normal"
        if kind != "computer" or level not in ai.LEVELS:
            raise ValueError(
                f"--vs takes computer:easy, computer:normal or computer:hard, not {item!r}."
            )
        levels.append(level)
    count = seats if seats is not None else max(game.min_seats, len(levels) + 1)
    if not game.min_seats <= count <= game.max_seats:
        if game.min_seats == game.max_seats:
            raise ValueError(f"{game.title} is played by exactly {game.min_seats} seats.")
        raise ValueError(
            f"{game.title} is played by {game.min_seats} to {game.max_seats} seats, not {count}."
        )
    if len(levels) >= count:
        raise ValueError(f"{len(levels)} computers leave no seat for you at a table of {count}.")
    if not 0 <= me < count:
        raise ValueError(f"--seat must be from 1 to {count}.")
    people = count - len(levels)
    table: dict[int, Seat] = {}
    others = [s for s in range(count) if s != me]
    for n, (s, level) in enumerate(zip(others, levels, strict=False), start=1):
        table[s] = Seat(
            f"Computer {n} ({level})" if len(levels) > 1 else f"Computer ({level})", level
        )
    person = 0
    for s in range(count):
        if s not in table:
            person += 1
            table[s] = Seat("Player" if people == 1 else f"Player {person}")
    return [table[s] for s in range(count)]


def run(
    key: str,
    vs: list[str],
    seats: int | None,
    seed: int | None,
    me: int,
    options: dict[str, Any],
    out: TextIO,
    read: Callable[[str], str],
) -> int:
    game = engine.get_game(key)
    table = seat_list(game, vs, seats, me)
    chosen = seed if seed is not None else random.SystemRandom().randrange(1_000_000)
    terminal = Terminal(game, table, chosen, engine.rules.resolve_options(game, options), out, read)
    try:
        terminal.play()
    except (Quit, EOFError, KeyboardInterrupt):
        print(file=out)
        print(f"Goodbye: the game was left unfinished (seed {chosen}).", file=out, flush=True)
    return 0
