"""The cards of Siege the King (key ``king``): the deck and its counts, each card's kind, value,
name and sort order, a column's value and the match check, and the checks on a stacked deal.

Follows ``../shared/seeds/siege-the-king.txt`` as settled by ``../shared/spec/king.md`` (sections
2, 3 and 4); ``engine.king`` is the game's bundle.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from engine.rules import SetupError, brief, stack_choice, stack_hands, stack_list

HAND_SIZE = 5


BASE_VALUE = 10


TURN_LIMIT = 200


STACK_KEYS = frozenset({"first", "hands", "pile"})


KING = "KING"


THRONE = "THRONE"


JUDGE = "JUDGE"


SORC = "SORC"


ASSASSIN = "ASSASSIN"


ARTISAN = "ARTISAN"


ATTACKER = "attacker"


DEFENDER = "defender"


WARRIOR = "warrior"


SPECIAL = "special"


ATTACKERS = tuple(f"A{v}" for v in range(1, 9))


DEFENDERS = tuple(f"D{v}" for v in range(1, 9))


WARRIORS = ("W3", "W4", "W5", "W6")


SPECIAL_COUNTS = {JUDGE: 4, SORC: 3, ASSASSIN: 1, ARTISAN: 1}


# Canonical order of distinct codes: hands and `legal` list cards in this order.
CARD_ORDER: tuple[str, ...] = ATTACKERS + DEFENDERS + WARRIORS + tuple(SPECIAL_COUNTS)


# Column indexes as players name them, from the owner's left (for renderers and messages).
COLUMN_NAMES = ("left", "middle", "right")


_KIND = (
    {c: ATTACKER for c in ATTACKERS}
    | {c: DEFENDER for c in DEFENDERS}
    | {c: WARRIOR for c in WARRIORS}
    | {c: SPECIAL for c in SPECIAL_COUNTS}
)


_ORDER_INDEX = {code: n for n, code in enumerate(CARD_ORDER)}


_VALUES = {code: int(code[1:]) for code in ATTACKERS + DEFENDERS + WARRIORS}


def deck(specials: bool) -> list[str]:
    """The draw deck, in canonical order: 45 cards with the specials, 36 without.

    >>> len(deck(True)), len(deck(False)), deck(False).count("A5"), deck(True).count("JUDGE")
    (45, 36, 2, 4)
    """
    cards = [c for c in ATTACKERS + DEFENDERS for _ in range(2)] + list(WARRIORS)
    if specials:
        cards += [c for c, n in SPECIAL_COUNTS.items() for _ in range(n)]
    return cards


def card_value(code: str) -> int | None:
    """The value of an Attacker, Defender or Warrior; None for a special card.

    >>> card_value("A5"), card_value("W3"), card_value("JUDGE")
    (5, 3, None)
    """
    return _VALUES.get(code)


def card_name(code: str) -> str:
    """A card as a player reads it.

    >>> card_name("A5"), card_name("W3"), card_name("SORC"), card_name("KING")
    ('Attacker 5', 'Warrior 3', 'Sorcerer', 'King')
    """
    kind = _KIND.get(code)
    if kind in (ATTACKER, DEFENDER, WARRIOR):
        return f"{str(kind).capitalize()} {code[1:]}"
    return {SORC: "Sorcerer"}.get(code, code.capitalize())


def card_sort_key(code: str) -> int:
    return _ORDER_INDEX[code]


def column_value(column: Mapping[str, list[str]], is_open: bool = True) -> int:
    """10 + the defenders' values - the attackers' values; a closed column is reported as 0.

    >>> column_value({"cards": ["A4", "D5"], "roles": ["attacker", "defender"]})
    11
    >>> column_value({"cards": ["A4"], "roles": ["attacker"]}, is_open=False)
    0
    """
    if not is_open:
        return 0
    total = BASE_VALUE
    for code, role in zip(column["cards"], column["roles"], strict=True):
        value = card_value(code) or 0
        total += value if role == DEFENDER else -value
    return total


def match_check(cards: list[str], roles: list[str]) -> tuple[int, str | None]:
    """How many cards under the top (just placed) card leave with it, and by which rule.

    "(a) opposite role and the same value: the new card and c1 go; (b) otherwise the smallest
    k >= 2 with c1 + ... + ck = v: the new card and c1 ... ck go" (spec 6.2).

    >>> match_check(["D2", "A2"], ["defender", "attacker"])
    (1, 'equal')
    >>> match_check(["D2", "A3", "D5"], ["defender", "attacker", "defender"])
    (2, 'sum')
    >>> match_check(["A2", "A2"], ["attacker", "attacker"])
    (0, None)
    """
    if len(cards) < 2:
        return 0, None
    v = card_value(cards[-1]) or 0
    under = list(zip(reversed(cards[:-1]), reversed(roles[:-1]), strict=True))
    c1, role1 = under[0]
    if role1 != roles[-1] and card_value(c1) == v:
        return 1, "equal"
    total = 0
    for k, (code, _role) in enumerate(under, start=1):
        total += card_value(code) or 0
        if total > v:  # every value is positive: the running sum can only overshoot further
            break
        if k >= 2 and total == v:
            return k, "sum"
    return 0, None


def _distinct(hand: Iterable[str]) -> list[str]:
    return sorted(set(hand), key=card_sort_key)


def _role_of(card: str, me: int, owner: int) -> str:
    """A Warrior defends on its player's own column and attacks on the opponent's (spec 2)."""
    kind = _KIND[card]
    if kind == WARRIOR:
        return DEFENDER if owner == me else ATTACKER
    return kind


def _check_stack(stack: dict[str, Any], specials: bool) -> dict[str, Any]:
    """Spec 4's malformations as SetupError; the stack as kept in the state otherwise."""
    unknown = sorted(set(stack) - STACK_KEYS)
    if unknown:
        raise SetupError(f"Unknown stack key {unknown[0]!r} for Siege the King.")
    first = stack_choice(stack, "first", (0, 1))
    full = Counter(deck(specials))
    hands = stack_hands(stack, 2, HAND_SIZE)
    if any(ASSASSIN in hand for hand in hands):
        raise SetupError("The Assassin never starts in a hand.")
    pile = stack_list(stack, "pile")
    named = [*hands[0], *hands[1], *pile]
    for code in named:
        if not isinstance(code, str) or code not in full:
            without = "" if specials else " without special cards"
            shown = repr(code) if isinstance(code, str) else brief(code)
            raise SetupError(f"{shown} is not a card of the Siege the King deck{without}.")
    for code, count in Counter(named).items():
        if count > full[code]:
            raise SetupError(
                f"The stack names {code!r} {count} times; the deck holds {full[code]}."
            )
    spare = sum((full - Counter(named)).values()) - (full[ASSASSIN] - named.count(ASSASSIN))
    if spare < 2 * HAND_SIZE - len(hands[0]) - len(hands[1]):
        raise SetupError("The stacked pile leaves too few cards to complete the opening hands.")
    return {"first": first, "hands": [list(h) for h in hands], "pile": list(pile)}
