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
from collections.abc import Iterable, Mapping
from typing import Any

from engine.declaration import COMPUTER_LEVELS, About
from engine.rules import (
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
    resolve_options,
)

ATTACKER = 0
DEFENDER = 1
SIDE_NAMES = ("attacker", "defender")
KNIGHT, FOOTMAN, COMMANDER = "N", "D", "C"
PIECE_NAMES = {KNIGHT: "Knight", FOOTMAN: "Defender", COMMANDER: "Commander"}

SPECIAL_TURNS = 4
NO_CAPTURE_LIMIT = 80
REPETITION_LIMIT = 3

# -- the board (a house rule of the spec, section 2) ---------------------------------------------

COLUMNS = "abcdefgh"
ROWS = range(7)
START_SQUARES = ("b0", "d0", "e0", "g0")
CROWNS = ("d6", "e6")
DOTS = frozenset({"c6", "d5", "e5", "f6"})
BLUE = frozenset(f"{c}{r}" for c in "ah" for r in range(2, 7))
CASTLE = frozenset(f"{c}{r}" for c in "cdef" for r in range(3, 7))
_SQUARE_SET = frozenset(START_SQUARES) | frozenset(f"{c}{r}" for c in COLUMNS for r in range(1, 7))
# Column a-h, then row 0-6: plain string order of the two-character codes gives exactly that.
SQUARES: tuple[str, ...] = tuple(sorted(_SQUARE_SET))
CROWN_STEP = {"d6": "e6", "e6": "d6"}


def is_square(value: object) -> bool:
    """Whether ``value`` is one of the 52 square codes.

    >>> is_square("e4"), is_square("b0"), is_square("a0"), is_square("E4")
    (True, True, False, False)
    """
    return isinstance(value, str) and value in _SQUARE_SET


def square_kind(square: str) -> str:
    """The kind of a square as drawn on the board: ``blue``, ``green``, ``start`` (a Knight start
    square, green with a black dot), ``castle``, ``crown`` or ``dot`` (crowns and dots are castle
    squares too).

    >>> [square_kind(s) for s in ("a3", "b3", "b0", "c3", "d6", "d5")]
    ['blue', 'green', 'start', 'castle', 'crown', 'dot']
    """
    if square not in _SQUARE_SET:
        raise ValueError(f"{square!r} is not a square of the Siege board.")
    if square in BLUE:
        return "blue"
    if square in CROWNS:
        return "crown"
    if square in DOTS:
        return "dot"
    if square in CASTLE:
        return "castle"
    if square in START_SQUARES:
        return "start"
    return "green"


def is_castle(square: str) -> bool:
    """Castle squares, crowns and dots included."""
    return square in CASTLE


def board_rows() -> list[list[str | None]]:
    """The board as the attacker sees it, top row (6) first, columns a-h; ``None`` where row 0
    has no square. Renderers draw from this so the map lives only here."""
    return [
        [f"{c}{r}" if f"{c}{r}" in _SQUARE_SET else None for c in COLUMNS] for r in reversed(ROWS)
    ]


def _coords(square: str) -> tuple[int, int]:
    return COLUMNS.index(square[0]), int(square[1])


def _at(col: int, row: int) -> str | None:
    if 0 <= col < 8 and 0 <= row <= 6:
        square = f"{COLUMNS[col]}{row}"
        if square in _SQUARE_SET:
            return square
    return None


def _knight_targets(square: str) -> tuple[str, ...]:
    """Where a Knight on ``square`` may leap on an empty board (rule 6.2): forward outside the
    castle or into it from anywhere; inside the castle, to castle squares only."""
    col, row = _coords(square)
    out = []
    for dc, dr in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)):
        target = _at(col + dc, row + dr)
        if target is None:
            continue
        if square in CASTLE:
            if target in CASTLE:
                out.append(target)
        elif dr > 0 or target in CASTLE:
            out.append(target)
    return tuple(sorted(out))


def _footman_steps(square: str) -> tuple[tuple[str, bool], ...]:
    """A Defender's one-square steps (rule 6.3), never onto blue, each with whether it is diagonal
    (only a diagonal step may capture)."""
    col, row = _coords(square)
    out = []
    for dc in (-1, 0, 1):
        for dr in (-1, 0, 1):
            target = _at(col + dc, row + dr)
            if (dc or dr) and target is not None and target not in BLUE:
                out.append((target, dc != 0 and dr != 0))
    return tuple(sorted(out))


def _commander_rays(square: str) -> tuple[tuple[str, ...], ...]:
    """The Commander's four diagonals from a castle square, each cut at the castle wall and at
    three squares (rule 6.4)."""
    col, row = _coords(square)
    rays = []
    for dc, dr in ((-1, -1), (-1, 1), (1, -1), (1, 1)):
        ray = []
        for n in range(1, 4):
            target = _at(col + n * dc, row + n * dr)
            if target is None or target not in CASTLE:
                break
            ray.append(target)
        if ray:
            rays.append(tuple(ray))
    return tuple(rays)


KNIGHT_TARGETS: dict[str, tuple[str, ...]] = {s: _knight_targets(s) for s in SQUARES}
FOOTMAN_STEPS: dict[str, tuple[tuple[str, bool], ...]] = {s: _footman_steps(s) for s in SQUARES}
COMMANDER_RAYS: dict[str, tuple[tuple[str, ...], ...]] = {
    s: _commander_rays(s) for s in SQUARES if s in CASTLE
}


# -- move generation ------------------------------------------------------------------------------

Move = tuple[str, str]


def side_of(piece: str) -> int:
    return ATTACKER if piece == KNIGHT else DEFENDER


def piece_moves(pieces: Mapping[str, str], square: str) -> list[str]:
    """Every square the piece on ``square`` may move to under rules 6.2-6.4, ignoring whose turn
    it is and the special rule, sorted."""
    piece = pieces.get(square)
    out: list[str] = []
    if piece == KNIGHT:
        out = [t for t in KNIGHT_TARGETS[square] if pieces.get(t) != KNIGHT]
    elif piece == FOOTMAN:
        for target, diagonal in FOOTMAN_STEPS[square]:
            held = pieces.get(target)
            if held is None or (held == KNIGHT and diagonal):
                out.append(target)
    elif piece == COMMANDER:
        for ray in COMMANDER_RAYS.get(square, ()):
            for target in ray:
                held = pieces.get(target)
                if held is None or held == KNIGHT:
                    out.append(target)
                if held is not None:
                    break
        step = CROWN_STEP.get(square)
        if step is not None and pieces.get(step) in (None, KNIGHT):
            out.append(step)
        out.sort()
    return out


def side_moves(pieces: Mapping[str, str], side: int) -> list[Move]:
    """Every move of ``side`` under rules 6.2-6.4 (no special rule), sorted by from, then to."""
    moves: list[Move] = []
    for square in sorted(pieces):
        if side_of(pieces[square]) == side:
            moves.extend((square, target) for target in piece_moves(pieces, square))
    return moves


def is_capture_available(pieces: Mapping[str, str]) -> bool:
    """The seed's exception to the special rule: "either player's piece is in a position to be
    captured" - some legal move of either side, judged without the restriction, lands on an
    enemy piece."""
    for side in (ATTACKER, DEFENDER):
        for _, target in side_moves(pieces, side):
            if target in pieces:
                return True
    return False


def _restricted_moves(pieces: Mapping[str, str], moves: Iterable[Move]) -> list[Move]:
    """The special rule: "move a DEFENDER ... off of its starting square into a square without a
    Dot". House rule: any Defender standing on a dot qualifies."""
    return [(f, t) for f, t in moves if pieces[f] == FOOTMAN and f in DOTS and t not in DOTS]


def _turn_moves(state: State) -> tuple[list[Move], bool]:
    """The legal moves of the side to act and whether this is a restricted special turn."""
    pieces: dict[str, str] = state["pieces"]
    side = state["to_act"]
    moves = side_moves(pieces, side)
    if side == DEFENDER and state["special_turns_left"] > 0 and not is_capture_available(pieces):
        restricted = _restricted_moves(pieces, moves)
        # House rule: a restricted turn with no restricted move at all is free instead.
        if restricted:
            return restricted, True
    return moves, False


def notation(piece: str, from_sq: str, to_sq: str, captured: str | None) -> str:
    """Move notation as the spec writes it.

    >>> notation("N", "b0", "c2", None), notation("D", "d5", "c4", "N")
    ('Nb0-c2', 'Dd5xc4')
    """
    return f"{piece}{from_sq}{'x' if captured else '-'}{to_sq}"


def position_key(pieces: Mapping[str, str], to_act: int) -> str:
    """The position for the repetition rule (6.7): occupied squares with letters, side to move.

    >>> position_key({"d6": "C", "b0": "N"}, 0)
    'b0N d6C /0'
    """
    return "".join(f"{s}{pieces[s]} " for s in sorted(pieces)) + f"/{to_act}"


# -- helpers for the front end (derived from the engine's own lists) ------------------------------


def movable_squares(legal: Iterable[Mapping[str, Any]]) -> list[str]:
    """The squares of the pieces that have a legal move in ``legal`` (a ``legal_actions`` list),
    in board order."""
    return sorted({a["from"] for a in legal if a.get("type") == "move"})


def destinations(
    pieces: Mapping[str, str], legal: Iterable[Mapping[str, Any]], from_sq: str
) -> list[dict[str, Any]]:
    """Where the piece on ``from_sq`` may go, from ``legal`` (a ``legal_actions`` list) and the
    summary's ``pieces``: ``{"to", "captures", "notation"}`` each, ``captures`` being the letter of
    the piece taken or ``None``."""
    piece = pieces.get(from_sq, "")
    out = []
    for action in legal:
        if action.get("type") == "move" and action.get("from") == from_sq:
            to_sq = action["to"]
            captured = pieces.get(to_sq)
            out.append(
                {
                    "to": to_sq,
                    "captures": captured,
                    "notation": notation(piece, from_sq, to_sq, captured),
                }
            )
    return out


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


def _square_field(action: Mapping[str, Any], name: str) -> str:
    value = action.get(name)
    if not isinstance(value, str) or not is_square(value):
        raise RuleError(f"That move needs a '{name}' square, such as e4.")
    return value


def _why_not(pieces: Mapping[str, str], from_sq: str, to_sq: str) -> str:
    """The rule a refused destination breaks, for the second sentence of the refusal."""
    piece = pieces[from_sq]
    held = pieces.get(to_sq)
    (fc, fr), (tc, tr) = _coords(from_sq), _coords(to_sq)
    dc, dr = abs(tc - fc), abs(tr - fr)
    if held is not None and side_of(held) == side_of(piece):
        return "Your own piece stands there."
    if piece == KNIGHT:
        if {dc, dr} != {1, 2}:
            return "A Knight leaps two squares one way and one square across."
        if from_sq in CASTLE:
            return "A Knight that has entered the castle can never leave it."
        return "Outside the castle a Knight leaps only forward, unless it leaps into the castle."
    if piece == FOOTMAN:
        if max(dc, dr) != 1:
            return "A Defender steps one square."
        if to_sq in BLUE:
            return "Defenders may not step onto blue squares."
        return "A Defender captures a Knight only with a diagonal step."
    if to_sq not in CASTLE:
        return "The Commander never leaves the castle."
    if dc != dr and CROWN_STEP.get(from_sq) != to_sq:
        return "The Commander moves only diagonally, apart from the step between the crowns."
    return "The Commander cannot pass over other pieces."


GAME = Knights()
