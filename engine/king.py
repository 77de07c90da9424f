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
from collections.abc import Mapping

from engine.declaration import COMPUTER_LEVELS, About
from engine.king_cards import (
    ARTISAN,
    ASSASSIN,
    ATTACKER,
    ATTACKERS,
    BASE_VALUE,
    CARD_ORDER,
    COLUMN_NAMES,
    DEFENDER,
    DEFENDERS,
    HAND_SIZE,
    JUDGE,
    KING,
    SORC,
    SPECIAL,
    SPECIAL_COUNTS,
    STACK_KEYS,
    THRONE,
    TURN_LIMIT,
    WARRIOR,
    WARRIORS,
    _check_stack,
    _distinct,
    card_name,
    card_sort_key,
    card_value,
    column_value,
    deck,
    match_check,
)
from engine.king_plays import _check_phase, _legal_plays, _play, unplayable_reasons
from engine.king_turns import _assassin_strikes, _choose_first, _deal, _finish, _run, _task
from engine.rules import (
    ABANDONED,
    JSON,
    Action,
    Event,
    Option,
    Result,
    RuleError,
    State,
    StoredTurn,
    check_seat,
    check_seats,
    check_turn,
    clone,
    ending_drawn,
    field_of,
    resolve_options,
)

_ACTION_FIELDS = {
    "arrange": frozenset({"type", "order"}),
    "play": frozenset({"type", "card", "column", "target"}),
    "discard": frozenset({"type", "card"}),
    "assassinate": frozenset({"type", "column"}),
}


#: The game's names, with those its other modules hold (callers import them from here).
__all__ = [
    "ARTISAN",
    "ASSASSIN",
    "ATTACKER",
    "ATTACKERS",
    "BASE_VALUE",
    "CARD_ORDER",
    "COLUMN_NAMES",
    "DEFENDER",
    "DEFENDERS",
    "GAME",
    "HAND_SIZE",
    "JUDGE",
    "KING",
    "SORC",
    "SPECIAL",
    "SPECIAL_COUNTS",
    "STACK_KEYS",
    "THRONE",
    "TURN_LIMIT",
    "WARRIOR",
    "WARRIORS",
    "King",
    "card_name",
    "card_sort_key",
    "card_value",
    "column_value",
    "deck",
    "match_check",
    "unplayable_reasons",
]


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
        draws=True,
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
            _play(new, seat, action, rng, events)
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

    def claim_draw(self, state: State, seat: int) -> tuple[State, list[Event]]:
        """``seat``, to move, abandoned the game and the other claimed a draw (the hall's
        claim on a game without a clock): no winner."""
        check_seat(seat)
        ending_drawn(state, seat)
        new = clone(state)
        events: list[Event] = [{"type": ABANDONED, "seat": seat}]
        _finish(new, Result((), ABANDONED), events)
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


GAME = King()

#: The doctests of the helpers that moved beside this module run with it (``doctest.testmod``).
__test__ = {
    "card_name": card_name,
    "card_value": card_value,
    "column_value": column_value,
    "deck": deck,
    "match_check": match_check,
    "unplayable_reasons": unplayable_reasons,
}
