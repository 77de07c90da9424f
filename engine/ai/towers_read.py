"""Tower poker's hard level at the betting and the flip offers: it weighs its hand against what
the others' public betting says they hold.

Each decision samples :data:`SAMPLES` deals of the cards the seat cannot see (the others' hands;
for a flip offer, the next tower card too) and weights every sampled opponent hand by how likely
a player holding it was to act as that seat did this hand (:data:`LIKELIHOOD`: a generic
player's tendencies, not any one opponent's rule: bets and raises come mostly from two pair or
better, calls from a pair or better, checks mostly from less). The weighted share of the pot the
seat would take at a show with the cards face up now is its *equity*. Then pot odds: call when
the equity beats the price of the call, raise when it is well above a fair share of the pot,
bet when a bet brings back more than checking would (every other seat folding by its shown
fold rate, weakest hands first, and the seat's share of the pot against those that call:
heads-up and at a bigger table alike, so now and then a weak hand when the others fold
enough), and buy a flip when what follows pays the fee: the seat's share of the bigger pot at
the show, or, when better, a bet in the betting round the flip opens (a strong hand buys flips
to be paid by the callers again, at the big bet from the third tower card on).

What the others did this hand comes from the view's public action log (``view["actions"]``:
``[seat, type, face-up cards then]`` for every bet, check, call, raise and fold), read as the
seat saw the table at the time. Nothing else is read: the seat's own cards, the face-up and
burned cards and the counts. Chance is the caller's generator alone.

Jackpot hands (two private cards and three tower cards), joker discards and revealing a joker
are left to the search (:func:`read_action` returns None).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engine.poker_hands import CATEGORY_SHIFT, JOKERS, best_value
from engine.rules import Action
from engine.towers import DECK108

#: Sampled deals per decision (a 7-seat decision stays well under the 1 s cap).
SAMPLES = 160
#: How often a hand makes each category (high card, pair, two pair, three of a kind or better)
#: with 1, 2, 3 or 4 tower cards face up: four random cards and the best face-up one.
BASE: tuple[tuple[float, ...], ...] = (
    (0.369, 0.466, 0.05, 0.116),
    (0.26, 0.502, 0.072, 0.167),
    (0.176, 0.525, 0.089, 0.21),
    (0.12, 0.536, 0.097, 0.247),
)
#: A generic player's tendencies before any show: the chance of each action by the category its
#: hand made then.
LIKELIHOOD: dict[str, tuple[float, ...]] = {
    "check": (1.0, 0.8, 0.45, 0.35),
    "bet": (0.05, 0.2, 1.0, 1.0),
    "raise": (0.02, 0.08, 0.6, 1.0),
    "call": (0.3, 1.0, 0.85, 0.7),
}
#: How many hands shown the generic tendencies weigh, against what a seat has shown.
PRIOR_WEIGHT = 3.0
#: How often a generic player folds to a bet, and how many decisions that weighs.
FOLD_PRIOR = 0.35
FOLD_WEIGHT = 4.0
#: Equity above a fair share (1 / seats in the hand) needed to raise, as a fraction of the rest
#: (1 - fair share), at a table of three or more.
RAISE_EDGE = 0.3


def _bucket(value: int) -> int:
    return min(3, value >> CATEGORY_SHIFT)


class Habits:
    """What a seat's public record says of its play: for each kind of action, how likely it
    is from each category (:data:`LIKELIHOOD` moved toward the hands it showed after that
    action), and how often it folds to a bet."""

    def __init__(self) -> None:
        self.shown: dict[str, list[float]] = {kind: [0.0] * 4 for kind in LIKELIHOOD}
        self.faced = 0
        self.folds = 0

    def likelihood(self, kind: str) -> tuple[float, ...]:
        """``P(kind | category)`` up to a constant factor: by Bayes, the share of its ``kind``
        actions that came from each category (generic, then as shown) over the category's
        base rate. The constant cancels when sampled hands are weighed against each other."""
        prior = [LIKELIHOOD[kind][b] * BASE[0][b] for b in range(4)]
        total = sum(prior)
        seen = self.shown[kind]
        count = sum(seen)
        return tuple(
            ((PRIOR_WEIGHT * prior[b] / total + seen[b]) / (PRIOR_WEIGHT + count)) / BASE[0][b]
            for b in range(4)
        )

    def fold_rate(self) -> float:
        return (self.folds + FOLD_WEIGHT * FOLD_PRIOR) / (self.faced + FOLD_WEIGHT)

    def folds_by_category(self) -> tuple[float, ...]:
        """The chance it folds to a bet by its hand's category: its folds are taken to come
        from its weakest hands first (high card, then a pair, ...), at its fold rate."""
        left = self.fold_rate()
        chances = []
        for share in BASE[0]:
            part = min(left, share)
            chances.append(part / share)
            left -= part
        return tuple(chances)


def habits(view: Mapping[str, Any], seat: int) -> dict[int, Habits]:
    """Every other seat's habits, from the hands finished so far (``view["past_hands"]``) and
    the folds of this one."""
    found: dict[int, Habits] = {}
    records = list(view.get("past_hands") or [])
    current = {"actions": view.get("actions") or [], "hands": None, "face_up": []}
    for record in [*records, current]:
        shown = record["hands"]
        for x, kind, seen in record["actions"]:
            if x == seat:
                continue
            habit = found.setdefault(x, Habits())
            if kind in ("fold", "call", "raise"):
                habit.faced += 1
                habit.folds += kind == "fold"
            if shown is not None and shown[x] and kind in LIKELIHOOD:
                value = best_value(shown[x], record["face_up"][: max(1, seen)])[0]
                habit.shown[kind][_bucket(value)] += 1
    return found


def read_action(
    view: Mapping[str, Any],
    seat: int,
    legal: Sequence[Action],
    rng: random.Random,
    big_bet: int = 2,
) -> Action | None:
    """Hard's bet or flip decision out of ``legal``, or None when the decision is another kind
    (or a jackpot). ``big_bet`` is the table's bet size once 3 tower cards are up (an option
    the view does not carry)."""
    summary = view["summary"]
    phase = summary["phase"]
    if summary["jackpot"] or phase not in ("betting", "flip_offer"):
        return None
    hand = list(view["hand"])
    face_up = list(summary["face_up"])
    if not hand or not face_up:
        return None
    opponents = [x for x in range(len(summary["chips"])) if x != seat and not summary["folded"][x]]
    if not opponents:
        return None
    kinds = {a["type"] for a in legal}
    read = habits(view, seat)
    flip = phase == "flip_offer"
    odds = equity(view, seat, opponents, read, rng, flip=flip, big_bet=big_bet)
    pot = summary["pot"]
    if flip:
        fee = summary["next_flip_cost"]
        # Buying starts another betting round: the seat then checks, or bets when that brings
        # back more (:attr:`Odds.bet_after`); declining goes to the show now.
        bought = max(odds.after * (pot + fee), odds.bet_after) - fee
        if "buy_flip" in kinds and bought > odds.now * pot:
            return {"type": "buy_flip"}
        return {"type": "decline_flip"}
    if len(opponents) == 1:
        return _heads_up(summary, kinds, odds)
    return _bet_action(summary, kinds, len(opponents), odds)


def _heads_up(summary: Mapping[str, Any], kinds: set[str], odds: Odds) -> Action:
    """One opponent: bet when betting wins more than checking at a show now would (the pot
    when it folds, the called pot's share when it calls); call at the pot's odds; raise well
    ahead."""
    pot = summary["pot"]
    size = summary["bet_size"]
    if "call" in kinds:
        paid = summary["to_call"]
        if odds.now >= 0.5 + RAISE_EDGE / 2 and "raise" in kinds:
            return {"type": "raise"}
        return {"type": "call"} if odds.now * (pot + paid) >= paid else {"type": "fold"}
    if "bet" in kinds:
        checked = odds.now * pot
        fold = odds.fold
        bet = fold * pot + (1 - fold) * (odds.called * (pot + 2 * size) - size)
        if bet > checked:
            return {"type": "bet"}
    return {"type": "check"}


def _bet_action(summary: Mapping[str, Any], kinds: set[str], opponents: int, odds: Odds) -> Action:
    """Two or more opponents: bet when betting wins more than checking (:attr:`Odds.bet`),
    raise well above a fair share, call at the pot's odds."""
    fair = 1.0 / (opponents + 1)
    share = odds.now
    if "call" in kinds:
        paid = summary["to_call"]
        if share >= fair + RAISE_EDGE * (1 - fair) and "raise" in kinds:
            return {"type": "raise"}
        return {"type": "call"} if share * (summary["pot"] + paid) >= paid else {"type": "fold"}
    if "bet" in kinds and odds.bet > share * summary["pot"]:
        return {"type": "bet"}
    return {"type": "check"}


class Odds:
    """The seat's share of the pot at a show now (``now``), against the hands that would call
    a bet (``called``), and after one more tower card (``after``); heads-up, the chance that
    the other seat folds to a bet (``fold``). With two or more others, what a bet now would
    bring back (``bet``: the pot when every seat folds, else the share of the called pot less
    the bet); at a flip offer, what a bet after the flip would (``bet_after``, the fee in the
    pot)."""

    def __init__(
        self,
        now: float,
        called: float,
        after: float,
        fold: float,
        bet: float = 0.0,
        bet_after: float = 0.0,
    ) -> None:
        self.now, self.called, self.after, self.fold = now, called, after, fold
        self.bet, self.bet_after = bet, bet_after


def equity(
    view: Mapping[str, Any],
    seat: int,
    opponents: Sequence[int],
    read: Mapping[int, Habits],
    rng: random.Random,
    *,
    flip: bool = False,
    big_bet: int = 2,
) -> Odds:
    """The seat's weighted share of the pot at a show (see :class:`Odds`); ``after`` and
    ``bet_after`` only with ``flip`` (else ``now`` and 0)."""
    summary = view["summary"]
    hand = list(view["hand"])
    face_up = list(summary["face_up"])
    known = Counter(hand) + Counter(face_up)
    if summary["burned"] is not None:
        known[summary["burned"]] += 1
    pool = list((Counter(DECK108) - known).elements())
    # A seat that revealed a joker still holds one (spec 5.4): set one aside for it.
    held: dict[int, list[str]] = {x: [] for x in opponents}
    for x in opponents:
        joker = next((c for c in pool if c in JOKERS), None)
        if summary["joker_revealed"][x] and joker is not None:
            pool.remove(joker)
            held[x].append(joker)
    acted: dict[int, list[tuple[tuple[float, ...], int]]] = {x: [] for x in opponents}
    for x, kind, seen in view.get("actions") or []:
        if x in acted and kind in LIKELIHOOD:
            acted[x].append((read.get(x, Habits()).likelihood(kind), seen))
    folds = {x: read.get(x, Habits()).folds_by_category() for x in opponents}
    mine = best_value(hand, face_up)[0]
    pot, size = summary["pot"], summary["bet_size"]
    total = won = total_called = won_called = won_after = bet = 0.0
    fee = summary["next_flip_cost"] or 0
    # The rules' bet size after the flip: the small bet while at most 2 tower cards are up.
    after_size = size if len(face_up) + 1 <= 2 else big_bet
    bet_after = 0.0
    for _ in range(SAMPLES):
        rng.shuffle(pool)
        taken = 0
        weight = 1.0
        hands = []
        for x in opponents:
            need = 4 - len(held[x])
            cards = held[x] + pool[taken : taken + need]
            taken += need
            hands.append(cards)
            for table, seen in acted[x]:
                weight *= table[_bucket(best_value(cards, face_up[: max(1, seen)])[0])]
        if weight <= 0:
            continue
        others = [best_value(h, face_up)[0] for h in hands]
        share = _share(mine, others)
        total += weight
        won += weight * share
        calling = weight * (1 - folds[opponents[0]][_bucket(others[0])])
        total_called += calling
        won_called += calling * share
        if len(opponents) > 1:
            bet += weight * _bet_value(mine, others, [folds[x] for x in opponents], pot, size)
        if flip:
            more = [*face_up, pool[taken]]
            theirs_after = [best_value(h, more)[0] for h in hands]
            mine_after = best_value(hand, more)[0]
            won_after += weight * _share(mine_after, theirs_after)
            bet_after += weight * _bet_value(
                mine_after, theirs_after, [folds[x] for x in opponents], pot + fee, after_size
            )
    if total <= 0:
        return Odds(0.0, 0.0, 0.0, 0.0)
    now = won / total
    called = won_called / total_called if total_called > 0 else now
    after = won_after / total if flip else now
    return Odds(now, called, after, 1 - total_called / total, bet / total, bet_after / total)


def _bet_value(
    mine: int,
    others: Sequence[int],
    folds: Sequence[tuple[float, ...]],
    pot: int,
    size: int,
) -> float:
    """What a bet of ``size`` brings back against these hands, each seat folding by its
    category's chance: ``reach[c]`` is the chance that ``c`` seats call, ``wins[c]`` that and
    the seat's share of the show against them (a tie counted as half)."""
    reach = [1.0]
    wins = [1.0]
    for theirs, fold in zip(others, folds, strict=True):
        f = fold[_bucket(theirs)]
        beat = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        reach = [a * f + b * (1 - f) for a, b in zip([*reach, 0.0], [0.0, *reach], strict=True)]
        wins = [a * f + b * (1 - f) * beat for a, b in zip([*wins, 0.0], [0.0, *wins], strict=True)]
    value = reach[0] * pot
    for c in range(1, len(reach)):
        value += wins[c] * (pot + size * (1 + c)) - reach[c] * size
    return value


def _share(mine: int, others: Sequence[int]) -> float:
    """The seat's share of a pot it contests with these hands: all, a tie's part, or none."""
    top = max(others)
    if mine > top:
        return 1.0
    if mine == top:
        return 1.0 / (others.count(top) + 1)
    return 0.0
