"""The transitions of Siege at Kurth (key ``kurth``): the copy each move builds on, the dice, the
upkeep that deals the action cards and reinforces the siege, the move, the attack and Fate's
Favor, the special actions and spells, the end of a turn with its Phase 4 checks, and the end of
the game. Each step changes the new state in place and appends its events.

Follows ``../shared/seeds/siege-at-kurth.txt`` as settled by ``../shared/spec/kurth.md``
(section 6).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.kurth_city import (
    _INDEX,
    _REACH,
    CARDS,
    LOCATIONS,
    MANA_CAP,
    OVERRUN_LIMITS,
    SPECIALS,
    SPELLS,
    TURNS,
    _move_kind,
    _overrun,
    final_score,
    markers_removed,
    siege_strength,
    spirit_loss,
)
from engine.rules import Event, Result, State, clone


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


def step(state: State, action: Mapping[str, Any], rng: random.Random) -> tuple[State, list[Event]]:
    """The next state and its events for an action already known to be legal: ``apply`` after
    its checks, and the computer's playouts, which only play actions from the legal list."""
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
