"""Siege, the 1966 Milton Bradley board game (key ``knights``).

Follows ``../shared/seeds/siege-1966-board.txt`` as settled by ``../shared/spec/knights.md``,
which wins where the two differ. The board map is a house rule of the spec (the seed has none):
columns a-h, rows 1-6 plus the four Knight start squares b0, d0, e0, g0; blue a2-a6 and h2-h6;
the castle c3-f6 with crowns d6, e6 and the Defenders' dots c6, d5, e5, f6. Other house rules:
any Defender on a dot may make the special-rule move, a special turn with no restricted move is
free, a side with no move passes (two passes in a row draw), a third repetition draws, and 80
plies without a capture draw.

Seat 0 attacks with four Knights (``N``); seat 1 defends with four Defenders (``D``) and the
Commander (``C``). There is no chance and nothing hidden. Square codes are a column letter then a
row digit (``e4``); move notation is the piece letter, the from square, ``-`` or ``x`` (capture)
and the to square: ``Nb0-c2``, ``Dd5xc4``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.declaration import COMPUTER_LEVELS, About
from engine.knights_moves import (
    ATTACKER,
    BLUE,
    CASTLE,
    COLUMNS,
    COMMANDER,
    COMMANDER_RAYS,
    CROWN_STEP,
    CROWNS,
    DEFENDER,
    DOTS,
    FOOTMAN,
    FOOTMAN_STEPS,
    KNIGHT,
    KNIGHT_TARGETS,
    NO_CAPTURE_LIMIT,
    PIECE_NAMES,
    REPETITION_LIMIT,
    ROWS,
    SIDE_NAMES,
    SPECIAL_TURNS,
    SQUARES,
    START_SQUARES,
    Move,
    _square_field,
    _turn_moves,
    _why_not,
    board_rows,
    destinations,
    is_capture_available,
    is_castle,
    is_square,
    movable_squares,
    notation,
    piece_moves,
    position_key,
    side_moves,
    side_of,
    square_kind,
)
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
    check_seat,
    check_seats,
    check_turn,
    ending_drawn,
    resolve_options,
)

#: The game's names, with those its other modules hold (callers import them from here).
__all__ = [
    "ATTACKER",
    "BLUE",
    "CASTLE",
    "COLUMNS",
    "COMMANDER",
    "COMMANDER_RAYS",
    "CROWNS",
    "CROWN_STEP",
    "DEFENDER",
    "DOTS",
    "FOOTMAN",
    "FOOTMAN_STEPS",
    "GAME",
    "KNIGHT",
    "KNIGHT_TARGETS",
    "NO_CAPTURE_LIMIT",
    "PIECE_NAMES",
    "REPETITION_LIMIT",
    "ROWS",
    "SIDE_NAMES",
    "SPECIAL_TURNS",
    "SQUARES",
    "START_SQUARES",
    "Knights",
    "Move",
    "board_rows",
    "destinations",
    "is_capture_available",
    "is_castle",
    "is_square",
    "movable_squares",
    "notation",
    "piece_moves",
    "position_key",
    "side_moves",
    "side_of",
    "square_kind",
]


# -- the game -------------------------------------------------------------------------------------


class Knights(StoredTurn):
    key = "knights"
    title = "Siege (1966)"
    min_seats = 2
    max_seats = 2
    state_version = 1
    about = About(
        command="siege-1966",
        blurb="two players on a board: four Knights against a castle",
        sides=("the attacking Knights", "the defending castle"),
        computer_levels=COMPUTER_LEVELS,
        automatic_move=(
            "**Pass** when you have no legal move at all (passing is then the only thing you can "
            "do).",
            "Otherwise **no automatic move**: placing the Commander and moving pieces are up to "
            "you.",
        ),
        draws=True,
        rules="knights.md",
    )
    options: tuple[Option, ...] = ()

    # -- setup -----------------------------------------------------------------------------------

    def setup(
        self,
        seats: int,
        options: Mapping[str, JSON],
        rng: random.Random,
        stack: Mapping[str, JSON] | None = None,
    ) -> State:
        """The start position without the Commander; the defender places him first. ``rng`` is
        unused: there is no chance in this game."""
        check_seats(self, seats)
        resolve_options(self, options)
        if stack:
            key = sorted(stack)[0]
            raise SetupError(f"Unknown stack key {key!r}: Siege has no chance to stack.")
        pieces = {s: KNIGHT for s in START_SQUARES} | {s: FOOTMAN for s in sorted(DOTS)}
        return {
            "version": self.state_version,
            "pieces": dict(sorted(pieces.items())),
            "placed": False,
            "to_act": DEFENDER,
            "special_turns_left": SPECIAL_TURNS,
            "plies_since_capture": 0,
            "ply": 0,
            "captured": {"knights": 0, "defenders": 0},
            "positions": {},
            "last_was_pass": False,
            "last_move": None,
            "result": None,
        }

    # -- queries ---------------------------------------------------------------------------------

    def is_restricted(self, state: State) -> bool:
        """Whether the defender is to act in a restricted special turn (rule 6.5)."""
        if state["result"] is not None or not state["placed"] or state["to_act"] != DEFENDER:
            return False
        return _turn_moves(state)[1]

    def legal_actions(self, state: State, seat: int) -> list[Action]:
        if state["result"] is not None or state["to_act"] != seat:
            return []
        if not state["placed"]:
            return [{"type": "place_commander", "square": s} for s in CROWNS]
        moves, _ = _turn_moves(state)
        if not moves:
            return [{"type": "pass"}]
        return [{"type": "move", "from": f, "to": t} for f, t in moves]

    def summary(self, state: State) -> dict[str, JSON]:
        return {
            "pieces": dict(sorted(state["pieces"].items())),
            "captured": dict(state["captured"]),
            "special_turns_left": state["special_turns_left"],
            "restricted": self.is_restricted(state),
            "plies_since_capture": state["plies_since_capture"],
        }

    def view(self, state: State, seat: int | None) -> dict[str, JSON]:
        """What ``seat`` (or a spectator, ``None``) sees: everything, since nothing is hidden. The
        seat's side is named for its panel; ``last_move`` is the last placement, move or pass
        event (for marking it on the board)."""
        if seat not in (None, ATTACKER, DEFENDER):
            raise ValueError(f"Siege has seats 0 and 1, not {seat!r}.")
        if state["result"] is not None:
            phase = "over"
        elif not state["placed"]:
            phase = "placement"
        else:
            phase = "play"
        last = state["last_move"]
        return {
            "game": self.key,
            "seat": seat,
            "side": None if seat is None else SIDE_NAMES[seat],
            "to_act": state["to_act"],
            "phase": phase,
            "ply": state["ply"],
            "summary": self.summary(state),
            "last_move": None if last is None else dict(last),
            "result": None if state["result"] is None else dict(state["result"]),
        }

    # -- transitions -----------------------------------------------------------------------------

    def apply(
        self, state: State, seat: int, action: Action, rng: random.Random
    ) -> tuple[State, list[Event]]:
        check_turn(self, state, seat)
        if not isinstance(action, Mapping):
            raise RuleError("That is not a move in Siege: place the Commander, move or pass.")
        kind = action.get("type")
        if kind not in ("place_commander", "move", "pass"):
            raise RuleError("That is not a move in Siege: place the Commander, move or pass.")
        if not state["placed"]:
            if kind != "place_commander":
                raise RuleError("First the defender places the Commander on a crown: d6 or e6.")
            return self._place(state, seat, action)
        if kind == "place_commander":
            raise RuleError("The Commander has already been placed.")

        pieces: dict[str, str] = state["pieces"]
        if kind == "pass":
            if _turn_moves(state)[0]:
                raise RuleError("You have a legal move; you may not pass.")
            return self._after_turn(state, seat, None, restricted=False)

        from_sq = _square_field(action, "from")
        to_sq = _square_field(action, "to")
        piece = pieces.get(from_sq)
        if piece is None or side_of(piece) != seat:
            raise RuleError("You have no piece there.")
        if to_sq not in piece_moves(pieces, from_sq):
            raise RuleError(f"That piece cannot move there. {_why_not(pieces, from_sq, to_sq)}")
        restricted = False
        if seat == DEFENDER and state["special_turns_left"] > 0:
            moves, restricted = _turn_moves(state)
            if restricted and (from_sq, to_sq) not in moves:
                raise RuleError("In your first four turns you must move a Defender off its dot.")
        return self._after_turn(state, seat, (from_sq, to_sq), restricted=restricted)

    def resign(self, state: State, seat: int) -> tuple[State, list[Event]]:
        check_seat(seat)
        if state["result"] is not None:
            raise RuleError("The game is over.")
        if seat not in (ATTACKER, DEFENDER):
            raise RuleError("You are not playing at this table.")
        new = _copy(state)
        events: list[Event] = [{"type": "resigned", "seat": seat}]
        self._finish(new, Result((1 - seat,), "resigned"), events)
        return new, events

    def claim_draw(self, state: State, seat: int) -> tuple[State, list[Event]]:
        """``seat``, to move, abandoned the game and the other claimed a draw (the hall's
        claim on a game without a clock): no winner."""
        check_seat(seat)
        ending_drawn(state, seat)
        new = _copy(state)
        events: list[Event] = [{"type": ABANDONED, "seat": seat}]
        self._finish(new, Result((), ABANDONED), events)
        return new, events

    def safe_action(self, state: State, seat: int) -> Action | None:
        """The AFK ladder's automatic move (spec 5): ``pass`` when it is the only legal action
        (no move exists); else None, since every placement and move shapes the position."""
        legal = self.legal_actions(state, seat)
        return {"type": "pass"} if legal == [{"type": "pass"}] else None

    def rematch_options(self, options: Mapping[str, JSON], result: Result) -> dict[str, JSON]:
        """No options to carry over or change (who takes which side is the table's business)."""
        return dict(options)

    # -- internals -------------------------------------------------------------------------------

    def _place(self, state: State, seat: int, action: Action) -> tuple[State, list[Event]]:
        square = action.get("square")
        if not isinstance(square, str):
            raise RuleError("Say where the Commander starts: d6 or e6.")
        if square not in CROWNS:
            raise RuleError("The Commander starts on a crown: d6 or e6.")
        new = _copy(state)
        new["pieces"][square] = COMMANDER
        new["placed"] = True
        new["to_act"] = ATTACKER
        new["positions"] = {position_key(new["pieces"], ATTACKER): 1}
        event: Event = {"type": "commander_placed", "seat": seat, "square": square}
        new["last_move"] = dict(event)
        return new, [event]

    def _after_turn(
        self, state: State, seat: int, move: Move | None, *, restricted: bool
    ) -> tuple[State, list[Event]]:
        """Play a move (or a pass when ``move`` is None), then the forced steps of section 5 in
        the spec's order, then the ends of section 7 in theirs. ``restricted`` tells whether the
        turn was a restricted special turn (for the event)."""
        new = _copy(state)
        pieces: dict[str, str] = new["pieces"]
        special_turn = None
        if seat == DEFENDER and state["special_turns_left"] > 0:
            special_turn = SPECIAL_TURNS - state["special_turns_left"] + 1
        captured: str | None = None
        if move is None:
            event: Event = {"type": "passed", "seat": seat}
        else:
            from_sq, to_sq = move
            piece = pieces.pop(from_sq)
            captured = pieces.get(to_sq)
            pieces[to_sq] = piece
            if captured == KNIGHT:
                new["captured"]["knights"] += 1
            elif captured == FOOTMAN:
                new["captured"]["defenders"] += 1
            event = {
                "type": "moved",
                "seat": seat,
                "piece": piece,
                "from": from_sq,
                "to": to_sq,
                "captured": captured,
                "notation": notation(piece, from_sq, to_sq, captured),
            }
        if special_turn is not None:
            event["special_turn"] = special_turn
            event["restricted"] = restricted
        events = [event]
        new["last_move"] = dict(event)
        new["ply"] += 1

        if seat == DEFENDER and new["special_turns_left"] > 0:
            new["special_turns_left"] -= 1
        if captured is not None:
            new["plies_since_capture"] = 0
            # A capture can never be undone, so no earlier position can come back.
            new["positions"] = {}
        else:
            new["plies_since_capture"] += 1
        new["to_act"] = 1 - seat
        key = position_key(new["pieces"], new["to_act"])
        new["positions"][key] = new["positions"].get(key, 0) + 1

        ended: Result | None = None
        if captured == COMMANDER:
            ended = Result((ATTACKER,), "commander_captured")
        elif captured == KNIGHT and KNIGHT not in new["pieces"].values():
            ended = Result((DEFENDER,), "knights_eliminated")
        elif move is None and state["last_was_pass"]:
            ended = Result((), "no_moves")
        elif new["positions"][key] >= REPETITION_LIMIT:
            ended = Result((), "repetition")
        elif new["plies_since_capture"] >= NO_CAPTURE_LIMIT:
            ended = Result((), "no_capture")
        new["last_was_pass"] = move is None
        if ended is not None:
            self._finish(new, ended, events)
        return new, events

    @staticmethod
    def _finish(state: State, result: Result, events: list[Event]) -> None:
        state["result"] = result.to_json()
        state["to_act"] = None
        events.append({"type": "game_ended", **result.to_json()})


def _copy(state: State) -> State:
    """A copy to build the next state from, leaving the input untouched. The state is flat apart
    from these few dictionaries, so this is the deep copy ``engine.rules.clone`` makes, only
    quicker (it runs on every move of the random-play tests)."""
    new = dict(state)
    for name in ("pieces", "captured", "positions"):
        new[name] = dict(state[name])
    for name in ("last_move", "result"):
        if state[name] is not None:
            new[name] = dict(state[name])
    return new


GAME = Knights()

#: The doctests of the helpers that moved beside this module run with it (``doctest.testmod``).
__test__ = {
    "is_square": is_square,
    "notation": notation,
    "position_key": position_key,
    "square_kind": square_kind,
}
