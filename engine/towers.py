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
``jokers_from_towers``, ``jackpot``, ``hand_actions`` (this hand's public betting log, one
``[seat, type, face-up cards then]`` per check, bet, call, raise or fold; every view's
``actions``), ``past_hands`` (the public record of the last finished hands: log, tower cards,
hands shown; in every view), ``last_hand``, ``shows`` (the hands shown during the latest
action, with each show's face-up cards and burned card: all public; more than one when hands
ran on without a decision, everyone all-in from the antes) and ``result``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping

from engine.declaration import COMPUTER_LEVELS, About
from engine.poker_hands import best_value, category
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
    check_seat,
    check_seats,
    resolve_options,
    stack_choice,
    stack_hands,
    stack_list,
)
from engine.towers_cards import (
    CARD_CODES,
    DECK108,
    EXACTLY_2,
    FLIP_FEES,
    HAND_SIZE,
    STACK_KEYS,
    TOWER_COUNT,
    UP_TO_1,
    UP_TO_4,
    _betting_choices,
    _can_flip,
    _codes,
    _discard_choices,
    _next_fee,
    _pot,
    _reset_hand,
    _reveal_choices,
    _stack_towers,
    clockwise,
    copy_state,
)
from engine.towers_hand import (
    _bet,
    _discard,
    _end_hand,
    _flip_offer,
    _leave,
    _reveal_joker,
    _start_hand,
)

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

#: The game's names, with those its other modules hold (callers import them from here).
__all__ = [
    "CARD_CODES",
    "DECK108",
    "EXACTLY_2",
    "FLIP_FEES",
    "GAME",
    "HAND_SIZE",
    "STACK_KEYS",
    "TOWER_COUNT",
    "UP_TO_1",
    "UP_TO_4",
    "Towers",
    "_end_hand",
    "clockwise",
    "copy_state",
]


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
        # Beyond the spec's summary, and public: this hand's betting log and the record of the
        # finished hands (what everyone at the table saw).
        view["actions"] = [list(entry) for entry in state.get("hand_actions", [])]
        view["past_hands"] = state.get("past_hands", [])
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

    def is_playing(self, state: State, seat: int) -> bool:
        """6.8 and leaving: a seat out of chips, or one that has left, takes no more part."""
        return not (state["out"][seat] or state["left"][seat])

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


GAME = Towers()

#: The doctests of the helpers that moved beside this module run with it (``doctest.testmod``).
__test__ = {"clockwise": clockwise, "copy_state": copy_state}
