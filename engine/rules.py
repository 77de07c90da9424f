"""The engine contract shared by every game: the game bundle, results, rule errors, randomness.

Each game is one module exposing a :class:`Game` bundle (see ``engine/castles.py``); the registry
in ``engine/__init__.py`` maps a key such as ``"castles"`` to it. The contract follows
``../shared/spec/README.md`` and ``../shared/style.md``:

* ``setup(seats, options, rng, stack)`` builds the opening state;
* ``to_act(state)`` names the one seat that must decide next (``None`` once over);
* ``legal_actions(state, seat)`` lists every legal action in a stable order;
* ``apply(state, seat, action, rng)`` returns ``(new_state, events)`` and never mutates its input;
* ``view(state, seat)`` is all a seat (or a spectator, ``None``) may see;
* ``summary(state)`` is the public summary the spec defines;
* ``result(state)`` is ``None`` while the game runs.

States are plain JSON-able dictionaries carrying a ``version`` number. Events are past-tense
dictionaries (``{"type": "card_laid", ...}``) and are public by contract: nothing hidden from any
seat may appear in one. Randomness is always passed in, from the game's seed alone:
``engine/chance.py`` chooses it (the deal from :func:`rng_for` ``(seed, "setup")``, every later
draw from a stream named by its purpose) so a stored action log replays to the identical state.
"""

from __future__ import annotations

import json
import marshal
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeGuard

from engine.declaration import About

JSON = Any
State = dict[str, Any]
Action = dict[str, Any]
Event = dict[str, Any]


class RuleError(ValueError):
    """An action the rules refuse. The message is a sentence a player understands."""


class SetupError(ValueError):
    """Options or a stacked deal that cannot make a game (a malformed script or lobby)."""


@dataclass(frozen=True)
class Result:
    """How a game ended: the winning seats (empty: a draw, or a loss in a solo game)."""

    winners: tuple[int, ...]
    reason: str
    scores: tuple[int, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"winners": list(self.winners), "reason": self.reason}
        if self.scores is not None:
            data["scores"] = list(self.scores)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Result:
        scores = data.get("scores")
        return cls(
            winners=tuple(int(s) for s in data["winners"]),
            reason=str(data["reason"]),
            scores=None if scores is None else tuple(int(s) for s in scores),
        )


@dataclass(frozen=True)
class Option:
    """One table option of a game, as a lobby or a script may set it."""

    name: str
    default: JSON
    choices: tuple[JSON, ...]
    description: str
    labels: tuple[str, ...] = field(default=())

    def check(self, value: JSON) -> JSON:
        if not any(type(c) is type(value) and c == value for c in self.choices):
            allowed = ", ".join(json.dumps(c) for c in self.choices)
            raise SetupError(f"Option {self.name!r} must be one of {allowed}.")
        return value


class IntRange(Option):
    """An option that takes any whole number from ``low`` to ``high``: the range is declared
    once (:meth:`between`) and checked here, for scripts and the lobby alike. ``choices`` holds
    every value in order, for a lobby and for random play.

    >>> chips = IntRange.between("start_chips", 100, 1, 10000, "Chips per player.")
    >>> chips.check(250), (chips.low, chips.high)
    (250, (1, 10000))
    >>> chips.check(1.0)
    Traceback (most recent call last):
    engine.rules.SetupError: Option 'start_chips' must be a whole number from 1 to 10000, not 1.0.
    """

    @classmethod
    def between(cls, name: str, default: int, low: int, high: int, description: str) -> IntRange:
        return cls(
            name=name, default=default, choices=tuple(range(low, high + 1)), description=description
        )

    @property
    def low(self) -> int:
        return int(self.choices[0])

    @property
    def high(self) -> int:
        return int(self.choices[-1])

    def check(self, value: JSON) -> JSON:
        if not is_whole(value) or not self.low <= value <= self.high:
            raise SetupError(
                f"Option {self.name!r} must be a whole number from {self.low} to {self.high}, "
                f"not {brief(value)}."
            )
        return value


#: The reason of a game drawn because the player to move abandoned it (``Game.claim_draw``).
ABANDONED = "abandoned"
NO_DRAWS = "This game has no drawn result, so a draw cannot be claimed: claim the win instead."


def ending_drawn(state: State, seat: int) -> None:
    """Check that a claimed draw may end ``state`` now: it is running and ``seat`` is to move."""
    if state["result"] is not None:
        raise RuleError("The game is over.")
    if state["to_act"] != seat:
        raise RuleError("A draw is claimed when the player to move has abandoned the game.")


class Game(Protocol):
    """The bundle every game module provides."""

    key: str
    title: str
    min_seats: int
    max_seats: int
    options: tuple[Option, ...]
    state_version: int
    about: About

    def setup(
        self,
        seats: int,
        options: Mapping[str, JSON],
        rng: random.Random,
        stack: Mapping[str, JSON] | None = None,
    ) -> State: ...

    def to_act(self, state: State) -> int | None: ...

    def legal_actions(self, state: State, seat: int) -> list[Action]: ...

    def apply(
        self, state: State, seat: int, action: Action, rng: random.Random
    ) -> tuple[State, list[Event]]: ...

    def resign(self, state: State, seat: int) -> tuple[State, list[Event]]: ...

    def claim_draw(self, state: State, seat: int) -> tuple[State, list[Event]]:
        """The game ends drawn (no winners, reason :data:`ABANDONED`) because ``seat``, the
        seat to move, abandoned it and the others claimed a draw. Only a game whose ``about``
        says ``draws`` allows it; the others refuse (:class:`RuleError`)."""
        ...

    def view(self, state: State, seat: int | None) -> dict[str, JSON]: ...

    def summary(self, state: State) -> dict[str, JSON]: ...

    def result(self, state: State) -> Result | None: ...

    def safe_action(self, state: State, seat: int) -> Action | None:
        """An action the rules accept for ``seat`` now that a player who is away would least
        regret (it never gives up the game and never spends anything scarce), or None when no
        such action exists (the AFK ladder then goes to its next rung). When not None it is
        always one of ``legal_actions(state, seat)``; ``docs/afk.md`` says per game which."""
        ...

    def rematch_options(self, options: Mapping[str, JSON], result: Result) -> dict[str, JSON]: ...

    def is_playing(self, state: State, seat: int) -> bool:
        """Whether ``seat`` still takes part (a tower poker seat out of chips, or one that has
        left, does not: it has nothing left to resign)."""
        ...


class StoredTurn:
    """Shared plumbing for games whose state keeps ``to_act`` and ``result`` keys (all of
    them so far): the game modules subclass it and write the rules."""

    def to_act(self, state: State) -> int | None:
        to_act: int | None = state["to_act"]
        return to_act

    def result(self, state: State) -> Result | None:
        data = state["result"]
        return None if data is None else Result.from_json(data)

    def claim_draw(self, state: State, seat: int) -> tuple[State, list[Event]]:
        """Refused: a game has no drawn result until its ``about`` says ``draws`` and it ends
        itself drawn here (see :class:`Game`)."""
        raise RuleError(NO_DRAWS)

    def safe_action(self, state: State, seat: int) -> Action | None:
        """None: a game has no safe automatic move until it names one (see :class:`Game`)."""
        return None

    def is_playing(self, state: State, seat: int) -> bool:
        """Every seat plays to the end unless the game says otherwise (see :class:`Game`)."""
        return True


def rng_for(seed: int, ply: int | str) -> random.Random:
    """The generator named ``ply`` of a game: ``"setup"`` deals every game; a move number is the
    per-move generator of games dealt before chance came by purpose (engine/chance.py).

    >>> rng_for(7, 3).random() == rng_for(7, 3).random()
    True
    """
    return random.Random(f"{seed}:{ply}")


def resolve_options(game: Game, options: Mapping[str, JSON] | None) -> dict[str, JSON]:
    """The game's options with defaults filled in; an unknown or invalid one is a SetupError."""
    given = dict(options or {})
    known = {o.name: o for o in game.options}
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise SetupError(f"Unknown option {unknown[0]!r} for {game.title}.")
    return {name: opt.check(given.get(name, opt.default)) for name, opt in known.items()}


def is_whole(value: object) -> TypeGuard[int]:
    """Whether a JSON value is a whole number: an ``int``, never ``true``/``false`` (Python's
    ``bool`` is an ``int``) nor a float such as ``1.0`` (which equals 1).

    >>> is_whole(1), is_whole(1.0), is_whole(True), is_whole(None), is_whole("1")
    (True, False, False, False, False)
    """
    return type(value) is int


def brief(value: object) -> str:
    """A JSON value as a short, one-line phrase for a setup message.

    >>> brief(None), brief(1.0), brief(True), brief("0"), brief([[]]), brief({})
    ('null', '1.0', 'true', '"0"', 'a list', 'an object')
    """
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def stack_choice(stack: Mapping[str, JSON], name: str, choices: tuple[int, ...]) -> int | None:
    """Stack key ``name``: one of the whole numbers ``choices``, or None when the key is absent.

    A key that is present must hold such a number: ``null``, ``true``, ``1.0`` or ``"1"`` is a
    SetupError, as is a number outside ``choices``.
    """
    if name not in stack:
        return None
    value = stack[name]
    if not is_whole(value) or value not in choices:
        allowed = " or ".join(str(c) for c in choices)
        raise SetupError(f"Stack {name!r} must be the whole number {allowed}, not {brief(value)}.")
    return value


def stack_list(stack: Mapping[str, JSON], name: str) -> list[JSON]:
    """Stack key ``name`` as a list, ``[]`` when the key is absent; present but not a list
    (``null`` included) is a SetupError. The game checks the entries."""
    if name not in stack:
        return []
    value = stack[name]
    if not isinstance(value, list):
        raise SetupError(f"Stack {name!r} must be a list, not {brief(value)}.")
    return list(value)


def stack_hands(stack: Mapping[str, JSON], seats: int, most: int) -> list[list[JSON]]:
    """Stack key ``hands``: exactly one list per seat, in seat order, each of at most ``most``
    entries; empty hands when the key is absent. The game checks the codes."""
    if "hands" not in stack:
        return [[] for _ in range(seats)]
    hands = stack["hands"]
    if (
        not isinstance(hands, list)
        or len(hands) != seats
        or not all(isinstance(hand, list) for hand in hands)
    ):
        given = "" if isinstance(hands, list) else f", not {brief(hands)}"
        raise SetupError(
            f"Stack 'hands' must be a list of exactly {seats} lists of card codes{given}."
        )
    for seat, hand in enumerate(hands):
        if len(hand) > most:
            raise SetupError(
                f"Stack 'hands' names {len(hand)} cards for seat {seat}; at most {most} fit."
            )
    return [list(hand) for hand in hands]


def check_seats(game: Game, seats: object) -> int:
    if not is_whole(seats):
        raise SetupError("The number of seats must be a whole number.")
    if not game.min_seats <= seats <= game.max_seats:
        if game.min_seats == game.max_seats:
            raise SetupError(f"{game.title} is played by exactly {game.min_seats} seats.")
        raise SetupError(
            f"{game.title} is played by {game.min_seats} to {game.max_seats} seats, not {seats}."
        )
    return seats


def check_seat(seat: object) -> int:
    """A seat as the rules take it: a whole number from 0 (never ``true``, ``1.0`` or ``"1"``,
    which Python would let index a list or equal seat 1).

    >>> check_seat(1)
    1
    >>> check_seat(True)
    Traceback (most recent call last):
    engine.rules.RuleError: You are not playing at this table.
    """
    if not is_whole(seat) or seat < 0:
        raise RuleError("You are not playing at this table.")
    return seat


def check_turn(game: Game, state: State, seat: int) -> None:
    """The refusals every game shares: a seat that is not one, a finished game, and a seat
    acting out of turn."""
    check_seat(seat)
    if game.result(state) is not None:
        raise RuleError("The game is over.")
    if game.to_act(state) != seat:
        raise RuleError("It is not your turn.")


def clone(state: State) -> State:
    """A deep copy to build the next state from, leaving the input untouched.

    States are JSON trees (dicts, lists, strings, numbers, booleans and None), which
    :mod:`marshal` copies whole in C: about twice as quick as walking the tree in Python and six
    times quicker than ``copy.deepcopy`` (it runs on every move). Format version 2 writes every
    container out in full, so the copy shares nothing with the input.

    >>> state = {"hands": [["AS"], ["KD"]], "to_act": 0}
    >>> copied = clone(state)
    >>> copied["hands"][0].append("2C")
    >>> state["hands"][0], copied == state
    (['AS'], False)
    """
    copied: State = marshal.loads(marshal.dumps(state, _NO_SHARING))
    return copied


#: marshal's format 2 predates its back-references (format 3), so shared containers are copied.
_NO_SHARING = 2


def dumps(state: State) -> str:
    """Canonical JSON text of a state (sorted keys, no spaces)."""
    return json.dumps(state, sort_keys=True, separators=(",", ":"))


def loads(text: str, game: Game) -> State:
    """A state from its JSON text, refusing a version this code does not know."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("A stored state must be a JSON object.")
    if data.get("version") != game.state_version:
        raise ValueError(
            f"Stored {game.key} state has version {data.get('version')!r}; "
            f"this code reads version {game.state_version}."
        )
    return data


def field_of(action: Mapping[str, Any], name: str, kind: type) -> Any:
    """A typed field of an action, or a RuleError a player can read."""
    value = action.get(name)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RuleError(f"That action needs a {name}.")
    return value
