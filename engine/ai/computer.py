"""What a game's computer player is, declared once in the game's own ``engine/ai/<key>.py``.

Each such module ends with ``COMPUTER = Computer(...)``: the search budgets of its levels and
either a *model* for the shared information-set search (:mod:`engine.ai.search`) or a search of
its own (Siege (1966)'s alpha-beta). :mod:`engine.ai` finds the module by the game's key, so a
new game's computer needs no line anywhere else.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.ai.search import Deadline, Model
from engine.rules import Action

#: A game's model for one decision: the view, the seat, the table's options and the level.
ModelFactory = Callable[[Mapping[str, Any], int, Mapping[str, Any], str], Model]
#: The seat's legal actions rebuilt from its view (for games without a model).
LegalFromView = Callable[[Mapping[str, Any], int], list[Action]]
#: One sentence saying why an action is good (a game whose declaration offers a hint).
Reason = Callable[[Mapping[str, Any], Action], str]


class Search(Protocol):
    """A game's own search: ``depth`` is the level's budget, ``deadline`` may stop it early."""

    def __call__(
        self,
        view: Mapping[str, Any],
        seat: int,
        level: str,
        rng: random.Random,
        *,
        depth: int,
        deadline: Deadline | None = None,
    ) -> Action: ...


class SampledSearch(Protocol):
    """A search over ``samples`` sampled worlds (a rollout search), ``deadline`` may stop it."""

    def __call__(
        self,
        view: Mapping[str, Any],
        seat: int,
        rng: random.Random,
        samples: int,
        *,
        deadline: Deadline | None = None,
    ) -> Action: ...


def sampled(search: SampledSearch) -> Search:
    """``search`` as a game's :class:`Search`: a level's budget is its number of samples."""

    def run(
        view: Mapping[str, Any],
        seat: int,
        level: str,
        rng: random.Random,
        *,
        depth: int,
        deadline: Deadline | None = None,
    ) -> Action:
        return search(view, seat, rng, depth, deadline=deadline)

    return run


@dataclass(frozen=True)
class Computer:
    """A game's computer player.

    ``budgets`` are the search iterations per level (plies for a search of its own); a level
    with no budget plays the model's playout policy (:func:`engine.ai.easy_action`).
    ``guided``: the search widens a node one reply at
    a time, the playout policy's first (:func:`engine.ai.search.ismcts`).

    A game may have a model, a search of its own, or both: then ``search_levels`` are the levels
    its own search plays (a rollout search at hard, say), and the model plays the others.
    """

    budgets: Mapping[str, int]
    model: ModelFactory | None = None
    search: Search | None = None
    legal_from_view: LegalFromView | None = None
    reason: Reason | None = None
    guided: bool = False
    search_levels: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if self.model is None and self.search is None:
            raise ValueError("A computer has a model, a search of its own, or both.")
        if self.model is not None and self.search is not None and not self.search_levels:
            raise ValueError("A computer with a model and a search says which levels search.")
        if self.search is None and self.search_levels:
            raise ValueError("Only a computer with a search of its own has search levels.")
        if self.model is None and self.legal_from_view is None:
            raise ValueError("A computer with its own search rebuilds legal actions too.")

    def searches(self, level: str) -> bool:
        """Whether the game's own search plays ``level`` (else the model, by the shared
        :func:`engine.ai.search.ismcts` or its playout policy)."""
        return self.search is not None and (self.model is None or level in self.search_levels)
