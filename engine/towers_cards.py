"""The cards and the table of Siege tower poker (key ``towers``): the 108-card deck, the flip
fees and the other constants, the state's shape (a fast copy, a fresh hand's fields), the
questions the rules ask of a state (who is still in, the next tower, the next fee, the pot), what
a seat may do (its betting choices and why one is refused, its joker reveals and discards) and
the checks on a stacked deal.

Follows ``../shared/seeds/siege-towers-poker.txt`` as settled by ``../shared/spec/towers.md``
(sections 2, 3, 5 and 6.2); ``engine.towers`` is the game's bundle.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

from engine import cards
from engine.poker_hands import JOKERS
from engine.rules import JSON, SetupError, State, brief, clone

HAND_SIZE = 4


TOWER_COUNT = 4


DECK108: tuple[str, ...] = tuple(sorted([*cards.DECK52, "XB", "XR"] * 2))


CARD_CODES = frozenset(DECK108)


FLIP_FEES = {1: 0, 2: 1, 3: 5, 4: 10}  # by the flip's number in the hand (house rule)


STACK_KEYS = frozenset({"dealer", "towers", "hands", "pile"})


UP_TO_1, UP_TO_4, EXACTLY_2 = "up_to_1", "up_to_4", "exactly_2"


def clockwise(seats: int, start: int) -> list[int]:
    """Every seat once, going left (clockwise) from the seat after ``start``, ``start`` last.

    >>> clockwise(4, 1)
    [2, 3, 0, 1]
    """
    return [(start + i) % seats for i in range(1, seats + 1)]


_FLAT_LISTS = frozenset(
    {
        "chips",
        "left",
        "out",
        "in_hand",
        "spire",
        "dungeon",
        "face_up",
        "tower_used",
        "in_pot",
        "round_bets",
        "acted",
        "offer",
        "joker_revealed",
    }
)


def copy_state(state: State) -> State:
    """A deep copy of a towers state to build the next one from, knowing its shape: lists of
    codes and numbers are copied whole (a per-item tree walk would cost most of a move).

    >>> import random
    >>> from engine.towers import GAME
    >>> state = GAME.setup(2, {}, random.Random(1))
    >>> copied = copy_state(state)
    >>> copied["hands"][0].append("XB")
    >>> copied == state, len(state["hands"][0])
    (False, 4)
    """
    new = dict(state)
    for key in _FLAT_LISTS:
        new[key] = state[key][:]
    new["towers"] = [zone[:] for zone in state["towers"]]
    new["hands"] = [zone[:] for zone in state["hands"]]
    new["options"] = dict(state["options"])
    new["shows"] = [clone(show) for show in state["shows"]]
    for key in ("discard", "last_hand", "result"):
        if state[key] is not None:
            new[key] = clone(state[key])
    return new


def _reset_hand(s: State) -> None:
    n = s["seats"]
    s.update(
        in_hand=[False] * n,
        hands=[[] for _ in range(n)],
        face_up=[],
        tower_used=[False] * TOWER_COUNT,
        flips=0,
        in_pot=[0] * n,
        fees=0,
        round_bets=[0] * n,
        bet_level=0,
        raises=0,
        bet_size=s["options"]["small_bet"],
        acted=[False] * n,
        offer=[],
        discard=None,
        joker_revealed=[False] * n,
        jackpot=False,
        burned=None,
        hand_actions=[],
    )


def _in_game(s: State) -> list[int]:
    return [x for x in range(s["seats"]) if not s["left"][x] and not s["out"][x]]


def _next_tower(s: State) -> int | None:
    for t in range(TOWER_COUNT):
        if s["towers"][t] and not s["tower_used"][t]:
            return t
    return None


def _can_flip(s: State) -> bool:
    """6.2: a tower card can still be turned this hand, and the jackpot has not come."""
    return s["phase"] != "over" and not s["jackpot"] and _next_tower(s) is not None


def _next_fee(s: State) -> int:
    return FLIP_FEES[s["flips"] + 1]


def _with_chips(s: State) -> list[int]:
    return [x for x in range(s["seats"]) if s["in_hand"][x] and s["chips"][x] > 0]


def _pot(s: State) -> int:
    return sum(s["in_pot"]) + int(s["fees"])


def _others_with_chips(s: State, seat: int) -> bool:
    return any(x != seat and s["chips"][x] > 0 for x in _with_chips(s))


def _betting_choices(s: State, seat: int) -> list[str]:
    chips = s["chips"][seat]
    b = s["bet_size"]
    to_call = s["bet_level"] - s["round_bets"][seat]
    others = _others_with_chips(s, seat)
    choices = []
    if to_call == 0:
        choices.append("check")
    if s["bet_level"] == 0 and chips >= b and others:
        choices.append("bet")
    if to_call > 0:
        choices.append("call")
    if (
        s["bet_level"] > 0
        and s["raises"] < s["options"]["max_raises"]
        and chips >= to_call + b
        and others
    ):
        choices.append("raise")
    if to_call > 0:
        choices.append("fold")
    return choices


def _betting_refusal(s: State, seat: int, kind: str) -> str:
    chips = s["chips"][seat]
    b = s["bet_size"]
    to_call = s["bet_level"] - s["round_bets"][seat]
    if kind == "check":
        return f"You cannot check: there is a bet of {to_call} to call."
    if kind in ("call", "fold"):
        return f"You cannot {kind}: there is no bet to {'call' if kind == 'call' else 'fold to'}."
    if kind == "bet" and s["bet_level"] > 0:
        return "Someone has already bet this round: call, raise or fold."
    if kind == "raise" and s["bet_level"] == 0:
        return "There is no bet to raise yet: bet instead."
    if kind == "raise" and s["raises"] >= s["options"]["max_raises"]:
        return f"No more raises this round (at most {s['options']['max_raises']})."
    need = b if kind == "bet" else to_call + b
    if chips < need:
        return f"You need {need} chips to {kind}; you have {chips}."
    return f"You cannot {kind}: no other player in the hand has chips left to answer it."


def _reveal_choices(s: State, seat: int) -> list[str]:
    """5.4: one card whose discard leaves a joker in the hand, once per hand."""
    hand = s["hands"][seat]
    if s["joker_revealed"][seat] or not JOKERS.intersection(hand):
        return []
    jokers = sum(c in JOKERS for c in hand)
    return sorted({c for c in hand if c not in JOKERS or jokers >= 2})


def _discard_choices(s: State, seat: int) -> list[tuple[str, ...]]:
    """5.3: every distinct multiset of the hand the current joker effect allows."""
    mode = s["discard"]["mode"]
    hand = sorted(s["hands"][seat])
    sizes = [2] if mode == EXACTLY_2 else range((1 if mode == UP_TO_1 else 4) + 1)
    found: list[tuple[str, ...]] = []
    for size in sizes:
        found += sorted(set(combinations(hand, size)))
    return found


def _codes(value: list[Any], what: str) -> list[str]:
    for code in value:
        if not isinstance(code, str) or code not in CARD_CODES:
            shown = repr(code) if isinstance(code, str) else brief(code)
            raise SetupError(f"Stack {what!r}: {shown} is not a card of the game.")
    return list(value)


def _stack_towers(stack: Mapping[str, JSON], height: int) -> list[list[str]]:
    if "towers" not in stack:
        return [[] for _ in range(TOWER_COUNT)]
    towers = stack["towers"]
    if (
        not isinstance(towers, list)
        or len(towers) != TOWER_COUNT
        or not all(isinstance(t, list) for t in towers)
    ):
        raise SetupError("Stack 'towers' must be a list of exactly 4 lists of card codes.")
    for t, tower in enumerate(towers):
        if len(tower) > height:
            raise SetupError(
                f"Stack 'towers' names {len(tower)} cards for tower {t}; at most {height} fit."
            )
    return [_codes(t, "towers") for t in towers]
