"""Standard playing-card codes, as ``../shared/spec/README.md`` defines them.

A code is a rank ``A 2 3 4 5 6 7 8 9 T J Q K`` followed by a suit ``S H D C``; jokers are ``XB``
and ``XR``.

>>> value("TH"), value("AS"), value("KC")
(10, 1, 13)
>>> sorted(["KC", "2H", "2S", "TD"], key=sort_key)
['2S', '2H', 'TD', 'KC']
>>> pretty("TH")
'10♥'
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "SHDC"
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_NAMES = {"A": "A", "T": "10", "J": "J", "Q": "Q", "K": "K"}

DECK52: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)


def is_card(code: object) -> bool:
    return isinstance(code, str) and code in _DECK52_SET


def value(code: str) -> int:
    """The rank value: A = 1, 2-9 face value, T = 10, J = 11, Q = 12, K = 13."""
    known = _VALUES.get(code)  # looked up: a panel or a search asks this thousands of times
    return known if known is not None else RANKS.index(code[0]) + 1


def sort_key(code: str) -> tuple[int, int]:
    """By value, then by suit in the order S, H, D, C."""
    known = _SORT_KEYS.get(code)
    return known if known is not None else (value(code), SUITS.index(code[1]))


def pretty(code: str) -> str:
    """A card as a player reads it: ``10♥``, ``A♠``."""
    known = _PRETTY.get(code)
    return known if known is not None else RANK_NAMES.get(code[0], code[0]) + SUIT_SYMBOLS[code[1]]


_DECK52_SET = frozenset(DECK52)
# The answers for the 52 cards, worked out once (any other code is worked out as it comes).
_VALUES = {code: RANKS.index(code[0]) + 1 for code in DECK52}
_SORT_KEYS = {code: (_VALUES[code], SUITS.index(code[1])) for code in DECK52}
_PRETTY = {code: RANK_NAMES.get(code[0], code[0]) + SUIT_SYMBOLS[code[1]] for code in DECK52}
