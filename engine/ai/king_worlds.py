"""What a computer seat of Siege the King (key ``king``) reads from its view and the worlds it
imagines: the deal of the cards it cannot see, where the other King likely hides, and where its
own King is as the other player must imagine it.

Hiding its own King: a seat that always builds up its King's column tells the other player where
the King is. Every sample therefore moves the searching seat's own King to a random face-down
column (:data:`MIXING`), so while its castle is face down a choice does not depend on where among
those columns its King lies (a test checks it): its play cannot point to the King. Both levels
that search (``engine.ai.king`` and ``engine.ai.king_rollouts``) deal their worlds here.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engine.king import ASSASSIN, DEFENDER, GAME, KING, THRONE, card_value, column_value, deck
from engine.rules import State

#: How often a sample moves the searching seat's own King to a random face-down column: always,
#: so the search never uses where it really is. (At 0.75 the quarter of samples that kept it in
#: place made the search guard the real column, which showed it: the King sat in its tallest
#: face-down column 52.3% of the time at ply 20 against 38.0% chance.)
MIXING = 1.0
#: How strongly a sample believes the other King hides under a reinforced column: a face-down
#: column weighs 1 + its Defender value / GUARD_SIGN.
GUARD_SIGN = 6.0


def specials_of(view: Mapping[str, Any], options: Mapping[str, Any]) -> bool:
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
        return arranging(view, seat, specials, rng)
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
    other_order[guess_king(columns[other], rng)] = KING
    castles: list[list[str] | None] = [None, None]
    castles[seat] = own_castle(view["castle"], columns[seat], rng)
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


def weakest(state: State, owner: int) -> int:
    """``owner``'s face-down open column with the lowest value (the first of equals)."""
    columns = state["columns"][owner]
    hidden = [
        i for i in range(3) if not state["revealed"][owner][i] and state["open"][owner][i]
    ] or [0]
    best: int = min(hidden, key=lambda i: column_value(columns[i]))
    return best


def own_castle(
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


def guess_king(columns: Sequence[Mapping[str, Any]], rng: random.Random) -> int:
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


def arranging(view: Mapping[str, Any], seat: int, specials: bool, rng: random.Random) -> State:
    """Before the deal: the setup state, with the other castle (if arranged) drawn at random."""
    state = GAME.setup(2, {"specials": specials}, rng)
    if seat == 1:
        order = [THRONE, THRONE, THRONE]
        order[rng.randrange(3)] = KING
        state["castles"][0] = order
        state["to_act"] = 1
    return state


def public_columns(state: State, owner: int) -> list[dict[str, Any]]:
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


def guarded(state: State, seat: int) -> int:
    """The column a seat shores up: its King's once revealed, else its weakest face-down one."""
    king = state["castles"][seat].index(KING)
    if state["revealed"][seat][king]:
        return int(king)
    hidden = [i for i in range(3) if not state["revealed"][seat][i] and state["open"][seat][i]]
    best: int = min(hidden or [king], key=lambda i: column_value(state["columns"][seat][i]))
    return best
