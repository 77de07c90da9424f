"""The computer's easy and normal players of Siege the King: a model for the shared IS-MCTS
(playout policy and evaluation), and the game's ``COMPUTER``. Hard is the rollout search of
:mod:`engine.ai.king_rollouts`; the worlds both deal are :mod:`engine.ai.king_worlds`'.

What a seat sees (``engine.king`` view): every column and its cards, the discard pile, the
counts, its own hand and castle order. Unseen are the other hand, the pile's order and where the
other King hides among that seat's face-down castle cards.

Hiding its own King: the model values its own castle as the other player can judge it (the
King's column counts :data:`KING_WEIGHT` of its safety, the face-down columns together the rest)
and its playouts shore up the weakest face-down column rather than the King's; every sample
moves its own King (``king_worlds.MIXING``). It guards the face-down column nearest to falling
(:data:`NEAREST`), which is where the next attack goes, whichever card it hides.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.ai.computer import Computer, sampled
from engine.ai.king_rollouts import SAMPLES, rollout_search
from engine.ai.king_worlds import (
    determinize,
    guarded,
    guess_king,
    public_columns,
    specials_of,
    weakest,
)
from engine.ai.search import EngineRules, result_rewards, squash
from engine.king import (
    ATTACKER,
    DEFENDER,
    GAME,
    JUDGE,
    KING,
    SORC,
    THRONE,
    card_value,
    column_value,
    deck,
)
from engine.rules import Action, Game, State

#: The share of the King's own column in a seat's safety while it is face down; the face-down
#: columns (the King's among them) share the rest equally.
KING_WEIGHT = 0.0
#: How often the other seat, in the playouts, goes for this seat's face-down column nearest to
#: falling (else for where it guesses the King): not knowing where the King is, an attacker
#: finishes the column it has started on.
FOCUS = 0.85
#: The share of the most endangered face-down column in a seat's danger (the rest is the mean
#: over its face-down columns): a column an attack can bring down next turn matters more than
#: the average says, whichever castle card it hides. (0.5 with MIXING 1.0 lost strength
#: against the public-greedy player, 32.0% against 41.0% of 100 tuning games; 0.8 won it back.)
NEAREST = 0.8


class KingModel(EngineRules):
    game: Game = GAME
    rollout_depth = 6

    def __init__(self, view: Mapping[str, Any], seat: int, options: Mapping[str, Any]) -> None:
        self.view = view
        self.seat = seat
        self.specials = specials_of(view, options)

    def shortcut(self, rng: random.Random) -> Action | None:
        """Arranging and aiming the Assassin need no search: any castle order is as good as
        another to a player who shows nothing, and the Assassin goes for the strongest open
        column, where a player keeping its King safe is likeliest to have built."""
        summary = self.view["summary"]
        if summary["phase"] == "arrange":
            orders = ([KING, THRONE, THRONE], [THRONE, KING, THRONE], [THRONE, THRONE, KING])
            return {"type": "arrange", "order": list(orders[rng.randrange(3)])}
        if summary["phase"] == "assassinate":
            columns = summary["columns"][1 - self.seat]
            open_ = [i for i in range(3) if columns[i]["open"]]
            top = max(columns[i]["value"] for i in open_)
            best = [i for i in open_ if columns[i]["value"] == top]
            return {"type": "assassinate", "column": best[rng.randrange(len(best))]}
        return None

    def determinize(self, rng: random.Random) -> State:
        return determinize(self.view, self.seat, self.specials, rng)

    def rollout_action(self, state: State, seat: int, rng: random.Random) -> Action:
        legal = GAME.legal_actions(state, seat)
        if rng.random() < 0.3:
            return legal[rng.randrange(len(legal))]
        if seat == self.seat:
            target = state["castles"][1 - seat].index(KING)
        else:
            # The other seat does not know where this seat's King is: it mostly (FOCUS) goes
            # for the face-down column nearest to falling, else for where it guesses the King.
            public = public_columns(state, 1 - seat)
            focused = rng.random() < FOCUS
            target = weakest(state, 1 - seat) if focused else guess_king(public, rng)
        return greedy_action(state, seat, legal, target, rng)

    def evaluate(self, state: State) -> Sequence[float]:
        done = result_rewards(GAME, state, 2)
        if done is not None:
            return done
        return evaluate(state, self.seat)

    def is_cutoff(self, state: State, depth: int) -> bool:
        return depth >= self.rollout_depth

    def root_actions(self, legal: list[Action]) -> list[Action]:
        return legal


def _safety(state: State, s: int, king: int) -> float:
    value = column_value(state["columns"][s][king])
    return 4.0 / (1.0 + max(value, 0)) - 0.08 * value


def evaluate(state: State, me: int) -> list[float]:
    """The King columns' safety decides (a column near 0 is in danger; each point matters more
    the lower it is), then the open columns left to hide behind. The searching seat knows both
    Kings of the sampled state; the other seat is scored as it can judge, not knowing where our
    King is (its danger is averaged over our face-down columns), so that the search does not
    credit it with knowledge it lacks. That danger weighs the column nearest to falling by
    :data:`NEAREST` on top of the mean, since the next attack goes there."""
    other = 1 - me
    opens = sum(state["open"][me]) - sum(state["open"][other])
    theirs = _safety(state, other, state["castles"][other].index(KING))
    king = state["castles"][me].index(KING)
    hidden = [i for i in range(3) if not state["revealed"][me][i]] or [king]
    dangers = [_safety(state, me, i) for i in hidden]
    guessed = (1 - NEAREST) * sum(dangers) / len(dangers) + NEAREST * max(dangers)
    mine = _safety(state, me, king)
    if king in hidden:
        mine = KING_WEIGHT * mine + (1 - KING_WEIGHT) * guessed
    p_me = squash(theirs - mine + 0.25 * opens)
    p_other = 1.0 - squash(theirs - guessed + 0.25 * opens)
    rewards = [0.0, 0.0]
    rewards[me], rewards[other] = p_me, p_other
    return rewards


def greedy_action(
    state: State, seat: int, legal: list[Action], target: int, rng: random.Random
) -> Action:
    """A quick one-ply guess for playouts, over a sample of the legal actions: strike the other
    King's column hard, shore up one's weakest face-down column (the King's once it shows)
    when it runs low, remove enemy Attackers there with a Judge; otherwise anything."""
    other = 1 - seat
    king_mine = guarded(state, seat)
    king_theirs = target
    mine_low = column_value(state["columns"][seat][king_mine]) < 8
    sample = legal if len(legal) <= 10 else rng.sample(legal, 10)
    best = sample[0]
    best_score = -1e9
    for action in sample:
        score = rng.random() * 0.5
        if action["type"] == "play":
            card = action["card"]
            s, i = action["column"]
            value = _VALUES.get(card, 0)
            if value and s == other:
                score += value * (1.0 if i == king_theirs else 0.3)
            elif value:
                score += value * (1.5 if i == king_mine and mine_low else 0.2)
            elif card == JUDGE:
                col = state["columns"][s][i]
                target = action["target"]
                gain = _VALUES.get(col["cards"][target], 0)
                role = col["roles"][target]
                if s == seat and role == ATTACKER:
                    score += gain * (1.2 if i == king_mine else 0.3)
                elif s == other and role == DEFENDER:
                    score += gain * (1.0 if i == king_theirs else 0.2)
                else:
                    score -= 1
            elif card == SORC:
                swing = 10 - column_value(state["columns"][s][i])
                score += (swing if s == seat else -swing) * 0.3
        elif action["type"] == "discard":
            score -= 2
        if score > best_score:
            best, best_score = action, score
    return best


_VALUES = {code: card_value(code) or 0 for code in set(deck(True))}


# Per level: normal's search iterations (guided IS-MCTS with this module's model), hard's
# sampled worlds (the rollout search); easy plays the playout policy (docs/computer.md).
COMPUTER = Computer(
    budgets={"normal": 100, "hard": SAMPLES},
    model=lambda view, seat, options, level: KingModel(view, seat, options),
    search=sampled(rollout_search),
    search_levels=frozenset({"hard"}),
    guided=True,
)
