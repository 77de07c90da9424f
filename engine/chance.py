"""Where a game's chance comes from: streams by purpose, and the commitment that proves them.

Every game draws its chance through the generator its ``setup`` and ``apply`` are given; this
module decides what that generator is, once for every game, so no game module has to.

* The deal (``setup``) draws from the stream ``"<seed>:setup"``.
* Since chance scheme 2 (:data:`BY_PURPOSE`) every later draw comes from its own stream, named
  by what it is for and how many of its kind came before it in the game: ``die:17`` is the 17th
  die rolled (``randint``), ``shuffle:2`` the second shuffle after the deal (in Siege at Kurth the
  one before round 3), ``draw:n`` the n-th ``sample``, ``pick:n`` the n-th ``randrange`` or
  ``choice``. The counts live in the state (key ``chance``), so with one seed the n-th die and
  the n-th shuffle are the same whatever the players chose: a daily challenge deals everyone the
  same game, and nothing a player does can steer a later die.
* Games stored before that (scheme 1, :data:`BY_PLY`, a state without the ``chance`` key) drew a
  whole move from ``"<seed>:<ply>"``; they keep it, so an old game replays exactly as it was dealt.

Stacked dice and piles (scripts and tests) are the game's own override: a stacked die is taken
before the generator is asked, so it draws nothing here.

The commitment of a game is ``sha256("<seed>:<salt>")`` in hex, with a random salt kept beside
the seed: shown when the game starts, it binds the table to a seed that stays secret (the salt
makes guessing the seed from the hash hopeless) until the end, when both are revealed and
``python -m engine.verify`` checks them.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Mapping, MutableSequence, Sequence
from typing import Any, TypeVar

from engine.legal import play
from engine.rules import Action, Event, Game, State, rng_for

T = TypeVar("T")

#: Scheme 1: one generator per move, seeded with the seed and the ply (tables dealt before it).
BY_PLY = 1
#: Scheme 2: one stream per draw, named by its purpose and count (every game dealt since).
BY_PURPOSE = 2
CURRENT = BY_PURPOSE
SCHEMES = (BY_PLY, BY_PURPOSE)

#: The state key holding the scheme and the counts of draws so far (absent: :data:`BY_PLY`).
KEY = "chance"

#: How many hex digits of the commitment a table shows (the footer has all 64).
SHORT = 12


class ChanceError(RuntimeError):
    """A game drew chance in a way that has no purpose stream (a bug in a game, not a move)."""


class Chance(random.Random):
    """The generator of one move under :data:`BY_PURPOSE`: every draw takes the next stream of
    its kind (``die``, ``shuffle``, ``draw``, ``pick``) and counts it in :attr:`drawn`.

    >>> first = Chance(7, {})
    >>> dice = [first.randint(1, 6) for _ in range(3)]
    >>> later = Chance(7, {"die": 2})
    >>> later.randint(1, 6) == dice[2], later.drawn
    (True, {'die': 3})
    """

    def __init__(self, seed: int, drawn: Mapping[str, int]) -> None:
        super().__init__(f"{seed}:unused")
        self.game_seed = seed
        self.drawn = {str(kind): int(n) for kind, n in drawn.items()}

    def stream(self, purpose: str) -> random.Random:
        """The stream named ``purpose`` (``"die:17"``) of this game's seed."""
        return random.Random(f"{self.game_seed}:{purpose}")

    def _next(self, kind: str) -> random.Random:
        n = self.drawn.get(kind, 0) + 1
        self.drawn[kind] = n
        return self.stream(f"{kind}:{n}")

    def randint(self, a: int, b: int) -> int:
        return self._next("die").randint(a, b)

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        return self._next("pick").randrange(start, stop, step)

    def choice(self, seq: Sequence[T]) -> T:  # type: ignore[override]
        return self._next("pick").choice(seq)

    def shuffle(self, x: MutableSequence[Any]) -> None:
        self._next("shuffle").shuffle(x)

    def sample(
        self, population: Sequence[T], k: int, *, counts: Iterable[int] | None = None
    ) -> list[T]:
        return self._next("draw").sample(population, k, counts=counts)

    def random(self) -> float:
        raise ChanceError("Chance is drawn by purpose: roll a die, shuffle, sample or pick.")


def shuffle_for(rng: random.Random, cards: list[Any], purpose: str) -> None:
    """Shuffle ``cards`` by the stream named ``purpose`` (``"shuffle:hand-3"``), whatever was
    drawn before and whatever order the cards were gathered in (they are sorted first), under
    :data:`BY_PURPOSE`; a game of :data:`BY_PLY` shuffles with its move's generator, as it was
    dealt. For shuffles whose count depends on play (a pile that ran out), where the n-th
    shuffle would not be the same shuffle in two games of one seed.

    >>> a, b = ["3S", "AS", "KD"], ["KD", "3S", "AS"]
    >>> shuffle_for(Chance(5, {}), a, "shuffle:hand-2")
    >>> shuffle_for(Chance(5, {"shuffle": 4}), b, "shuffle:hand-2")
    >>> a == b
    True
    """
    if isinstance(rng, Chance):
        cards.sort()
        rng.stream(purpose).shuffle(cards)
    else:
        rng.shuffle(cards)


def deal(
    game: Game,
    seats: int,
    options: Mapping[str, Any],
    seed: int,
    stack: Mapping[str, Any] | None = None,
    scheme: int = CURRENT,
) -> State:
    """A game's opening state under ``scheme`` (the deal itself is the same in both)."""
    if scheme not in SCHEMES:
        raise ValueError(f"Unknown chance scheme {scheme!r}.")
    state = game.setup(seats, options, rng_for(seed, "setup"), stack)
    if scheme == BY_PURPOSE:
        state[KEY] = {"scheme": BY_PURPOSE, "drawn": {}}
    return state


def scheme_of(state: State | None) -> int:
    """The scheme a state was dealt with (a state from before schemes: :data:`BY_PLY`)."""
    if state is None or KEY not in state:
        return BY_PLY
    return int(state[KEY]["scheme"])


def advance(
    game: Game, state: State, seat: int, action: Action, seed: int, ply: int
) -> tuple[State, list[Event]]:
    """An action from outside, through the one gate (:func:`engine.legal.play`: only a legal
    action, JSON types included), with the chance of the state's scheme (``ply`` matters only
    to :data:`BY_PLY`). A refused action raises the game's RuleError and counts nothing."""
    if KEY not in state:
        return play(game, state, seat, action, rng_for(seed, ply))
    chance = Chance(seed, state[KEY]["drawn"])
    new, events = play(game, state, seat, action, chance)
    new[KEY] = {"scheme": BY_PURPOSE, "drawn": chance.drawn}
    return new, events


def keep(before: State, after: State) -> State:
    """``after`` (made without chance, such as a resignation) with ``before``'s chance record."""
    if KEY in before:
        after[KEY] = {"scheme": before[KEY]["scheme"], "drawn": dict(before[KEY]["drawn"])}
    return after


def commitment(seed: int, salt: str) -> str:
    """The hash a table shows at its start and reveals the inputs of at its end.

    >>> commitment(1, "00")[:SHORT]
    '0d3eefe364d4'
    """
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


__all__ = [
    "BY_PLY",
    "BY_PURPOSE",
    "CURRENT",
    "KEY",
    "SHORT",
    "Chance",
    "ChanceError",
    "advance",
    "commitment",
    "deal",
    "keep",
    "scheme_of",
    "shuffle_for",
]
