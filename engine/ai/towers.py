"""The computer's model of tower poker: determinizer, playout policy and evaluation.

What a seat sees (``engine.towers`` view): the public table (chips, bets, the face-up tower
cards, the burned card, every count) and its own four cards. Unseen are the other hands, the
towers' contents, the spire's order and the dungeon's cards. A determinization deals the cards
not in sight into those places in the sizes the view gives (a seat that showed a joker gets one
when any is unseen), and rebuilds the bookkeeping the view does not carry (who has acted since
the last raise, who is still to be offered the flip or asked to discard) from the rules' order
of play.

Opponent modelling from public actions: a seat that has put chips in beyond its ante (it bet,
called or raised) is dealt, in the determinization, a hand that makes at least a pair with the
face-up tower cards, and the seat whose bet or raise this seat faces at least two pair (each
re-dealt up to :data:`READS` times), since players rarely pay to see a show with nothing. The
playouts play every seat by the strength of its own (sampled) cards: raise with two pair or
better, call with a pair, mostly fold less to a bet.

A search reaches to the end of the hand under way: its reward is the chips each seat holds then,
against what it holds now. ``leave`` is never chosen.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from random import Random
from typing import Any

from engine.ai.computer import Computer
from engine.ai.search import EngineRules
from engine.ai.towers_read import read_action
from engine.poker_hands import CATEGORY_SHIFT, JOKERS, PAIR, TWO_PAIR, best_value
from engine.rules import Action, Game, State, resolve_options
from engine.towers import (
    DECK108,
    EXACTLY_2,
    GAME,
    TOWER_COUNT,
    UP_TO_1,
    UP_TO_4,
    clockwise,
)

#: How many times a determinization re-deals a hand that does not fit its seat's betting.
READS = 12


class TowersModel(EngineRules):
    game: Game = GAME
    rollout_depth = 60

    def __init__(
        self, view: Mapping[str, Any], seat: int, options: Mapping[str, Any], level: str = "normal"
    ) -> None:
        self.view = view
        self.seat = seat
        self.level = level
        self.options = resolve_options(GAME, options)
        summary = view["summary"]
        self.hand_no = summary["hand_no"]
        self.chips = list(summary["chips"])
        self.scale = 2.0 * max(10, 8 * self.options["big_bet"] + 2 * self.options["ante"])

    def shortcut(self, rng: random.Random) -> Action | None:
        """Hard bets and takes flips by its equity against the others' read hands
        (:mod:`engine.ai.towers_read`); the search decides the rest."""
        if self.level != "hard":
            return None
        # The legal list is public (it depends on chips and bets only): any deal gives it.
        legal = GAME.legal_actions(
            determinize(self.view, self.seat, self.options, Random(0)), self.seat
        )
        return read_action(self.view, self.seat, legal, rng, self.options["big_bet"])

    def determinize(self, rng: random.Random) -> State:
        return determinize(self.view, self.seat, self.options, rng)

    def rollout_action(self, state: State, seat: int, rng: random.Random) -> Action:
        return strength_action(state, seat, GAME.legal_actions(state, seat), rng)

    def evaluate(self, state: State) -> Sequence[float]:
        return [
            min(1.0, max(0.0, 0.5 + (state["chips"][x] - self.chips[x]) / self.scale))
            for x in range(len(self.chips))
        ]

    def is_cutoff(self, state: State, depth: int) -> bool:
        return state["hand_no"] != self.hand_no or depth >= self.rollout_depth

    def root_actions(self, legal: list[Action]) -> list[Action]:
        kept = [a for a in legal if a["type"] != "leave"]
        return kept or legal


def strength(hand: Sequence[str], face_up: Sequence[str], jackpot: bool) -> int:
    """The category (0 high card ... 9 five of a kind) of the best hand ``hand`` makes so far
    with the face-up tower cards (the show's rule: one of them, three at a jackpot)."""
    if not hand:
        return 0
    value, _ = best_value(hand, face_up, 3 if jackpot else 1)
    return value >> CATEGORY_SHIFT


def strength_action(state: State, seat: int, legal: list[Action], rng: random.Random) -> Action:
    """The playout policy: bet by the strength of the seat's cards, with some noise (two pair
    or better bets and raises, a pair checks and calls, less checks and mostly folds to a bet);
    other decisions as :func:`playout_action`."""
    kinds = {a["type"] for a in legal}
    if not kinds & {"check", "call"}:
        return playout_action(legal, rng)
    cat = strength(state["hands"][seat], state["face_up"], state["jackpot"])
    r = rng.random()
    if cat >= TWO_PAIR:
        for kind in ("raise", "bet", "call", "check"):
            if kind in kinds and (r < 0.85 or kind in ("call", "check")):
                return {"type": kind}
    if cat >= PAIR:
        if r < 0.15 and "bet" in kinds:
            return {"type": "bet"}
        return {"type": "check"} if "check" in kinds else {"type": "call"}
    if "check" in kinds:
        return {"type": "bet"} if r < 0.08 and "bet" in kinds else {"type": "check"}
    return {"type": "call"} if r < 0.2 or "fold" not in kinds else {"type": "fold"}


def playout_action(legal: list[Action], rng: random.Random) -> Action:
    """Loose, passive play for the playouts: mostly check or call, sometimes bet, raise, fold or
    buy a flip; keep the cards at a joker discard when allowed; never leave."""
    kinds = {a["type"] for a in legal}
    r = rng.random()
    if "check" in kinds:
        return {"type": "bet"} if "bet" in kinds and r < 0.2 else {"type": "check"}
    if "call" in kinds:
        if r < 0.2 and "fold" in kinds:
            return {"type": "fold"}
        if r < 0.3 and "raise" in kinds:
            return {"type": "raise"}
        return {"type": "call"}
    if "decline_flip" in kinds:
        return {"type": "buy_flip"} if "buy_flip" in kinds and r < 0.3 else {"type": "decline_flip"}
    discards = [a for a in legal if a["type"] == "discard"]
    if discards:
        keep = [a for a in discards if not a["cards"]]
        return keep[0] if keep and r < 0.6 else discards[rng.randrange(len(discards))]
    playable = [a for a in legal if a["type"] != "leave"] or legal
    return playable[rng.randrange(len(playable))]


def _read_hand(
    hands: list[list[str]],
    x: int,
    pool: list[str],
    face_up: Sequence[str],
    jackpot: bool,
    rng: random.Random,
    least: int,
) -> None:
    """Re-deal seat ``x``'s sampled hand from ``pool`` (in place) until it makes ``least`` (a
    pair, or two pair) or better, at most :data:`READS` times; a revealed joker stays."""
    for _ in range(READS):
        if strength(hands[x], face_up, jackpot) >= least:
            return
        fresh = [c for c in hands[x] if c not in JOKERS]
        kept = [c for c in hands[x] if c in JOKERS]
        pool.extend(fresh)
        rng.shuffle(pool)
        hands[x] = kept + [pool.pop() for _ in fresh]


def _tower_used(lengths: list[int], flips: int, can_flip: bool, jackpot: bool) -> list[bool]:
    """Which towers gave a card this hand. Flips take the lowest-numbered unused tower with
    cards, and towers start equal, so the towers empty from the left: the used ones are
    ``flips`` towers in a row after those already empty when the hand began."""
    for start in range(TOWER_COUNT - flips, -1, -1):
        used = [start <= t < start + flips for t in range(TOWER_COUNT)]
        if any(lengths[t] for t in range(start)):
            continue
        left = any(lengths[t] and not used[t] for t in range(TOWER_COUNT))
        if jackpot or left == can_flip:
            return used
    return [t < flips for t in range(TOWER_COUNT)]


def _acted(summary: Mapping[str, Any], in_hand: list[bool], to_act: int, n: int) -> list[bool]:
    """Who has acted since the round's last bet or raise (the rules' ``acted``)."""
    chips = summary["chips"]
    bets = summary["round_bets"]
    level = max(bets)
    acted = [False] * n
    if level == 0:
        able = [x for x in clockwise(n, summary["dealer"]) if in_hand[x] and chips[x] > 0]
        for x in able:
            if x == to_act:
                break
            acted[x] = True
        return acted
    x = (to_act - 1) % n
    while x != to_act:
        if in_hand[x] and chips[x] > 0:
            if bets[x] < level:
                break
            acted[x] = True
        elif bets[x] == level:  # all in, or folded after calling: never asked again
            acted[x] = True
        x = (x - 1) % n
    return acted


def determinize(
    view: Mapping[str, Any], seat: int, options: Mapping[str, Any], rng: random.Random
) -> State:
    summary = view["summary"]
    n = len(summary["chips"])
    to_act = view["to_act"]
    hand = list(view["hand"])
    face_up = list(summary["face_up"])
    burned = summary["burned"]
    jackpot = bool(summary["jackpot"])
    left, out = list(summary["left"]), list(summary["out"])
    in_hand = [not f for f in summary["folded"]]
    known = Counter(hand) + Counter(face_up)
    if burned is not None:
        known[burned] += 1
    pool = list((Counter(DECK108) - known).elements())
    rng.shuffle(pool)

    tower_lengths = list(summary["towers"])
    in_others = (
        len(DECK108)
        - sum(tower_lengths)
        - summary["spire"]
        - summary["dungeon"]
        - len(face_up)
        - len(hand)
    )
    sizes = [0] * n
    dealt = [x for x in range(n) if x != seat and not left[x] and not out[x]]
    if summary["phase"] != "over" and summary["hand_no"] > 0:
        for x in dealt:
            sizes[x] = 4
    # Jackpot discards (exactly 2, no redraw) and seats that went out mid-hand: trim to fit.
    order = sorted(dealt, key=lambda x: (x == to_act, not in_hand[x]))
    while sum(sizes) > max(in_others, 0):
        for x in order:
            if sum(sizes) > in_others and sizes[x] > 0:
                sizes[x] -= 2 if jackpot and sizes[x] >= 2 else 1
    hands: list[list[str]] = [[] for _ in range(n)]
    hands[seat] = hand
    jokers = [c for c in pool if c in JOKERS]
    for x in range(n):
        if x != seat and sizes[x] and summary["joker_revealed"][x] and jokers:
            joker = jokers.pop()
            pool.remove(joker)
            hands[x].append(joker)
    for x in range(n):
        while len(hands[x]) < sizes[x] and x != seat:
            hands[x].append(pool.pop())
    ante = options["ante"]
    bets = summary["round_bets"]
    for x in range(n):
        if x == seat or not in_hand[x] or not hands[x] or summary["in_pot"][x] <= ante:
            continue
        # The seat that bet or raised into us this round is read as stronger than a caller.
        aggressor = bets[x] == max(bets) > bets[seat]
        _read_hand(hands, x, pool, face_up, jackpot, rng, TWO_PAIR if aggressor else PAIR)
    towers = []
    for length in tower_lengths:
        towers.append(pool[:length])
        del pool[:length]
    spire = pool[: summary["spire"]]
    dungeon = pool[summary["spire"] :]
    if burned is not None:
        dungeon.append(burned)

    flips = min(len(face_up), 4)
    fee = summary["next_flip_cost"]
    tower_used = _tower_used(tower_lengths, flips, fee is not None, jackpot)
    phase = summary["phase"]
    offer: list[int] = []
    if phase == "flip_offer" and fee is not None:
        asked = [
            x for x in clockwise(n, summary["dealer"]) if in_hand[x] and summary["chips"][x] >= fee
        ]
        if to_act in asked:
            offer = asked[asked.index(to_act) + 1 :]
    discard = None
    if phase == "discard":
        discard = _pending_discard(summary, in_hand, to_act, n)
    round_bets = list(summary["round_bets"])
    return {
        "version": GAME.state_version,
        "seats": n,
        "options": dict(options),
        "phase": phase,
        "hand_no": summary["hand_no"],
        "dealer": summary["dealer"],
        "to_act": to_act,
        "chips": list(summary["chips"]),
        "left": left,
        "out": out,
        "towers": towers,
        "spire": spire,
        "dungeon": dungeon,
        "last_hand": None if summary["last_hand"] is None else dict(summary["last_hand"]),
        "shows": [],
        "jokers_from_towers": summary["jokers_from_towers"],
        "result": view["result"],
        "in_hand": in_hand,
        "hands": hands,
        "face_up": face_up,
        "tower_used": tower_used,
        "flips": flips,
        "in_pot": list(summary["in_pot"]),
        "fees": summary["fees"],
        "round_bets": round_bets,
        "bet_level": max(round_bets) if round_bets else 0,
        "raises": summary["raises"],
        "bet_size": summary["bet_size"],
        "acted": (
            _acted(summary, in_hand, to_act, n)
            if phase == "betting" and to_act is not None
            else [False] * n
        ),
        "offer": offer,
        "discard": discard,
        "joker_revealed": list(summary["joker_revealed"]),
        "jackpot": jackpot,
        "burned": burned,
    }


def _pending_discard(
    summary: Mapping[str, Any], in_hand: list[bool], to_act: int, n: int
) -> dict[str, Any]:
    """The tower joker's discard under way: its mode from the count of jokers turned (and the
    colour of the second), and the seats after ``to_act`` still to be asked."""
    count = summary["jokers_from_towers"]
    face_up = summary["face_up"]
    jokers = [c for c in face_up if c in JOKERS]
    joker = jokers[-1] if jokers else "XB"
    if count >= 4:
        mode = EXACTLY_2
    elif count == 3:
        mode = UP_TO_4
    elif count == 2:
        mode = UP_TO_1 if joker == "XB" else UP_TO_4
    else:
        mode = UP_TO_1
    asks_everyone = count >= 3 or (count == 2 and joker == "XB")
    queue: list[int] = []
    if asks_everyone:
        x = (to_act + 1) % n
        while x != to_act and x != summary["dealer"]:
            if in_hand[x]:
                queue.append(x)
            x = (x + 1) % n
    return {"mode": mode, "queue": queue}


# Search iterations per level (hard stays under a second a move at 7 seats; docs/computer.md).
COMPUTER = Computer(
    budgets={"normal": 60, "hard": 400},
    model=lambda view, seat, options, level: TowersModel(view, seat, options, level),
)
