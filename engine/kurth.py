"""Siege at Kurth (key ``kurth``), the solo game by Todd Sanders (Air and Nothingness Press, 2013).

Follows ``../shared/seeds/siege-at-kurth.txt`` as settled by ``../shared/spec/kurth.md``, which
wins wherever the two differ. The original prints no card, location or table contents, so most of
them are house rules of the spec: the eight location names and their clockwise order, the twelve
action cards, the six spells and six special actions with their windows, both tables (except
5 markers = A/S 3), the passage hop, the caps, the order of the Phase 4 checks and the score.

One seat (0) defends the city for 12 turns (3 rounds of 4). Each turn's upkeep deals three action
cards that send siege markers to two locations; the player moves 1 to 3 locations clockwise (the
passage links Armory and Barracks after doubles or Mistwalk), attacks the markers there with two
dice against the Siege Force Table, and may pay mana for spells and spirit for special actions.
Phase 4 (inside ``end_turn``) loses the game when too many locations hold 8+ markers or spirit
is 0.

State (plain JSON): ``difficulty``, ``round``, ``turn``, ``phase`` (move, attack, done, over),
``location`` (index), ``spirit``, ``mana``, ``passage_open``, ``markers`` (8 counts by location
index), ``protected`` (indexes, sorted), ``cards`` (the current three), ``pile`` (top first; its
order is the game's only secret), ``discard``, ``placed``, the turn's records (``spells``,
``special``, ``bonus``, ``roll`` and ``outcome``, what the roll did, for Fate's Favor to undo),
``dice`` (stacked dice still to come), ``to_act`` and ``result``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.declaration import About, Daily
from engine.kurth_city import (
    ARMORY,
    BARRACKS,
    CARDS,
    DECK,
    LOCATION_CARDS,
    LOCATION_NAMES,
    LOCATIONS,
    MANA_CAP,
    OVERRUN_LIMITS,
    OVERRUN_MARKERS,
    PASSAGE,
    SPECIALS,
    SPELLS,
    STACK_KEYS,
    START_MANA,
    START_SPIRIT,
    TURNS,
    TURNS_PER_ROUND,
    Card,
    Special,
    Spell,
    _overrun,
    final_score,
    markers_removed,
    reachable,
    siege_strength,
    spirit_loss,
)
from engine.kurth_moves import _legal, _refusal, _same
from engine.kurth_turns import _copy, _finish, _upkeep, step
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
    is_whole,
    resolve_options,
    stack_list,
)

#: The game's names, with those its other modules hold (callers import them from here).
__all__ = [
    "ARMORY",
    "BARRACKS",
    "CARDS",
    "DECK",
    "GAME",
    "LOCATIONS",
    "LOCATION_CARDS",
    "LOCATION_NAMES",
    "MANA_CAP",
    "OVERRUN_LIMITS",
    "OVERRUN_MARKERS",
    "PASSAGE",
    "SPECIALS",
    "SPELLS",
    "STACK_KEYS",
    "START_MANA",
    "START_SPIRIT",
    "TURNS",
    "TURNS_PER_ROUND",
    "Card",
    "Kurth",
    "Special",
    "Spell",
    "_copy",
    "final_score",
    "markers_removed",
    "reachable",
    "siege_strength",
    "spirit_loss",
]


class Kurth(StoredTurn):
    key = "kurth"
    title = "Siege at Kurth"
    min_seats = 1
    max_seats = 1
    state_version = 1
    about = About(
        command="siege-at-kurth",
        blurb="solo: hold the city for 12 turns",
        hint=True,
        daily=Daily(option="difficulty"),
        automatic_move=(
            "**End the turn** once nothing is left that you must do (you have moved, and "
            "attacked if there were siege markers). No spell or special action is used for you.",
            "Before you have moved, or while an attack is owed: **no automatic move**.",
        ),
        rules="kurth.md",
    )
    options: tuple[Option, ...] = (
        Option(
            name="difficulty",
            default="normal",
            choices=("easy", "normal", "advanced"),
            description="lost when 5 (easy), 4 (normal) or 3 (advanced) locations are overrun.",
            labels=("Easy (5 overrun)", "Normal (4 overrun)", "Advanced (3 overrun)"),
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
        """Spec 4: the token on the Citadel, spirit 12, mana 6, the pile shuffled (a stacked
        ``pile`` on top), then turn 1's upkeep at once."""
        check_seats(self, seats)
        opts = resolve_options(self, options)
        stack = dict(stack or {})
        unknown = sorted(set(stack) - STACK_KEYS)
        if unknown:
            raise SetupError(f"Unknown stack key {unknown[0]!r} for Siege at Kurth.")
        named = stack_list(stack, "pile")
        for code in named:
            if not isinstance(code, str) or code not in CARDS:
                shown = repr(code) if isinstance(code, str) else brief(code)
                raise SetupError(f"{shown} is not a Siege at Kurth action card (K1 to K12).")
        if len(set(named)) != len(named):
            raise SetupError("An action card is named twice in the stack's pile.")
        dice = stack_list(stack, "dice")
        for die in dice:
            if not is_whole(die) or not 1 <= die <= 6:
                raise SetupError(
                    f"Stack 'dice' must be whole numbers from 1 to 6, not {brief(die)}."
                )
        rest = [code for code in DECK if code not in set(named)]
        rng.shuffle(rest)
        difficulty = str(opts["difficulty"])
        state: State = {
            "version": self.state_version,
            "difficulty": difficulty,
            "round": 1,
            "turn": 1,
            "phase": "move",
            "location": 0,
            "spirit": START_SPIRIT,
            "mana": START_MANA,
            "passage_open": False,
            "markers": [0] * len(LOCATIONS),
            "protected": [],
            "cards": [],
            "pile": [str(c) for c in named] + rest,
            "discard": [],
            "placed": [],
            "reinforcements": 0,
            "bonus_strength": 0,
            "mana_boost": 0,
            "spells": [],
            "special": None,
            "bonus": 0,
            "roll": None,
            "outcome": None,
            "dice": [int(d) for d in dice],
            "to_act": 0,
            "result": None,
        }
        _upkeep(state, [])
        return state

    # -- queries -----------------------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["result"] is not None or state["to_act"] != seat:
            return []
        return _legal(state)

    def summary(self, state: State) -> dict[str, JSON]:
        """Spec 8, field for field. The pile is only counted: its order is the one secret."""
        markers = state["markers"]
        here = markers[state["location"]]
        roll = state["roll"]
        return {
            "difficulty": state["difficulty"],
            "overrun_limit": OVERRUN_LIMITS[state["difficulty"]],
            "round": state["round"],
            "turn": state["turn"],
            "phase": state["phase"],
            "location": LOCATIONS[state["location"]],
            "spirit": state["spirit"],
            "mana": state["mana"],
            "passage_open": state["passage_open"],
            "markers": {key: markers[i] for i, key in enumerate(LOCATIONS)},
            "protected": [LOCATIONS[i] for i in state["protected"]],
            "cards": list(state["cards"]),
            "pile": len(state["pile"]),
            "overrun": _overrun(markers),
            "reinforcements": state["reinforcements"],
            "bonus_strength": state["bonus_strength"],
            "mana_boost": state["mana_boost"],
            "placed": [dict(p) for p in state["placed"]],
            "strength": siege_strength(here) + state["bonus_strength"] if here else 0,
            "roll": None if roll is None else {**roll, "dice": list(roll["dice"])},
            "spells_cast_this_turn": list(state["spells"]),
            "special_used": state["special"],
        }

    def view(self, state: State, seat: int | None) -> dict[str, JSON]:
        """Everything is public except the pile's order (spec 9): the summary, the three current
        cards in full with what of them is legal now, and the cards already discarded this round
        (face up on the table; sorted, so nothing of the pile's order shows)."""
        legal = _legal(state) if state["result"] is None else []
        spells_now = {a["spell"] for a in legal if a["type"] == "cast"}
        specials_now = {a["name"] for a in legal if a["type"] == "special"}
        hand = []
        for code in state["cards"]:
            card = CARDS[code]
            hand.append(
                {
                    "code": code,
                    "name": card.name,
                    "locations": [LOCATIONS[i] for i in card.locations],
                    "reinforcements": card.reinforcements,
                    "bonus_strength": card.bonus,
                    "mana_boost": card.mana,
                    "spell": card.spell,
                    "spell_cost": SPELLS[card.spell].cost,
                    "spell_legal": card.spell in spells_now,
                    "special": card.special,
                    "special_cost": SPECIALS[card.special].cost,
                    "special_legal": card.special in specials_now,
                }
            )
        return {
            "game": self.key,
            "seat": seat,
            "to_act": state["to_act"],
            "summary": self.summary(state),
            "hand": hand,
            "discard": sorted(state["discard"], key=lambda c: int(c[1:])),
            "result": state["result"],
        }

    # -- transitions -------------------------------------------------------------------------

    def apply(
        self, state: State, seat: int, action: Action, rng: random.Random
    ) -> tuple[State, list[Event]]:
        check_turn(self, state, seat)
        if not isinstance(action, Mapping):
            raise RuleError("That is not a move in Siege at Kurth.")
        if not any(_same(action, listed) for listed in _legal(state)):
            raise RuleError(_refusal(state, action))
        return step(state, action, rng)

    def resign(self, state: State, seat: int) -> tuple[State, list[Event]]:
        check_seat(seat)
        if state["result"] is not None:
            raise RuleError("The game is over.")
        if seat != 0:
            raise RuleError("You are not playing at this table.")
        new = clone(state)
        events: list[Event] = [{"type": "resigned", "seat": seat}]
        _finish(new, Result((), "resigned", (0,)), events)
        return new, events

    def safe_action(self, state: State, seat: int) -> Action | None:
        """The AFK ladder's automatic move (spec 5): ``end_turn`` when legal (phase ``done``:
        nothing compulsory is left, and ending spends no spirit or mana); else None, since the
        move and the attack are the player's own choices."""
        legal = self.legal_actions(state, seat)
        return {"type": "end_turn"} if {"type": "end_turn"} in legal else None

    def rematch_options(self, options: Mapping[str, JSON], result: Result) -> dict[str, JSON]:
        """The same difficulty; a new shuffle."""
        return dict(options)


GAME = Kurth()

#: The doctests of the helpers that moved beside this module run with it (``doctest.testmod``).
__test__ = {
    "final_score": final_score,
    "markers_removed": markers_removed,
    "reachable": reachable,
    "siege_strength": siege_strength,
    "spirit_loss": spirit_loss,
}
