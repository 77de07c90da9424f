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

Three more for the board games, written after their computer was tuned and never used to tune
it (the issue's "players they have not seen"):

- ``wall`` (Castles Besieged, thrifty defender): hits the castle with an unblocked card; when
  the other side has one, kills its easiest card on 9 or less, else blocks with its lowest
  card; with level rows kills only on a 7, keeps two cards in hand by drawing and lays its
  lowest card, keeping the high ones back.
- ``sleuth`` (Siege the King, King-hunter): takes the other side's face-down column with the
  most Defender value for its King and spends its Attackers and Judges there (a revealed King
  at once); shores up its own King's column (Defender, or a Judge on an Attacker there) first
  when it is below 6, never else; sends the Assassin at the most reinforced column.
- ``careful`` (Siege (1966), careful capturer): takes the most valuable piece it can, and
  never moves a piece to a square the other side can capture on next move unless the capture
  is worth more than the piece it risks.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import Any

from engine.king import ATTACKER, DEFENDER, JUDGE, KING, SORC, card_value
from engine.knights import COMMANDER, KNIGHT
from engine.knights_moves import side_moves
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
    return _towers_flip_or_discard(view, legal, 0, rng)  # a flip only when it is free


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


def castles_wall(
    view: Mapping[str, Any], seat: int, legal: list[Action], rng: random.Random
) -> Action:
    rows = view["summary"]["rows"]
    mine, theirs = len(rows[seat]), len(rows[1 - seat])
    attacks = view["attacks"][seat]
    lays = [a for a in legal if a["type"] == "lay"]
    easiest = min(
        ((a["needed"], pos) for pos, a in enumerate(attacks) if a["target"] == "card"),
        default=None,
    )
    if mine > theirs:
        return {"type": "attack", "pos": theirs}
    if theirs > mine:
        if easiest is not None and easiest[0] <= 9:
            return {"type": "attack", "pos": easiest[1]}
        if lays:
            return lays[0]
    if easiest is not None and easiest[0] <= 7:
        return {"type": "attack", "pos": easiest[1]}
    if len(view["hand"]) < 2 and view["summary"]["pile"]:
        return {"type": "draw"}
    if lays:
        return lays[0]  # the engine lists a hand low to high: the high cards stay back
    for action in legal:
        if action["type"] in ("draw", "attack"):
            return action
    return legal[rng.randrange(len(legal))]


def _defence(column: Mapping[str, Any]) -> int:
    return sum(
        card_value(c) or 0
        for c, r in zip(column["cards"], column["roles"], strict=True)
        if r == DEFENDER
    )


def king_sleuth(
    view: Mapping[str, Any], seat: int, legal: list[Action], rng: random.Random
) -> Action:
    summary = view["summary"]
    other = 1 - seat
    columns = summary["columns"]
    if summary["phase"] == "arrange":
        return legal[rng.randrange(len(legal))]
    theirs = columns[other]
    if summary["phase"] == "assassinate":
        return max(legal, key=lambda a: (_defence(theirs[a["column"]]), rng.random()))
    shown = [i for i in range(3) if theirs[i]["castle"] == KING]
    hidden = [i for i in range(3) if theirs[i]["open"] and theirs[i]["castle"] is None]
    candidates = shown or hidden or [0]
    target = max(candidates, key=lambda i: (_defence(theirs[i]), -_column_value(theirs[i])))
    king = list(view["castle"]).index(KING)
    king_low = _column_value(columns[seat][king]) < 6

    def score(action: Action) -> float:
        if action["type"] != "play":
            return -2.0
        card = action["card"]
        s, i = action["column"]
        col = columns[s][i]
        value = card_value(card) or 0
        if value and s == other:
            return value * (1.5 if i == target else 0.2)
        if value:
            return value + 20 if i == king and king_low else 0.1 * value
        if card == JUDGE:
            role = col["roles"][action["target"]]
            gain = card_value(col["cards"][action["target"]]) or 0
            if s == other and i == target and role == DEFENDER:
                return gain * 1.4
            if s == seat and i == king and role == ATTACKER:
                return gain + 20 if king_low else 0.5 * gain
            return -1.0
        if card == SORC:
            if s == other and i == target:
                return 0.5 * (_defence(col) - 6)
            if s == seat and i == king:
                return 0.5 * (10 - _column_value(col))
            return -1.0
        return -1.0

    return max(legal, key=lambda a: (score(a), rng.random()))


def knights_careful(
    view: Mapping[str, Any], seat: int, legal: list[Action], rng: random.Random
) -> Action:
    pieces: dict[str, str] = dict(view["summary"].get("pieces") or {})
    worth = {COMMANDER: 10, KNIGHT: 3}

    def score(action: Action) -> float:
        if action["type"] != "move":
            return 0.0
        moved = pieces[action["from"]]
        taken = pieces.get(action["to"])
        after = dict(pieces)
        del after[action["from"]]
        after[action["to"]] = moved
        risked = any(to == action["to"] for _, to in side_moves(after, 1 - seat))
        gain = 0 if taken is None else worth.get(taken, 2)
        loss = worth.get(moved, 2) if risked else 0
        return gain - loss + rng.random() * 0.5

    return max(legal, key=score)


RULE_PLAYERS: dict[str, tuple[str, RulePlayer]] = {
    "tag": ("towers", towers_tag),
    "lag": ("towers", towers_lag),
    "station": ("towers", towers_station),
    "greedy": ("castles", castles_greedy),
    "public": ("king", king_public),
    "capture": ("knights", knights_capture),
    "wall": ("castles", castles_wall),
    "sleuth": ("king", king_sleuth),
    "careful": ("knights", knights_careful),
}
