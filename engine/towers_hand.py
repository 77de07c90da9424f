"""The flow of a hand of Siege tower poker (key ``towers``): the deal, the burn and the hold
card, tower flips and their joker effects, the joker discards, the fixed-limit betting rounds, the
flip offers, leaving, and the end of a hand that starts the next. Each step changes the new state
in place and appends its events; ``engine.towers`` calls them from ``setup`` and ``apply``.

Follows ``../shared/seeds/siege-towers-poker.txt`` as settled by ``../shared/spec/towers.md``
(sections 5 and 6.1-6.5, 6.8).
"""

from __future__ import annotations

import random
from collections import Counter

from engine.chance import shuffle_for
from engine.poker_hands import JOKERS
from engine.rules import Action, Event, RuleError, State
from engine.towers_cards import (
    EXACTLY_2,
    HAND_SIZE,
    TOWER_COUNT,
    UP_TO_1,
    UP_TO_4,
    _betting_choices,
    _betting_refusal,
    _can_flip,
    _in_game,
    _next_fee,
    _next_tower,
    _pot,
    _reset_hand,
    _reveal_choices,
    _with_chips,
    clockwise,
)
from engine.towers_showdown import _finish, _show


def _start_hand(s: State, rng: random.Random, events: list[Event]) -> None:
    """6.1: the end checks, the button, antes, the deal, the burn and the hold card."""
    players = _in_game(s)
    if len(players) < 2:
        _finish(s, "last_player_standing", events)
        return
    if not any(s["towers"]):
        _finish(s, "towers_exhausted", events)
        return
    n = s["seats"]
    if s["hand_no"] > 0:
        s["dealer"] = next(x for x in clockwise(n, s["dealer"]) if x in players)
    s["hand_no"] += 1
    dealer = s["dealer"]
    ante = s["options"]["ante"]
    antes = [0] * n
    for x in players:
        antes[x] = min(ante, s["chips"][x])
        s["chips"][x] -= antes[x]
        s["in_pot"][x] = antes[x]
        s["in_hand"][x] = True
    for x in clockwise(n, dealer):
        if s["in_hand"][x]:
            s["hands"][x] = [_draw(s, rng, events) for _ in range(HAND_SIZE)]
    events.append(
        {"type": "hand_started", "hand_no": s["hand_no"], "dealer": dealer, "antes": antes}
    )
    s["burned"] = _draw(s, rng, events)
    s["dungeon"].append(s["burned"])
    events.append({"type": "card_burned", "card": s["burned"]})
    _flip(s, dealer, 0, rng, events)


def _draw(s: State, rng: random.Random, events: list[Event]) -> str:
    """The top card of the spire; an empty spire first takes the shuffled dungeon (house rule)."""
    if not s["spire"]:
        s["spire"], s["dungeon"] = s["dungeon"], []
        rng.shuffle(s["spire"])
        events.append({"type": "spire_reshuffled", "cards": len(s["spire"])})
    card: str = s["spire"].pop(0)
    return card


def _flip(s: State, buyer: int, fee: int, rng: random.Random, events: list[Event]) -> None:
    """6.2 and 6.4: turn the next tower card, ask for any joker decisions, then bet."""
    tower = _next_tower(s)
    assert tower is not None
    card = s["towers"][tower].pop(0)
    s["tower_used"][tower] = True
    s["flips"] += 1
    s["face_up"].append(card)
    events.append(
        {
            "type": "tower_flipped",
            "tower": tower,
            "card": card,
            "flip": s["flips"],
            "buyer": buyer,
            "fee": fee,
        }
    )
    if card in JOKERS:
        s["jokers_from_towers"] += 1
        _tower_joker(s, buyer, card, events)
    _next_discard(s, rng, events)


def _tower_joker(s: State, buyer: int, card: str, events: list[Event]) -> None:
    """6.4: the effect of the n-th joker turned from the towers this game."""
    n = s["jokers_from_towers"]
    everyone = [x for x in ((buyer + i) % s["seats"] for i in range(s["seats"])) if s["in_hand"][x]]
    if n == 1:
        mode, asked = UP_TO_1, [s["dealer"]] if s["in_hand"][s["dealer"]] else []
    elif n == 2 and card == "XB":
        mode, asked = UP_TO_1, everyone
    elif n == 2:
        mode, asked = UP_TO_4, [buyer]
    elif n == 3:
        mode, asked = UP_TO_4, everyone
    else:
        mode, asked = EXACTLY_2, everyone
        s["jackpot"] = True
        extra = []
        for t in range(TOWER_COUNT):
            if s["towers"][t]:
                extra.append(s["towers"][t].pop(0))
        s["face_up"].extend(extra)
        events.append({"type": "jackpot", "cards": extra})
    events.append({"type": "tower_joker", "count": n, "joker": card, "mode": mode, "seats": asked})
    s["discard"] = {"mode": mode, "queue": asked}


def _next_discard(s: State, rng: random.Random, events: list[Event]) -> None:
    """Ask the next seat of the joker effect still in the hand; when none is left, bet."""
    pending = s["discard"]
    while pending is not None and pending["queue"]:
        seat = pending["queue"].pop(0)
        if s["in_hand"][seat]:
            s["phase"], s["to_act"] = "discard", seat
            return
    s["discard"] = None
    _start_round(s, rng, events)


def _start_round(s: State, rng: random.Random, events: list[Event]) -> None:
    """6.3: a fixed-limit round, or none when fewer than two seats in the hand have chips."""
    opts = s["options"]
    n = s["seats"]
    s["bet_size"] = opts["small_bet"] if len(s["face_up"]) <= 2 else opts["big_bet"]
    s["bet_level"], s["raises"] = 0, 0
    s["round_bets"], s["acted"] = [0] * n, [False] * n
    able = _with_chips(s)
    if len(able) < 2:
        _end_round(s, rng, events)
        return
    s["phase"] = "betting"
    s["to_act"] = next(x for x in clockwise(n, s["dealer"]) if x in able)


def _next_bettor(s: State, seat: int) -> int | None:
    for x in clockwise(s["seats"], seat)[:-1]:
        if (
            s["in_hand"][x]
            and s["chips"][x] > 0
            and (not s["acted"][x] or s["round_bets"][x] < s["bet_level"])
        ):
            return x
    return None


def _end_round(s: State, rng: random.Random, events: list[Event]) -> None:
    """After a betting round: the flip offer to the seats that can pay, or the show."""
    n = s["seats"]
    s["round_bets"], s["acted"] = [0] * n, [False] * n
    s["bet_level"], s["raises"] = 0, 0
    if _can_flip(s):
        fee = _next_fee(s)
        asked = [x for x in clockwise(n, s["dealer"]) if s["in_hand"][x] and s["chips"][x] >= fee]
        if asked:
            s["phase"], s["to_act"], s["offer"] = "flip_offer", asked[0], asked[1:]
            events.append({"type": "flip_offered", "fee": fee, "seats": asked})
            return
    _show(s, events)
    _end_hand(s, rng, events)


def _bet(s: State, seat: int, kind: str, rng: random.Random, events: list[Event]) -> None:
    """5.1: check, bet, call, raise or fold, then the turn passes (6.3)."""
    if kind not in _betting_choices(s, seat):
        raise RuleError(_betting_refusal(s, seat, kind))
    b = s["bet_size"]
    to_call = s["bet_level"] - s["round_bets"][seat]
    amount = 0
    if kind == "bet":
        amount = b
    elif kind == "call":
        amount = min(to_call, s["chips"][seat])
    elif kind == "raise":
        amount = to_call + b
    if amount:
        s["chips"][seat] -= amount
        s["round_bets"][seat] += amount
        s["in_pot"][seat] += amount
    event: Event = {"type": _PAST[kind], "seat": seat, "amount": amount}
    if kind in ("bet", "raise"):
        s["bet_level"] = s["round_bets"][seat]
        s["raises"] += kind == "raise"
        s["acted"] = [False] * s["seats"]
    if kind == "fold":
        s["in_hand"][seat] = False
    s["acted"][seat] = True
    if kind == "call":
        event["all_in"] = s["chips"][seat] == 0
    # The hand's public log (a new list: states are copied shallowly); older states lack it.
    s["hand_actions"] = [*s.get("hand_actions", []), [seat, kind, len(s["face_up"])]]
    events.append(event)
    _after_bettor(s, seat, rng, events)


_PAST = {
    "check": "checked",
    "bet": "bet_made",
    "call": "called",
    "raise": "raised",
    "fold": "folded",
}


def _after_bettor(s: State, seat: int, rng: random.Random, events: list[Event]) -> None:
    if _hand_won_uncontested(s, rng, events):
        return
    following = _next_bettor(s, seat)
    if following is None:
        _end_round(s, rng, events)
    else:
        s["to_act"] = following


def _hand_won_uncontested(s: State, rng: random.Random, events: list[Event]) -> bool:
    """6.3: only one seat remains in the hand: it takes the whole pot, no cards are shown."""
    remaining = [x for x in range(s["seats"]) if s["in_hand"][x]]
    if len(remaining) != 1:
        return False
    winner = remaining[0]
    payouts = [0] * s["seats"]
    payouts[winner] = _pot(s)
    s["chips"][winner] += payouts[winner]
    events.append({"type": "pot_won", "seat": winner, "amount": payouts[winner]})
    s["last_hand"] = {
        "hand_no": s["hand_no"],
        "winners": [winner],
        "payouts": payouts,
        "categories": [None] * s["seats"],
    }
    _end_hand(s, rng, events)
    return True


def _flip_offer(s: State, seat: int, kind: str, rng: random.Random, events: list[Event]) -> None:
    """5.2: the first buyer takes the flip; a decline passes the offer on."""
    if kind == "buy_flip":
        fee = _next_fee(s)
        if s["chips"][seat] < fee:
            raise RuleError(f"The next flip costs {fee}; you have {s['chips'][seat]} chips.")
        s["chips"][seat] -= fee
        s["fees"] += fee
        s["offer"] = []
        _flip(s, seat, fee, rng, events)
        return
    events.append({"type": "flip_declined", "seat": seat})
    _next_offer(s, rng, events)


def _next_offer(s: State, rng: random.Random, events: list[Event]) -> None:
    while s["offer"]:
        seat = s["offer"].pop(0)
        if s["in_hand"][seat]:
            s["to_act"] = seat
            return
    _show(s, events)
    _end_hand(s, rng, events)


def _reveal_joker(
    s: State, seat: int, action: Action, rng: random.Random, events: list[Event]
) -> None:
    card = action.get("discard")
    hand = s["hands"][seat]
    if not JOKERS.intersection(hand):
        raise RuleError("You hold no joker to reveal.")
    if s["joker_revealed"][seat]:
        raise RuleError("You have already revealed a joker this hand.")
    if not isinstance(card, str) or card not in hand:
        raise RuleError("Name a card of your hand to discard.")
    if card not in _reveal_choices(s, seat):
        raise RuleError("You must keep a joker to show: discard another card.")
    hand.remove(card)
    s["dungeon"].append(card)
    hand.append(_draw(s, rng, events))
    s["joker_revealed"][seat] = True
    events.append({"type": "joker_revealed", "seat": seat})


def _discard(s: State, seat: int, action: Action, rng: random.Random, events: list[Event]) -> None:
    chosen = action.get("cards")
    if not isinstance(chosen, list) or not all(isinstance(c, str) for c in chosen):
        raise RuleError("Name the cards to discard as a list (an empty list keeps them all).")
    hand = s["hands"][seat]
    if Counter(chosen) - Counter(hand):
        raise RuleError("You can only discard cards you hold.")
    mode = s["discard"]["mode"]
    if mode == EXACTLY_2 and len(chosen) != 2:
        raise RuleError("The jackpot: discard exactly 2 cards.")
    most = 1 if mode == UP_TO_1 else 4
    if mode != EXACTLY_2 and len(chosen) > most:
        raise RuleError(f"You may discard at most {most} card{'s' if most > 1 else ''}.")
    for card in chosen:
        hand.remove(card)
        s["dungeon"].append(card)
    redraw = mode != EXACTLY_2
    if redraw:
        hand.extend(_draw(s, rng, events) for _ in chosen)
    events.append({"type": "discarded", "seat": seat, "count": len(chosen), "redrawn": redraw})
    _next_discard(s, rng, events)


def _leave(s: State, seat: int, rng: random.Random, events: list[Event]) -> None:
    """5.5: fold, keep the chips not in the pot, and leave the game for good."""
    was_to_act = s["to_act"] == seat
    s["left"][seat] = True
    s["in_hand"][seat] = False
    s["dungeon"].extend(s["hands"][seat])
    s["hands"][seat] = []
    s["offer"] = [x for x in s["offer"] if x != seat]
    if s["discard"] is not None:
        s["discard"]["queue"] = [x for x in s["discard"]["queue"] if x != seat]
    events.append({"type": "left", "seat": seat, "chips": s["chips"][seat]})
    if _hand_won_uncontested(s, rng, events) or not was_to_act:
        return
    if s["phase"] == "betting":
        _after_bettor(s, seat, rng, events)
    elif s["phase"] == "flip_offer":
        _next_offer(s, rng, events)
    else:
        _next_discard(s, rng, events)


def _end_hand(s: State, rng: random.Random, events: list[Event]) -> None:
    """6.8: seats at 0 chips are out; every card but the towers' is shuffled into the spire."""
    for x in _in_game(s):
        if s["chips"][x] == 0:
            s["out"][x] = True
            events.append({"type": "seat_out", "seat": x})
    _record_hand(s)
    spire = s["spire"] + s["dungeon"] + s["face_up"] + [c for h in s["hands"] for c in h]
    # By hand: the next hand's cards do not depend on what this one's players did.
    shuffle_for(rng, spire, f"shuffle:hand-{s['hand_no'] + 1}")
    s["spire"], s["dungeon"] = spire, []
    _reset_hand(s)
    events.append({"type": "hand_ended", "hand_no": s["hand_no"]})
    _start_hand(s, rng, events)


#: How many finished hands the public record keeps (a game at the tallest towers has at most 40).
PAST_HANDS_KEPT = 40


def _record_hand(s: State) -> None:
    """Keep the finished hand's public record: its betting log, the tower cards turned and the
    hands shown at its show (None for a seat that did not show): what everyone at the table saw,
    so that a player (or a computer seat) can read the others' habits from it."""
    shown = next((sh["hands"] for sh in s["shows"] if sh["hand_no"] == s["hand_no"]), None)
    record = {
        "hand_no": s["hand_no"],
        "actions": s.get("hand_actions", []),
        "face_up": list(s["face_up"]),
        "hands": shown if shown is not None else [None] * s["seats"],
    }
    s["past_hands"] = [*s.get("past_hands", []), record][-PAST_HANDS_KEPT:]
