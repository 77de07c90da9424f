"""Castles Besieged (key ``castles``), by William F. Bultas.

Follows ``../shared/seeds/castles-besieged.txt`` as settled by ``../shared/spec/castles.md``
(house rules: no reshuffle, no draw from an empty pile, pass only with nothing else to do, the
stalemate end and its tie-breaks). Two rows of cards face each other; a turn draws, lays or
attacks with two dice against max(7, target value - attacker value).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine import cards
from engine.declaration import COMPUTER_LEVELS, About
from engine.rules import (
    ABANDONED,
    JSON,
    Action,
    Event,
    Option,
    Result,
    RuleError,
    SetupError,
    State,
    StoredTurn,
    brief,
    check_seat,
    check_seats,
    check_turn,
    clone,
    ending_drawn,
    field_of,
    is_whole,
    resolve_options,
    stack_choice,
    stack_hands,
    stack_list,
)

HAND_SIZE = 7
HITS_TO_LOSE = 10
QUIET_TURNS_LIMIT = 30
STACK_KEYS = frozenset({"hands", "pile", "dice", "dealer"})

FLAVOUR = {
    1: "Children",
    2: "Aristocrats",
    3: "Merchants",
    4: "Farmers",
    5: "Artisans",
    6: "Squires & Cadets",
    7: "Footmen",
    8: "Veterans",
    9: "Swordsmen",
    10: "Warriors",
    11: "Horsemen",
    12: "Knights",
    13: "Heroes",
}


def needed_roll(attacker: str, target: str | None) -> int:
    """The two-dice total an attack needs: 7 against a player, else max(7, difference).

    >>> needed_roll("2H", "TS"), needed_roll("AS", "KD"), needed_roll("KH", "5C")
    (8, 12, 7)
    >>> needed_roll("9D", None)
    7
    """
    if target is None:
        return 7
    return max(7, cards.value(target) - cards.value(attacker))


class Castles(StoredTurn):
    key = "castles"
    title = "Castles Besieged"
    min_seats = 2
    max_seats = 2
    state_version = 1
    about = About(
        command="castles-besieged",
        blurb="two players, cards and dice: storm the other castle ten times",
        computer_levels=COMPUTER_LEVELS,
        automatic_move=(
            "**Draw a card** while the draw pile has cards.",
            "With an empty pile: **pass** if passing is the only thing you could do (no cards "
            "in hand or in your row).",
            "Otherwise **no automatic move**: laying and attacking are up to you.",
        ),
        draws=True,
        rules="castles.md",
    )
    options: tuple[Option, ...] = (
        Option(
            name="dealer",
            default=None,
            choices=(None, 0, 1),
            description="who deals; the other player moves first.",
            labels=("Random", "The host (seat 1)", "The second player (seat 2)"),
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
        stack = dict(stack or {})
        unknown = sorted(set(stack) - STACK_KEYS)
        if unknown:
            raise SetupError(f"Unknown stack key {unknown[0]!r} for Castles Besieged.")

        hands_named = [_card_list(h, "hands", HAND_SIZE) for h in stack_hands(stack, 2, HAND_SIZE)]
        pile_named = _card_list(stack_list(stack, "pile"), "pile", 52 - 2 * HAND_SIZE)
        dice = _dice_list(stack_list(stack, "dice"))
        named = [c for hand in hands_named for c in hand] + pile_named
        if len(set(named)) != len(named):
            raise SetupError("A card is named twice in the stack.")

        dealer = opts["dealer"]
        stack_dealer = stack_choice(stack, "dealer", (0, 1))
        if dealer is not None and stack_dealer is not None and stack_dealer != dealer:
            raise SetupError("Stack 'dealer' differs from the 'dealer' option.")
        if dealer is None:
            dealer = stack_dealer if stack_dealer is not None else rng.randrange(2)

        rest = [c for c in cards.DECK52 if c not in set(named)]
        rng.shuffle(rest)
        hands = [list(h) for h in hands_named]
        for hand in hands:
            while len(hand) < HAND_SIZE:
                hand.append(rest.pop(0))
        return {
            "version": self.state_version,
            "dealer": dealer,
            "hands": hands,
            "pile": pile_named + rest,
            "rows": [[], []],
            "discard": [],
            "hits": [0, 0],
            "quiet_turns": 0,
            "to_act": 1 - dealer,
            "last_attack": None,
            "last_was_pass": False,
            "dice": dice,
            "result": None,
        }

    # -- queries -----------------------------------------------------------------------------

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["result"] is not None or state["to_act"] != seat:
            return []
        actions: list[Action] = []
        if state["pile"]:
            actions.append({"type": "draw"})
        for card in sorted(state["hands"][seat], key=cards.sort_key):
            actions.append({"type": "lay", "card": card})
        for pos in range(len(state["rows"][seat])):
            actions.append({"type": "attack", "pos": pos})
        if not actions:
            actions.append({"type": "pass"})
        return actions

    def summary(self, state: State) -> dict[str, JSON]:
        return {
            "dealer": state["dealer"],
            "hits": list(state["hits"]),
            "rows": [list(r) for r in state["rows"]],
            "hand_sizes": [len(h) for h in state["hands"]],
            "pile": len(state["pile"]),
            "discard": len(state["discard"]),
            "quiet_turns": state["quiet_turns"],
            "last_attack": None if state["last_attack"] is None else dict(state["last_attack"]),
        }

    def view(self, state: State, seat: int | None) -> dict[str, JSON]:
        """What ``seat`` may see (a spectator with ``None``): the public summary, whose turn it
        is, the needed roll of every card in play, and the seat's own hand."""
        rows = state["rows"]
        attacks = [
            [
                {
                    "target": "card" if pos < len(rows[1 - s]) else "player",
                    "needed": needed_roll(
                        card, rows[1 - s][pos] if pos < len(rows[1 - s]) else None
                    ),
                }
                for pos, card in enumerate(rows[s])
            ]
            for s in (0, 1)
        ]
        view: dict[str, JSON] = {
            "game": self.key,
            "seat": seat,
            "to_act": state["to_act"],
            "summary": self.summary(state),
            "attacks": attacks,
            "result": state["result"],
        }
        if seat is not None:
            view["hand"] = sorted(state["hands"][seat], key=cards.sort_key)
        return view

    # -- transitions -------------------------------------------------------------------------

    def apply(
        self, state: State, seat: int, action: Action, rng: random.Random
    ) -> tuple[State, list[Event]]:
        check_turn(self, state, seat)
        if not isinstance(action, Mapping):
            raise RuleError("That is not a move in Castles Besieged.")
        kind = action.get("type")
        new = clone(state)
        pile_was_empty = not new["pile"]
        fought = False  # a kill or a hit on a player
        events: list[Event] = []

        if kind == "draw":
            if not new["pile"]:
                raise RuleError("The draw pile is empty.")
            new["hands"][seat].append(new["pile"].pop(0))
            events.append({"type": "card_drawn", "seat": seat, "pile": len(new["pile"])})
        elif kind == "lay":
            card = action.get("card")
            hand = new["hands"][seat]
            if not isinstance(card, str) or card not in hand:
                raise RuleError("You do not hold that card.")
            hand.remove(card)
            new["rows"][seat].append(card)
            events.append(
                {"type": "card_laid", "seat": seat, "card": card, "pos": len(new["rows"][seat]) - 1}
            )
        elif kind == "attack":
            pos = field_of(action, "pos", int)
            row, other = new["rows"][seat], new["rows"][1 - seat]
            if not 0 <= pos < len(row):
                raise RuleError("You have no card at that position.")
            attacker = row[pos]
            target = other[pos] if pos < len(other) else None
            needed = needed_roll(attacker, target)
            dice = [_roll(new, rng), _roll(new, rng)]
            hit = sum(dice) >= needed
            event: Event = {
                "type": "attacked",
                "seat": seat,
                "pos": pos,
                "card": attacker,
                "target": "card" if target else "player",
                "target_card": target,
                "needed": needed,
                "dice": dice,
                "hit": hit,
            }
            if hit and target is not None:
                del other[pos]
                new["discard"].append(target)
            elif hit:
                new["hits"][1 - seat] += 1
                event["hits"] = new["hits"][1 - seat]
            fought = hit
            new["last_attack"] = {
                "seat": seat,
                "pos": pos,
                "target": event["target"],
                "needed": needed,
                "dice": dice,
                "hit": hit,
            }
            events.append(event)
        elif kind == "pass":
            if self.legal_actions(state, seat) != [{"type": "pass"}]:
                raise RuleError("You can still act; you may not pass.")
            events.append({"type": "passed", "seat": seat})
        else:
            raise RuleError("That is not a move in Castles Besieged: draw, lay, attack or pass.")

        # Forced steps: quiet turns, the turn passes, then the ends.
        if pile_was_empty:
            new["quiet_turns"] = 0 if fought else new["quiet_turns"] + 1
        new["to_act"] = 1 - seat
        if new["hits"][1 - seat] >= HITS_TO_LOSE:
            self._finish(new, Result((seat,), "castle_stormed", tuple(new["hits"])), events)
        elif (kind == "pass" and state["last_was_pass"]) or (
            new["quiet_turns"] >= QUIET_TURNS_LIMIT
        ):
            self._finish(new, _stalemate(new), events)
        new["last_was_pass"] = kind == "pass"
        return new, events

    def resign(self, state: State, seat: int) -> tuple[State, list[Event]]:
        check_seat(seat)
        if state["result"] is not None:
            raise RuleError("The game is over.")
        if seat not in (0, 1):
            raise RuleError("You are not playing at this table.")
        new = clone(state)
        events: list[Event] = [{"type": "resigned", "seat": seat}]
        self._finish(new, Result((1 - seat,), "resigned", tuple(new["hits"])), events)
        return new, events

    def claim_draw(self, state: State, seat: int) -> tuple[State, list[Event]]:
        """``seat``, to move, abandoned the game and the other claimed a draw (the hall's
        claim on a game without a clock): no winner."""
        check_seat(seat)
        ending_drawn(state, seat)
        new = clone(state)
        events: list[Event] = [{"type": ABANDONED, "seat": seat}]
        self._finish(new, Result((), ABANDONED, tuple(new["hits"])), events)
        return new, events

    def safe_action(self, state: State, seat: int) -> Action | None:
        """The AFK ladder's automatic move (spec 5): ``draw`` while the pile has cards (it only
        adds a card to the hand); else ``pass`` when it is the only legal action; else None,
        since every lay or attack commits a card or takes a chance the player would choose."""
        legal = self.legal_actions(state, seat)
        if {"type": "draw"} in legal:
            return {"type": "draw"}
        if legal == [{"type": "pass"}]:
            return {"type": "pass"}
        return None

    def rematch_options(self, options: Mapping[str, JSON], result: Result) -> dict[str, JSON]:
        """The seed: "the winner of the last game is the dealer"; after a draw, random again."""
        return {**options, "dealer": result.winners[0] if len(result.winners) == 1 else None}

    @staticmethod
    def _finish(state: State, result: Result, events: list[Event]) -> None:
        state["result"] = result.to_json()
        state["to_act"] = None
        events.append({"type": "game_ended", **result.to_json()})


def _stalemate(state: State) -> Result:
    """Fewer hits taken wins; then the higher total value in the seat's own row; else a draw."""
    hits = state["hits"]
    totals = [sum(cards.value(c) for c in row) for row in state["rows"]]
    if hits[0] != hits[1]:
        winners: tuple[int, ...] = (0,) if hits[0] < hits[1] else (1,)
    elif totals[0] != totals[1]:
        winners = (0,) if totals[0] > totals[1] else (1,)
    else:
        winners = ()
    return Result(winners, "stalemate", tuple(hits))


def _roll(state: State, rng: random.Random) -> int:
    """The next die: a stacked one first (scripts and tests), else from this move's generator."""
    if state["dice"]:
        return int(state["dice"].pop(0))
    return rng.randint(1, 6)


def _card_list(value: list[Any], what: str, most: int) -> list[str]:
    if len(value) > most:
        raise SetupError(f"Stack {what!r} names {len(value)} cards; at most {most} fit.")
    for code in value:
        if not cards.is_card(code):
            shown = repr(code) if isinstance(code, str) else brief(code)
            raise SetupError(f"{shown} is not a card of the 52-card deck.")
    return list(value)


def _dice_list(value: list[Any]) -> list[int]:
    for die in value:
        if not is_whole(die) or not 1 <= die <= 6:
            raise SetupError(f"Stack 'dice' must be whole numbers from 1 to 6, not {brief(die)}.")
    return list(value)


GAME = Castles()
