"""The computer's model of Siege at Kurth (solo): determinizer, playout policy, evaluation and
the one-sentence reason behind a hint.

Everything is public but the pile's order (``engine.kurth`` view), so a determinization shuffles
the action cards neither on the table nor in the discard into the pile. Fate's Favor undoes the
last roll's outcome, which the view shows only as the roll: the determinizer rebuilds it from the
Siege Force and Attack Roll tables.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.ai.computer import Computer
from engine.ai.search import EngineRules, squash
from engine.kurth import (
    DECK,
    GAME,
    LOCATION_NAMES,
    LOCATIONS,
    OVERRUN_LIMITS,
    SPECIALS,
    SPELLS,
    final_score,
    markers_removed,
    siege_strength,
    spirit_loss,
)
from engine.kurth_moves import _legal
from engine.kurth_turns import step
from engine.rules import Action, Game, State

_INDEX = {key: n for n, key in enumerate(LOCATIONS)}
BEST_SCORE = final_score(12, 15, 0)


class KurthModel(EngineRules):
    game: Game = GAME
    rollout_depth = 200

    def __init__(self, view: Mapping[str, Any], seat: int) -> None:
        self.view = view
        self.seat = seat

    def shortcut(self, rng: random.Random) -> Action | None:
        return None

    def determinize(self, rng: random.Random) -> State:
        return determinize(self.view, rng)

    def legal(self, state: State, seat: int) -> list[Action]:
        return _legal(state) if state["result"] is None else []

    def apply(self, state: State, seat: int, action: Action, rng: random.Random) -> State:
        """The engine's transition without its checks: the search only plays actions from the
        legal list (half of a playout's time went into checking them again)."""
        return step(state, action, rng)[0]

    def rollout_action(self, state: State, seat: int, rng: random.Random) -> Action:
        if rng.random() < 0.15:
            legal = _legal(state)
            return legal[rng.randrange(len(legal))]
        return greedy_action(state, None, rng)

    def evaluate(self, state: State) -> Sequence[float]:
        result = GAME.result(state)
        if result is not None:
            if result.winners:
                score = (result.scores or (0,))[0]
                return [0.6 + 0.4 * score / BEST_SCORE]
            return [0.05 * state["turn"] / 12]
        limit = OVERRUN_LIMITS[state["difficulty"]]
        heavy = sum(max(0, m - 4) for m in state["markers"])
        over = sum(m >= 8 for m in state["markers"])
        return [squash(0.25 * state["spirit"] - 1.5 * over / limit - 0.1 * heavy)]

    def is_cutoff(self, state: State, depth: int) -> bool:
        return depth >= self.rollout_depth

    def root_actions(self, legal: list[Action]) -> list[Action]:
        return legal


def determinize(view: Mapping[str, Any], rng: random.Random) -> State:
    summary = view["summary"]
    shown = [c["code"] for c in view["hand"]]
    discard = list(view["discard"])
    pile = [c for c in DECK if c not in set(shown) | set(discard)]
    rng.shuffle(pile)
    markers = [summary["markers"][key] for key in LOCATIONS]
    roll = summary["roll"]
    outcome = None
    spells = list(summary["spells_cast_this_turn"])
    bonus = 2 * spells.count("flame_lance") + 4 * spells.count("thunderclap")
    here = _INDEX[summary["location"]]
    if roll is not None:
        bonus = roll["bonus"]
        if roll["won"]:
            # Removed markers: the table's figure, unless the location was cleared (then at
            # most that; the table's figure keeps the undo honest often enough).
            outcome = {"removed": markers_removed(roll["total"]), "spirit_lost": 0}
        else:
            outcome = {"removed": 0, "spirit_lost": spirit_loss(markers[here])}
    return {
        "version": GAME.state_version,
        "difficulty": summary["difficulty"],
        "round": summary["round"],
        "turn": summary["turn"],
        "phase": summary["phase"],
        "location": here,
        "spirit": summary["spirit"],
        "mana": summary["mana"],
        "passage_open": summary["passage_open"],
        "markers": markers,
        "protected": sorted(_INDEX[k] for k in summary["protected"]),
        "cards": shown,
        "pile": pile,
        "discard": discard,
        "placed": [dict(p) for p in summary["placed"]],
        "reinforcements": summary["reinforcements"],
        "bonus_strength": summary["bonus_strength"],
        "mana_boost": summary["mana_boost"],
        "spells": spells,
        "special": summary["special_used"],
        "bonus": bonus,
        "roll": None if roll is None else {**roll, "dice": list(roll["dice"])},
        "outcome": outcome,
        "dice": [],
        "to_act": view["to_act"],
        "result": view["result"],
    }


def greedy_action(state: State, legal: list[Action] | None, rng: random.Random) -> Action:
    """Go where the markers are thickest, attack, boost an attack that looks short, end the
    turn. ``legal`` is the state's legal list, or None to list only what the choice needs (an
    attack and ending the turn are always legal in their phases)."""
    phase = state["phase"]
    markers = state["markers"]
    if phase == "move":
        moves = [a for a in (_legal(state) if legal is None else legal) if a["type"] == "move"]
        if moves:
            top = max(markers[_INDEX[a["to"]]] for a in moves)
            best = [a for a in moves if markers[_INDEX[a["to"]]] == top]
            return best[rng.randrange(len(best))]
    if phase == "attack":
        here = markers[state["location"]]
        strength = siege_strength(here) + state["bonus_strength"] - state["bonus"]
        if strength >= 8:
            boosts = [
                a
                for a in (_legal(state) if legal is None else legal)
                if a["type"] == "cast" and a["spell"] in ("flame_lance", "thunderclap", "banish")
            ]
            if boosts and rng.random() < 0.7:
                return boosts[rng.randrange(len(boosts))]
        return {"type": "attack"}
    if phase == "done":
        return {"type": "end_turn"}
    legal = _legal(state) if legal is None else legal
    return legal[rng.randrange(len(legal))]


def reason(view: Mapping[str, Any], action: Action) -> str:
    """One sentence on why the hint's action helps, in the player's words."""
    summary = view["summary"]
    kind = action["type"]
    if kind == "move":
        place = action["to"]
        n = summary["markers"][place]
        if n == 0:
            return f"Move to {LOCATION_NAMES[place]}: the searched futures fare best from there."
        return (
            f"Move to {LOCATION_NAMES[place]}: its {n} marker{'s' if n != 1 else ''} are the "
            "biggest threat you can reach and fight this turn."
        )
    if kind == "attack":
        here = summary["markers"][summary["location"]]
        strength = siege_strength(here) + summary["bonus_strength"]
        return f"Attack now: you need {strength} or more on two dice to drive the markers back."
    if kind == "end_turn":
        return "End the turn: nothing left this turn is worth its spirit or mana."
    if kind == "cast":
        spell = SPELLS[action["spell"]]
        return f"Cast {spell.name} ({spell.effect}): it is worth its {spell.cost} mana now."
    special = SPECIALS[action["name"]]
    return f"Use {special.name} ({special.effect}): it is worth its {special.cost} spirit now."


# Search iterations per level. The heuristic alone is no better than random play, so easy is a
# very small search; the hint is hard's choice with a sentence why.
COMPUTER = Computer(
    budgets={"easy": 8, "normal": 50, "hard": 600},
    model=lambda view, seat, options, level: KurthModel(view, seat),
    reason=reason,
)
