"""The computer's model of Siege the King: determinizer, playout policy and evaluation.

What a seat sees (``engine.king`` view): every column and its cards, the discard pile, the
counts, its own hand and castle order. Unseen are the other hand, the pile's order and where the
other King hides among that seat's face-down castle cards. A determinization deals the cards not
in sight into the other hand (never the Assassin, which is resolved when drawn) and the pile,
and puts the other King under one of its face-down columns at random.

Hiding its own King: a seat that always builds up its King's column tells the other player where
the King is. So the computer values its own castle as the other player can judge it: the King's
column counts :data:`KING_WEIGHT` of its safety and the face-down columns together the rest, and
its playouts shore up the weakest face-down column rather than the King's. Every sample moves
its own King to a random face-down column (:data:`MIXING`), so while its castle is face down
its choice does not depend on where among those columns its King lies (a test checks it): its
play cannot point to the King. It guards the face-down column nearest to falling instead
(:data:`NEAREST`), which is where the next attack goes, whichever card it hides.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engine.ai.computer import Computer
from engine.ai.search import EngineRules, result_rewards, squash
from engine.king import (
    ASSASSIN,
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
#: How often a sample moves the searching seat's own King to a random face-down column: always,
#: so the search never uses where it really is. (At 0.75 the quarter of samples that kept it in
#: place made the search guard the real column, which showed it: the King sat in its tallest
#: face-down column 52.3% of the time at ply 20 against 38.0% chance.)
MIXING = 1.0
#: How often the other seat, in the playouts, goes for this seat's face-down column nearest to
#: falling (else for where it guesses the King): not knowing where the King is, an attacker
#: finishes the column it has started on.
FOCUS = 0.85
#: The share of the most endangered face-down column in a seat's danger (the rest is the mean
#: over its face-down columns): a column an attack can bring down next turn matters more than
#: the average says, whichever castle card it hides. (0.5 with MIXING 1.0 lost strength
#: against the public-greedy player, 32.0% against 41.0% of 100 tuning games; 0.8 won it back.)
NEAREST = 0.8
#: How strongly a sample believes the other King hides under a reinforced column: a face-down
#: column weighs 1 + its Defender value / GUARD_SIGN.
GUARD_SIGN = 6.0


class KingModel(EngineRules):
    game: Game = GAME
    rollout_depth = 6

    def __init__(self, view: Mapping[str, Any], seat: int, options: Mapping[str, Any]) -> None:
        self.view = view
        self.seat = seat
        self.specials = _specials(view, options)

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
            public = _public_columns(state, 1 - seat)
            focused = rng.random() < FOCUS
            target = _weakest(state, 1 - seat) if focused else _guess_king(public, rng)
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


def _specials(view: Mapping[str, Any], options: Mapping[str, Any]) -> bool:
    if "specials" in options:
        return bool(options["specials"])
    summary = view["summary"]
    if summary["phase"] == "arrange":
        return True
    in_sight = (
        len(view.get("hand") or [])
        + sum(len(c["cards"]) for row in summary["columns"] for c in row)
        + len(summary["discard"])
        + summary["hand_sizes"][1 - int(view["seat"])]
        + summary["pile"]
    )
    return bool(in_sight != len(deck(False)))


def determinize(view: Mapping[str, Any], seat: int, specials: bool, rng: random.Random) -> State:
    summary = view["summary"]
    other = 1 - seat
    columns = summary["columns"]
    if summary["phase"] == "arrange":
        return _arranging(view, seat, specials, rng)
    hand = list(view["hand"])
    seen = Counter(hand)
    for row in columns:
        for col in row:
            seen.update(col["cards"])
    seen.update(summary["discard"])
    unseen = list((Counter(deck(specials)) - seen).elements())
    rng.shuffle(unseen)
    assassin = [c for c in unseen if c == ASSASSIN]
    rest = [c for c in unseen if c != ASSASSIN]
    n_other = summary["hand_sizes"][other]
    hands: list[list[str]] = [[], []]
    hands[seat] = hand
    hands[other] = rest[:n_other]
    pile = rest[n_other:] + assassin
    rng.shuffle(pile)
    other_order = [THRONE, THRONE, THRONE]
    other_order[_guess_king(columns[other], rng)] = KING
    castles: list[list[str] | None] = [None, None]
    castles[seat] = _own_castle(view["castle"], columns[seat], rng)
    castles[other] = other_order
    closed = sum(not c["open"] for row in columns for c in row)
    return {
        "version": GAME.state_version,
        "specials": specials,
        "phase": summary["phase"],
        "turn": summary["turn"],
        "first": summary["first"],
        "to_act": view["to_act"],
        "castles": castles,
        "revealed": [[c["castle"] is not None for c in row] for row in columns],
        "open": [[c["open"] for c in row] for row in columns],
        "columns": [
            [{"cards": list(c["cards"]), "roles": list(c["roles"])} for c in row] for row in columns
        ],
        "hands": hands,
        "pile": pile,
        "discard": list(summary["discard"]),
        "out_of_play": [THRONE] * closed,
        "queue": [],
        "pending": (
            {"seat": seat, "card": ASSASSIN, "resume": seat}
            if summary["phase"] == "assassinate"
            else None
        ),
        "stack": None,
        "result": view["result"],
    }


def _weakest(state: State, owner: int) -> int:
    """``owner``'s face-down open column with the lowest value (the first of equals)."""
    columns = state["columns"][owner]
    hidden = [
        i for i in range(3) if not state["revealed"][owner][i] and state["open"][owner][i]
    ] or [0]
    best: int = min(hidden, key=lambda i: column_value(columns[i]))
    return best


def _own_castle(
    castle: Sequence[str], columns: Sequence[Mapping[str, Any]], rng: random.Random
) -> list[str]:
    """The searching seat's own castle in a sample: as it is, except that with probability
    :data:`MIXING` while the King is face down, the King is moved to a face-down column drawn
    at random (as the other player must imagine it). Play then depends little on where the King
    really is, so the columns it builds up do not point to it."""
    order = list(castle)
    hidden = [i for i in range(3) if columns[i]["castle"] is None and columns[i]["open"]]
    king = order.index(KING)
    if king in hidden and len(hidden) > 1 and rng.random() < MIXING:
        order[king], order[hidden[rng.randrange(len(hidden))]] = THRONE, KING
    return order


def _guess_king(columns: Sequence[Mapping[str, Any]], rng: random.Random) -> int:
    """Where the other King hides, drawn among the face-down columns: a column its owner has
    built up with Defenders is likelier (a player guards the King first), weight
    1 + defence / :data:`GUARD_SIGN`."""
    hidden = [i for i in range(3) if columns[i]["castle"] is None]
    if not hidden:
        return 0
    weights = []
    for i in hidden:
        defence = sum(
            card_value(code) or 0
            for code, role in zip(columns[i]["cards"], columns[i]["roles"], strict=True)
            if role == DEFENDER
        )
        weights.append(1.0 + defence / GUARD_SIGN)
    pick = rng.random() * sum(weights)
    for i, weight in zip(hidden, weights, strict=True):
        pick -= weight
        if pick < 0:
            return i
    return hidden[-1]


def _arranging(view: Mapping[str, Any], seat: int, specials: bool, rng: random.Random) -> State:
    """Before the deal: the setup state, with the other castle (if arranged) drawn at random."""
    state = GAME.setup(2, {"specials": specials}, rng)
    if seat == 1:
        order = [THRONE, THRONE, THRONE]
        order[rng.randrange(3)] = KING
        state["castles"][0] = order
        state["to_act"] = 1
    return state


def _public_columns(state: State, owner: int) -> list[dict[str, Any]]:
    """``owner``'s columns as the other seat sees them (castle cards face down unless
    revealed)."""
    return [
        {
            "cards": col["cards"],
            "roles": col["roles"],
            "castle": state["castles"][owner][i] if state["revealed"][owner][i] else None,
        }
        for i, col in enumerate(state["columns"][owner])
    ]


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


def _guarded(state: State, seat: int) -> int:
    """The column a seat shores up: its King's once revealed, else its weakest face-down one."""
    king = state["castles"][seat].index(KING)
    if state["revealed"][seat][king]:
        return int(king)
    hidden = [i for i in range(3) if not state["revealed"][seat][i] and state["open"][seat][i]]
    best: int = min(hidden or [king], key=lambda i: column_value(state["columns"][seat][i]))
    return best


def greedy_action(
    state: State, seat: int, legal: list[Action], target: int, rng: random.Random
) -> Action:
    """A quick one-ply guess for playouts, over a sample of the legal actions: strike the other
    King's column hard, shore up one's weakest face-down column (the King's once it shows)
    when it runs low, remove enemy Attackers there with a Judge; otherwise anything."""
    other = 1 - seat
    king_mine = _guarded(state, seat)
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


# Search iterations per level (hard stays under a second a move; docs/computer.md).
COMPUTER = Computer(
    budgets={"normal": 100, "hard": 400},
    model=lambda view, seat, options, level: KingModel(view, seat, options),
    guided=True,
)
