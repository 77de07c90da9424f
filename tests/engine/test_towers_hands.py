"""Hand ranking for tower poker (``engine/poker_hands.py``), against ``/work/shared/spec/towers.md``
§6.6: checked against treys on 100,000 random joker-free hands, against a brute-force joker
substitution (with a plain evaluator written here) on hands with jokers and repeated codes, and
every category and tie rule of §6.6 as a named case.
"""

from __future__ import annotations

import doctest
import random
from collections import Counter
from itertools import combinations, combinations_with_replacement

import pytest
from treys import Card, Evaluator

import engine.poker_hands
from engine.cards import DECK52
from engine.poker_hands import (
    CATEGORIES,
    best_hand,
    best_value,
    category,
    describe,
    hand_value,
)

RANKS = "23456789TJQKA"
DECK108 = [*DECK52, *DECK52, "XB", "XB", "XR", "XR"]
TREYS_CLASS = {
    "Royal Flush": "straight_flush",
    "Straight Flush": "straight_flush",
    "Four of a Kind": "four_of_a_kind",
    "Full House": "full_house",
    "Flush": "flush",
    "Straight": "straight",
    "Three of a Kind": "three_of_a_kind",
    "Two Pair": "two_pair",
    "Pair": "pair",
    "High Card": "high_card",
}


def test_doctests() -> None:
    assert doctest.testmod(engine.poker_hands).failed == 0


# -- against treys ---------------------------------------------------------------------------


def treys_card(code: str) -> int:
    return int(Card.new(code[0] + code[1].lower()))


def test_agrees_with_treys_on_100000_joker_free_hands() -> None:
    """4 private cards plus 1 to 4 face-up tower cards, all different (one deck): the same
    category as treys and the same order between consecutive hands (ties included)."""
    evaluator = Evaluator()
    rng = random.Random(20261125)
    ours: list[int] = []
    theirs: list[int] = []
    for _ in range(100_000):
        dealt = rng.sample(DECK52, 4 + rng.randint(1, 4))
        private, tower = dealt[:4], dealt[4:]
        value, used = best_value(private, tower)
        ids = [treys_card(c) for c in private]
        best = min(evaluator.evaluate(ids, [treys_card(t)]) for t in tower)
        assert (
            category(value)
            == TREYS_CLASS[evaluator.class_to_string(evaluator.get_rank_class(best))]
        ), (private, tower)
        assert evaluator.evaluate(ids, [treys_card(used[0])]) == best
        ours.append(value)
        theirs.append(best)
    for i in range(len(ours) - 1):
        mine = (ours[i] > ours[i + 1]) - (ours[i] < ours[i + 1])
        other = (theirs[i] < theirs[i + 1]) - (theirs[i] > theirs[i + 1])
        assert mine == other, i


def test_every_phevaluator_class_keeps_its_order() -> None:
    """Our value of phevaluator's classes 1 (best) … 7462 (worst) strictly decreases."""
    table = engine.poker_hands._class_values()
    assert all(table[i] > table[i + 1] for i in range(1, 7462))


# -- against brute force -------------------------------------------------------------------


def plain_rank(cards: list[str]) -> tuple[str, tuple[str, ...]]:
    """A plain evaluator for joker-free hands of at most five cards, repeated codes allowed,
    written straight from §6.6 (independent of ``engine.poker_hands``)."""
    values = sorted((RANKS.index(c[0]) for c in cards), reverse=True)
    counts = Counter(values)
    order = sorted(counts, key=lambda v: (counts[v], v), reverse=True)
    shape = [*sorted(counts.values(), reverse=True), 0]
    five = len(cards) == 5
    flush = five and len({c[1] for c in cards}) == 1
    top = None
    if five and len(counts) == 5:
        if values[0] - values[4] == 4:
            top = values[0]
        elif values == [12, 3, 2, 1, 0]:
            top = 3
    names = tuple(RANKS[v] for v in order)
    if shape[0] == 5:
        return "five_of_a_kind", names
    if top is not None and flush:
        return "straight_flush", (RANKS[top],)
    if shape[0] == 4:
        return "four_of_a_kind", names
    if shape[:2] == [3, 2]:
        return "full_house", names
    if flush:
        return "flush", tuple(RANKS[v] for v in values)
    if top is not None:
        return "straight", (RANKS[top],)
    if shape[0] == 3:
        return "three_of_a_kind", names
    if shape[:2] == [2, 2]:
        return "two_pair", names
    if shape[0] == 2:
        return "pair", names
    return "high_card", names


def plain_key(described: tuple[str, tuple[str, ...]]) -> tuple[int, tuple[int, ...]]:
    name, ranks = described
    return CATEGORIES.index(name), tuple(RANKS.index(r) for r in ranks)


def brute_force(cards: list[str]) -> tuple[str, tuple[str, ...]]:
    """The best hand over every substitution of the jokers (copies allowed). Suits that no
    natural card holds are interchangeable, so one of them stands for all."""
    naturals = [c for c in cards if c[0] != "X"]
    jokers = len(cards) - len(naturals)
    if not jokers:
        return plain_rank(naturals)
    suits = sorted({c[1] for c in naturals})
    suits += [next(s for s in "SHDC" if s not in suits)] if len(suits) < 4 else []
    pool = [r + s for r in RANKS for s in suits]
    return max(
        (plain_rank(naturals + list(sub)) for sub in combinations_with_replacement(pool, jokers)),
        key=plain_key,
    )


@pytest.mark.parametrize(("jokers", "hands"), [(1, 600), (2, 80), (3, 8), (4, 4)])
def test_jokers_agree_with_brute_force_substitution(jokers: int, hands: int) -> None:
    rng = random.Random(jokers)
    naturals = [*DECK52, *DECK52]
    for _ in range(hands):
        cards = rng.sample(naturals, 5 - jokers) + [rng.choice(("XB", "XR")) for _ in range(jokers)]
        rng.shuffle(cards)
        assert describe(hand_value(cards)) == brute_force(cards), cards


def test_repeated_codes_agree_with_the_plain_evaluator() -> None:
    """Two-deck hands without jokers, many with the same code twice (never sent to
    phevaluator, which misranks them)."""
    rng = random.Random(5)
    small = [r + s for r in "A2345" for s in "SH"] * 2  # dense: repeats and suits come often
    repeated = 0
    for _ in range(20_000):
        cards = rng.sample(small if rng.random() < 0.5 else [*DECK52, *DECK52], 5)
        repeated += len(set(cards)) < 5
        assert describe(hand_value(cards)) == plain_rank(cards), cards
    assert repeated > 5000


def test_short_and_jackpot_hands_agree_with_brute_force() -> None:
    """After the jackpot a hand is 2 private cards plus 3 tower cards, or all of them if
    fewer than 3 are up: hands of 3 and 4 cards, jokers included."""
    rng = random.Random(11)
    for _ in range(300):
        size = rng.choice((3, 4, 5))
        cards = rng.sample(DECK108, size)
        assert describe(hand_value(cards)) == brute_force(cards), cards
    for _ in range(100):
        private = rng.sample(DECK108, 2)
        tower = rng.sample(DECK108, rng.randint(1, 6))
        value, used = best_value(private, tower, 3)
        assert len(used) == min(3, len(tower))
        expected = max(
            (
                brute_force([*private, *choice])
                for choice in combinations(tower, min(3, len(tower)))
            ),
            key=plain_key,
        )
        assert describe(value) == expected


# -- every category and tie of §6.6 ----------------------------------------------------------


def test_five_of_a_kind_needs_two_decks_or_jokers() -> None:
    assert describe(hand_value(["7S", "7S", "7H", "7D", "7C"])) == ("five_of_a_kind", ("7",))
    assert describe(hand_value(["XB", "7S", "7C", "7D", "7H"])) == ("five_of_a_kind", ("7",))


def test_five_of_a_kind_beats_a_straight_flush() -> None:
    five = hand_value(["2S", "2H", "2D", "XB", "XR"])
    royal = hand_value(["TS", "JS", "QS", "KS", "AS"])
    assert category(royal) == "straight_flush"
    assert five > royal


def test_categories_in_order() -> None:
    hands = [
        ["2S", "5H", "7D", "9C", "JS"],  # high card
        ["2S", "2H", "7D", "9C", "JS"],  # pair
        ["2S", "2H", "7D", "7C", "JS"],  # two pair
        ["2S", "2H", "2D", "7C", "JS"],  # three of a kind
        ["2S", "3H", "4D", "5C", "6S"],  # straight
        ["2S", "5S", "7S", "9S", "JS"],  # flush
        ["2S", "2H", "2D", "7C", "7S"],  # full house
        ["2S", "2H", "2D", "2C", "7S"],  # four of a kind
        ["2S", "3S", "4S", "5S", "6S"],  # straight flush
        ["2S", "2S", "2H", "2D", "XR"],  # five of a kind
    ]
    values = [hand_value(h) for h in hands]
    assert [category(v) for v in values] == list(CATEGORIES)
    assert values == sorted(values)


def test_a_hand_counts_as_its_best_category_only() -> None:
    # A full house also holds three of a kind and a pair; a flush with a pair is a flush.
    assert category(hand_value(["KS", "KH", "KD", "7C", "7S"])) == "full_house"
    assert category(hand_value(["7H", "7H", "KH", "2H", "9H"])) == "flush"


def test_straights_wheel_lowest_broadway_highest_no_wrap() -> None:
    wheel = hand_value(["AS", "2H", "3D", "4C", "5S"])
    six = hand_value(["2S", "3H", "4D", "5C", "6S"])
    broadway = hand_value(["TS", "JH", "QD", "KC", "AS"])
    assert describe(wheel) == ("straight", ("5",))
    assert wheel < six < broadway
    assert describe(broadway) == ("straight", ("A",))
    assert category(hand_value(["QS", "KH", "AD", "2C", "3S"])) == "high_card"
    assert describe(hand_value(["AH", "2H", "3H", "4H", "5H"])) == ("straight_flush", ("5",))


def test_ties_five_of_a_kind_by_rank() -> None:
    assert hand_value(["AS", "AH", "XB", "XR", "XB"]) > hand_value(["JH", "JS", "XB", "XR", "XR"])


def test_ties_straight_and_straight_flush_by_top_card() -> None:
    assert hand_value(["9S", "TH", "JD", "QC", "KS"]) > hand_value(["8S", "9H", "TD", "JC", "QS"])
    assert hand_value(["9S", "TS", "JS", "QS", "KS"]) == hand_value(["9H", "TH", "JH", "QH", "KH"])


def test_ties_four_of_a_kind_then_kicker() -> None:
    assert hand_value(["9S", "9H", "9D", "9C", "2S"]) > hand_value(["8S", "8H", "8D", "8C", "AS"])
    assert hand_value(["9S", "9H", "9D", "9C", "KS"]) > hand_value(["9S", "9H", "9D", "9C", "QS"])


def test_ties_full_house_three_then_two() -> None:
    assert hand_value(["9S", "9H", "9D", "2C", "2S"]) > hand_value(["8S", "8H", "8D", "AC", "AS"])
    assert hand_value(["9S", "9H", "9D", "KC", "KS"]) > hand_value(["9S", "9H", "9D", "QC", "QS"])


def test_ties_flush_all_five_ranks_repeats_included() -> None:
    assert hand_value(["AH", "KH", "9H", "5H", "3H"]) > hand_value(["AS", "KS", "9S", "5S", "2S"])
    # Two decks: a flush with a pair of aces beats A K Q J 9.
    assert hand_value(["AH", "AH", "KH", "QH", "JH"]) > hand_value(["AS", "KS", "QS", "JS", "9S"])


def test_ties_three_of_a_kind_then_two_kickers() -> None:
    assert hand_value(["7S", "7H", "7D", "KC", "2S"]) > hand_value(["7S", "7H", "7D", "QC", "JS"])
    assert hand_value(["7S", "7H", "7D", "KC", "3S"]) > hand_value(["7S", "7H", "7D", "KC", "2S"])


def test_ties_two_pair_high_low_kicker() -> None:
    assert hand_value(["KS", "KH", "2D", "2C", "3S"]) > hand_value(["QS", "QH", "JD", "JC", "AS"])
    assert hand_value(["KS", "KH", "5D", "5C", "3S"]) > hand_value(["KS", "KH", "4D", "4C", "AS"])
    assert hand_value(["KS", "KH", "5D", "5C", "4S"]) > hand_value(["KS", "KH", "5D", "5C", "3S"])


def test_ties_pair_then_three_kickers() -> None:
    assert hand_value(["5S", "5H", "2D", "3C", "4S"]) > hand_value(["4S", "4H", "AD", "KC", "QS"])
    assert hand_value(["5S", "5H", "AD", "KC", "3S"]) > hand_value(["5S", "5H", "AD", "KC", "2S"])


def test_ties_high_card_all_five() -> None:
    assert hand_value(["AS", "KH", "9D", "5C", "3S"]) > hand_value(["AS", "KH", "9D", "5C", "2H"])


def test_suits_never_break_ties_and_equal_hands_tie() -> None:
    assert hand_value(["AS", "KH", "9D", "5C", "3S"]) == hand_value(["AH", "KD", "9C", "5S", "3H"])
    assert hand_value(["7S", "7H", "KD", "QC", "2S"]) == hand_value(["7D", "7C", "KS", "QH", "2D"])


def test_a_joker_copies_a_card_and_two_jokers_may_be_the_same_card() -> None:
    # The joker as a second A♥ makes the best flush; both jokers as A♠ make five aces.
    assert describe(hand_value(["AH", "KH", "9H", "5H", "XB"])) == (
        "flush",
        ("A", "A", "K", "9", "5"),
    )
    assert describe(hand_value(["AS", "AS", "AH", "XB", "XR"])) == ("five_of_a_kind", ("A",))


def test_jokers_in_the_tower_card_too() -> None:
    category_name, used = best_hand(["KS", "KD", "2C", "7H"], ["4D", "XR"])
    assert (category_name, used) == ("three_of_a_kind", ("XR",))


def test_exactly_one_tower_card() -> None:
    # Two aces up could make four aces; only one may be used.
    assert best_hand(["AS", "AH", "2C", "3D"], ["AD", "AC"]) == ("three_of_a_kind", ("AD",))


def test_fewer_than_five_cards_make_only_the_smaller_categories() -> None:
    assert category(hand_value(["AS", "AH", "XB"])) == "three_of_a_kind"
    assert category(hand_value(["AS", "AH", "XB", "XR"])) == "four_of_a_kind"
    assert category(hand_value(["2H", "3H", "4H", "5H"])) == "high_card"
    assert best_hand(["AS", "AH"], ["XB"], 3) == ("three_of_a_kind", ("XB",))


def test_jackpot_hand_two_private_three_tower() -> None:
    # Example 10.4: A♠ A♥ with three face-up jokers beats J♥ J♠ with them.
    face_up = ["XB", "XR", "XB", "XR", "2S", "3S", "4S", "5S"]
    aces, used = best_value(["AS", "AH"], face_up, 3)
    jacks, _ = best_value(["JH", "JS"], face_up, 3)
    assert describe(aces) == ("five_of_a_kind", ("A",))
    assert aces > jacks
    assert sorted(used) == ["XB", "XB", "XR"]
