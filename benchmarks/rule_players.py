"""Rule-based players written from the rules alone, for measuring the computer against them.

Not the computer: each reads only its seat's ``view`` (as a human would) and plays a fixed rule,
with ``rng`` only to break ties. ``RULE_PLAYERS`` maps a name (used as a seat's "level" in
``benchmarks/computer_strength.py``) to ``(game, function)``.

- ``tag`` (tower poker, tight-aggressive): with two pair or better (its four cards and the
  face-up tower cards the show would use) it bets or raises, with a pair it checks or calls,
  with less it checks or folds to a bet; it buys a flip only when free, keeps its cards at an
  "up to" joker discard and never leaves.
- ``lag`` (tower poker, loose-aggressive): bets and raises with a pair or better, bets a third
  of its weaker hands when nobody has bet, calls a bet with anything while the bet is small
  (at most 2 tower cards face up) and with a pair or better once it is big; it buys the first
  paid flip (1 chip), keeps its cards at a discard and never leaves.
- ``station`` (tower poker, calling station): never folds and never raises; checks, or calls
  any bet; bets only with three of a kind or better; buys a flip costing at most 5 chips when it
  holds less than two pair.
- ``greedy`` (Castles Besieged, greedy attacker): hits the castle with an unblocked card; else
  attacks the card it kills most easily when the roll needed is 8 or less; else lays its
  highest card, draws, or attacks anyway.
- ``public`` (Siege the King, public-greedy): judges from the table alone; throws its strongest
  Attacker at the other side's weakest open column (the nearest to falling), props up its own
  King's column with Defenders when it drops below 10, uses a Judge on the biggest card in the
  way, a Sorcerer where it swings most; sends the Assassin at the tallest column.
- ``capture`` (Siege (1966), capture-greedy): takes the Commander, else a Knight, else any
  piece it can; otherwise a random move.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from engine.king import DEFENDER, JUDGE, KING, SORC, card_value
from engine.knights import COMMANDER, KNIGHT
from engine.poker_hands import PAIR, TRIPS, TWO_PAIR, best_value
from engine.rules import Action

RulePlayer = Callable[[Mapping[str, Any], int, list[Action], random.Random], Action]


def _first(legal: list[Action], *kinds: str) -> Action | None:
    for kind in kinds:
        for action in legal:
            if action["type"] == kind:
                return action
    return None


def towers_strength(view: Mapping[str, Any]) -> int:
    """The category (0 high card … 9 five of a kind) of the seat's best hand so far."""
    summary = view["summary"]
    hand = list(view.get("hand") or [])
    if not hand:
        return 0
    value, _ = best_value(hand, summary["face_up"], 3 if summary["jackpot"] else 1)
    return value >> 20


def towers_tag(
    view: Mapping[str, Any], seat: int, legal: list[Action], rng: random.Random
) -> Action:
    legal = [a for a in legal if a["type"] != "leave"]
    strength = towers_strength(view)
    if strength >= TWO_PAIR:
        order: tuple[str, ...] = ("raise", "bet", "call", "check")
    elif strength >= PAIR:
        order = ("check", "call")
    else:
        order = ("check", "fold")
    chosen = _first(legal, *order)
    if chosen is not None:
        return chosen
    fee = view["summary"].get("next_flip_cost")
    if fee == 0:
        chosen = _first(legal, "buy_flip")
    chosen = chosen or _first(legal, "decline_flip")
    if chosen is not None:
        return chosen
    for action in legal:
        if action["type"] == "discard" and not action["cards"]:
            return action
    return legal[rng.randrange(len(legal))]


def _towers_flip_or_discard(
    view: Mapping[str, Any], legal: list[Action], buy_up_to: int, rng: random.Random
) -> Action:
    """A flip offer (buy when the fee is at most ``buy_up_to``) or a discard (keep the cards
    when allowed), for the tower poker rule players."""
    fee = view["summary"].get("next_flip_cost")
    chosen = None
    if fee is not None and fee <= buy_up_to:
        chosen = _first(legal, "buy_flip")
    chosen = chosen or _first(legal, "decline_flip")
    if chosen is not None:
        return chosen
    for action in legal:
        if action["type"] == "discard" and not action["cards"]:
            return action
    return legal[rng.randrange(len(legal))]


def towers_lag(
    view: Mapping[str, Any], seat: int, legal: list[Action], rng: random.Random
) -> Action:
    legal = [a for a in legal if a["type"] != "leave"]
    strength = towers_strength(view)
    small = len(view["summary"]["face_up"]) <= 2
    bluff = rng.random() < 1 / 3
    if strength >= PAIR:
        order: tuple[str, ...] = ("raise", "bet", "call", "check")
    elif small:
        order = ("bet", "call", "check") if bluff else ("check", "call")
    else:
        order = ("bet", "check", "fold") if bluff else ("check", "fold")
    chosen = _first(legal, *order)
    if chosen is not None:
        return chosen
    return _towers_flip_or_discard(view, legal, 1, rng)


def towers_station(
    view: Mapping[str, Any], seat: int, legal: list[Action], rng: random.Random
) -> Action:
    legal = [a for a in legal if a["type"] != "leave"]
    strength = towers_strength(view)
    order = ("bet", "check", "call") if strength >= TRIPS else ("check", "call")
    chosen = _first(legal, *order)
    if chosen is not None:
        return chosen
    return _towers_flip_or_discard(view, legal, 5 if strength < TWO_PAIR else 0, rng)


def castles_greedy(
    view: Mapping[str, Any], seat: int, legal: list[Action], rng: random.Random
) -> Action:
    attacks = view["attacks"][seat]
    for pos, attack in enumerate(attacks):
        if attack["target"] == "player":
            return {"type": "attack", "pos": pos}
    easiest = min(
        ((a["needed"], pos) for pos, a in enumerate(attacks) if a["target"] == "card"),
        default=None,
    )
    if easiest is not None and easiest[0] <= 8:
        return {"type": "attack", "pos": easiest[1]}
    lays = [a for a in legal if a["type"] == "lay"]
    if lays:
        return lays[-1]  # the engine lists a hand low to high
    for action in legal:
        if action["type"] in ("draw", "attack"):
            return action
    return legal[rng.randrange(len(legal))]


def _column_value(column: Mapping[str, Any]) -> int:
    value: int = column["value"]
    return value


def king_public(
    view: Mapping[str, Any], seat: int, legal: list[Action], rng: random.Random
) -> Action:
    summary = view["summary"]
    other = 1 - seat
    columns = summary["columns"]
    if summary["phase"] == "arrange":
        return legal[rng.randrange(len(legal))]
    if summary["phase"] == "assassinate":
        return max(legal, key=lambda a: (_column_value(columns[other][a["column"]]), rng.random()))
    king = list(view["castle"]).index(KING)

    def score(action: Action) -> float:
        if action["type"] != "play":
            return -2.0
        card = action["card"]
        s, i = action["column"]
        col = columns[s][i]
        height = _column_value(col)
        value = card_value(card) or 0
        if value and s == other:
            return value + 0.5 * (10 - height) + (5 if height - value <= 0 else 0)
        if value:
            return value * (1.5 if i == king and height < 10 else 0.3)
        if card == JUDGE:
            removed = col["cards"][action["target"]]
            gain = card_value(removed) or 0
            mine = s == seat and col["roles"][action["target"]] != DEFENDER
            theirs = s == other and col["roles"][action["target"]] == DEFENDER
            return gain * (1.2 if mine and i == king else 0.8 if mine or theirs else -1)
        if card == SORC:
            return 0.5 * ((10 - height) if s == seat else (height - 10))
        return -1.0

    return max(legal, key=lambda a: (score(a), rng.random()))


def knights_capture(
    view: Mapping[str, Any], seat: int, legal: list[Action], rng: random.Random
) -> Action:
    pieces = view["summary"].get("pieces") or {}
    worth = {COMMANDER: 3, KNIGHT: 2}

    def score(action: Action) -> float:
        taken = pieces.get(action.get("to", ""))
        gain = 0 if taken is None else worth.get(taken, 1)
        return gain + rng.random() * 0.5

    return max(legal, key=score)


RULE_PLAYERS: dict[str, tuple[str, RulePlayer]] = {
    "tag": ("towers", towers_tag),
    "lag": ("towers", towers_lag),
    "station": ("towers", towers_station),
    "greedy": ("castles", castles_greedy),
    "public": ("king", king_public),
    "capture": ("knights", knights_capture),
}
