"""Castles Besieged's hard level: the rule of thumb, improved by one move of rollouts.

For every move worth searching (:func:`engine.ai.castles.prune`), hard plays the game on from
many sampled deals (the cards it cannot see dealt at random, as the view allows) with the rule
of thumb for both seats, :data:`ROLLOUT_DEPTH` moves, and scores where it stops with the fitted
evaluation; it plays the move with the best mean. This is *rollout policy improvement*: the
chosen move is at least as good as the rule of thumb's wherever the rollouts model the game
well, and it finds the moves the rule of thumb gets wrong (often a draw that keeps a card back
to answer the other side's lay, rather than spending the last card).

Dice are what make Castles noisy, so the comparison is made fair: every move is tried on the
same sampled deals and the same dice (one generator seed per sample, *common random
numbers*), and an attack's own roll is not sampled at all: it is scored as the chance of a hit
times the playout after a hit, plus the chance of a miss times the playout after a miss.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.ai.castles import (
    HIT_CHANCE,
    VALUE,
    apply,
    determinize,
    evaluate,
    greedy_action,
    legal,
    prune,
)
from engine.ai.search import Deadline, result_rewards
from engine.castles import GAME
from engine.rules import Action, State

#: How many moves each rollout plays (both seats) before the evaluation scores it.
ROLLOUT_DEPTH = 16
# Dice that hit and dice that miss whatever the roll needed (a 12 always hits, a 2 never does).
_HIT, _MISS = [6, 6], [1, 1]


def root_actions(view: Mapping[str, Any], seat: int) -> list[Action]:
    """The moves worth searching in the view (pruning reads only the rows and the own hand)."""
    root = determinize(view, seat, random.Random(0))
    return prune(root, seat, legal(root, seat))


def rollout_search(
    view: Mapping[str, Any],
    seat: int,
    rng: random.Random,
    samples: int,
    *,
    depth: int = ROLLOUT_DEPTH,
    deadline: Deadline | None = None,
) -> Action:
    """The move with the best mean over ``samples`` sampled deals (fewer if ``deadline()``
    says stop); on equal means, the first in the legal list's order."""
    candidates = root_actions(view, seat)
    if len(candidates) == 1:
        return candidates[0]
    totals = [0.0] * len(candidates)
    for done in range(samples):
        if done and deadline is not None and deadline():
            break
        world = determinize(view, seat, rng)
        dice_seed = rng.getrandbits(64)
        for j, action in enumerate(candidates):
            totals[j] += action_value(world, seat, action, dice_seed, depth)
    best = max(range(len(candidates)), key=lambda j: (totals[j], -j))
    return candidates[best]


def action_value(
    world: State, seat: int, action: Action, dice_seed: int, depth: int = ROLLOUT_DEPTH
) -> float:
    """``seat``'s expected score after ``action`` in ``world``: the attack's roll weighed
    exactly, the rest played out by the rule of thumb with dice from ``dice_seed``."""
    outcomes: list[tuple[float, list[int]]] = [(1.0, [])]
    if action["type"] == "attack":
        hit = HIT_CHANCE[needed(world, seat, action["pos"])]
        outcomes = [(hit, _HIT), (1.0 - hit, _MISS)]
    value = 0.0
    for weight, dice in outcomes:
        rng = random.Random(dice_seed)
        state = apply({**world, "dice": dice}, seat, action, rng)
        value += weight * playout(state, rng, depth)[seat]
    return value


def needed(state: State, seat: int, pos: int) -> int:
    """The roll an attack from ``pos`` of ``seat``'s row needs (7 on the castle)."""
    mine, theirs = state["rows"][seat], state["rows"][1 - seat]
    if pos >= len(theirs):
        return 7
    return max(7, VALUE[theirs[pos]] - VALUE[mine[pos]])


def playout(state: State, rng: random.Random, depth: int) -> list[float]:
    """Both seats play the rule of thumb for ``depth`` moves (or to the end); the result, or
    the evaluation's chances where it stops."""
    for _ in range(depth):
        seat = state["to_act"]
        if seat is None:
            break
        state = apply(state, seat, greedy_action(state, seat, rng), rng)
    done = result_rewards(GAME, state, 2)
    return done if done is not None else evaluate(state)
