"""Computer players for every game: one entry, :func:`choose`, given only a seat's view.

A computer seat sees exactly what a human in that seat sees: ``view(state, seat)``, plus the
table's options and seat count, which a lobby knows anyway. It never gets the state, so it cannot
cheat, and two states that look the same to the seat get the same choice from the same generator.

- Hidden-information games (``castles``, ``king``, ``towers``) and the solo ``kurth`` (its pile
  order is the secret): information-set Monte Carlo tree search over determinizations, states
  sampled consistently with the view (:mod:`engine.ai.search`, the per-game models).
- ``knights`` (no chance, nothing hidden): alpha-beta search (:mod:`engine.ai.knights`).
- ``castles``' hard level: rollouts of its rule of thumb from sampled deals, every move on the
  same deals and dice (:func:`engine.ai.castles.rollout_search`).

Levels (each game's, in ``docs/computer.md``): ``easy`` plays a one-ply heuristic with some
random moves (Siege at Kurth's, a very small search), ``normal`` a small search,
``hard`` a larger one (in Castles Besieged, a game of dice, hard plays each move worth
searching on from the same sampled deals and dice with the heuristic, and takes the best:
``engine.ai.castles.rollout_search``). The default iteration budgets keep ``hard`` under
a second a move on the project's two-core machine; a caller that wants a time cap passes
``deadline``, a callable that returns True once time is up (the engine never reads a clock).
Everything here is a top-level function of plain data, so a ``ProcessPoolExecutor`` can run it.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Iterator, Mapping
from typing import Any

from engine import GAMES
from engine.ai.computer import Computer
from engine.ai.search import Deadline, Model, ismcts
from engine.declaration import COMPUTER_LEVELS
from engine.rules import Action

LEVELS: tuple[str, ...] = COMPUTER_LEVELS
#: The longest a front end lets a computer think about one move (the hard level's budgets stay
#: under it); the front end measures it with its own clock and passes ``deadline``.
THINKING_SECONDS = 1.0
# How often the easy level plays a random legal move instead of its heuristic's.
EASY_RANDOM = 0.3

# Each game's computer is declared in its own ``engine/ai/<key>.py`` (``COMPUTER``): found by
# key for every registered game that offers computer seats or a hint; a test may register one.
_COMPUTERS: dict[str, Computer] = {}


def computer_for(game_key: str) -> Computer:
    """The computer player of a game; a ValueError when the game has none."""
    found = _COMPUTERS.get(game_key)
    if found is not None:
        return found
    try:
        module = importlib.import_module(f"{__name__}.{game_key}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{game_key}":
            raise
        raise ValueError(f"No computer player for {game_key!r}.") from None
    computer = getattr(module, "COMPUTER", None)
    if not isinstance(computer, Computer):
        raise ValueError(f"No computer player for {game_key!r}.")
    _COMPUTERS[game_key] = computer
    return computer


def register(game_key: str, computer: Computer) -> None:
    """Give a game registered by a test (see :func:`engine.register`) its computer player."""
    if game_key in _COMPUTERS:
        raise ValueError(f"A computer is already registered for {game_key!r}.")
    _COMPUTERS[game_key] = computer


def unregister(game_key: str) -> None:
    _COMPUTERS.pop(game_key, None)


class _Budgets(Mapping[str, Mapping[str, int]]):
    """Search iterations per level (plies for Siege (1966)) of every game with a computer, read
    from each game's ``COMPUTER``; see ``docs/computer.md``."""

    def __getitem__(self, game_key: str) -> Mapping[str, int]:
        try:
            return computer_for(game_key).budgets
        except ValueError:
            raise KeyError(game_key) from None

    def __iter__(self) -> Iterator[str]:
        return (key for key in list(GAMES) if key in self)

    def __contains__(self, game_key: object) -> bool:
        if not isinstance(game_key, str):
            return False
        try:
            computer_for(game_key)
        except ValueError:
            return False
        return True

    def __len__(self) -> int:
        return sum(1 for _ in self)


BUDGETS: Mapping[str, Mapping[str, int]] = _Budgets()


def choose(
    game_key: str,
    view: Mapping[str, Any],
    seat: int,
    level: str,
    rng: random.Random,
    *,
    options: Mapping[str, Any] | None = None,
    budget: int | None = None,
    deadline: Deadline | None = None,
) -> Action:
    """One of ``seat``'s legal actions, chosen from ``view`` (``game.view(state, seat)``) alone.

    ``options`` are the table's options (defaults when omitted; needed where the view does not
    show them, as the bet sizes of tower poker); ``budget`` overrides the level's iterations
    (search depth for knights); ``deadline`` stops a search early when it returns True.
    """
    if level not in LEVELS:
        raise ValueError(f"Unknown level {level!r}; choose easy, normal or hard.")
    if view.get("to_act") != seat:
        raise ValueError("It is not this seat's turn.")
    computer = computer_for(game_key)
    if computer.searches(level):
        assert computer.search is not None
        depth = budget if budget is not None else computer.budgets.get(level, 1)
        return computer.search(view, seat, level, rng, depth=depth, deadline=deadline)
    assert computer.model is not None
    model = computer.model(view, seat, dict(options or {}), level)
    forced = model.shortcut(rng)
    if forced is not None:
        return forced
    if level == "easy" and budget is None and "easy" not in computer.budgets:
        return easy_action(model, seat, rng)
    iterations = budget if budget is not None else computer.budgets[level]
    return ismcts(model, seat, iterations, rng, deadline=deadline, guided=computer.guided)


def easy_action(model: Model, seat: int, rng: random.Random) -> Action:
    """The easy level: the playout policy's move on one sampled state (it sees only what the
    seat sees, since the policies read only the seat's own cards and the table)."""
    state = model.determinize(rng)
    legal = model.root_actions(model.game.legal_actions(state, seat))
    if rng.random() < EASY_RANDOM:
        return legal[rng.randrange(len(legal))]
    action = model.rollout_action(state, seat, rng)
    return action if action in legal else legal[rng.randrange(len(legal))]


def legal_actions(
    game_key: str, view: Mapping[str, Any], seat: int, options: Mapping[str, Any] | None = None
) -> list[Action]:
    """The seat's legal actions as the computer reconstructs them from its view (equal to the
    engine's list; the tests check it)."""
    computer = computer_for(game_key)
    if computer.legal_from_view is not None:
        return computer.legal_from_view(view, seat)
    assert computer.model is not None
    model = computer.model(view, seat, dict(options or {}), "normal")
    if view.get("to_act") != seat or view.get("result") is not None:
        return []
    return model.game.legal_actions(model.determinize(random.Random(0)), seat)


def hint(
    game_key: str,
    view: Mapping[str, Any],
    seat: int,
    rng: random.Random,
    *,
    options: Mapping[str, Any] | None = None,
    deadline: Deadline | None = None,
) -> tuple[Action, str]:
    """A game's "What would the computer do?" (declared with ``About.hint``; Siege at Kurth's):
    the hard choice and one sentence why."""
    reason = computer_for(game_key).reason
    if reason is None:
        raise ValueError(f"{game_key!r} offers no hint.")
    action = choose(game_key, view, seat, "hard", rng, options=options, deadline=deadline)
    return action, reason(view, action)


__all__ = [
    "BUDGETS",
    "LEVELS",
    "Computer",
    "choose",
    "computer_for",
    "hint",
    "legal_actions",
    "register",
    "unregister",
]
