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
from typing import Any, NamedTuple

from engine.declaration import About, Daily
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

STACK_KEYS = frozenset({"pile", "dice"})
START_SPIRIT = 12
START_MANA = 6
MANA_CAP = 15
TURNS = 12
TURNS_PER_ROUND = 4
OVERRUN_MARKERS = 8
OVERRUN_LIMITS = {"easy": 5, "normal": 4, "advanced": 3}

# -- the city ------------------------------------------------------------------------------------

LOCATIONS: tuple[str, ...] = (
    "citadel",
    "wardens_hall",
    "armory",
    "merchant_quarter",
    "main_gate",
    "temple",
    "barracks",
    "granary",
)
LOCATION_NAMES: dict[str, str] = {
    "citadel": "Citadel",
    "wardens_hall": "Wardens' Hall",
    "armory": "Armory",
    "merchant_quarter": "Merchant Quarter",
    "main_gate": "Main Gate",
    "temple": "Temple",
    "barracks": "Barracks",
    "granary": "Granary",
}
# The four location cards (display only): card I top-left, II top-right, III bottom-right,
# IV bottom-left, each holding two consecutive locations.
LOCATION_CARDS: tuple[tuple[str, str], ...] = tuple(
    (LOCATIONS[2 * i], LOCATIONS[2 * i + 1]) for i in range(4)
)
_INDEX = {key: n for n, key in enumerate(LOCATIONS)}
ARMORY = _INDEX["armory"]
BARRACKS = _INDEX["barracks"]
# "Passage between 'Armory' and 'Barracks' does not count as one of your one to three movement
# spaces" (seed).
PASSAGE = {ARMORY: BARRACKS, BARRACKS: ARMORY}


# -- the action cards, spells and special actions ------------------------------------------------


class Card(NamedTuple):
    code: str
    name: str
    locations: tuple[int, ...]  # one, or two for an "or" card (the first-named first)
    reinforcements: int
    bonus: int
    mana: int
    spell: str
    special: str


class Spell(NamedTuple):
    key: str
    name: str
    cost: int
    window: frozenset[str]
    effect: str


class Special(NamedTuple):
    key: str
    name: str
    cost: int
    window: frozenset[str]
    effect: str


def _card(n: int, name: str, where: str, r: int, b: int, m: int, spell: str, special: str) -> Card:
    return Card(f"K{n}", name, tuple(_INDEX[w] for w in where.split("|")), r, b, m, spell, special)


CARDS: dict[str, Card] = {
    c.code: c
    for c in (
        _card(1, "The Gate Falls", "main_gate", 2, 1, 0, "flame_lance", "forced_march"),
        _card(2, "Fires in the Market", "merchant_quarter", 1, 1, 1, "ward_of_stone", "hold_fast"),
        _card(3, "Desecration", "temple", 1, 0, 2, "fates_favor", "meditate"),
        _card(4, "Hunger", "granary", 1, 1, 1, "banish", "counter_march"),
        _card(5, "Storm the Barracks", "barracks", 1, 2, 0, "thunderclap", "barricade"),
        _card(6, "Raid on the Armory", "armory", 2, 1, 1, "mistwalk", "arcane_surge"),
        _card(7, "Wardens Besieged", "wardens_hall", 1, 1, 2, "flame_lance", "hold_fast"),
        _card(8, "Shadow on the Citadel", "citadel", 1, 0, 1, "ward_of_stone", "barricade"),
        _card(9, "Breakthrough", "main_gate|temple", 2, 2, 1, "thunderclap", "forced_march"),
        _card(10, "Looters", "merchant_quarter|armory", 1, 1, 1, "mistwalk", "meditate"),
        _card(11, "Burning Stores", "barracks|granary", 1, 1, 1, "fates_favor", "counter_march"),
        _card(
            12, "The Barons' Vanguard", "wardens_hall|main_gate", 1, 1, 1, "banish", "arcane_surge"
        ),
    )
}
DECK: tuple[str, ...] = tuple(CARDS)

_ALL = frozenset({"move", "attack", "done"})
SPELLS: dict[str, Spell] = {
    s.key: s
    for s in (
        Spell("flame_lance", "Flame Lance", 2, frozenset({"attack"}), "+2 to this turn's attack"),
        Spell("thunderclap", "Thunderclap", 4, frozenset({"attack"}), "+4 to this turn's attack"),
        Spell(
            "ward_of_stone",
            "Ward of Stone",
            3,
            _ALL,
            "protect a location of your choice for the next upkeep",
        ),
        Spell("mistwalk", "Mistwalk", 2, frozenset({"move"}), "open the passage for this move"),
        Spell("banish", "Banish", 4, frozenset({"attack"}), "remove 2 markers where you stand"),
        Spell(
            "fates_favor",
            "Fate's Favor",
            1,
            frozenset({"done"}),
            "re-roll one attack die and resolve the attack again",
        ),
    )
}
SPECIALS: dict[str, Special] = {
    s.key: s
    for s in (
        Special("forced_march", "Forced March", 1, frozenset({"move"}), "move 1 to 5 clockwise"),
        Special("hold_fast", "Hold Fast", 0, frozenset({"move"}), "stay where you are"),
        Special(
            "counter_march",
            "Counter-march",
            1,
            frozenset({"move"}),
            "move 1 to 3 counter-clockwise",
        ),
        Special("arcane_surge", "Arcane Surge", 1, _ALL, "cast a second, different spell"),
        Special("barricade", "Barricade", 2, _ALL, "protect the location you are on"),
        Special("meditate", "Meditate", 1, _ALL, "gain 2 mana"),
    )
}
_SPELL_ORDER = {key: n for n, key in enumerate(SPELLS)}
_SPECIAL_ORDER = {key: n for n, key in enumerate(SPECIALS)}

# -- the tables ----------------------------------------------------------------------------------

# Siege Force Table, by markers 1..11 (11 or more): Attack Strength and spirit lost on a failure.
_STRENGTH = (0, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6)
_SPIRIT_LOSS = (0, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4)


def siege_strength(markers: int) -> int:
    """The Siege Force Table's Attack Strength for a number of markers (0 for none).

    >>> siege_strength(5), siege_strength(1), siege_strength(10), siege_strength(30)
    (3, 1, 6, 6)
    """
    return _STRENGTH[min(markers, 11)]


def spirit_loss(markers: int) -> int:
    """The spirit a failed attack costs against a number of markers.

    >>> spirit_loss(4), spirit_loss(5), spirit_loss(8), spirit_loss(11), spirit_loss(40)
    (1, 2, 3, 4, 4)
    """
    return _SPIRIT_LOSS[min(markers, 11)]


def markers_removed(total: int) -> int:
    """The Attack Roll Table: markers a won attack removes, by the total attack roll.

    >>> [markers_removed(t) for t in (2, 5, 6, 7, 8, 9, 10, 11, 12, 16)]
    [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    """
    if total <= 5:
        return 1
    if total >= 12:
        return 5
    return (total - 2) // 2


# -- movement ------------------------------------------------------------------------------------

# Walk kinds: (direction, fewest steps, most steps).
_WALKS: dict[str, tuple[int, int, int]] = {
    "ordinary": (1, 1, 3),
    "forced_march": (1, 1, 5),
    "counter_march": (-1, 1, 3),
}


def _walk_ends(start: int, kind: str, passage_open: bool) -> tuple[int, ...]:
    """Every destination of a walk from ``start`` (spec 6.2): its steps in one direction, and at
    most one hop along the open passage at any point where the token stands on either end."""
    if kind == "hold_fast":
        return (start,)
    direction, fewest, most = _WALKS[kind]
    ends: set[int] = set()
    todo = [(start, 0, False)]
    seen: set[tuple[int, int, bool]] = set()
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        here, steps, hopped = node
        if steps >= fewest:
            ends.add(here)
        if passage_open and not hopped and here in PASSAGE:
            todo.append((PASSAGE[here], steps, True))
        if steps < most:
            todo.append(((here + direction) % len(LOCATIONS), steps + 1, hopped))
    return tuple(sorted(ends))


_REACH: dict[tuple[int, str, bool], tuple[int, ...]] = {
    (start, kind, is_open): _walk_ends(start, kind, is_open)
    for start in range(len(LOCATIONS))
    for kind in ("ordinary", "forced_march", "counter_march", "hold_fast")
    for is_open in (False, True)
}


def reachable(start: str, passage_open: bool, special: str | None = None) -> list[str]:
    """The destinations of this turn's move, by location index order.

    >>> reachable("citadel", False)
    ['wardens_hall', 'armory', 'merchant_quarter']
    >>> reachable("armory", True)
    ['citadel', 'wardens_hall', 'merchant_quarter', 'main_gate', 'temple', 'granary']
    >>> reachable("granary", False, "hold_fast")
    ['granary']
    """
    return [LOCATIONS[i] for i in _REACH[(_INDEX[start], _move_kind(special), passage_open)]]


def _move_kind(special: str | None) -> str:
    return special if special in ("forced_march", "counter_march", "hold_fast") else "ordinary"


def final_score(spirit: int, mana: int, overrun: int) -> int:
    """A win's score (house rule): 10 x spirit + mana + 2 x the locations not overrun.

    >>> final_score(7, 3, 1), final_score(12, 15, 0), final_score(1, 0, 4)
    (87, 151, 18)
    """
    return 10 * spirit + mana + 2 * (len(LOCATIONS) - overrun)


def _overrun(markers: list[int]) -> int:
    return sum(1 for m in markers if m >= OVERRUN_MARKERS)


# -- actions -------------------------------------------------------------------------------------

_FIELDS: dict[str, frozenset[str]] = {
    "move": frozenset({"type", "to"}),
    "attack": frozenset({"type"}),
    "end_turn": frozenset({"type"}),
    "special": frozenset({"type", "name"}),
    "cast": frozenset({"type", "spell", "location", "die"}),
}
_PHASE_WORDS = {
    "move": "before your move",
    "attack": "before your attack",
    "done": "after your attack",
}


def _same(action: Mapping[str, Any], listed: Action) -> bool:
    """Equal keys and values of the same JSON kind (``true`` is not ``1``, ``1.0`` is not 1)."""
    if action.keys() != listed.keys():
        return False
    return all(type(action[k]) is type(v) and action[k] == v for k, v in listed.items())


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
        new = _copy(state)
        events: list[Event] = []
        kind = action["type"]
        if kind == "move":
            _move(new, _INDEX[action["to"]], events)
        elif kind == "attack":
            _attack(new, rng, events)
        elif kind == "end_turn":
            _end_turn(new, rng, events)
        elif kind == "special":
            _special(new, action["name"], events)
        else:
            _cast(new, action, rng, events)
        return new, events

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


def _copy(state: State) -> State:
    """A full copy of a state to build the next one from, knowing its shape: lists of plain
    values, ``placed`` (a list of flat objects), ``roll``, ``outcome`` and ``result``. Random
    playouts spent almost half their time in the generic :func:`engine.rules.clone`, which
    walks every leaf; this copies each container once."""
    new = dict(state)
    for key in _FLAT_LISTS:
        new[key] = list(state[key])
    new["placed"] = [dict(p) for p in state["placed"]]
    roll = state["roll"]
    if roll is not None:
        new["roll"] = {**roll, "dice": list(roll["dice"])}
    if state["outcome"] is not None:
        new["outcome"] = dict(state["outcome"])
    if state["result"] is not None:
        new["result"] = clone(state["result"])
    return new


_FLAT_LISTS = ("markers", "protected", "cards", "pile", "discard", "spells", "dice")


# -- the legal list (spec 5) ---------------------------------------------------------------------


def _legal(state: State) -> list[Action]:
    phase = state["phase"]
    if phase == "over":
        return []
    actions: list[Action] = []
    if phase == "move":
        kind = _move_kind(state["special"])
        for i in _REACH[(state["location"], kind, state["passage_open"])]:
            actions.append({"type": "move", "to": LOCATIONS[i]})
    elif phase == "attack":
        actions.append({"type": "attack"})
    else:
        actions.append({"type": "end_turn"})
    current = [CARDS[c] for c in state["cards"]]
    if state["special"] is None:
        spirit = state["spirit"]
        names = sorted({c.special for c in current}, key=_SPECIAL_ORDER.__getitem__)
        for name in names:
            special = SPECIALS[name]
            if spirit - special.cost < 1 or phase not in special.window:
                continue
            if name == "barricade" and state["location"] in state["protected"]:
                continue
            actions.append({"type": "special", "name": name})
    cast = state["spells"]
    allowance = 2 if state["special"] == "arcane_surge" else 1
    if len(cast) < allowance:
        names = sorted({c.spell for c in current}, key=_SPELL_ORDER.__getitem__)
        for name in names:
            spell = SPELLS[name]
            if name in cast or state["mana"] < spell.cost or phase not in spell.window:
                continue
            if name == "mistwalk" and state["passage_open"]:
                continue
            if name == "ward_of_stone":
                for i, key in enumerate(LOCATIONS):
                    if i not in state["protected"]:
                        actions.append({"type": "cast", "spell": name, "location": key})
            elif name == "fates_favor":
                if state["roll"] is not None:
                    actions.append({"type": "cast", "spell": name, "die": 0})
                    actions.append({"type": "cast", "spell": name, "die": 1})
            else:
                actions.append({"type": "cast", "spell": name})
    return actions


def _refusal(state: State, action: Mapping[str, Any]) -> str:
    """Why an action that is not in the legal list is refused, as a player would read it."""
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        return "That is not a move in Siege at Kurth: move, attack, end_turn, special or cast."
    extra = sorted(set(action) - _FIELDS[kind])
    if extra:
        return f"That action has a field it does not take: {extra[0]!r}."
    phase = state["phase"]
    current = [CARDS[c] for c in state["cards"]]
    if kind == "move":
        to = action.get("to")
        if phase != "move":
            return "You have already moved this turn."
        if not isinstance(to, str) or to not in _INDEX:
            return 'Name a location to move to, such as "armory".'
        return f"You cannot reach the {LOCATION_NAMES[to]} with this turn's move."
    if kind == "attack":
        if phase == "move":
            return "Move first: the attack comes after your move."
        if state["roll"] is not None:
            return "You have already attacked this turn."
        return "There are no siege markers here to attack."
    if kind == "end_turn":
        if phase == "move":
            return "You must move before you end the turn."
        return "You must attack the siege markers here before you end the turn."
    if kind == "special":
        name = action.get("name")
        if not isinstance(name, str) or name not in SPECIALS:
            return "That is not a special action."
        special = SPECIALS[name]
        if state["special"] is not None:
            return "You have already used a special action this turn."
        if all(c.special != name for c in current):
            return f"{special.name} is not on this turn's action cards."
        if state["spirit"] - special.cost < 1:
            return f"{special.name} costs {special.cost} spirit; it may not bring you to 0."
        if phase not in special.window:
            return f"{special.name} cannot be used {_PHASE_WORDS[phase]}."
        return "That location is already protected."
    spell_key = action.get("spell")
    if not isinstance(spell_key, str) or spell_key not in SPELLS:
        return "That is not a spell."
    spell = SPELLS[spell_key]
    needs = {"ward_of_stone": "location", "fates_favor": "die"}.get(spell_key)
    for name in ("location", "die"):
        if name != needs and name in action:
            return f"{spell.name} does not take a {name}."
    if needs is not None and needs not in action:
        return f"{spell.name} needs a {needs}."
    if all(c.spell != spell_key for c in current):
        return f"{spell.name} is not on this turn's action cards."
    if spell_key in state["spells"]:
        return f"You have already cast {spell.name} this turn."
    allowance = 2 if state["special"] == "arcane_surge" else 1
    if len(state["spells"]) >= allowance:
        if allowance == 1:
            return "You have already cast a spell this turn (Arcane Surge allows a second)."
        return "You have already cast two spells this turn."
    if state["mana"] < spell.cost:
        return f"{spell.name} costs {spell.cost} mana; you have {state['mana']}."
    if phase not in spell.window:
        return f"{spell.name} cannot be cast {_PHASE_WORDS[phase]}."
    if spell_key == "mistwalk":
        return "The passage is already open."
    if spell_key == "fates_favor":
        if state["roll"] is None:
            return "Fate's Favor needs an attack roll this turn."
        return "Name die 0 or die 1 to re-roll."
    location = action.get("location")
    if not isinstance(location, str) or location not in _INDEX:
        return 'Name a location to protect, such as "armory".'
    return f"The {LOCATION_NAMES[location]} is already protected."


# -- transitions ---------------------------------------------------------------------------------


def _roll(state: State, rng: random.Random) -> int:
    """The next die: a stacked one first (scripts and tests), else from this move's generator."""
    if state["dice"]:
        return int(state["dice"].pop(0))
    return rng.randint(1, 6)


def _upkeep(state: State, events: list[Event]) -> None:
    """Phase 1 (spec 6.1): deal three cards, reinforce the locations of cards 1 and 2 (an "or"
    card picks the one with fewer markers, the first-named on a tie), clear the protection, add
    the mana boost and reset the turn's records."""
    pile = state["pile"]
    dealt = pile[:3]
    del pile[:3]
    state["cards"] = dealt
    current = [CARDS[c] for c in dealt]
    r = sum(c.reinforcements for c in current)
    b = sum(c.bonus for c in current)
    m = sum(c.mana for c in current)
    markers = state["markers"]
    placed = []
    for card in current[:2]:
        target = min(card.locations, key=markers.__getitem__)  # first-named wins a tie
        added = 0 if target in state["protected"] else r
        markers[target] += added
        placed.append({"location": LOCATIONS[target], "added": added})
    state["protected"] = []
    state["mana"] = min(MANA_CAP, state["mana"] + m)
    state.update(
        placed=placed,
        reinforcements=r,
        bonus_strength=b,
        mana_boost=m,
        spells=[],
        special=None,
        bonus=0,
        roll=None,
        outcome=None,
        phase="move",
    )
    events.append(
        {
            "type": "upkeep_done",
            "round": state["round"],
            "turn": state["turn"],
            "cards": list(dealt),
            "reinforcements": r,
            "bonus_strength": b,
            "mana_boost": m,
            "placed": [dict(p) for p in placed],
            "mana": state["mana"],
            "overrun": _overrun(markers),
        }
    )


def _move(state: State, to: int, events: list[Event]) -> None:
    start = state["location"]
    state["location"] = to
    state["passage_open"] = False  # the passage marker goes after every move
    markers = state["markers"][to]
    state["phase"] = "attack" if markers else "done"
    events.append(
        {
            "type": "moved",
            "from": LOCATIONS[start],
            "to": LOCATIONS[to],
            "markers": markers,
            "strength": siege_strength(markers) + state["bonus_strength"] if markers else 0,
        }
    )


def _resolve(state: State, dice: list[int], strength: int) -> dict[str, Any]:
    """Spec 6.3 steps 3 to 6: the total against the strength, then markers off or spirit lost,
    and the passage opened by doubles. Returns the public record of what happened."""
    here = state["location"]
    m = state["markers"][here]
    total = dice[0] + dice[1] + state["bonus"]
    won = total >= strength
    removed = min(markers_removed(total), m) if won else 0
    lost = 0 if won else min(spirit_loss(m), state["spirit"])
    state["markers"][here] = m - removed
    state["spirit"] -= lost
    state["passage_open"] = dice[0] == dice[1]
    state["roll"] = {
        "dice": list(dice),
        "bonus": state["bonus"],
        "total": total,
        "strength": strength,
        "won": won,
    }
    state["outcome"] = {"removed": removed, "spirit_lost": lost}
    state["phase"] = "done"
    return {
        **state["roll"],
        "dice": list(dice),
        "removed": removed,
        "spirit_lost": lost,
        "markers": state["markers"][here],
        "spirit": state["spirit"],
        "passage_open": state["passage_open"],
    }


def _attack(state: State, rng: random.Random, events: list[Event]) -> None:
    m = state["markers"][state["location"]]
    strength = siege_strength(m) + state["bonus_strength"]
    dice = [_roll(state, rng), _roll(state, rng)]
    record = _resolve(state, dice, strength)
    events.append({"type": "attack_rolled", "location": LOCATIONS[state["location"]], **record})


def _fates_favor(state: State, die: int, rng: random.Random, events: list[Event]) -> None:
    """Undo the roll's outcome, re-roll die ``die`` and resolve again (spec 6.3)."""
    roll, outcome = state["roll"], state["outcome"]
    state["markers"][state["location"]] += outcome["removed"]
    state["spirit"] += outcome["spirit_lost"]
    dice = list(roll["dice"])
    old = dice[die]
    dice[die] = _roll(state, rng)
    record = _resolve(state, dice, roll["strength"])
    events.append(
        {
            "type": "attack_rerolled",
            "location": LOCATIONS[state["location"]],
            "die": die,
            "old": old,
            "new": dice[die],
            **record,
        }
    )


def _special(state: State, name: str, events: list[Event]) -> None:
    special = SPECIALS[name]
    state["spirit"] -= special.cost
    state["special"] = name
    event: Event = {"type": "special_used", "name": name, "spirit": state["spirit"]}
    if name == "barricade":
        state["protected"] = sorted([*state["protected"], state["location"]])
        event["location"] = LOCATIONS[state["location"]]
    elif name == "meditate":
        state["mana"] = min(MANA_CAP, state["mana"] + 2)
        event["mana"] = state["mana"]
    elif name in ("forced_march", "counter_march", "hold_fast"):
        kind = _move_kind(name)
        reach = _REACH[(state["location"], kind, state["passage_open"])]
        event["reachable"] = [LOCATIONS[i] for i in reach]
    events.append(event)


def _cast(state: State, action: Mapping[str, Any], rng: random.Random, events: list[Event]) -> None:
    key = action["spell"]
    state["mana"] -= SPELLS[key].cost
    state["spells"].append(key)
    event: Event = {"type": "spell_cast", "spell": key, "mana": state["mana"]}
    here = state["location"]
    if key == "flame_lance":
        state["bonus"] += 2
        event["bonus"] = state["bonus"]
    elif key == "thunderclap":
        state["bonus"] += 4
        event["bonus"] = state["bonus"]
    elif key == "ward_of_stone":
        state["protected"] = sorted([*state["protected"], _INDEX[action["location"]]])
        event["location"] = action["location"]
    elif key == "mistwalk":
        state["passage_open"] = True
    elif key == "banish":
        left = max(0, state["markers"][here] - 2)
        state["markers"][here] = left
        if left == 0:
            state["phase"] = "done"
        event.update(location=LOCATIONS[here], markers=left)
    events.append(event)
    if key == "fates_favor":
        _fates_favor(state, action["die"], rng, events)


def _end_turn(state: State, rng: random.Random, events: list[Event]) -> None:
    """Phase 4 (spec 6.4): overrun, then broken spirit, then the turn-12 win; else discard,
    reshuffle when the pile is out (a new round), and the next turn's upkeep."""
    overrun = _overrun(state["markers"])
    events.append(
        {"type": "turn_ended", "turn": state["turn"], "overrun": overrun, "spirit": state["spirit"]}
    )
    if overrun >= OVERRUN_LIMITS[state["difficulty"]]:
        _finish(state, Result((), "overrun", (0,)), events)
        return
    if state["spirit"] == 0:
        _finish(state, Result((), "spirit_broken", (0,)), events)
        return
    if state["turn"] == TURNS:
        score = final_score(state["spirit"], state["mana"], overrun)
        _finish(state, Result((0,), "relieved", (score,)), events)
        return
    state["discard"] += state["cards"]
    state["cards"] = []
    if not state["pile"]:
        pile = state["discard"]
        state["discard"] = []
        rng.shuffle(pile)
        state["pile"] = pile
        state["round"] += 1
        events.append({"type": "pile_reshuffled", "round": state["round"], "pile": len(pile)})
    state["turn"] += 1
    _upkeep(state, events)


def _finish(state: State, result: Result, events: list[Event]) -> None:
    """The game is over: nothing more happens (cards, protection and roll keep their values)."""
    state["result"] = result.to_json()
    state["phase"] = "over"
    state["to_act"] = None
    events.append({"type": "game_ended", **result.to_json()})


GAME = Kurth()
