"""The plays of Siege the King (key ``king``): the phase checks, a play's card, column and Judge
target or the sentence refusing it, every legal play in the spec's order, why a held card has no
play (in words, for the panels), and what a play does to the columns.

Follows ``../shared/seeds/siege-the-king.txt`` as settled by ``../shared/spec/king.md``
(sections 5 and 6.2-6.3).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.king_cards import (
    _KIND,
    ARTISAN,
    ATTACKER,
    DEFENDER,
    JUDGE,
    SORC,
    WARRIOR,
    _distinct,
    _role_of,
    card_name,
    column_value,
    match_check,
)
from engine.king_turns import _flip_check, _run, _task
from engine.rules import Action, Event, RuleError, State, field_of


def _check_phase(phase: str, kind: str) -> None:
    if phase == "arrange" and kind != "arrange":
        raise RuleError("Both castles must be arranged before play begins.")
    if phase == "play" and kind == "arrange":
        raise RuleError("The castles are already arranged.")
    if phase == "play" and kind == "assassinate":
        raise RuleError("There is no Assassin to send: you only use one when you draw it.")
    if phase == "assassinate" and kind != "assassinate":
        raise RuleError("You drew the Assassin: first choose which enemy column it strikes.")


def _check_play(state: State, me: int, action: Action) -> tuple[str, int, int, int | None]:
    """The card, column and Judge target of a play, or the RuleError that refuses it."""
    card = field_of(action, "card", str)
    if card not in state["hands"][me]:
        raise RuleError("You do not hold that card.")
    if card == ARTISAN:
        raise RuleError(
            "The Artisan is never played: it protects you from your hand. You may discard it."
        )
    if "target" in action and card != JUDGE:
        raise RuleError("Only the Judge takes a target.")
    if "column" not in action:
        raise RuleError("Say which column the card goes on, as [seat, index].")
    s, i = _parse_column(action["column"])
    if not state["open"][s][i]:
        raise RuleError("That column is closed: its Throne was revealed, so no card may go there.")
    kind = _KIND[card]
    if kind == ATTACKER and s == me:
        raise RuleError("An Attacker can only be played on your opponent's columns.")
    if kind == DEFENDER and s != me:
        raise RuleError("A Defender can only be played on your own columns.")
    n = len(state["columns"][s][i]["cards"])
    target: int | None = None
    if card == JUDGE:
        if n == 0:
            raise RuleError("The Judge needs a card to remove, and that column is empty.")
        if "target" not in action:
            raise RuleError(
                'The Judge needs a "target": the position of the card it removes, counted from '
                "the castle card up (0 is the lowest)."
            )
        target = field_of(action, "target", int)
        if not 0 <= target < n:
            raise RuleError(
                f"That column holds {n} card{'s' if n > 1 else ''}: "
                f"the Judge's target must be 0{f' to {n - 1}' if n > 1 else ''}."
            )
    if card == SORC and n == 0:
        raise RuleError("The Sorcerer needs a column with at least one card on it.")
    return card, s, i, target


def _parse_column(value: object) -> tuple[int, int]:
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(isinstance(x, int) and not isinstance(x, bool) for x in value)
        and value[0] in (0, 1)
        and value[1] in (0, 1, 2)
    ):
        return int(value[0]), int(value[1])
    raise RuleError("A column is named [seat, index]: seat 0 or 1, index 0, 1 or 2 from the left.")


def _legal_plays(state: State, me: int) -> list[Action]:
    """Every distinct play, in the order of spec 5.3."""
    opp = 1 - me
    distinct = _distinct(state["hands"][me])
    columns = [(s, i) for s in (0, 1) for i in range(3) if state["open"][s][i]]
    filled = [(s, i) for s, i in columns if state["columns"][s][i]["cards"]]
    plays: list[Action] = []
    for kind, allowed in (
        (ATTACKER, [c for c in columns if c[0] == opp]),
        (DEFENDER, [c for c in columns if c[0] == me]),
        (WARRIOR, columns),
    ):
        for card in distinct:
            if _KIND[card] == kind:
                plays += [{"type": "play", "card": card, "column": [s, i]} for s, i in allowed]
    if JUDGE in distinct:
        for s, i in filled:
            plays += [
                {"type": "play", "card": JUDGE, "column": [s, i], "target": k}
                for k in range(len(state["columns"][s][i]["cards"]))
            ]
    if SORC in distinct:
        plays += [{"type": "play", "card": SORC, "column": [s, i]} for s, i in filled]
    return plays


def unplayable_reasons(view: Mapping[str, Any]) -> dict[str, str]:
    """Why each card in a seat's hand has no play right now, from that seat's own view (the
    hand and the public columns): the same tests :func:`_legal_plays` makes, in words, so a
    panel can say why a card is not offered instead of leaving it out. Empty outside the play
    phase.

    >>> open_empty = {"open": True, "cards": [], "roles": []}
    >>> closed = {"open": False, "cards": [], "roles": []}
    >>> view = {"seat": 0, "hand": ["A3", "SORC", "ARTISAN"],
    ...         "summary": {"phase": "play", "columns": [[open_empty] * 3, [closed] * 3]}}
    >>> for reason in unplayable_reasons(view).values():
    ...     print(reason)
    Attacker 3: all their columns are closed
    Sorcerer: no column has cards to clear
    Artisan: never played; kept in your hand, it cancels their special cards
    """
    summary = view["summary"]
    if summary["phase"] != "play" or view.get("hand") is None:
        return {}
    me = view["seat"]
    columns = [(s, col) for s in (0, 1) for col in summary["columns"][s] if col["open"]]
    has_theirs = any(s != me for s, _ in columns)
    has_mine = any(s == me for s, _ in columns)
    filled = any(col["cards"] for _, col in columns)
    reasons: dict[str, str] = {}
    for card in _distinct(view["hand"]):
        kind = _KIND.get(card)
        why = None
        if card == ARTISAN:
            why = "never played; kept in your hand, it cancels their special cards"
        elif kind == ATTACKER and not has_theirs:
            why = "all their columns are closed"
        elif kind == DEFENDER and not has_mine:
            why = "all your columns are closed"
        elif kind == WARRIOR and not columns:
            why = "every column is closed"
        elif card == JUDGE and not filled:
            why = "no column has a card to remove"
        elif card == SORC and not filled:
            why = "no column has cards to clear"
        if why is not None:
            reasons[card] = f"{card_name(card)}: {why}"
    return reasons


def _play(new: State, me: int, action: Action, rng: random.Random, events: list[Event]) -> None:
    """Spec 5.2: lay the card (the Artisan cancelling a Judge or Sorcerer), then the forced
    steps of the turn's end."""
    card, s, i, target = _check_play(new, me, action)
    opp = 1 - me
    new["hands"][me].remove(card)
    col = new["columns"][s][i]
    played: Event = {"type": "card_played", "seat": me, "card": card, "column": [s, i]}
    if target is not None:
        played["target"] = target

    if card in (JUDGE, SORC) and ARTISAN in new["hands"][opp]:
        # Spec 5.2 step 1: the Artisan stops the card from the holder's hand, automatically.
        events.append(played)
        new["hands"][opp].remove(ARTISAN)
        new["discard"] += [card, ARTISAN]
        events.append({"type": "artisan_cancelled", "seat": opp, "by": me, "card": card})
        new["queue"] = [_task("refill", opp), _task("refill", me), _task("end_turn", me)]
        _run(new, rng, events)
        return

    if card == JUDGE:
        assert target is not None
        events.append(played)
        removed = col["cards"].pop(target)
        col["roles"].pop(target)
        new["discard"] += [removed, JUDGE]
        events.append(
            {
                "type": "card_removed",
                "seat": me,
                "column": [s, i],
                "position": target,
                "card": removed,
                "value": column_value(col),
            }
        )
        _flip_check(new, me, s, i, events)
    elif card == SORC:
        events.append(played)
        removed_all = list(col["cards"])
        new["discard"] += [*removed_all, SORC]
        col["cards"].clear()
        col["roles"].clear()
        events.append(
            {
                "type": "column_cleared",
                "seat": me,
                "column": [s, i],
                "removed": removed_all,
                "value": column_value(col),
            }
        )
    else:
        role = _role_of(card, me, s)
        col["cards"].append(card)
        col["roles"].append(role)
        played.update(role=role, value=column_value(col))
        events.append(played)
        taken, rule = match_check(col["cards"], col["roles"])
        if taken:
            removed = col["cards"][-1 - taken : -1][::-1]  # top down: c1, c2, ...
            del col["cards"][-1 - taken :]
            del col["roles"][-1 - taken :]
            new["discard"] += [card, *removed]
            events.append(
                {
                    "type": "cards_matched",
                    "seat": me,
                    "card": card,
                    "column": [s, i],
                    "rule": rule,
                    "removed": removed,
                    "value": column_value(col),
                }
            )
        _flip_check(new, me, s, i, events)

    if new["result"] is not None:
        return
    new["queue"] = [_task("refill", me), _task("end_turn", me)]
    _run(new, rng, events)
