"""Siege, the tower poker game (key ``towers``), for 2–7 players.

Follows ``../shared/seeds/siege-towers-poker.txt`` as settled by ``../shared/spec/towers.md``,
which wins wherever the two differ. House rules from the spec: chip values and fees (flips cost
0, 1, 5, 10), fixed-limit betting with a raise cap, table stakes with side pots, the flip offer in
seat order, the order of tower-joker effects, the dungeon reshuffle, leaving, and seats going out
at zero chips.

Two decks (108 cards, four jokers) are shuffled together; four towers are built once. Each hand
deals 4 private cards, burns one, turns the hold card (free) and offers up to three more tower
flips for a fee, with a fixed-limit betting round after each. A hand is its 4 private cards plus
exactly one face-up tower card, jokers wild (after the four-joker jackpot: 2 private cards plus 3
tower cards). The game ends when the towers are empty or fewer than two players remain; the most
chips win.

State (plain JSON): ``seats``, ``options``, ``phase`` (betting, flip_offer, discard, over),
``hand_no``, ``dealer``, ``to_act``, ``chips``, ``left``, ``out``, ``in_hand``, ``hands``,
``towers`` (top first), ``spire`` (top first), ``dungeon``, ``burned``, ``face_up``,
``tower_used`` (which towers gave a flip this hand), ``flips``, ``in_pot``, ``fees``,
``round_bets``, ``bet_level``, ``raises``, ``bet_size``, ``acted`` (since the last bet or raise),
``offer`` (seats still to be offered the flip after ``to_act``), ``discard`` (the tower-joker
decision under way: its mode and the seats still to ask after ``to_act``), ``joker_revealed``,
``jokers_from_towers``, ``jackpot``, ``last_hand``, ``shows`` (the hands shown during the latest
action, with each show's face-up cards and burned card: all public; more than one when hands
ran on without a decision, everyone all-in from the antes) and ``result``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from itertools import combinations
from typing import Any

from engine import cards
from engine.chance import shuffle_for
from engine.declaration import COMPUTER_LEVELS, About
from engine.poker_hands import JOKERS, best_value, category
from engine.rules import (
    JSON,
    Action,
    Event,
    IntRange,
    Option,
    Result,
    RuleError,
    SetupError,
    State,
    StoredTurn,
    brief,
    check_seat,
    check_seats,
    clone,
    resolve_options,
    stack_choice,
    stack_hands,
    stack_list,
)

HAND_SIZE = 4
TOWER_COUNT = 4
DECK108: tuple[str, ...] = tuple(sorted([*cards.DECK52, "XB", "XR"] * 2))
CARD_CODES = frozenset(DECK108)
FLIP_FEES = {1: 0, 2: 1, 3: 5, 4: 10}  # by the flip's number in the hand (house rule)
STACK_KEYS = frozenset({"dealer", "towers", "hands", "pile"})
UP_TO_1, UP_TO_4, EXACTLY_2 = "up_to_1", "up_to_4", "exactly_2"

_FIELDS = {
    "check": frozenset({"type"}),
    "bet": frozenset({"type"}),
    "call": frozenset({"type"}),
    "raise": frozenset({"type"}),
    "fold": frozenset({"type"}),
    "buy_flip": frozenset({"type"}),
    "decline_flip": frozenset({"type"}),
    "reveal_joker": frozenset({"type", "discard"}),
    "discard": frozenset({"type", "cards"}),
    "leave": frozenset({"type"}),
}
_PHASE_ACTIONS = {
    "betting": frozenset({"check", "bet", "call", "raise", "fold", "reveal_joker", "leave"}),
    "flip_offer": frozenset({"buy_flip", "decline_flip", "reveal_joker", "leave"}),
    "discard": frozenset({"discard", "leave"}),
}
_PHASE_WORDS = {
    "betting": "a betting round",
    "flip_offer": "a flip offer",
    "discard": "a discard for a tower joker",
}


def clockwise(seats: int, start: int) -> list[int]:
    """Every seat once, going left (clockwise) from the seat after ``start``, ``start`` last.

    >>> clockwise(4, 1)
    [2, 3, 0, 1]
    """
    return [(start + i) % seats for i in range(1, seats + 1)]


class Towers(StoredTurn):
    key = "towers"
    title = "Siege tower poker"
    min_seats = 2
    max_seats = 7
    state_version = 1
    #: Spec 5.3: a discard's cards are accepted in any order (see engine/legal.py).
    unordered_fields = frozenset({"cards"})
    about = About(
        command="siege-tower-poker",
        blurb="poker for 2 to 7 players with chips and four towers of cards",
        computer_levels=COMPUTER_LEVELS,
        automatic_move=(
            "**Check** when you owe nothing; when someone has bet, **fold** (you lose only what "
            "you already put in this hand, never more chips). It never bets, calls or raises for "
            "you.",
            "**Flip offer**: **decline**; it never pays for a tower card.",
            "**Joker discard** where you may discard some cards: **keep all your cards**.",
            "**Jackpot discard** (you must throw away exactly 2): it keeps the 2 cards that make "
            "your best hand. No more tower cards are turned after the jackpot, so that choice is "
            "sure.",
            "It never reveals a joker and never leaves the table for you.",
        ),
        rules="towers.md",
    )
    options: tuple[Option, ...] = (
        IntRange.between("start_chips", 100, 1, 10000, "Chips per player at the start."),
        IntRange.between("ante", 1, 0, 100, "Paid by every player at the start of each hand."),
        IntRange.between("tower_height", 10, 3, 10, "Cards in each of the four towers."),
        IntRange.between(
            "small_bet", 1, 1, 100, "Bet and raise size while at most 2 tower cards are up."
        ),
        IntRange.between("big_bet", 2, 1, 200, "Bet and raise size once 3 tower cards are up."),
        IntRange.between(
            "max_raises", 3, 0, 10, "Raises allowed per betting round after the opening bet."
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
        check_seats(self, seats)
        opts = resolve_options(self, options)
        if opts["big_bet"] < opts["small_bet"]:
            raise SetupError(
                f"Option 'big_bet' ({opts['big_bet']}) must be at least 'small_bet' "
                f"({opts['small_bet']})."
            )
        stack = dict(stack or {})
        unknown = sorted(set(stack) - STACK_KEYS)
        if unknown:
            raise SetupError(f"Unknown stack key {unknown[0]!r} for {self.title}.")
        height = opts["tower_height"]
        towers_named = _stack_towers(stack, height)
        hands_named = [_codes(h, "hands") for h in stack_hands(stack, seats, HAND_SIZE)]
        pile_named = _codes(stack_list(stack, "pile"), "pile")
        room = len(DECK108) - TOWER_COUNT * height - HAND_SIZE * seats
        if len(pile_named) > room:
            raise SetupError(f"Stack 'pile' names {len(pile_named)} cards; at most {room} fit.")
        named = Counter(c for zone in (*towers_named, *hands_named, pile_named) for c in zone)
        for code, count in sorted(named.items()):
            if count > 2:
                raise SetupError(f"The stack names {code} {count} times; the game has two.")
        dealer = stack_choice(stack, "dealer", tuple(range(seats)))
        if dealer is None:
            dealer = rng.randrange(seats)

        rest = list((Counter(DECK108) - named).elements())
        rng.shuffle(rest)
        towers = [list(t) for t in towers_named]
        for tower in towers:
            while len(tower) < height:
                tower.append(rest.pop())
        hands = [list(h) for h in hands_named]
        for hand in hands:
            while len(hand) < HAND_SIZE:
                hand.append(rest.pop())
        # Hand 1 deals from the top of the spire, four cards a seat from left of the dealer.
        dealt = [c for seat in clockwise(seats, dealer) for c in hands[seat]]
        start = opts["start_chips"]
        state: State = {
            "version": self.state_version,
            "seats": seats,
            "options": opts,
            "phase": "betting",
            "hand_no": 0,
            "dealer": dealer,
            "to_act": None,
            "chips": [start] * seats,
            "left": [False] * seats,
            "out": [False] * seats,
            "towers": towers,
            "spire": dealt + pile_named + rest,
            "dungeon": [],
            "last_hand": None,
            "shows": [],
            "jokers_from_towers": 0,
            "result": None,
        }
        _reset_hand(state)
        _start_hand(state, rng, [])
        return state

    # -- queries -----------------------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["result"] is not None or state["to_act"] != seat:
            return []
        phase = state["phase"]
        actions: list[Action] = []
        if phase == "betting":
            actions += [{"type": t} for t in _betting_choices(state, seat)]
        elif phase == "flip_offer":
            if state["chips"][seat] >= _next_fee(state):
                actions.append({"type": "buy_flip"})
            actions.append({"type": "decline_flip"})
        if phase in ("betting", "flip_offer"):
            actions += [
                {"type": "reveal_joker", "discard": c} for c in _reveal_choices(state, seat)
            ]
        if phase == "discard":
            actions += [
                {"type": "discard", "cards": list(c)} for c in _discard_choices(state, seat)
            ]
        actions.append({"type": "leave"})
        return actions

    def summary(self, state: State) -> dict[str, JSON]:
        opts = state["options"]
        to_act = state["to_act"]
        betting = state["phase"] == "betting" and to_act is not None
        fee = _next_fee(state) if _can_flip(state) else None
        return {
            "phase": state["phase"],
            "hand_no": state["hand_no"],
            "dealer": state["dealer"],
            "chips": list(state["chips"]),
            "pot": _pot(state),
            "in_pot": list(state["in_pot"]),
            "fees": state["fees"],
            "round_bets": list(state["round_bets"]),
            "to_call": state["bet_level"] - state["round_bets"][to_act] if betting else 0,
            "bet_size": opts["small_bet"] if len(state["face_up"]) <= 2 else opts["big_bet"],
            "raises": state["raises"],
            "towers": [len(t) for t in state["towers"]],
            "face_up": list(state["face_up"]),
            "next_flip_cost": fee,
            "folded": [not x for x in state["in_hand"]],
            "left": list(state["left"]),
            "out": list(state["out"]),
            "joker_revealed": list(state["joker_revealed"]),
            "jokers_from_towers": state["jokers_from_towers"],
            "jackpot": state["jackpot"],
            "spire": len(state["spire"]),
            "dungeon": len(state["dungeon"]),
            "burned": state["burned"],
            "last_hand": None if state["last_hand"] is None else dict(state["last_hand"]),
        }

    def view(self, state: State, seat: int | None) -> dict[str, JSON]:
        """What ``seat`` may see (a spectator with ``None``): the public summary, whose turn it
        is, the hands shown during the latest action, and the seat's own cards with its best
        hand now."""
        view: dict[str, JSON] = {
            "game": self.key,
            "seat": seat,
            "to_act": state["to_act"],
            "summary": self.summary(state),
            "shows": state["shows"],
            "result": state["result"],
        }
        if seat is not None:
            hand = sorted(state["hands"][seat])
            view["hand"] = hand
            best = None
            if hand and state["face_up"]:
                value, used = best_value(hand, state["face_up"], 3 if state["jackpot"] else 1)
                best = {"category": category(value), "tower": list(used)}
            view["best"] = best
        return view

    def safe_action(self, state: State, seat: int) -> Action | None:
        """The AFK ladder's automatic move (spec 5), never a bet, call, raise, flip, revealed
        joker or leave: in betting, ``check`` when nothing is owed, else ``fold`` (loses only
        the hand, never more chips); at a flip offer, ``decline_flip`` (it is free); at an
        "up to" joker discard, keep every card (``[]``); at the jackpot's "exactly 2", the
        discard leaving the best hand (no tower card is turned after it, so this is sure)."""
        legal = self.legal_actions(state, seat)
        for kind in ("check", "fold", "decline_flip"):
            if {"type": kind} in legal:
                return {"type": kind}
        discards = [a for a in legal if a["type"] == "discard"]
        if not discards:
            return None
        if state["discard"]["mode"] != EXACTLY_2:
            return {"type": "discard", "cards": []}
        hand = state["hands"][seat]

        def kept_value(action: Action) -> int:
            kept = list((Counter(hand) - Counter(action["cards"])).elements())
            return best_value(kept, state["face_up"], 3)[0]

        return max(discards, key=kept_value)  # the first of the best, in legal order

    def rematch_options(self, options: Mapping[str, JSON], result: Result) -> dict[str, JSON]:
        return dict(options)

    # -- transitions -------------------------------------------------------------------------

    def apply(
        self, state: State, seat: int, action: Action, rng: random.Random
    ) -> tuple[State, list[Event]]:
        check_seat(seat)
        if state["result"] is not None:
            raise RuleError("The game is over.")
        if state["to_act"] != seat:
            raise RuleError("It is not your turn.")
        if not isinstance(action, Mapping):
            raise RuleError("That is not a move in tower poker.")
        kind = action.get("type")
        phase = state["phase"]
        if not isinstance(kind, str) or kind not in _FIELDS:
            raise RuleError(
                "That is not a move in tower poker: check, bet, call, raise, fold, buy_flip, "
                "decline_flip, reveal_joker, discard or leave."
            )
        if kind not in _PHASE_ACTIONS[phase]:
            raise RuleError(
                f"You cannot {kind.replace('_', ' ')} now: this is {_PHASE_WORDS[phase]}."
            )
        extra = sorted(set(action) - _FIELDS[kind])
        if extra:
            raise RuleError(f"That action has an unexpected field {extra[0]!r}.")

        new = copy_state(state)
        new["shows"] = []
        events: list[Event] = []
        if kind == "leave":
            _leave(new, seat, rng, events)
        elif kind == "reveal_joker":
            _reveal_joker(new, seat, action, rng, events)
        elif kind == "discard":
            _discard(new, seat, action, rng, events)
        elif kind in ("buy_flip", "decline_flip"):
            _flip_offer(new, seat, kind, rng, events)
        else:
            _bet(new, seat, kind, rng, events)
        return new, events

    def resign(self, state: State, seat: int) -> tuple[State, list[Event]]:
        """A player who resigns from the table leaves the game (spec 5.6), on their turn or not:
        the chips not in the pot are kept, the others play on. A seat already out of the game
        (left, or out of chips) has nothing left to give up: the state is unchanged."""
        check_seat(seat)
        if state["result"] is not None:
            raise RuleError("The game is over.")
        if not 0 <= seat < state["seats"]:
            raise RuleError("You are not playing at this table.")
        new = copy_state(state)
        events: list[Event] = []
        if new["left"][seat] or new["out"][seat]:
            return new, events
        new["shows"] = []
        # A resignation that ends the hand reshuffles; with no move generator given, the shuffle
        # is seeded by the spire's hidden order, so it replays exactly and nobody can foresee it.
        rng = random.Random(":".join([*new["spire"], str(seat)]))
        _leave(new, seat, rng, events)
        return new, events


_FLAT_LISTS = frozenset(
    {
        "chips",
        "left",
        "out",
        "in_hand",
        "spire",
        "dungeon",
        "face_up",
        "tower_used",
        "in_pot",
        "round_bets",
        "acted",
        "offer",
        "joker_revealed",
    }
)


def copy_state(state: State) -> State:
    """A deep copy of a towers state to build the next one from, knowing its shape: lists of
    codes and numbers are copied whole (a per-item tree walk would cost most of a move).

    >>> state = GAME.setup(2, {}, random.Random(1))
    >>> copied = copy_state(state)
    >>> copied["hands"][0].append("XB")
    >>> copied == state, len(state["hands"][0])
    (False, 4)
    """
    new = dict(state)
    for key in _FLAT_LISTS:
        new[key] = state[key][:]
    new["towers"] = [zone[:] for zone in state["towers"]]
    new["hands"] = [zone[:] for zone in state["hands"]]
    new["options"] = dict(state["options"])
    new["shows"] = [clone(show) for show in state["shows"]]
    for key in ("discard", "last_hand", "result"):
        if state[key] is not None:
            new[key] = clone(state[key])
    return new


# -- forced steps (they change the new state in place and append events) ---------------------


def _reset_hand(s: State) -> None:
    n = s["seats"]
    s.update(
        in_hand=[False] * n,
        hands=[[] for _ in range(n)],
        face_up=[],
        tower_used=[False] * TOWER_COUNT,
        flips=0,
        in_pot=[0] * n,
        fees=0,
        round_bets=[0] * n,
        bet_level=0,
        raises=0,
        bet_size=s["options"]["small_bet"],
        acted=[False] * n,
        offer=[],
        discard=None,
        joker_revealed=[False] * n,
        jackpot=False,
        burned=None,
    )


def _in_game(s: State) -> list[int]:
    return [x for x in range(s["seats"]) if not s["left"][x] and not s["out"][x]]


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


def _next_tower(s: State) -> int | None:
    for t in range(TOWER_COUNT):
        if s["towers"][t] and not s["tower_used"][t]:
            return t
    return None


def _can_flip(s: State) -> bool:
    """6.2: a tower card can still be turned this hand, and the jackpot has not come."""
    return s["phase"] != "over" and not s["jackpot"] and _next_tower(s) is not None


def _next_fee(s: State) -> int:
    return FLIP_FEES[s["flips"] + 1]


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


def _with_chips(s: State) -> list[int]:
    return [x for x in range(s["seats"]) if s["in_hand"][x] and s["chips"][x] > 0]


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
    _show(s, rng, events)


def _pot(s: State) -> int:
    return sum(s["in_pot"]) + int(s["fees"])


def _others_with_chips(s: State, seat: int) -> bool:
    return any(x != seat and s["chips"][x] > 0 for x in _with_chips(s))


def _betting_choices(s: State, seat: int) -> list[str]:
    chips = s["chips"][seat]
    b = s["bet_size"]
    to_call = s["bet_level"] - s["round_bets"][seat]
    others = _others_with_chips(s, seat)
    choices = []
    if to_call == 0:
        choices.append("check")
    if s["bet_level"] == 0 and chips >= b and others:
        choices.append("bet")
    if to_call > 0:
        choices.append("call")
    if (
        s["bet_level"] > 0
        and s["raises"] < s["options"]["max_raises"]
        and chips >= to_call + b
        and others
    ):
        choices.append("raise")
    if to_call > 0:
        choices.append("fold")
    return choices


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
    events.append(event)
    _after_bettor(s, seat, rng, events)


_PAST = {
    "check": "checked",
    "bet": "bet_made",
    "call": "called",
    "raise": "raised",
    "fold": "folded",
}


def _betting_refusal(s: State, seat: int, kind: str) -> str:
    chips = s["chips"][seat]
    b = s["bet_size"]
    to_call = s["bet_level"] - s["round_bets"][seat]
    if kind == "check":
        return f"You cannot check: there is a bet of {to_call} to call."
    if kind in ("call", "fold"):
        return f"You cannot {kind}: there is no bet to {'call' if kind == 'call' else 'fold to'}."
    if kind == "bet" and s["bet_level"] > 0:
        return "Someone has already bet this round: call, raise or fold."
    if kind == "raise" and s["bet_level"] == 0:
        return "There is no bet to raise yet: bet instead."
    if kind == "raise" and s["raises"] >= s["options"]["max_raises"]:
        return f"No more raises this round (at most {s['options']['max_raises']})."
    need = b if kind == "bet" else to_call + b
    if chips < need:
        return f"You need {need} chips to {kind}; you have {chips}."
    return f"You cannot {kind}: no other player in the hand has chips left to answer it."


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
    _show(s, rng, events)


def _reveal_choices(s: State, seat: int) -> list[str]:
    """5.4: one card whose discard leaves a joker in the hand, once per hand."""
    hand = s["hands"][seat]
    if s["joker_revealed"][seat] or not JOKERS.intersection(hand):
        return []
    jokers = sum(c in JOKERS for c in hand)
    return sorted({c for c in hand if c not in JOKERS or jokers >= 2})


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


def _discard_choices(s: State, seat: int) -> list[tuple[str, ...]]:
    """5.3: every distinct multiset of the hand the current joker effect allows."""
    mode = s["discard"]["mode"]
    hand = sorted(s["hands"][seat])
    sizes = [2] if mode == EXACTLY_2 else range((1 if mode == UP_TO_1 else 4) + 1)
    found: list[tuple[str, ...]] = []
    for size in sizes:
        found += sorted(set(combinations(hand, size)))
    return found


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


def _show(s: State, rng: random.Random, events: list[Event]) -> None:
    """6.6 and 6.7: every seat in the hand shows; each pot goes to its best contesting hand."""
    n = s["seats"]
    dealer = s["dealer"]
    shown = [x for x in range(n) if s["in_hand"][x]]
    tower_cards = 3 if s["jackpot"] else 1
    values: dict[int, int] = {}
    used: dict[int, list[str]] = {}
    for x in shown:
        value, choice = best_value(s["hands"][x], s["face_up"], tower_cards)
        values[x], used[x] = value, list(choice)
    in_pot = s["in_pot"]
    levels = sorted({in_pot[x] for x in shown})
    payouts = [0] * n
    winners: set[int] = set()
    pots = []
    previous = 0
    for j, level in enumerate(levels):
        amount = sum(min(p, level) - min(p, previous) for p in in_pot)
        if j == 0:
            amount += s["fees"]
        if j == len(levels) - 1:
            amount += sum(max(0, p - level) for p in in_pot)
        contest = [x for x in shown if in_pot[x] >= level]
        best = max(values[x] for x in contest)
        won = sorted((x for x in contest if values[x] == best), key=lambda x: (x - dealer - 1) % n)
        share, odd = divmod(amount, len(won))
        for i, x in enumerate(won):
            payouts[x] += share + (1 if i < odd else 0)
        winners.update(won)
        pots.append({"amount": amount, "seats": contest, "winners": sorted(won)})
        previous = level
    for x in range(n):
        s["chips"][x] += payouts[x]
    categories: list[str | None] = [None] * n
    for x in shown:
        categories[x] = category(values[x])
    show = {
        "hand_no": s["hand_no"],
        "hands": [sorted(s["hands"][x]) if x in values else None for x in range(n)],
        "tower": [used.get(x) for x in range(n)],
        "face_up": list(s["face_up"]),
        "burned": s["burned"],
    }
    s["shows"].append(show)
    events.append(
        {
            "type": "shown",
            "hands": show["hands"],
            "tower": show["tower"],
            "categories": categories,
            "pots": pots,
            "payouts": payouts,
        }
    )
    s["last_hand"] = {
        "hand_no": s["hand_no"],
        "winners": sorted(winners),
        "payouts": payouts,
        "categories": categories,
    }
    _end_hand(s, rng, events)


def _end_hand(s: State, rng: random.Random, events: list[Event]) -> None:
    """6.8: seats at 0 chips are out; every card but the towers' is shuffled into the spire."""
    for x in _in_game(s):
        if s["chips"][x] == 0:
            s["out"][x] = True
            events.append({"type": "seat_out", "seat": x})
    spire = s["spire"] + s["dungeon"] + s["face_up"] + [c for h in s["hands"] for c in h]
    # By hand: the next hand's cards do not depend on what this one's players did.
    shuffle_for(rng, spire, f"shuffle:hand-{s['hand_no'] + 1}")
    s["spire"], s["dungeon"] = spire, []
    _reset_hand(s)
    events.append({"type": "hand_ended", "hand_no": s["hand_no"]})
    _start_hand(s, rng, events)


def _finish(s: State, reason: str, events: list[Event]) -> None:
    """7: the most chips win (seats that left count their chips, seats that are out 0)."""
    chips = s["chips"]
    top = max(chips)
    result = Result(
        tuple(x for x in range(s["seats"]) if chips[x] == top), reason, tuple(chips)
    ).to_json()
    s.update(phase="over", to_act=None, result=result)
    events.append({"type": "game_ended", **result})


# -- stack checks ------------------------------------------------------------------------------


def _codes(value: list[Any], what: str) -> list[str]:
    for code in value:
        if not isinstance(code, str) or code not in CARD_CODES:
            shown = repr(code) if isinstance(code, str) else brief(code)
            raise SetupError(f"Stack {what!r}: {shown} is not a card of the game.")
    return list(value)


def _stack_towers(stack: Mapping[str, JSON], height: int) -> list[list[str]]:
    if "towers" not in stack:
        return [[] for _ in range(TOWER_COUNT)]
    towers = stack["towers"]
    if (
        not isinstance(towers, list)
        or len(towers) != TOWER_COUNT
        or not all(isinstance(t, list) for t in towers)
    ):
        raise SetupError("Stack 'towers' must be a list of exactly 4 lists of card codes.")
    for t, tower in enumerate(towers):
        if len(tower) > height:
            raise SetupError(
                f"Stack 'towers' names {len(tower)} cards for tower {t}; at most {height} fit."
            )
    return [_codes(t, "towers") for t in towers]


GAME = Towers()
