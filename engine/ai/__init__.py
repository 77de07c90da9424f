"""Computer players for every game: one entry, :func:`choose`, given only a seat's view.

A computer seat sees exactly what a human in that seat sees: ``view(state, seat)``, plus the
table's options and seat count, which a lobby knows anyway. It never gets the state, so it cannot
cheat, and two states that look the same to the seat get the same choice from the same generator.

- Hidden-information games (``castles``, ``king``, ``towers``) and the solo ``kurth`` (its pile
  order is the secret): information-set Monte Carlo tree search over determinizations, states
  sampled consistently with the view (:mod:`engine.ai.search`, the per-game models).
- ``knights`` (no chance, nothing hidden): alpha-beta search (:mod:`engine.ai.knights`).

Levels (each game's, in ``docs/computer.md``): ``easy`` plays a one-ply heuristic with some
random moves (Siege at Kurth's, a very small search), ``normal`` a small search,
``hard`` a larger one (in Castles Besieged, a game of dice, hard keeps the heuristic's move
unless its search finds one clearly better). The default iteration budgets keep ``hard`` under
a second a move on the project's two-core machine; a caller that wants a time cap passes
``deadline``, a callable that returns True once time is up (the engine never reads a clock).
Everything here is a top-level function of plain data, so a ``ProcessPoolExecutor`` can run it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from engine.ai import castles, king, knights, kurth, towers
from engine.ai.search import Deadline, Model, ismcts
from engine.declaration import COMPUTER_LEVELS
from engine.rules import Action

LEVELS: tuple[str, ...] = COMPUTER_LEVELS
#: The longest a front end lets a computer think about one move (the hard level's budgets stay
#: under it); the front end measures it with its own clock and passes ``deadline``.
THINKING_SECONDS = 1.0
# How often the easy level plays a random legal move instead of its heuristic's.
EASY_RANDOM = 0.3

# Search iterations per move (search depth in plies for knights), per game and level, so that
# hard stays under a second a move (see benchmarks/computer_strength.py). A game with no "easy"
# budget plays easy by its heuristic (:func:`easy_action`); Siege at Kurth's heuristic alone is
# no better than random play, so its easy level is a small search.
BUDGETS: dict[str, dict[str, int]] = {
    "castles": {"normal": 20, "hard": 300},
    "king": {"normal": 40, "hard": 220},
    "towers": {"normal": 60, "hard": 400},
    "kurth": {"easy": 8, "normal": 50, "hard": 600},
    "knights": {"normal": 2, "hard": 4},  # search depth in plies
}

#: Games whose search expands a node first with its playout policy's reply
#: (:func:`engine.ai.search.ismcts`, ``guided``).
GUIDED = frozenset({"king"})

#: A game's model for one decision: the view, the seat, the table's options and the level.
ModelFactory = Callable[[Mapping[str, Any], int, Mapping[str, Any], str], Model]


def _models() -> dict[str, ModelFactory]:
    return {
        "castles": lambda view, seat, options, level: castles.CastlesModel(view, seat, level),
        "king": lambda view, seat, options, level: king.KingModel(view, seat, options),
        "towers": lambda view, seat, options, level: towers.TowersModel(view, seat, options),
        "kurth": lambda view, seat, options, level: kurth.KurthModel(view, seat),
    }


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
    opts = dict(options or {})
    if game_key == "knights":
        depth = budget if budget is not None else BUDGETS["knights"].get(level, 1)
        return knights.choose(view, seat, level, rng, depth=depth, deadline=deadline)
    factories = _models()
    if game_key not in factories:
        raise ValueError(f"No computer player for {game_key!r}.")
    model = factories[game_key](view, seat, opts, level)
    forced = model.shortcut(rng)
    if forced is not None:
        return forced
    if level == "easy" and budget is None and "easy" not in BUDGETS[game_key]:
        return easy_action(model, seat, rng)
    iterations = budget if budget is not None else BUDGETS[game_key][level]
    anchor = None
    if level == "hard" and isinstance(model, castles.CastlesModel):
        anchor = model.anchor(rng)
    guided = game_key in GUIDED
    return ismcts(model, seat, iterations, rng, deadline=deadline, anchor=anchor, guided=guided)


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
    if game_key == "knights":
        return knights.legal_from_view(view, seat)
    model = _models()[game_key](view, seat, dict(options or {}), "normal")
    if view.get("to_act") != seat or view.get("result") is not None:
        return []
    return model.game.legal_actions(model.determinize(random.Random(0)), seat)


def hint(
    view: Mapping[str, Any],
    seat: int,
    rng: random.Random,
    *,
    options: Mapping[str, Any] | None = None,
    deadline: Deadline | None = None,
) -> tuple[Action, str]:
    """Siege at Kurth's "What would the computer do?": the hard choice and one sentence why."""
    action = choose("kurth", view, seat, "hard", rng, options=options, deadline=deadline)
    return action, kurth.reason(view, action)


__all__ = ["BUDGETS", "LEVELS", "choose", "hint", "legal_actions"]
