"""Siege the King's hard level: a *rollout search* (one step of policy improvement).

Each legal move is played on from the same :data:`SAMPLES` sampled worlds (the unseen cards
dealt, the other King placed by its column's Defenders, the own King moved to a random face-down
column: :mod:`engine.ai.king_worlds`), with the same generator seed per world (*common random
numbers*): the other seat's reply and this seat's next move by the rule of thumb
(:func:`rollout_action`), then the fitted evaluation (:func:`evaluate`). The best mean is
played.

The rule of thumb reads the table only, for both seats, as a player who does not know where the
other King hides must: throw the strongest Attacker at the other side's weakest face-down column
(a column brought down is a Throne closed or the game won), take any column it can bring down,
shore up its own weakest face-down column (its King's once shown), clear Attackers off it with a
Judge; the Assassin goes for the column the other seat reinforced most (this seat) or the
tallest (the other seat). Never knowing where its own King is, the search cannot show it.

The evaluation is the chance this seat wins, a logistic of :func:`features` with weights
(:data:`WEIGHTS`) fitted by ``benchmarks/king_evaluation.py`` to games of the rule of thumb.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.ai.king_worlds import determinize, guarded, specials_of
from engine.ai.search import Deadline, best_on_common_samples, result_rewards, squash
from engine.king import (
    ARTISAN,
    ASSASSIN,
    ATTACKER,
    DEFENDER,
    GAME,
    JUDGE,
    KING,
    SORC,
    THRONE,
    WARRIOR,
    card_value,
    column_value,
    deck,
)
from engine.king_cards import _KIND
from engine.rules import Action, State

#: Sampled worlds a move (hard's budget).
SAMPLES = 150
#: Moves played on after the searched one (the other seat's reply, then this seat's next move)
#: before the evaluation scores the world. Longer rollouts scored worse on the tuning games: the
#: rule of thumb is a rough player, and the evaluation judges a position better than its
#: playouts do.
DEPTH = 2
#: How often the rule of thumb plays a random legal move instead.
NOISE = 0.1
#: What bringing down a face-down column is worth to the rule of thumb beyond the damage.
KILL = 5.0

FEATURES: tuple[str, ...] = (
    "bias",
    "own King 1/(1+v)",
    "their King 1/(1+v)",
    "own King v/10",
    "their King v/10",
    "own weakest 1/(1+v)",
    "their weakest 1/(1+v)",
    "open columns",
    "to act",
    "own attack in hand",
    "their attack in hand",
    "own defence in hand",
    "their defence in hand",
    "own Judges, Sorcerers",
    "their Judges, Sorcerers",
    "own Artisan",
    "their Artisan",
    "Assassin to find their King",
    "Assassin to find ours",
)
#: Fitted by ``python -m benchmarks.king_evaluation`` (6,000 games of the rule of thumb).
WEIGHTS: tuple[float, ...] = (
    0.0586,
    -3.3787,
    3.241,
    0.2945,
    -0.4748,
    -0.3905,
    0.3358,
    0.3614,
    0.1741,
    0.425,
    -0.4029,
    0.2538,
    -0.3183,
    0.1915,
    -0.0837,
    0.5054,
    -0.437,
    -0.0009,
    0.0751,
)

_VALUES = {code: card_value(code) or 0 for code in set(deck(True))}


def _weakest_value(state: State, s: int) -> int:
    """The value of ``s``'s weakest face-down open column (10 when none is left)."""
    cols = state["columns"][s]
    values = [
        column_value(cols[i])
        for i in range(3)
        if state["open"][s][i] and not state["revealed"][s][i]
    ]
    return max(min(values), 0) if values else 10


def _hand(hand: Sequence[str]) -> tuple[float, float, int]:
    """Attack and defence in a hand (a Warrior attacks fully and defends by half), and its
    Judges and Sorcerers."""
    attack = defence = 0.0
    specials = 0
    for code in hand:
        kind = _KIND.get(code)
        value = _VALUES.get(code, 0)
        if kind == ATTACKER:
            attack += value
        elif kind == DEFENDER:
            defence += value
        elif kind == WARRIOR:
            attack += value
            defence += value * 0.5
        elif code in (JUDGE, SORC):
            specials += 1
    return attack, defence, specials


def features(state: State, me: int) -> list[float]:
    """The evaluation's inputs from ``me``'s side of a sampled world (both Kings known there):
    the King columns' values (each point matters more near 0), the weakest face-down columns
    (where the next attack goes), open columns, who moves, the hands, and the Assassin still to
    come (its chance of a hit is one over the open columns it chooses from)."""
    other = 1 - me
    cols = state["columns"]
    mine = max(column_value(cols[me][state["castles"][me].index(KING)]), 0)
    theirs = max(column_value(cols[other][state["castles"][other].index(KING)]), 0)
    my_attack, my_defence, my_specials = _hand(state["hands"][me])
    their_attack, their_defence, their_specials = _hand(state["hands"][other])
    my_open, their_open = sum(state["open"][me]), sum(state["open"][other])
    assassin = 1.0 if ASSASSIN in state["pile"] else 0.0
    return [
        1.0,
        1 / (1 + mine),
        1 / (1 + theirs),
        min(mine, 20) / 10,
        min(theirs, 20) / 10,
        1 / (1 + _weakest_value(state, me)),
        1 / (1 + _weakest_value(state, other)),
        float(my_open - their_open),
        1.0 if state["to_act"] == me else -1.0,
        my_attack / 10,
        their_attack / 10,
        my_defence / 10,
        their_defence / 10,
        float(my_specials),
        float(their_specials),
        float(ARTISAN in state["hands"][me]),
        float(ARTISAN in state["hands"][other]),
        assassin / max(their_open, 1),
        assassin / max(my_open, 1),
    ]


def evaluate(state: State, me: int, weights: Sequence[float] = WEIGHTS) -> list[float]:
    """Each seat's chance to win, from ``me``'s features (the game's result once it is over)."""
    done = result_rewards(GAME, state, 2)
    if done is not None:
        return done
    p = squash(sum(w * f for w, f in zip(weights, features(state, me), strict=True)))
    rewards = [0.0, 0.0]
    rewards[me], rewards[1 - me] = p, 1.0 - p
    return rewards


def _defence(column: Mapping[str, Any]) -> int:
    return sum(
        _VALUES.get(code, 0)
        for code, role in zip(column["cards"], column["roles"], strict=True)
        if role == DEFENDER
    )


def rollout_action(state: State, seat: int, me: int, rng: random.Random) -> Action:
    """The rule of thumb (module docstring) for ``seat``; ``me`` is the searching seat, whose
    Assassin goes for the most reinforced column (the other's for the tallest)."""
    legal = GAME.legal_actions(state, seat)
    other = 1 - seat
    if state["phase"] == "assassinate":
        cols = state["columns"][other]
        choices = [a["column"] for a in legal]
        if seat == me:
            pick = max(choices, key=lambda i: (_defence(cols[i]), rng.random()))
        else:
            pick = max(choices, key=lambda i: (column_value(cols[i]), rng.random()))
        return {"type": "assassinate", "column": pick}
    if rng.random() < NOISE:
        return legal[rng.randrange(len(legal))]
    guard = guarded(state, seat)
    low = column_value(state["columns"][seat][guard]) < 10
    best, best_score = legal[0], -1e9
    for action in legal:
        score = rng.random() * 0.3
        if action["type"] != "play":
            score -= 2
        else:
            s, i = action["column"]
            card = action["card"]
            value = _VALUES.get(card, 0)
            height = column_value(state["columns"][s][i])
            if value and s == other:
                score += value + 0.5 * (10 - height) + (KILL if height <= value else 0)
            elif value:
                score += value * (1.5 if i == guard and low else 0.3)
            elif card == JUDGE:
                col = state["columns"][s][i]
                gain = _VALUES.get(col["cards"][action["target"]], 0)
                role = col["roles"][action["target"]]
                if s == seat and role != DEFENDER:
                    score += gain * (1.2 if i == guard else 0.3)
                elif s == other and role == DEFENDER:
                    score += gain
                else:
                    score -= 1
            elif card == SORC:
                swing = 10 - height
                score += 0.5 * (swing if s == seat else -swing)
            else:
                score -= 1
        if score > best_score:
            best, best_score = action, score
    return best


def playout(state: State, me: int, rng: random.Random, depth: int) -> list[float]:
    """Both seats play the rule of thumb for ``depth`` moves (or to the end); then the
    evaluation from ``me``'s side."""
    for _ in range(depth):
        seat = state["to_act"]
        if seat is None:
            break
        state, _ = GAME.apply(state, seat, rollout_action(state, seat, me, rng), rng)
    return evaluate(state, me)


def rollout_search(
    view: Mapping[str, Any],
    seat: int,
    rng: random.Random,
    samples: int = SAMPLES,
    *,
    depth: int = DEPTH,
    deadline: Deadline | None = None,
    options: Mapping[str, Any] | None = None,
) -> Action:
    """The move with the best mean over ``samples`` sampled worlds (fewer if ``deadline()``
    says stop); on equal means, the first in the legal list's order. Arranging is a random
    order (any is as good to a player who shows nothing); the Assassin goes for the column the
    other seat reinforced most with Defenders (then the tallest), where a player keeping its
    King safe has built."""
    summary = view["summary"]
    if summary["phase"] == "arrange":
        orders = ([KING, THRONE, THRONE], [THRONE, KING, THRONE], [THRONE, THRONE, KING])
        return {"type": "arrange", "order": list(orders[rng.randrange(3)])}
    if summary["phase"] == "assassinate":
        columns = summary["columns"][1 - seat]
        choices = [i for i in range(3) if columns[i]["open"]]
        pick = max(choices, key=lambda i: (_defence(columns[i]), columns[i]["value"], rng.random()))
        return {"type": "assassinate", "column": pick}
    specials = specials_of(view, options or {})
    candidates = GAME.legal_actions(determinize(view, seat, specials, random.Random(0)), seat)
    if len(candidates) == 1:
        return candidates[0]

    def value(world: State, action: Action, seed: int) -> float:
        stream = random.Random(seed)
        after, _ = GAME.apply(world, seat, action, stream)
        return playout(after, seat, stream, depth)[seat]

    return best_on_common_samples(
        candidates,
        samples,
        rng,
        lambda r: determinize(view, seat, specials, r),
        value,
        deadline,
    )
