"""Siege Sticks' computer player: the shared search over a game with nothing hidden."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.ai.computer import Computer
from engine.ai.search import EngineRules
from engine.rules import Action, Game, State, clone
from tests.toy.sticks import GAME


class SticksModel(EngineRules):
    rollout_depth = 40

    def __init__(self, view: Mapping[str, Any], seat: int) -> None:
        self.game: Game = GAME
        self.view, self.seat = dict(view), seat

    def shortcut(self, rng: random.Random) -> Action | None:
        return None

    def determinize(self, rng: random.Random) -> State:
        return clone(self.view)  # nothing is hidden: the view is the state

    def rollout_action(self, state: State, seat: int, rng: random.Random) -> Action:
        return rng.choice(self.legal(state, seat))

    def evaluate(self, state: State) -> Sequence[float]:
        return [0.5, 0.5]

    def is_cutoff(self, state: State, depth: int) -> bool:
        return False

    def root_actions(self, legal: list[Action]) -> list[Action]:
        return legal


COMPUTER = Computer(
    budgets={"normal": 50, "hard": 300},
    model=lambda view, seat, options, level: SticksModel(view, seat),
)
