"""The words of Siege at Kurth (``kurth``) for the table and the panel: a location, a count of
markers, a cost in mana or spirit, what an attack roll did, and the log's line for each event and
the result's line.

Reads only the views, events and tables of ``engine.kurth`` (spec ``../shared/spec/kurth.md``,
section 6 for what the events report); :mod:`presentation.kurth` uses these words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.kurth import LOCATION_NAMES, SPECIALS, SPELLS, TURNS
from engine.rules import Event, Result
from presentation.endings import resigned_line


def _place(key: str) -> str:
    return f"the {LOCATION_NAMES[key]}"


def _markers(n: int) -> str:
    return f"{n} marker{'s' if n != 1 else ''}"


def _cost(amount: int, track: str) -> str:
    return "free" if amount == 0 else f"{amount} {track}"


def _spell_cost(key: str) -> str:
    return _cost(SPELLS[key].cost, "mana")


def _special_cost(key: str) -> str:
    return _cost(SPECIALS[key].cost, "spirit")


def _outcome(event: Mapping[str, Any]) -> str:
    """What an attack roll did, in words (for a first roll and for Fate's Favor alike)."""
    dice = event["dice"]
    roll = f"{dice[0]} + {dice[1]}"
    if event["bonus"]:
        roll += f" + {event['bonus']} bonus"
    text = f"{roll} = **{event['total']}** against strength {event['strength']}"
    if event["won"]:
        text += (
            f" — won: {_markers(event['removed'])} removed ({event['markers']} left)."
            if event["removed"]
            else " — won."
        )
    else:
        text += f" — beaten: {event['spirit_lost']} spirit lost (spirit {event['spirit']})."
    if dice[0] == dice[1]:
        text += " Doubles: the passage opens for the next move."
    return text


def event_line(event: Event, names: list[str]) -> str | None:
    kind = event["type"]
    if kind == "upkeep_done":
        placed = []
        for p in event["placed"]:
            name = LOCATION_NAMES[p["location"]]
            placed.append(f"{name} +{p['added']}" if p["added"] else f"{name} protected")
        return (
            f"🃏 Turn {event['turn']} upkeep: {', '.join(event['cards'])} — "
            f"{', '.join(placed)}; siege strength +{event['bonus_strength']}; mana "
            f"+{event['mana_boost']} (now {event['mana']})."
        )
    if kind == "moved":
        if event["from"] == event["to"]:
            head = f"🚶 Stayed at {LOCATION_NAMES[event['to']]}"
        else:
            start, end = LOCATION_NAMES[event["from"]], LOCATION_NAMES[event["to"]]
            head = f"🚶 Moved from {start} to {end}"
        if event["markers"]:
            return f"{head}: {_markers(event['markers'])}, strength {event['strength']}."
        return f"{head}: no markers, no attack."
    if kind == "attack_rolled":
        return f"🎲 Attack at {_place(event['location'])}: {_outcome(event)}"
    if kind == "attack_rerolled":
        return (
            f"🍀 Fate's Favor re-rolled die {event['die'] + 1}: {event['old']} → "
            f"{event['new']}. {_outcome(event)}"
        )
    if kind == "spell_cast":
        return _spell_line(event)
    if kind == "special_used":
        return _special_line(event)
    if kind == "pile_reshuffled":
        return f"🔀 Round {event['round']}: the {event['pile']} action cards are reshuffled."
    if kind == "resigned":
        return "🏳️ " + resigned_line(names[event["seat"]], event)
    return None  # turn_ended, game_ended: the table and the result say it


def _spell_line(event: Mapping[str, Any]) -> str:
    key = event["spell"]
    head = f"✨ Cast {SPELLS[key].name} (−{SPELLS[key].cost} mana, {event['mana']} left)"
    if key in ("flame_lance", "thunderclap"):
        return f"{head}: attack bonus now +{event['bonus']}."
    if key == "ward_of_stone":
        return f"{head}: {_place(event['location'])} is protected from the next upkeep."
    if key == "mistwalk":
        return f"{head}: the passage is open for this move."
    if key == "banish":
        return f"{head}: {_markers(event['markers'])} left at {_place(event['location'])}."
    return f"{head}."


def _special_line(event: Mapping[str, Any]) -> str:
    key = event["name"]
    special = SPECIALS[key]
    cost = f"−{special.cost} spirit, {event['spirit']} left" if special.cost else "free"
    head = f"⚡ {special.name} ({cost})"
    if key == "barricade":
        return f"{head}: {_place(event['location'])} is protected from the next upkeep."
    if key == "meditate":
        return f"{head}: mana now {event['mana']}."
    if "reachable" in event:
        reach = ", ".join(LOCATION_NAMES[k] for k in event["reachable"])
        return f"{head}: this move can reach {reach}."
    return f"{head}: {special.effect}."


def result_line(result: Result, names: list[str]) -> str:
    who = names[0]
    score = result.scores[0] if result.scores else 0
    if result.reason == "relieved":
        return (
            f"🏆 {who} held Kurth for all {TURNS} turns: the city is relieved! Score **{score}**."
        )
    if result.reason == "overrun":
        return f"🔥 Kurth has fallen: too many locations were overrun. {who} scores 0."
    if result.reason == "spirit_broken":
        return f"💔 Kurth has fallen: {who}'s spirit is broken. Score 0."
    if result.reason == "resigned":
        return f"🏳️ {who} resigned: Kurth has fallen. Score 0."
    if result.winners:
        return f"🏆 {who} won. Score **{score}**."
    return f"Kurth has fallen. {who} scores {score}."
