"""The city of Siege at Kurth (key ``kurth``) and what the rules read from it: the constants
(spirit, mana, turns, overrun limits), the eight locations and the passage, the twelve action
cards, the six spells and six special actions with their windows, the Siege Force and spirit
tables, the moves a location allows, and the final score.

Follows ``../shared/seeds/siege-at-kurth.txt`` as settled by ``../shared/spec/kurth.md`` (sections
2 to 4, the tables of 6.3 and the score of 7); ``engine.kurth`` is the game's bundle.
"""

from __future__ import annotations

from typing import NamedTuple

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
