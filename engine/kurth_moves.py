"""What the defender of Siege at Kurth (key ``kurth``) may do: each action's fields, the legal
list in the spec's order, and the sentence refusing anything else.

Follows ``../shared/seeds/siege-at-kurth.txt`` as settled by ``../shared/spec/kurth.md``
(section 5).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.kurth_city import (
    _INDEX,
    _REACH,
    _SPECIAL_ORDER,
    _SPELL_ORDER,
    CARDS,
    LOCATION_NAMES,
    LOCATIONS,
    SPECIALS,
    SPELLS,
    _move_kind,
)
from engine.rules import Action, State

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
