"""Siege the King (key ``king``), by Game Easy Studios (2023).

Follows ``../shared/seeds/siege-the-king.txt`` as settled by ``../shared/spec/king.md``, which wins
wherever the two differ. House rules from the spec: card values and counts, column value
10 + defenders - attackers, the match check, closed Throne columns, the fall of one's own King,
the Assassin resolving on any draw (never in an opening hand), the automatic Artisan, discarding
only without a legal play, the first-player draw, refilling an empty hand at the start of a turn,
and the stalemate end (no cards, or turn 200) by comparing King columns.

Each seat hides one King among three face-down castle cards, each the base of a column worth 10.
A turn lays one card: Attackers lower the opponent's columns, Defenders raise one's own, Judge
and Sorcerer remove cards, the Assassin (when drawn) reveals a castle card. A column at 0 or less
reveals its castle card: a Throne closes the column, a King ends the game.

State (plain JSON): ``phase`` (arrange, play, assassinate, over), ``turn``, ``first``,
``to_act``, ``castles`` (each seat's order, None until arranged), ``revealed`` and ``open``
(per column), ``columns`` (``{"cards": [...], "roles": [...]}`` bottom-up), ``hands``, ``pile``
(top first), ``discard``, ``out_of_play`` (revealed Thrones), ``queue`` (forced steps still to
run, kept while an Assassin decision interrupts them), ``pending`` (the Assassin awaiting its
column), ``stack`` (what a script fixed for the deal, used up when seat 1 arranges) and
``result``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from engine.declaration import COMPUTER_LEVELS, About
from engine.rules import (
    JSON,
    Action,
    Event,
    Option,
    Result,
    RuleError,
    SetupError,
    State,
    StoredTurn,
    brief,
    check_seat,
    check_seats,
    check_turn,
    clone,
    field_of,
    resolve_options,
    stack_choice,
    stack_hands,
    stack_list,
)

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
_ACTION_FIELDS = {
    "arrange": frozenset({"type", "order"}),
    "play": frozenset({"type", "card", "column", "target"}),
    "discard": frozenset({"type", "card"}),
    "assassinate": frozenset({"type", "column"}),
}


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


class King(StoredTurn):
    key = "king"
    title = "Siege the King"
    min_seats = 2
    max_seats = 2
    state_version = 1
    about = About(
        command="siege-the-king",
        blurb="two players: hide your King, then break open the other's castle",
        computer_levels=COMPUTER_LEVELS,
        automatic_move=(
            "**Hiding your King** at the start: **no automatic move**. Any fixed choice made for "
            "you would tell your opponent where your King hides, so missing this deadline goes "
            "straight to the next rung (a forfeit).",
            "**The Assassin** you drew: it strikes your opponent's **leftmost open** column (the "
            "Assassin has to strike somewhere, and it can only help you).",
            "**Your ordinary turn: no automatic move**. Every play or discard uses up a card, so "
            "nothing is played for you, not even discarding the Artisan.",
        ),
        rules="king.md",
    )
    options: tuple[Option, ...] = (
        Option(
            name="specials",
            default=True,
            choices=(True, False),
            description="Play with the Judges, Sorcerers, Assassin and Artisan (a faster game).",
            labels=("With special cards", "Without special cards"),
        ),
    )

    # -- setup -------------------------------------------------------------------------------

    def setup(
        self,
        seats: int,
        options: Mapping[str, JSON],
        rng: random.Random,
        stack: Mapping[str, JSON] | None = None,
    ) -> State:
        """Phase ``arrange``: every deck card waits in the pile; the deal happens when seat 1 has
        arranged (spec 4), so the stack is checked now and kept for that moment."""
        check_seats(self, seats)
        opts = resolve_options(self, options)
        specials = bool(opts["specials"])
        kept = _check_stack(dict(stack or {}), specials)
        return {
            "version": self.state_version,
            "specials": specials,
            "phase": "arrange",
            "turn": 0,
            "first": None,
            "to_act": 0,
            "castles": [None, None],
            "revealed": [[False] * 3, [False] * 3],
            "open": [[True] * 3, [True] * 3],
            "columns": [[{"cards": [], "roles": []} for _ in range(3)] for _ in range(2)],
            "hands": [[], []],
            "pile": deck(specials),
            "discard": [],
            "out_of_play": [],
            "queue": [],
            "pending": None,
            "stack": kept,
            "result": None,
        }

    # -- queries -----------------------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["result"] is not None or state["to_act"] != seat:
            return []
        if state["phase"] == "arrange":
            orders = ([KING, THRONE, THRONE], [THRONE, KING, THRONE], [THRONE, THRONE, KING])
            return [{"type": "arrange", "order": list(order)} for order in orders]
        if state["phase"] == "assassinate":
            return [
                {"type": "assassinate", "column": i} for i in range(3) if state["open"][1 - seat][i]
            ]
        plays = _legal_plays(state, seat)
        actions = list(plays)
        distinct = _distinct(state["hands"][seat])
        if ARTISAN in distinct:
            actions.append({"type": "discard", "card": ARTISAN})
        if not plays:
            actions += [{"type": "discard", "card": c} for c in distinct if c != ARTISAN]
        return actions

    def summary(self, state: State) -> dict[str, JSON]:
        """Spec 8, field for field: nothing a seat could not see at the table."""
        over = state["phase"] == "over"
        columns = []
        for s in (0, 1):
            order = state["castles"][s]
            row = []
            for i in range(3):
                col = state["columns"][s][i]
                shown = order is not None and (over or state["revealed"][s][i])
                row.append(
                    {
                        "open": state["open"][s][i],
                        "value": column_value(col, state["open"][s][i]),
                        "cards": list(col["cards"]),
                        "roles": list(col["roles"]),
                        "castle": order[i] if shown else None,
                    }
                )
            columns.append(row)
        return {
            "phase": state["phase"],
            "turn": state["turn"],
            "first": state["first"],
            "columns": columns,
            "hand_sizes": [len(h) for h in state["hands"]],
            "pile": len(state["pile"]),
            "discard": sorted(state["discard"]),
        }

    def view(self, state: State, seat: int | None) -> dict[str, JSON]:
        """What ``seat`` may see (a spectator with ``None``): the public summary, whose turn it
        is, and for a seat its own hand and its own castle order (spec 9)."""
        view: dict[str, JSON] = {
            "game": self.key,
            "seat": seat,
            "to_act": state["to_act"],
            "summary": self.summary(state),
            "result": state["result"],
        }
        if seat is not None:
            view["hand"] = sorted(state["hands"][seat], key=card_sort_key)
            order = state["castles"][seat]
            view["castle"] = None if order is None else list(order)
        return view

    # -- transitions -------------------------------------------------------------------------

    def apply(
        self, state: State, seat: int, action: Action, rng: random.Random
    ) -> tuple[State, list[Event]]:
        check_turn(self, state, seat)
        if not isinstance(action, Mapping):
            raise RuleError("That is not a move in Siege the King.")
        kind = action.get("type")
        if not isinstance(kind, str) or kind not in _ACTION_FIELDS:
            raise RuleError(
                "That is not a move in Siege the King: arrange, play, discard or assassinate."
            )
        _check_phase(state["phase"], kind)
        extra = sorted(set(action) - _ACTION_FIELDS[kind])
        if extra:
            raise RuleError(f"That move has a field it does not take: {extra[0]!r}.")

        new = clone(state)
        events: list[Event] = []
        if kind == "arrange":
            self._arrange(new, seat, action, rng, events)
        elif kind == "assassinate":
            self._assassinate(new, seat, action, rng, events)
        elif kind == "play":
            self._play(new, seat, action, rng, events)
        else:
            self._discard(new, seat, action, rng, events)
        return new, events

    def resign(self, state: State, seat: int) -> tuple[State, list[Event]]:
        check_seat(seat)
        if state["result"] is not None:
            raise RuleError("The game is over.")
        if seat not in (0, 1):
            raise RuleError("You are not playing at this table.")
        new = clone(state)
        events: list[Event] = [{"type": "resigned", "seat": seat}]
        _finish(new, Result((1 - seat,), "resigned"), events)
        return new, events

    def safe_action(self, state: State, seat: int) -> Action | None:
        """The AFK ladder's automatic move (spec 5): in ``assassinate``, the first open column
        of the opponent (the drawn Assassin must strike; any face-down guess is as good, and it
        can only help). None in ``arrange``: a fixed automatic order would tell the opponent
        where the King hides (and the state holds nothing secret to vary it by), so the seat
        goes to the next rung. None in ``play``: every play or discard lays or spends a card."""
        legal = self.legal_actions(state, seat)
        if legal and state["phase"] == "assassinate":
            return legal[0]
        return None

    def rematch_options(self, options: Mapping[str, JSON], result: Result) -> dict[str, JSON]:
        """Same table options; the first player is drawn again."""
        return dict(options)

    # -- the four actions ----------------------------------------------------------------------

    def _arrange(
        self, new: State, seat: int, action: Action, rng: random.Random, events: list[Event]
    ) -> None:
        order = action.get("order")
        if (
            not isinstance(order, list)
            or len(order) != 3
            or not all(isinstance(c, str) for c in order)
            or sorted(order) != [KING, THRONE, THRONE]
        ):
            raise RuleError(
                'Your castle needs exactly one "KING" and two "THRONE" cards, '
                "listed for your columns from left to right."
            )
        new["castles"][seat] = list(order)
        events.append({"type": "castle_arranged", "seat": seat})
        if seat == 0:
            new["to_act"] = 1
            return
        first = _choose_first(new, rng, events)
        _deal(new, rng, events)
        new["first"] = first
        new["phase"] = "play"
        new["to_act"] = first
        new["stack"] = None

    def _play(
        self, new: State, me: int, action: Action, rng: random.Random, events: list[Event]
    ) -> None:
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

    def _discard(
        self, new: State, me: int, action: Action, rng: random.Random, events: list[Event]
    ) -> None:
        card = field_of(action, "card", str)
        if card not in new["hands"][me]:
            raise RuleError("You do not hold that card.")
        if card != ARTISAN and _legal_plays(new, me):
            raise RuleError(
                "You may discard only when you have no card you can play (the Artisan excepted)."
            )
        new["hands"][me].remove(card)
        new["discard"].append(card)
        events.append({"type": "card_discarded", "seat": me, "card": card})
        new["queue"] = [_task("refill", me), _task("end_turn", me)]
        _run(new, rng, events)

    def _assassinate(
        self, new: State, me: int, action: Action, rng: random.Random, events: list[Event]
    ) -> None:
        index = field_of(action, "column", int)
        victim = 1 - me
        if not 0 <= index < 3:
            raise RuleError("Choose one of your opponent's columns: 0, 1 or 2, from their left.")
        if not new["open"][victim][index]:
            raise RuleError("That column is closed already; choose an open one.")
        pending = new["pending"]
        new["pending"] = None
        new["phase"] = "play"
        new["to_act"] = pending["resume"]
        _assassin_strikes(new, me, index, events)
        _run(new, rng, events)


# -- checks ------------------------------------------------------------------------------------


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


# -- forced steps ------------------------------------------------------------------------------


def _choose_first(state: State, rng: random.Random, events: list[Event]) -> int:
    """House rule for "fan out the cards": each seat takes a random card; the higher value
    starts; a card without a value or a tie means both take again. Nothing leaves the deck.

    The event gives the values drawn (None for a special card), not the codes: the cards go back
    and are dealt, and a code would let a reader track a copy of that card into a hand."""
    stacked = state["stack"]["first"]
    if stacked is not None:
        events.append({"type": "first_player_chosen", "first": stacked, "draws": []})
        return int(stacked)
    draws: list[list[int | None]] = []
    while True:
        values = [card_value(c) for c in rng.sample(state["pile"], 2)]
        draws.append(values)
        if values[0] is not None and values[1] is not None and values[0] != values[1]:
            first = 0 if values[0] > values[1] else 1
            events.append({"type": "first_player_chosen", "first": first, "draws": draws})
            return first


def _deal(state: State, rng: random.Random, events: list[Event]) -> None:
    """Five cards each, the Assassin kept out of the hands, then shuffled into the pile."""
    stack = state["stack"]
    named = Counter([*stack["hands"][0], *stack["hands"][1], *stack["pile"]])
    rest: list[str] = list((Counter(state["pile"]) - named).elements())
    loose_assassin = ASSASSIN in rest
    if loose_assassin:
        rest.remove(ASSASSIN)
    rng.shuffle(rest)
    hands = [list(h) for h in stack["hands"]]
    for hand in hands:
        while len(hand) < HAND_SIZE:
            hand.append(rest.pop(0))
    if loose_assassin:
        rest.append(ASSASSIN)
        rng.shuffle(rest)
    state["hands"] = hands
    state["pile"] = list(stack["pile"]) + rest
    events.append(
        {"type": "cards_dealt", "hand_sizes": [HAND_SIZE, HAND_SIZE], "pile": len(state["pile"])}
    )


def _task(do: str, seat: int) -> dict[str, Any]:
    return {"do": do, "seat": seat}


def _run(state: State, rng: random.Random, events: list[Event]) -> None:
    """Run the queued forced steps in order until done, the game ends, or an Assassin asks its
    drawer for a column (the rest of the queue then waits in the state)."""
    queue: list[dict[str, Any]] = state["queue"]
    while queue and state["result"] is None:
        task = queue[0]
        seat = task["seat"]
        if task["do"] == "refill":
            if len(state["hands"][seat]) >= HAND_SIZE:
                queue.pop(0)
                continue
            card = _draw(state, rng, events)
            if card is None:
                queue.pop(0)
            elif card != ASSASSIN:
                state["hands"][seat].append(card)
                events.append({"type": "card_drawn", "seat": seat, "pile": len(state["pile"])})
            elif _assassin_drawn(state, seat, events):
                return
        elif task["do"] == "end_turn":
            queue.pop(0)
            _end_turn(state, seat, events)
        else:  # "check_hand": a seat that could not refill an empty hand cannot play
            queue.pop(0)
            if not state["hands"][seat]:
                _compare(state, events, "no_cards")


def _draw(state: State, rng: random.Random, events: list[Event]) -> str | None:
    """Spec 6.4: reshuffle the discard pile into an empty draw pile, then take the top card."""
    if not state["pile"] and state["discard"]:
        state["pile"] = state["discard"]
        state["discard"] = []
        rng.shuffle(state["pile"])
        events.append({"type": "discard_reshuffled", "pile": len(state["pile"])})
    if not state["pile"]:
        return None
    card: str = state["pile"].pop(0)
    return card


def _assassin_drawn(state: State, drawer: int, events: list[Event]) -> bool:
    """Spec 6.6. True when the drawer must now choose a column (the forced steps pause)."""
    victim = 1 - drawer
    events.append({"type": "assassin_drawn", "seat": drawer})
    if ARTISAN in state["hands"][victim]:
        state["hands"][victim].remove(ARTISAN)
        state["discard"] += [ASSASSIN, ARTISAN]
        events.append({"type": "artisan_cancelled", "seat": victim, "by": drawer, "card": ASSASSIN})
        state["queue"].insert(0, _task("refill", victim))
        return False
    open_columns = [i for i in range(3) if state["open"][victim][i]]
    if len(open_columns) == 1:
        # Only the King's column is left: nothing to choose.
        _assassin_strikes(state, drawer, open_columns[0], events)
        return False
    state["phase"] = "assassinate"
    state["pending"] = {"seat": drawer, "card": ASSASSIN, "resume": state["to_act"]}
    state["to_act"] = drawer
    return True


def _assassin_strikes(state: State, drawer: int, index: int, events: list[Event]) -> None:
    victim = 1 - drawer
    castle = state["castles"][victim][index]
    if castle == KING:
        state["revealed"][victim][index] = True
        events.append(
            {
                "type": "castle_revealed",
                "column": [victim, index],
                "castle": KING,
                "by": drawer,
                "cause": "assassin",
            }
        )
        # Spec 6.9: a used special goes to the discard pile, even on the winning strike.
        state["discard"].append(ASSASSIN)
        _finish(state, Result((drawer,), "assassinated"), events)
        return
    _close_throne(state, drawer, victim, index, "assassin", events)
    state["discard"].append(ASSASSIN)


def _flip_check(state: State, me: int, s: int, i: int, events: list[Event]) -> None:
    """Spec 6.3: a column at 0 or less reveals its castle card."""
    if column_value(state["columns"][s][i]) > 0:
        return
    if state["castles"][s][i] == THRONE:
        _close_throne(state, me, s, i, "siege", events)
        return
    state["revealed"][s][i] = True
    events.append(
        {"type": "castle_revealed", "column": [s, i], "castle": KING, "by": me, "cause": "siege"}
    )
    if s == me:
        _finish(state, Result((1 - me,), "own_king_fallen"), events)
    else:
        _finish(state, Result((me,), "king_revealed"), events)


def _close_throne(state: State, by: int, s: int, i: int, cause: str, events: list[Event]) -> None:
    col = state["columns"][s][i]
    removed = list(col["cards"])
    state["discard"] += removed
    col["cards"].clear()
    col["roles"].clear()
    state["revealed"][s][i] = True
    state["open"][s][i] = False
    state["out_of_play"].append(THRONE)
    events.append(
        {
            "type": "castle_revealed",
            "column": [s, i],
            "castle": THRONE,
            "by": by,
            "cause": cause,
            "removed": removed,
            "closed": True,
        }
    )


def _end_turn(state: State, me: int, events: list[Event]) -> None:
    """Spec 6.7: count the turn, stop at the limit, pass to the other seat (refilling an
    empty hand first, house rule)."""
    state["turn"] += 1
    nxt = 1 - me
    limit = state["turn"] >= TURN_LIMIT
    events.append(
        {"type": "turn_ended", "seat": me, "turn": state["turn"], "next": None if limit else nxt}
    )
    if limit:
        _compare(state, events, "turn_limit")
        return
    state["to_act"] = nxt
    if not state["hands"][nxt]:
        state["queue"][0:0] = [_task("refill", nxt), _task("check_hand", nxt)]


def _compare(state: State, events: list[Event], cause: str) -> None:
    """Spec 6.8: the higher King column wins, then more open columns, else a draw."""
    kings = [column_value(state["columns"][s][state["castles"][s].index(KING)]) for s in (0, 1)]
    opens = [sum(state["open"][s]) for s in (0, 1)]
    if kings[0] != kings[1]:
        result = Result((0,) if kings[0] > kings[1] else (1,), "stalemate")
    elif opens[0] != opens[1]:
        result = Result((0,) if opens[0] > opens[1] else (1,), "stalemate")
    else:
        result = Result((), "draw")
    events.append(
        {"type": "castles_compared", "cause": cause, "king_values": kings, "open_columns": opens}
    )
    _finish(state, result, events)


def _finish(state: State, result: Result, events: list[Event]) -> None:
    """The game is over: nothing further happens, and every castle card is shown."""
    state["result"] = result.to_json()
    state["phase"] = "over"
    state["to_act"] = None
    state["queue"] = []
    if state["pending"] is not None:
        # A resignation while the Assassin waits: the drawn card is public, so it is discarded.
        state["discard"].append(state["pending"]["card"])
        state["pending"] = None
    castles = [None if c is None else list(c) for c in state["castles"]]
    events.append({"type": "game_ended", **result.to_json(), "castles": castles})


GAME = King()
