"""Card codes: the answers looked up for the 52 cards are the ones worked out from the code, and
any other code is worked out (or refused) as before."""

from __future__ import annotations

import pytest

from engine import cards


def test_every_card_reads_as_its_code_says() -> None:
    for code in cards.DECK52:
        rank, suit = code
        assert cards.value(code) == cards.RANKS.index(rank) + 1
        assert cards.sort_key(code) == (cards.RANKS.index(rank) + 1, cards.SUITS.index(suit))
        assert cards.pretty(code) == cards.RANK_NAMES.get(rank, rank) + cards.SUIT_SYMBOLS[suit]
    assert [cards.value(c) for c in ("AS", "9H", "TD", "JC", "QS", "KH")] == [1, 9, 10, 11, 12, 13]
    assert sorted(["KC", "2H", "2S", "TD", "AC", "AS"], key=cards.sort_key) == [
        "AS", "AC", "2S", "2H", "TD", "KC",
    ]  # fmt: skip


def test_a_code_outside_the_deck_is_worked_out_or_refused() -> None:
    assert cards.value("TSX") == 10  # only the rank letter counts, as it always did
    with pytest.raises(ValueError):
        cards.value("XB")  # a joker has no rank value
    with pytest.raises(ValueError):
        cards.sort_key("XR")
    with pytest.raises(KeyError):
        cards.pretty("AZ")
