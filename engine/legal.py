"""The one gate between an action from outside (a stored table, a script) and a game's rules.

``../shared/spec/README.md``, under ``legal``: "an action is accepted only if it equals one of the
listed actions (the same keys, the same values, the same JSON types), except where a game file
says otherwise (tower poker's ``cards`` lists are accepted in any order). Extra keys, ``1.0`` for
``1``, or a seat that is not a whole number are refused and change nothing."

Python's ``==`` says ``True == 1 == 1.0`` and ignores nothing of a dictionary but its order, so
the comparison here is by JSON type as well as value, and ``NaN`` equals nothing. It only walks
as deep as the listed action, so a deeply nested value is refused at its first level. A game
names its unordered list fields in ``unordered_fields`` (tower poker: ``{"cards"}``).

The games' own ``apply`` reads the fields it needs and says, in a sentence a player understands,
why an action is refused; an action that is not listed still goes to it for that sentence, and
only if it would have been accepted (an extra key, ``1.0`` for ``1``) does the refusal come from
here. The computers' searches call ``apply`` directly with listed actions and skip this.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.rules import Action, Event, Game, RuleError, State, check_seat

NOT_LISTED = "That is not one of the moves open to you now."


def same(value: object, listed: object) -> bool:
    """Equal as JSON: the same type at every level, the same keys, the same values in order.

    >>> same({"pos": 1}, {"pos": 1}), same({"pos": 1.0}, {"pos": 1}), same(True, 1)
    (True, False, False)
    >>> same(float("nan"), float("nan")), same(["AS"], ("AS",))
    (False, False)
    """
    if type(value) is not type(listed):
        return False
    if isinstance(listed, dict):
        assert isinstance(value, dict)
        return value.keys() == listed.keys() and all(same(value[k], v) for k, v in listed.items())
    if isinstance(listed, list):
        assert isinstance(value, list)
        return len(value) == len(listed) and all(map(same, value, listed))
    return value == listed


def is_listed(action: Mapping[str, Any], legal: list[Action], unordered: frozenset[str]) -> bool:
    """Whether ``action`` is one of ``legal`` (``unordered`` list fields compared as multisets)."""
    if not isinstance(action, dict):
        return False
    if unordered:
        action = {k: _sorted(v) if k in unordered else v for k, v in action.items()}
    for listed in legal:
        if unordered:
            listed = {k: _sorted(v) if k in unordered else v for k, v in listed.items()}
        if same(action, listed):
            return True
    return False


def play(
    game: Game, state: State, seat: int, action: Action, rng: random.Random
) -> tuple[State, list[Event]]:
    """``game.apply`` for an action from outside: refused with a :class:`RuleError` (and nothing
    applied) unless ``seat`` is a whole number and ``action`` is one of its legal actions."""
    check_seat(seat)
    if not isinstance(action, dict):
        raise RuleError(f"That is not a move in {game.title}.")
    unordered: frozenset[str] = getattr(game, "unordered_fields", frozenset())
    legal = game.legal_actions(state, seat)
    if is_listed(action, legal, unordered):
        return game.apply(state, seat, action, rng)
    try:  # the game's own sentence for why (not your turn, a card you do not hold...)
        game.apply(state, seat, action, rng)
    except RuleError:
        raise
    except Exception:  # junk the game's checks never expected: the refusal below says it
        pass
    raise RuleError(_why_not(action, legal))


def _why_not(action: Mapping[str, Any], legal: list[Action]) -> str:
    """The refusal of an action the game itself would have taken: a field no listed action of
    its type has, or values of the wrong JSON type (``1.0`` for ``1``, ``true``, ``NaN``)."""
    kind = action.get("type")
    fields = {key for listed in legal if same(kind, listed.get("type")) for key in listed}
    extra = sorted(str(key) for key in action if key not in fields)
    if fields and extra:
        return f"That action has a field it does not take: {extra[0]!r}."
    return NOT_LISTED


def _sorted(value: object) -> object:
    """A list of strings in sorted order (anything else unchanged, so it compares as before)."""
    if isinstance(value, list) and all(type(item) is str for item in value):
        return sorted(value)
    return value
