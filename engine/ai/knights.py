"""The computer's player for Siege (1966): alpha-beta search over the open board.

Nothing is hidden and nothing is left to chance, so the computer searches the position itself
(negamax with alpha-beta pruning, captures first), on its own light copy of the position: the
pieces, the side to move and the defender's special turns left. The draw rules (repetition, 80
plies without a capture) are left out of the search; random tie-breaks among equal moves keep a
computer from walking in circles.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.ai.computer import Computer
from engine.ai.search import Deadline
from engine.knights import (
    ATTACKER,
    CASTLE,
    COMMANDER,
    CROWNS,
    DEFENDER,
    DOTS,
    FOOTMAN,
    KNIGHT,
    KNIGHT_TARGETS,
    is_capture_available,
    side_moves,
)
from engine.rules import Action

Move = tuple[str, str]
Pieces = dict[str, str]
WIN = 100_000
NOISE = 4.0
# Squares from which a Knight attacks each castle square (a Knight's leap is symmetric).
_ATTACKED_FROM: dict[str, tuple[str, ...]] = {
    sq: tuple(src for src, targets in KNIGHT_TARGETS.items() if sq in targets) for sq in CASTLE
}


def _coords(square: str) -> tuple[int, int]:
    return ord(square[0]) - ord("a"), int(square[1])


def moves(pieces: Mapping[str, str], side: int, special_left: int) -> list[Move]:
    """The legal moves of ``side`` (the special rule included), as ``engine.knights`` makes
    them."""
    found = side_moves(pieces, side)
    if side == DEFENDER and special_left > 0 and not is_capture_available(pieces):
        restricted = [
            (f, t) for f, t in found if pieces[f] == FOOTMAN and f in DOTS and t not in DOTS
        ]
        if restricted:
            return restricted
    return found


def legal_from_view(view: Mapping[str, Any], seat: int) -> list[Action]:
    if view["result"] is not None or view["to_act"] != seat:
        return []
    if view["phase"] == "placement":
        return [{"type": "place_commander", "square": s} for s in CROWNS]
    summary = view["summary"]
    found = moves(summary["pieces"], seat, summary["special_turns_left"])
    if not found:
        return [{"type": "pass"}]
    return [{"type": "move", "from": f, "to": t} for f, t in found]


def evaluate(pieces: Mapping[str, str]) -> float:
    """The attacker's advantage: material, then Knights bearing on the Commander and closing in
    on him, then the Commander's room to move."""
    knights: list[str] = []
    defenders = 0
    commander: str | None = None
    for square, piece in pieces.items():
        if piece == KNIGHT:
            knights.append(square)
        elif piece == FOOTMAN:
            defenders += 1
        else:
            commander = square
    if commander is None:
        return WIN
    if not knights:
        return -WIN
    score = 300.0 * len(knights) - 180.0 * defenders
    cc, cr = _coords(commander)
    attackers = _ATTACKED_FROM.get(commander, ())
    for square in knights:
        if square in attackers:
            score += 60
        kc, kr = _coords(square)
        score -= 6 * (abs(kc - cc) + abs(kr - cr))
        if square in CASTLE:
            score += 25
        # A Knight a Defender can take diagonally is in danger.
        for dc in (-1, 1):
            for dr in (-1, 1):
                near = f"{chr(ord('a') + kc + dc)}{kr + dr}" if 0 <= kc + dc < 8 else ""
                if pieces.get(near) in (FOOTMAN, COMMANDER):
                    score -= 40
    return score


def _play(pieces: Pieces, move: Move) -> str | None:
    from_sq, to_sq = move
    captured = pieces.get(to_sq)
    pieces[to_sq] = pieces.pop(from_sq)
    return captured


def _undo(pieces: Pieces, move: Move, captured: str | None) -> None:
    from_sq, to_sq = move
    pieces[from_sq] = pieces.pop(to_sq)
    if captured is not None:
        pieces[to_sq] = captured


class _Search:
    def __init__(self, deadline: Deadline | None) -> None:
        self.deadline = deadline
        self.nodes = 0
        self.stopped = False

    def negamax(
        self, pieces: Pieces, side: int, special_left: int, depth: int, alpha: float, beta: float
    ) -> float:
        """The value for ``side`` to move (higher is better for it)."""
        self.nodes += 1
        if self.deadline is not None and self.nodes % 256 == 0 and self.deadline():
            self.stopped = True
        sign = 1 if side == ATTACKER else -1
        if depth == 0 or self.stopped:
            return sign * evaluate(pieces)
        found = moves(pieces, side, special_left)
        next_special = special_left - 1 if side == DEFENDER and special_left > 0 else special_left
        if not found:
            return -self.negamax(pieces, 1 - side, next_special, depth - 1, -beta, -alpha)
        found.sort(key=lambda m: _order(pieces, m), reverse=True)
        best = -float("inf")
        for move in found:
            captured = _play(pieces, move)
            value: float
            if captured == COMMANDER or (captured == KNIGHT and KNIGHT not in pieces.values()):
                value = WIN + depth
            else:
                value = -self.negamax(pieces, 1 - side, next_special, depth - 1, -beta, -alpha)
            _undo(pieces, move, captured)
            if value > best:
                best = value
            if best > alpha:
                alpha = best
            if alpha >= beta:
                break
        return best


_CAPTURE_ORDER = {COMMANDER: 3, KNIGHT: 2, FOOTMAN: 1}


def _order(pieces: Mapping[str, str], move: Move) -> int:
    held = pieces.get(move[1])
    return _CAPTURE_ORDER.get(held, 0) if held is not None else 0


def choose(
    view: Mapping[str, Any],
    seat: int,
    level: str,
    rng: random.Random,
    *,
    depth: int,
    deadline: Deadline | None = None,
) -> Action:
    legal = legal_from_view(view, seat)
    if not legal:
        raise ValueError("The seat has no legal action to choose from.")
    if len(legal) == 1 or legal[0]["type"] == "place_commander":
        return legal[rng.randrange(len(legal))]
    summary = view["summary"]
    pieces: Pieces = dict(summary["pieces"])
    special_left = int(summary["special_turns_left"])
    if level == "easy":
        if rng.random() < 0.3:
            return legal[rng.randrange(len(legal))]
        depth = 1
    next_special = special_left - 1 if seat == DEFENDER and special_left > 0 else special_left
    search = _Search(deadline)
    ordered = sorted(legal, key=lambda a: _order(pieces, (a["from"], a["to"])), reverse=True)
    best_raw = -float("inf")
    scored: list[tuple[float, Action]] = []
    for action in ordered:
        move = (action["from"], action["to"])
        captured = _play(pieces, move)
        if captured == COMMANDER or (captured == KNIGHT and KNIGHT not in pieces.values()):
            value = float(WIN + depth)
        else:
            # Moves more than the noise below the best so far only need an upper bound.
            alpha = best_raw - NOISE
            value = -search.negamax(
                pieces, 1 - seat, next_special, depth - 1, -float("inf"), -alpha
            )
        _undo(pieces, move, captured)
        best_raw = max(best_raw, value)
        # A little noise breaks ties and keeps a computer from repeating itself.
        scored.append((value + rng.random() * NOISE, action))
    return max(scored, key=lambda item: item[0])[1]


# Search depth in plies per level (easy searches one ply with some random moves).
COMPUTER = Computer(
    budgets={"normal": 2, "hard": 4},
    search=choose,
    legal_from_view=legal_from_view,
)
