"""The computer's model of Castles Besieged: determinizer, playout policy, evaluation, and
hard's rollout search (:func:`rollout_search`).

What a seat sees (``engine.castles`` view): both rows, every count, its own hand. Unseen are the
other hand, the pile's order and which cards the discard holds (the view counts the killed cards
but does not name them), so a determinization deals the cards not in sight at random into the
other hand, the discard and the pile, in the sizes the view gives.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine import cards
from engine.ai.computer import Computer, sampled
from engine.ai.search import Deadline, best_on_common_samples, result_rewards, squash
from engine.castles import GAME
from engine.rules import Action, Game, Result, State

#: The highest roll the rule of thumb attacks a card for (8 or more on two dice: 42%).
KILL_ROLL = 8
# Chance that an attack needing 7..12 hits with two dice.
HIT_CHANCE = {
    n: sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= n) / 36 for n in range(2, 13)
}


class CastlesModel:
    game: Game = GAME
    rollout_depth = 8

    def __init__(self, view: Mapping[str, Any], seat: int, level: str = "easy") -> None:
        self.view = view
        self.seat = seat
        # The model of the easy and normal levels (hard's is :func:`rollout_search`, below):
        # normal's small search plays random moves out; the
        # easy level never searches: it plays ``rollout_action`` (the rule of thumb) once.
        self.greedy_playouts = level != "normal"
        # The root's public part (rows, own hand) is all that pruning reads.
        self.root_state = determinize(view, seat, random.Random(0))

    def shortcut(self, rng: random.Random) -> Action | None:
        return None

    def to_act(self, state: State) -> int | None:
        to_act: int | None = state["to_act"]
        return to_act

    def legal(self, state: State, seat: int) -> list[Action]:
        return prune(state, seat, legal(state, seat))

    def apply(self, state: State, seat: int, action: Action, rng: random.Random) -> State:
        return apply(state, seat, action, rng)

    def determinize(self, rng: random.Random) -> State:
        return determinize(self.view, self.seat, rng)

    def rollout_action(self, state: State, seat: int, rng: random.Random) -> Action:
        """Easy's move: the rule of thumb, one move in ten at random; normal's playouts:
        random moves."""
        if not self.greedy_playouts or rng.random() < 0.1:
            actions = legal(state, seat)
            return actions[rng.randrange(len(actions))]
        return greedy_action(state, seat, rng)

    def evaluate(self, state: State) -> Sequence[float]:
        done = result_rewards(GAME, state, 2)
        if done is not None:
            return done
        return evaluate(state)

    def is_cutoff(self, state: State, depth: int) -> bool:
        return depth >= self.rollout_depth

    def root_actions(self, legal: list[Action]) -> list[Action]:
        return prune(self.root_state, self.seat, legal)


def determinize(view: Mapping[str, Any], seat: int, rng: random.Random) -> State:
    summary = view["summary"]
    other = 1 - seat
    hand = list(view["hand"])
    rows = [list(r) for r in summary["rows"]]
    seen = set(hand) | {c for r in rows for c in r}
    unseen = [c for c in cards.DECK52 if c not in seen]
    rng.shuffle(unseen)
    n_other = summary["hand_sizes"][other]
    n_discard = summary["discard"]
    hands: list[list[str]] = [[], []]
    hands[seat] = hand
    hands[other] = unseen[:n_other]
    discard = unseen[n_other : n_other + n_discard]
    pile = unseen[n_other + n_discard :]
    assert len(pile) == summary["pile"], "the view's counts do not add up to the deck"
    last = summary["last_attack"]
    return {
        "version": GAME.state_version,
        "dealer": summary["dealer"],
        "hands": hands,
        "pile": pile,
        "rows": rows,
        "discard": discard,
        "hits": list(summary["hits"]),
        "quiet_turns": summary["quiet_turns"],
        "to_act": view["to_act"],
        "last_attack": None if last is None else dict(last),
        # Only a seat with nothing at all (no hand, no row, no pile) can have passed last.
        "last_was_pass": (
            view["to_act"] is not None
            and summary["pile"] == 0
            and summary["hand_sizes"][1 - view["to_act"]] == 0
            and not rows[1 - view["to_act"]]
        ),
        "dice": [],
        "result": view["result"],
    }


def legal(state: State, seat: int) -> list[Action]:
    """``engine.castles`` legal list, in its order (the search's root relies on the same
    actions; the tests compare the two)."""
    if state["result"] is not None or state["to_act"] != seat:
        return []
    actions: list[Action] = [{"type": "draw"}] if state["pile"] else []
    actions += [
        {"type": "lay", "card": c} for c in sorted(state["hands"][seat], key=_SORT.__getitem__)
    ]
    actions += [{"type": "attack", "pos": p} for p in range(len(state["rows"][seat]))]
    return actions or [{"type": "pass"}]


_SORT = {c: cards.sort_key(c) for c in cards.DECK52}
VALUE = {c: cards.value(c) for c in cards.DECK52}


def apply(state: State, seat: int, action: Action, rng: random.Random) -> State:
    """``engine.castles`` ``apply`` for the search: no checks, no events, no last attack, and
    a shallow copy of only what changes (the tests play both side by side)."""
    new = dict(state)
    kind = action["type"]
    other = 1 - seat
    pile_was_empty = not state["pile"]
    fought = False
    if kind == "draw":
        hands = [state["hands"][0], state["hands"][1]]
        hands[seat] = [*hands[seat], state["pile"][0]]
        new["hands"] = hands
        new["pile"] = state["pile"][1:]
    elif kind == "lay":
        card = action["card"]
        hands = [state["hands"][0], state["hands"][1]]
        hands[seat] = [c for c in hands[seat] if c != card]
        rows = [state["rows"][0], state["rows"][1]]
        rows[seat] = [*rows[seat], card]
        new["hands"], new["rows"] = hands, rows
    elif kind == "attack":
        pos = action["pos"]
        mine, theirs = state["rows"][seat], state["rows"][other]
        target = theirs[pos] if pos < len(theirs) else None
        needed = 7 if target is None else max(7, VALUE[target] - VALUE[mine[pos]])
        dice = [_die(new, rng), _die(new, rng)]
        if sum(dice) >= needed:
            fought = True
            if target is not None:
                rows = [state["rows"][0], state["rows"][1]]
                rows[other] = theirs[:pos] + theirs[pos + 1 :]
                new["rows"] = rows
                new["discard"] = [*state["discard"], target]
            else:
                hits = list(state["hits"])
                hits[other] += 1
                new["hits"] = hits
    if pile_was_empty:
        new["quiet_turns"] = 0 if fought else state["quiet_turns"] + 1
    new["to_act"] = other
    hits = new["hits"]
    if hits[other] >= 10:
        _end(new, Result((seat,), "castle_stormed", tuple(hits)))
    elif (kind == "pass" and state["last_was_pass"]) or new["quiet_turns"] >= 30:
        rows = new["rows"]
        totals = [sum(VALUE[c] for c in row) for row in rows]
        if hits[0] != hits[1]:
            winners: tuple[int, ...] = (0,) if hits[0] < hits[1] else (1,)
        elif totals[0] != totals[1]:
            winners = (0,) if totals[0] > totals[1] else (1,)
        else:
            winners = ()
        _end(new, Result(winners, "stalemate", tuple(hits)))
    new["last_was_pass"] = kind == "pass"
    return new


def _die(state: State, rng: random.Random) -> int:
    if state["dice"]:
        dice = list(state["dice"])
        state["dice"] = dice[1:]
        return int(dice[0])
    return int(rng.random() * 6) + 1


def _end(state: State, result: Result) -> None:
    state["result"] = result.to_json()
    state["to_act"] = None


def prune(state: State, seat: int, actions: list[Action]) -> list[Action]:
    """The moves worth searching: draw; lay the highest or the lowest card (the cards between
    play the same part); one attack on the castle (every unblocked card hits it alike); attacks
    on the cards that a roll can plausibly kill (9 or less needed)."""
    rows = state["rows"]
    mine, theirs = rows[seat], rows[1 - seat]
    lays = [a for a in actions if a["type"] == "lay"]
    kept: list[Action] = [a for a in actions if a["type"] in ("draw", "pass")]
    if lays:
        kept.append(lays[-1])
        if VALUE[lays[0]["card"]] != VALUE[lays[-1]["card"]]:
            kept.append(lays[0])
    free = False
    for a in actions:
        if a["type"] != "attack":
            continue
        pos = a["pos"]
        if pos >= len(theirs):
            if not free:
                kept.append(a)
                free = True
        elif max(7, VALUE[theirs[pos]] - VALUE[mine[pos]]) <= 9:
            kept.append(a)
    return kept or actions


def _unblocked(rows: list[list[str]], s: int) -> list[int]:
    return list(range(len(rows[1 - s]), len(rows[s])))


#: The evaluation's features, each from seat 0's side (each changes sign when the seats swap).
FEATURES: tuple[str, ...] = (
    "hits",
    "late hits",
    "tempo",
    "extra length",
    "kills",
    "in hand",
    "material",
    "to move",
    "strikes next",
    "cards left",
)
#: Their weights in the log-odds that seat 0 wins (see :func:`evaluate`), fitted by
#: ``python -m benchmarks.castles_evaluation`` (8,000 games; held-out log loss 0.585, where the
#: hand-set weights before scored 0.596 and a constant 1/2 0.693).
WEIGHTS: tuple[float, ...] = (0.269, 0.149, 0.356, 0.354, -0.033, 0.145, 0.111, 0.117, 0.008, 0.512)


def features(state: State) -> list[float]:
    """Hits taken by seat 1 less seat 0's; the same beyond the fifth (nearer the tenth hit
    each counts more); whether a row is longer (a card unblocked: a hit at 58% a turn) and by
    how many cards more than one; the chances of killing the facing cards less of being
    killed; cards in hand (up to 6); the row totals (a stalemate compares them, /10); who is
    to move; whether the side to move has an unblocked card (it strikes at once); and, once
    the pile is empty, the cards each side has left to lay."""
    rows = state["rows"]
    hits = state["hits"]
    hands = state["hands"]
    d = len(rows[0]) - len(rows[1])
    kills = 0.0
    for pos in range(min(len(rows[0]), len(rows[1]))):
        a, b = VALUE[rows[0][pos]], VALUE[rows[1][pos]]
        kills += HIT_CHANCE[max(7, b - a)] - HIT_CHANCE[max(7, a - b)]
    to_act = state["to_act"]
    mover = 0.0 if to_act is None else (1.0 if to_act == 0 else -1.0)
    strikes = (to_act == 0 and d > 0) - (to_act == 1 and d < 0)
    left = 0.0 if state["pile"] else float(len(hands[0]) - len(hands[1]))
    return [
        float(hits[1] - hits[0]),
        float(max(hits[1] - 5, 0) - max(hits[0] - 5, 0)),
        float((d > 0) - (d < 0)),
        float(max(d - 1, 0) - max(-d - 1, 0)),
        kills,
        float(min(len(hands[0]), 6) - min(len(hands[1]), 6)),
        (sum(VALUE[c] for c in rows[0]) - sum(VALUE[c] for c in rows[1])) / 10,
        mover,
        float(strikes),
        max(-6.0, min(6.0, left)),
    ]


def evaluate(state: State) -> list[float]:
    """The chance that each seat wins: the logistic of the weighted features
    (:data:`WEIGHTS`, fitted by ``benchmarks/castles_evaluation.py`` to games of the playout
    policy against itself, so that a playout cut short scores what playing on would)."""
    score0 = sum(w * f for w, f in zip(WEIGHTS, features(state), strict=True))
    p0 = squash(score0)
    return [p0, 1.0 - p0]


def greedy_action(state: State, seat: int, rng: random.Random) -> Action:
    """A sensible quick move: hit the castle with an unblocked card; else attack the card that
    is easiest to kill when a roll of :data:`KILL_ROLL` or less does it (a kill costs no card
    and leaves one of ours unblocked, where a lay spends a card the other side answers with
    one of its own); else lay the best card; else draw; else attack anyway.

    Against the rule of thumb it replaces (lay first, kill only with an empty hand), it scored
    56.7% [53.6, 59.7] over 1,000 seeded games."""
    rows = state["rows"]
    mine, theirs = rows[seat], rows[1 - seat]
    if len(mine) > len(theirs):
        return {"type": "attack", "pos": len(theirs)}
    easiest: tuple[int, int] | None = None
    for pos in range(len(mine)):
        needed = max(7, VALUE[theirs[pos]] - VALUE[mine[pos]])
        if easiest is None or needed < easiest[0]:
            easiest = (needed, pos)
    if easiest is not None and easiest[0] <= KILL_ROLL:
        return {"type": "attack", "pos": easiest[1]}
    hand = state["hands"][seat]
    if hand:
        return {"type": "lay", "card": max(hand, key=VALUE.__getitem__)}
    if state["pile"]:
        return {"type": "draw"}
    if mine:
        return {"type": "attack", "pos": 0 if easiest is None else easiest[1]}
    actions = legal(state, seat)
    return actions[rng.randrange(len(actions))]


# Hard's rollout search.
#
# The hard level is the rule of thumb improved by one move of rollouts. For every move worth
# searching (:func:`prune`), hard plays the game on from many sampled deals (the cards it
# cannot see dealt at random, as the view allows) with the rule of thumb for both seats,
# :data:`ROLLOUT_DEPTH` moves, and scores where it stops with the fitted evaluation; it plays
# the move with the best mean. This is *rollout policy improvement*: the
# chosen move is at least as good as the rule of thumb's wherever the rollouts model the game
# well, and it finds the moves the rule of thumb gets wrong (mostly a draw that keeps a card
# back, where the rule of thumb spends its last card or attacks with an empty hand).
#
# Dice are what make Castles noisy, so the comparison is made fair: every move is tried on the
# same sampled deals and the same dice (one generator seed per sample, *common random
# numbers*), and an attack's own roll is not sampled at all: it is scored as the chance of a hit
# times the playout after a hit, plus the chance of a miss times the playout after a miss.

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
    return best_on_common_samples(
        candidates,
        samples,
        rng,
        lambda r: determinize(view, seat, r),
        lambda world, action, seed: action_value(world, seat, action, seed, depth),
        deadline,
    )


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


def legal_from_view(view: Mapping[str, Any], seat: int) -> list[Action]:
    """The seat's legal actions, from what it sees (the engine's list; the tests compare)."""
    if view.get("to_act") != seat or view.get("result") is not None:
        return []
    return legal(determinize(view, seat, random.Random(0)), seat)


# Per level: normal's search iterations (IS-MCTS with random playouts), hard's sampled deals
# (the rollout search); easy plays the rule of thumb with random moves (docs/computer.md).
COMPUTER = Computer(
    budgets={"normal": 20, "hard": 200},
    model=lambda view, seat, options, level: CastlesModel(view, seat, level),
    search=sampled(rollout_search),
    search_levels=frozenset({"hard"}),
    legal_from_view=legal_from_view,
)
