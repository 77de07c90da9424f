"""Poker hand values for the tower poker game (``towers``), as ``../shared/spec/towers.md`` §6.6
defines them: jokers (``XB``, ``XR``) are wild as any card, copies included; two-deck hands may
hold the same code twice; five of a kind ranks above a straight flush; ``A-2-3-4-5`` is the
lowest straight; suits never break ties.

A value is one integer, higher is better: the category index (``CATEGORIES``) in the high bits,
then up to five tie-break ranks, four bits each (rank 1 = deuce … 13 = ace, 0 = none). Plain
five-card hands of different codes are ranked by phevaluator; its class number (1 … 7462) is
mapped onto our scale by a table built once from one representative hand per class. Hands it
cannot rank (a joker, a repeated code, fewer than five cards) are ranked by the rules below,
which never call it: phevaluator silently misranks a hand that holds the same card twice.

>>> category(hand_value(["AS", "AH", "AD", "AC", "XB"]))
'five_of_a_kind'
>>> hand_value(["9H", "TH", "JH", "QH", "KH"]) < hand_value(["2S", "2H", "2D", "2S", "XR"])
True
>>> category(hand_value(["7H", "7H", "KH", "2H", "9H"]))
'flush'
>>> best_hand(["KS", "KD", "2C", "7H"], ["KH", "4D"])
('three_of_a_kind', ('KH',))
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import cache
from itertools import combinations, combinations_with_replacement

from phevaluator.evaluator import evaluate_5cards  # type: ignore[import-untyped]

CATEGORIES: tuple[str, ...] = (
    "high_card",
    "pair",
    "two_pair",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "four_of_a_kind",
    "straight_flush",
    "five_of_a_kind",
)
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH, FIVE = range(
    10
)
CATEGORY_SHIFT = 20
JOKERS = frozenset({"XB", "XR"})

RANK_ORDER = "23456789TJQKA"  # low to high
_RANK = {r: i + 1 for i, r in enumerate(RANK_ORDER)}  # 1 = deuce … 13 = ace
_ACE = 13
# phevaluator's card id: rank (deuce 0 … ace 12) * 4 + suit (clubs 0, diamonds 1, hearts 2,
# spades 3).
_PH_ID = {r + s: i * 4 + "CDHS".index(s) for i, r in enumerate(RANK_ORDER) for s in "CDHS"}
# Straights by their top rank, best first; the wheel A-2-3-4-5 counts its ace as low.
_STRAIGHTS: tuple[tuple[int, frozenset[int]], ...] = (
    *((top, frozenset(range(top - 4, top + 1))) for top in range(_ACE, 4, -1)),
    (4, frozenset({_ACE, 1, 2, 3, 4})),
)


def category(value: int) -> str:
    """The category name of a hand value."""
    return CATEGORIES[value >> CATEGORY_SHIFT]


def describe(value: int) -> tuple[str, tuple[str, ...]]:
    """The category and the ranks that decide ties within it, in order of importance.

    >>> describe(hand_value(["KS", "KD", "7C", "7H", "2C"]))
    ('two_pair', ('K', '7', '2'))
    """
    ranks = [(value >> (16 - 4 * i)) & 15 for i in range(5)]
    return category(value), tuple(RANK_ORDER[r - 1] for r in ranks if r)


def _encode(cat: int, ranks: Sequence[int]) -> int:
    value = cat
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def hand_value(cards: Sequence[str]) -> int:
    """The value of one hand of at most five cards, jokers wild."""
    if len(cards) == 5 and len(set(cards)) == 5 and not JOKERS.intersection(cards):
        ids = [_PH_ID[c] for c in cards]
        value: int = _class_values()[evaluate_5cards(*ids)]
        return value
    return _rule_value(cards)


def _rule_value(cards: Sequence[str]) -> int:
    """Our own ranking, for any hand of at most five cards (jokers and repeated codes too).

    The jokers join the largest group of equal ranks (the highest such rank; aces when there
    are no other cards): a larger group always makes the better of the count-based categories.
    Five cards may instead make a flush (jokers as aces of its suit) or a straight (jokers fill
    the highest window that holds every natural rank); the best of these is the value.
    """
    naturals = [c for c in cards if c not in JOKERS]
    jokers = len(cards) - len(naturals)
    ranks = [_RANK[c[0]] for c in naturals]
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    if groups:
        top_rank, top_count = groups[0]
        rest = groups[1:]
    else:
        top_rank, top_count, rest = _ACE, 0, []
    top_count += jokers
    second = rest[0][1] if rest else 0
    order = [top_rank] + [r for r, _ in rest]
    if top_count >= 5:
        best = _encode(FIVE, [top_rank])
    elif top_count == 4:
        best = _encode(QUADS, order)
    elif top_count == 3:
        best = _encode(FULL_HOUSE if second == 2 else TRIPS, order)
    elif top_count == 2:
        best = _encode(TWO_PAIR if second == 2 else PAIR, order)
    else:
        best = _encode(HIGH_CARD, order)
    if len(cards) == 5:
        suited = len({c[1] for c in naturals}) <= 1
        if suited:
            best = max(best, _encode(FLUSH, sorted(ranks + [_ACE] * jokers, reverse=True)))
        if len(counts) == len(naturals):
            top = _straight_top(set(ranks))
            if top is not None:
                best = max(best, _encode(STRAIGHT_FLUSH if suited else STRAIGHT, [top]))
    return best


def _straight_top(ranks: set[int]) -> int | None:
    """The top rank of the best straight holding all these ranks (jokers fill the rest)."""
    for top, window in _STRAIGHTS:
        if ranks <= window:
            return top
    return None


@cache
def _class_values() -> tuple[int, ...]:
    """Our value of each phevaluator class number (index 0 unused), from one hand per class:
    every multiset of five ranks (at most four alike) in mixed suits, and every set of five
    different ranks in one suit."""
    table = [0] * 7463
    hands = [
        _mixed_suits(combo)
        for combo in combinations_with_replacement(RANK_ORDER, 5)
        if max(Counter(combo).values()) <= 4
    ]
    hands += [[r + "S" for r in combo] for combo in combinations(RANK_ORDER, 5)]
    for hand in hands:
        table[evaluate_5cards(*(_PH_ID[c] for c in hand))] = _rule_value(hand)
    return tuple(table)


def _mixed_suits(ranks: Sequence[str]) -> list[str]:
    """Five cards of these ranks, all different codes, not all of one suit."""
    hand: list[str] = []
    for rank in ranks:
        suit = next(s for s in "CDHS" if rank + s not in hand)
        hand.append(rank + suit)
    if len({c[1] for c in hand}) == 1:  # five different ranks, all clubs: change one suit
        hand[0] = hand[0][0] + "D"
    return hand


def best_hand(
    private: Sequence[str], face_up: Sequence[str], tower_cards: int = 1
) -> tuple[str, tuple[str, ...]]:
    """The category of the best hand of ``private`` plus exactly ``tower_cards`` of the
    face-up tower cards (all of them if fewer), and the tower cards it uses."""
    value, used = best_value(private, face_up, tower_cards)
    return category(value), used


def best_value(
    private: Sequence[str], face_up: Sequence[str], tower_cards: int = 1
) -> tuple[int, tuple[str, ...]]:
    """Like :func:`best_hand`, with the comparable value. The first best choice in the order of
    ``face_up`` is the one reported."""
    k = min(tower_cards, len(face_up))
    best = -1
    used: tuple[str, ...] = ()
    for choice in combinations(face_up, k):
        value = hand_value([*private, *choice])
        if value > best:
            best, used = value, choice
    return best, used
