"""The board and the moves of Siege, the 1966 board game (key ``knights``): the sides and pieces,
the squares and their kinds, each piece's moves (precomputed per square), a side's moves with the
capture and special-turn rules, the notation and the position key for repetition, the
destinations a panel offers, and the rule a refused move breaks.

Follows ``../shared/seeds/siege-1966-board.txt`` as settled by ``../shared/spec/knights.md``
(sections 2 to 5); ``engine.knights`` is the game's bundle.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.rules import RuleError, State

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


# -- reading an action and explaining a refusal ---------------------------------------------------


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
