"""Siege Sticks' rules: take one to three stones; whoever takes the last one wins."""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.declaration import About
from engine.rules import (
    JSON,
    Action,
    Event,
    IntRange,
    Option,
    RuleError,
    State,
    StoredTurn,
    check_seats,
    check_turn,
    clone,
    resolve_options,
)


class Sticks(StoredTurn):
    key = "sticks"
    title = "Siege Sticks"
    min_seats = 2
    max_seats = 2
    state_version = 1
    options: tuple[Option, ...] = (
        IntRange.between("stones", 7, 3, 30, "Stones before the gate at the start."),
    )
    about = About(command="siege-sticks", blurb="two players: take the last stone, take the gate")

    def setup(
        self,
        seats: int,
        options: Mapping[str, JSON],
        rng: random.Random,
        stack: Mapping[str, JSON] | None = None,
    ) -> State:
        check_seats(self, seats)
        stones = resolve_options(self, options)["stones"]
        return {"version": 1, "stones": stones, "to_act": 0, "result": None}

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["result"] is not None or state["to_act"] != seat:
            return []
        return [{"type": "take", "n": n} for n in range(1, min(3, state["stones"]) + 1)]

    def apply(
        self, state: State, seat: int, action: Action, rng: random.Random
    ) -> tuple[State, list[Event]]:
        check_turn(self, state, seat)
        if action not in self.legal_actions(state, seat):
            raise RuleError("Take one, two or three stones, and no more than are left.")
        new = clone(state)
        new["stones"] -= action["n"]
        if new["stones"] == 0:
            new["result"], new["to_act"] = {"winners": [seat], "reason": "gate_taken"}, None
        else:
            new["to_act"] = 1 - seat
        return new, [{"type": "taken", "seat": seat, "n": action["n"], "left": new["stones"]}]

    def resign(self, state: State, seat: int) -> tuple[State, list[Event]]:
        new = clone(state)
        new["result"], new["to_act"] = {"winners": [1 - seat], "reason": "resigned"}, None
        return new, [{"type": "resigned", "seat": seat}]

    def view(self, state: State, seat: int | None) -> dict[str, JSON]:
        return clone(state)  # nothing is hidden

    def summary(self, state: State) -> dict[str, JSON]:
        return {"stones": state["stones"]}

    def rematch_options(self, options: Mapping[str, JSON], result: object) -> dict[str, JSON]:
        return dict(options)


GAME = Sticks()
