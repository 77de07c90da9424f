"""The forced steps of Siege the King (key ``king``): the first player, the deal, the queue of
refills and turn ends, the draw and the discard reshuffle, the Assassin, a column's castle card
revealed (a Throne closes the column, a King ends the game), the stalemate comparison and the end.
Each step changes the new state in place and appends its events.

Follows ``../shared/seeds/siege-the-king.txt`` as settled by ``../shared/spec/king.md`` (section 6).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from engine.king_cards import (
    ARTISAN,
    ASSASSIN,
    HAND_SIZE,
    KING,
    THRONE,
    TURN_LIMIT,
    card_value,
    column_value,
)
from engine.rules import Event, Result, State


def _choose_first(state: State, rng: random.Random, events: list[Event]) -> int:
    """House rule for "fan out the cards": each seat takes a random card; the higher value
    starts; a card without a value or a tie means both take again. Nothing leaves the deck.

    The event gives the values drawn (None for a special card), not the codes: the cards go back
    and are dealt, and a code would let a reader track a copy of that card into a hand."""
    stacked = state["stack"]["first"]
    if stacked is not None:
        events.append({"type": "first_player_chosen", "first": stacked, "draws": []})
        return int(stacked)
    draws: list[list[int | None]] = []
    while True:
        values = [card_value(c) for c in rng.sample(state["pile"], 2)]
        draws.append(values)
        if values[0] is not None and values[1] is not None and values[0] != values[1]:
            first = 0 if values[0] > values[1] else 1
            events.append({"type": "first_player_chosen", "first": first, "draws": draws})
            return first


def _deal(state: State, rng: random.Random, events: list[Event]) -> None:
    """Five cards each, the Assassin kept out of the hands, then shuffled into the pile."""
    stack = state["stack"]
    named = Counter([*stack["hands"][0], *stack["hands"][1], *stack["pile"]])
    rest: list[str] = list((Counter(state["pile"]) - named).elements())
    loose_assassin = ASSASSIN in rest
    if loose_assassin:
        rest.remove(ASSASSIN)
    rng.shuffle(rest)
    hands = [list(h) for h in stack["hands"]]
    for hand in hands:
        while len(hand) < HAND_SIZE:
            hand.append(rest.pop(0))
    if loose_assassin:
        rest.append(ASSASSIN)
        rng.shuffle(rest)
    state["hands"] = hands
    state["pile"] = list(stack["pile"]) + rest
    events.append(
        {"type": "cards_dealt", "hand_sizes": [HAND_SIZE, HAND_SIZE], "pile": len(state["pile"])}
    )


def _task(do: str, seat: int) -> dict[str, Any]:
    return {"do": do, "seat": seat}


def _run(state: State, rng: random.Random, events: list[Event]) -> None:
    """Run the queued forced steps in order until done, the game ends, or an Assassin asks its
    drawer for a column (the rest of the queue then waits in the state)."""
    queue: list[dict[str, Any]] = state["queue"]
    while queue and state["result"] is None:
        task = queue[0]
        seat = task["seat"]
        if task["do"] == "refill":
            if len(state["hands"][seat]) >= HAND_SIZE:
                queue.pop(0)
                continue
            card = _draw(state, rng, events)
            if card is None:
                queue.pop(0)
            elif card != ASSASSIN:
                state["hands"][seat].append(card)
                events.append({"type": "card_drawn", "seat": seat, "pile": len(state["pile"])})
            elif _assassin_drawn(state, seat, events):
                return
        elif task["do"] == "end_turn":
            queue.pop(0)
            _end_turn(state, seat, events)
        else:  # "check_hand": a seat that could not refill an empty hand cannot play
            queue.pop(0)
            if not state["hands"][seat]:
                _compare(state, events, "no_cards")


def _draw(state: State, rng: random.Random, events: list[Event]) -> str | None:
    """Spec 6.4: reshuffle the discard pile into an empty draw pile, then take the top card."""
    if not state["pile"] and state["discard"]:
        state["pile"] = state["discard"]
        state["discard"] = []
        rng.shuffle(state["pile"])
        events.append({"type": "discard_reshuffled", "pile": len(state["pile"])})
    if not state["pile"]:
        return None
    card: str = state["pile"].pop(0)
    return card


def _assassin_drawn(state: State, drawer: int, events: list[Event]) -> bool:
    """Spec 6.6. True when the drawer must now choose a column (the forced steps pause)."""
    victim = 1 - drawer
    events.append({"type": "assassin_drawn", "seat": drawer})
    if ARTISAN in state["hands"][victim]:
        state["hands"][victim].remove(ARTISAN)
        state["discard"] += [ASSASSIN, ARTISAN]
        events.append({"type": "artisan_cancelled", "seat": victim, "by": drawer, "card": ASSASSIN})
        state["queue"].insert(0, _task("refill", victim))
        return False
    open_columns = [i for i in range(3) if state["open"][victim][i]]
    if len(open_columns) == 1:
        # Only the King's column is left: nothing to choose.
        _assassin_strikes(state, drawer, open_columns[0], events)
        return False
    state["phase"] = "assassinate"
    state["pending"] = {"seat": drawer, "card": ASSASSIN, "resume": state["to_act"]}
    state["to_act"] = drawer
    return True


def _assassin_strikes(state: State, drawer: int, index: int, events: list[Event]) -> None:
    victim = 1 - drawer
    castle = state["castles"][victim][index]
    if castle == KING:
        state["revealed"][victim][index] = True
        events.append(
            {
                "type": "castle_revealed",
                "column": [victim, index],
                "castle": KING,
                "by": drawer,
                "cause": "assassin",
            }
        )
        # Spec 6.9: a used special goes to the discard pile, even on the winning strike.
        state["discard"].append(ASSASSIN)
        _finish(state, Result((drawer,), "assassinated"), events)
        return
    _close_throne(state, drawer, victim, index, "assassin", events)
    state["discard"].append(ASSASSIN)


def _flip_check(state: State, me: int, s: int, i: int, events: list[Event]) -> None:
    """Spec 6.3: a column at 0 or less reveals its castle card."""
    if column_value(state["columns"][s][i]) > 0:
        return
    if state["castles"][s][i] == THRONE:
        _close_throne(state, me, s, i, "siege", events)
        return
    state["revealed"][s][i] = True
    events.append(
        {"type": "castle_revealed", "column": [s, i], "castle": KING, "by": me, "cause": "siege"}
    )
    if s == me:
        _finish(state, Result((1 - me,), "own_king_fallen"), events)
    else:
        _finish(state, Result((me,), "king_revealed"), events)


def _close_throne(state: State, by: int, s: int, i: int, cause: str, events: list[Event]) -> None:
    col = state["columns"][s][i]
    removed = list(col["cards"])
    state["discard"] += removed
    col["cards"].clear()
    col["roles"].clear()
    state["revealed"][s][i] = True
    state["open"][s][i] = False
    state["out_of_play"].append(THRONE)
    events.append(
        {
            "type": "castle_revealed",
            "column": [s, i],
            "castle": THRONE,
            "by": by,
            "cause": cause,
            "removed": removed,
            "closed": True,
        }
    )


def _end_turn(state: State, me: int, events: list[Event]) -> None:
    """Spec 6.7: count the turn, stop at the limit, pass to the other seat (refilling an
    empty hand first, house rule)."""
    state["turn"] += 1
    nxt = 1 - me
    limit = state["turn"] >= TURN_LIMIT
    events.append(
        {"type": "turn_ended", "seat": me, "turn": state["turn"], "next": None if limit else nxt}
    )
    if limit:
        _compare(state, events, "turn_limit")
        return
    state["to_act"] = nxt
    if not state["hands"][nxt]:
        state["queue"][0:0] = [_task("refill", nxt), _task("check_hand", nxt)]


def _compare(state: State, events: list[Event], cause: str) -> None:
    """Spec 6.8: the higher King column wins, then more open columns, else a draw."""
    kings = [column_value(state["columns"][s][state["castles"][s].index(KING)]) for s in (0, 1)]
    opens = [sum(state["open"][s]) for s in (0, 1)]
    if kings[0] != kings[1]:
        result = Result((0,) if kings[0] > kings[1] else (1,), "stalemate")
    elif opens[0] != opens[1]:
        result = Result((0,) if opens[0] > opens[1] else (1,), "stalemate")
    else:
        result = Result((), "draw")
    events.append(
        {"type": "castles_compared", "cause": cause, "king_values": kings, "open_columns": opens}
    )
    _finish(state, result, events)


def _finish(state: State, result: Result, events: list[Event]) -> None:
    """The game is over: nothing further happens, and every castle card is shown."""
    state["result"] = result.to_json()
    state["phase"] = "over"
    state["to_act"] = None
    state["queue"] = []
    if state["pending"] is not None:
        # A resignation while the Assassin waits: the drawn card is public, so it is discarded.
        state["discard"].append(state["pending"]["card"])
        state["pending"] = None
    castles = [None if c is None else list(c) for c in state["castles"]]
    events.append({"type": "game_ended", **result.to_json(), "castles": castles})
