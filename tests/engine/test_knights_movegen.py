"""Move generation for Siege (``knights``), tested the way chess engines are: hand-counted
positions with exact move sets, and perft node counts from the start position.

Spec: ``../shared/spec/knights.md`` sections 2 and 6. Board reminder (attacker's view):

        a   b   c   d   e   f   g   h
  6     ~   .   *   ^   ^   *   .   ~
  5     ~   .   #   *   *   #   .   ~
  4     ~   .   #   #   #   #   .   ~
  3     ~   .   #   #   #   #   .   ~
  2     ~   .   .   .   .   .   .   ~
  1     .   .   .   .   .   .   .   .
  0         o       o   o       o

``~`` blue, ``.`` green, ``o`` Knight start, ``#`` castle, ``^`` crown, ``*`` dot.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.knights import (
    BLUE,
    CASTLE,
    GAME,
    SQUARES,
    destinations,
    is_capture_available,
    movable_squares,
    piece_moves,
    side_moves,
    square_kind,
)

RNG = random.Random(0)  # never drawn from: there is no chance in Siege

START = {"b0": "N", "d0": "N", "e0": "N", "g0": "N", "c6": "D", "d5": "D", "e5": "D", "f6": "D"}


def placed(crown: str = "d6") -> dict[str, Any]:
    state = GAME.setup(2, {}, RNG)
    state, _ = GAME.apply(state, 1, {"type": "place_commander", "square": crown}, RNG)
    return state


def position(pieces: dict[str, str], to_act: int, special_turns_left: int = 0) -> dict[str, Any]:
    """A game in progress with exactly these pieces (tests build positions directly)."""
    state = placed()
    state["pieces"] = dict(sorted(pieces.items()))
    state["to_act"] = to_act
    state["special_turns_left"] = special_turns_left
    state["positions"] = {}
    return state


def move(state: dict[str, Any], seat: int, from_sq: str, to_sq: str) -> dict[str, Any]:
    new, _ = GAME.apply(state, seat, {"type": "move", "from": from_sq, "to": to_sq}, RNG)
    return new


def moves_of(state: dict[str, Any]) -> set[str]:
    """The legal list as compact ``from-to`` strings."""
    seat = GAME.to_act(state)
    assert seat is not None
    return {
        f"{a['from']}-{a['to']}" if a["type"] == "move" else a["type"]
        for a in GAME.legal_actions(state, seat)
    }


# -- the board ------------------------------------------------------------------------------------


def test_board_has_52_squares_of_the_right_kinds() -> None:
    kinds = [square_kind(s) for s in SQUARES]
    assert len(SQUARES) == 52
    assert kinds.count("blue") == 10
    assert kinds.count("crown") == 2
    assert kinds.count("dot") == 4
    assert kinds.count("castle") == 10  # 16 castle squares less 2 crowns and 4 dots
    assert kinds.count("start") == 4
    assert kinds.count("green") == 22  # 26 green squares less the 4 start squares
    assert len(CASTLE) == 16 and len(BLUE) == 10
    assert [s for s in SQUARES if s.endswith("0")] == ["b0", "d0", "e0", "g0"]


def test_squares_sort_by_column_then_row() -> None:
    assert SQUARES[:8] == ("a1", "a2", "a3", "a4", "a5", "a6", "b0", "b1")
    assert SQUARES[-1] == "h6"


# -- Knights: one Knight alone, its exact destinations --------------------------------------------


@pytest.mark.parametrize(
    ("square", "expected"),
    [
        # Spec 2 checks: from the start squares, every leap goes forward.
        ("b0", {"a2", "c2", "d1"}),
        ("d0", {"b1", "c2", "e2", "f1"}),
        ("e0", {"c1", "d2", "f2", "g1"}),
        ("g0", {"e1", "f2", "h2"}),
        # d1: b0 is backward (and never returned to); f0 does not exist.
        ("d1", {"b2", "c3", "e3", "f2"}),
        # h1: only two leaps stay on the board, both forward.
        ("h1", {"f2", "g3"}),
        # e2: c1 and g1 are backward; d0 backward; c3, d4, f4 castle; g3 forward green.
        ("e2", {"c3", "d4", "f4", "g3"}),
        # b3: a1, c1 and d2 are backward and outside; d4 is forward anyway; c5 castle; a5 blue.
        ("b3", {"a5", "c5", "d4"}),
        # g4: e3 is backward but lands in the castle (the seed's exception); f2, h2 are not.
        ("g4", {"e3", "e5", "f6", "h6"}),
        # Row 6 outside the castle: nothing is forward, only leaps into the castle remain.
        ("a6", {"c5"}),
        ("b6", {"c4", "d5"}),
        ("g6", {"e5", "f4"}),
        ("h6", {"f5"}),
        # Inside the castle: any direction, castle squares only (never out, not even forward).
        ("c3", {"d5", "e4"}),
        ("d3", {"c5", "e5", "f4"}),
        ("c5", {"d3", "e4", "e6"}),  # a6 and a4 would leave the castle
        ("f6", {"d5", "e4"}),  # g4 and h5 would leave it
        ("d4", {"c6", "e6", "f3", "f5"}),  # b3, b5, c2, e2 lie outside
    ],
)
def test_knight_alone(square: str, expected: set[str]) -> None:
    assert set(piece_moves({square: "N"}, square)) == expected


def test_knight_attacks_on_the_crowns() -> None:
    # Spec 2: squares from which a Knight attacks d6: b5, c4, e4, f5; e6: c5, d4, f4, g5.
    attackers = {
        crown: {s for s in SQUARES if crown in piece_moves({s: "N"}, s)} for crown in ("d6", "e6")
    }
    assert attackers == {"d6": {"b5", "c4", "e4", "f5"}, "e6": {"c5", "d4", "f4", "g5"}}


def test_knight_blocked_by_own_knight_but_captures_anything_else() -> None:
    pieces = {"c2": "N", "b4": "N", "d4": "D", "e3": "C", "a3": "D"}
    # c2 → a3 (Defender: capture), b4 (own Knight: no), d4 (Defender: capture), e3 (the
    # Commander: capture). Defenders on green squares are captured like any other.
    assert piece_moves(pieces, "c2") == ["a3", "d4", "e3"]


def test_knight_leaps_over_pieces() -> None:
    # b0 → c2 passes over b1 and c1, both occupied.
    pieces = {"b0": "N", "b1": "N", "c1": "D"}
    assert "c2" in piece_moves(pieces, "b0")


# -- Defenders ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("square", "expected"),
    [
        ("e4", {"d3", "d4", "d5", "e3", "e5", "f3", "f4", "f5"}),  # all 8 inside the castle
        ("b3", {"b2", "b4", "c2", "c3", "c4"}),  # a2, a3, a4 are blue
        ("b1", {"a1", "b0", "b2", "c1", "c2"}),  # b0 is a green start square; a2 is blue
        ("b0", {"a1", "b1", "c1"}),  # a0 and c0 do not exist
        ("d6", {"c5", "c6", "d5", "e5", "e6"}),  # top edge; leaving the castle is allowed
        ("g6", {"f5", "f6", "g5"}),  # h5 and h6 are blue
        ("h1", {"g0", "g1", "g2"}),  # h2 is blue
    ],
)
def test_defender_alone(square: str, expected: set[str]) -> None:
    assert set(piece_moves({square: "D"}, square)) == expected


def test_defender_captures_only_diagonally_and_never_onto_own() -> None:
    pieces = {"d4": "D", "c5": "N", "d5": "N", "e4": "N", "e3": "N", "c3": "D", "d3": "C"}
    # Diagonal Knights c5 and e3 can be taken; orthogonal Knights d5 and e4 block; c3 and d3
    # are the defender's own. Left: c4, e5 (empty) and the two captures.
    assert piece_moves(pieces, "d4") == ["c4", "c5", "e3", "e5"]


def test_knight_on_blue_is_safe_from_defenders() -> None:
    pieces = {"b4": "D", "a5": "N", "a3": "N", "a4": "N"}
    assert piece_moves(pieces, "b4") == ["b3", "b5", "c3", "c4", "c5"]
    assert not is_capture_available({"b4": "D", "a5": "N"})


# -- the Commander --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("square", "expected"),
    [
        ("d6", {"c5", "e5", "f4", "e6"}),  # spec 2 checks (b4 lies outside the castle)
        ("e6", {"d5", "c4", "f5", "d6"}),
        ("c3", {"d4", "e5", "f6"}),  # a long diagonal: 3 steps
        ("f3", {"e4", "d5", "c6"}),
        ("d4", {"c3", "c5", "e3", "e5", "f6"}),
        ("c5", {"d6", "d4", "e3"}),  # no crown step off a crown
    ],
)
def test_commander_alone(square: str, expected: set[str]) -> None:
    assert set(piece_moves({square: "C"}, square)) == expected


def test_commander_slide_is_blocked_and_captures_the_first_knight() -> None:
    assert piece_moves({"c3": "C", "e5": "D"}, "c3") == ["d4"]
    assert piece_moves({"c3": "C", "e5": "N"}, "c3") == ["d4", "e5"]
    assert piece_moves({"c3": "C", "d4": "N"}, "c3") == ["d4"]  # no jumping past the Knight
    assert piece_moves({"c3": "C", "d4": "D"}, "c3") == []


def test_crown_step_captures_a_knight_and_is_blocked_by_own_piece() -> None:
    pieces = {"d6": "C", "e6": "N", "c5": "D", "e5": "D"}
    assert piece_moves(pieces, "d6") == ["e6"]
    pieces["e6"] = "D"
    assert piece_moves(pieces, "d6") == []


# -- the castle wall, both ways -------------------------------------------------------------------


def test_castle_wall_knights_enter_backward_but_never_leave() -> None:
    # Example 10.3: g4 → e3 is backward into the castle; then e3 → c2, g2 are refused.
    assert "e3" in piece_moves({"g4": "N"}, "g4")
    assert set(piece_moves({"e3": "N"}, "e3")) == {"c4", "d5", "f5"}  # not c2, g2, g4 (out)
    for square in CASTLE:
        assert set(piece_moves({square: "N"}, square)) <= CASTLE


def test_castle_wall_defenders_cross_it_and_the_commander_never_does() -> None:
    assert {"b5", "b6"} <= set(piece_moves({"c6": "D"}, "c6"))  # out
    assert "c5" in piece_moves({"b5": "D"}, "b5")  # and in
    for square in CASTLE:
        assert set(piece_moves({square: "C"}, square)) <= CASTLE


# -- the special rule -----------------------------------------------------------------------------


def test_first_special_turn_is_restricted_with_17_moves() -> None:
    state, _ = GAME.apply(placed(), 0, {"type": "move", "from": "d0", "to": "c2"}, RNG)
    # Spec 10.1: only Defenders on dots, to squares without a dot (c6→d6 is a crown: own C).
    assert moves_of(state) == {
        "c6-b5", "c6-b6", "c6-c5",
        "d5-c4", "d5-c5", "d5-d4", "d5-e4", "d5-e6",
        "e5-d4", "e5-e4", "e5-e6", "e5-f4", "e5-f5",
        "f6-e6", "f6-f5", "f6-g5", "f6-g6",
    }  # fmt: skip
    assert GAME.summary(state)["restricted"] is True


def test_knight_threat_frees_the_special_turn() -> None:
    # Spec 10.2: the Knight on b4 attacks c6 and d5.
    pieces = {"b0": "N", "b4": "N", "e0": "N", "g0": "N"}
    pieces |= {"c6": "D", "d5": "D", "e5": "D", "g6": "D", "d6": "C"}
    state = position(pieces, 1, special_turns_left=3)
    moves = moves_of(state)
    assert len(moves) == 19
    # c6: b5 b6 c5 (3); d5: c4 c5 d4 e4 e6 (5); e5: d4 e4 e6 f4 f5 f6 (6, f6 a dot: allowed);
    # g6: f5 f6 g5 (3); the Commander: c5 and the crown step to e6 (2). 3+5+6+3+2 = 19.
    assert {"d6-c5", "d6-e6", "e5-f6", "g6-g5"} <= moves
    assert GAME.summary(state)["restricted"] is False


def test_defender_threat_alone_frees_the_special_turn() -> None:
    # No Knight attacks anything (g2 → e3, f4, h4 are empty), but the Defender on f3 could take
    # the Knight on g2 diagonally: "either player's piece is in a position to be captured".
    pieces = {"b0": "N", "d0": "N", "e0": "N", "g2": "N"}
    pieces |= {"c6": "D", "d5": "D", "e5": "D", "f3": "D", "d6": "C"}
    state = position(pieces, 1, special_turns_left=2)
    assert [t for _, t in side_moves(pieces, 0) if t in pieces] == []
    moves = moves_of(state)
    assert "f3-g2" in moves and "d6-e6" in moves and "f3-f4" in moves
    assert GAME.summary(state)["restricted"] is False


def test_restricted_turn_with_no_defender_on_a_dot_is_free() -> None:
    # House rule: nobody stands on a dot, so no restricted move exists and the turn is free.
    pieces = {"b0": "N", "d0": "N", "e0": "N", "g0": "N"}
    pieces |= {"b5": "D", "c5": "D", "e4": "D", "g5": "D", "d6": "C"}
    state = position(pieces, 1, special_turns_left=3)
    assert moves_of(state) == {f"{f}-{t}" for f, t in side_moves(pieces, 1)}
    assert GAME.summary(state)["restricted"] is False


def test_any_defender_on_a_dot_qualifies_but_not_dot_to_dot() -> None:
    # House rule: Defenders are interchangeable. Say the one from c6 went to b6 and the one from
    # d5 to c6 (in free turns); now the Defender on c6 may make the special move, the one on b6
    # may not, and no move may end on the empty dot d5.
    pieces = {"b0": "N", "d0": "N", "e0": "N", "g0": "N"}
    pieces |= {"b6": "D", "c6": "D", "e5": "D", "f6": "D", "d6": "C"}
    state = position(pieces, 1, special_turns_left=2)
    assert moves_of(state) == {
        "c6-b5", "c6-c5",
        "e5-d4", "e5-e4", "e5-e6", "e5-f4", "e5-f5",
        "f6-e6", "f6-f5", "f6-g5", "f6-g6",
    }  # fmt: skip
    assert GAME.summary(state)["restricted"] is True


def test_no_restriction_after_four_defender_turns() -> None:
    state = placed()
    for attacker, defender in [
        (("d0", "c2"), ("c6", "b6")),
        (("e0", "f2"), ("f6", "g6")),
        (("c2", "a3"), ("d5", "d4")),
        (("b0", "d1"), ("e5", "f5")),
    ]:
        state = move(state, 0, *attacker)
        assert GAME.summary(state)["restricted"] is True
        state = move(state, 1, *defender)
    assert GAME.summary(state)["special_turns_left"] == 0
    state = move(state, 0, "g0", "e1")
    # A fifth defender turn in a quiet position: the Commander and every Defender may move.
    assert GAME.summary(state)["restricted"] is False
    assert "d6-e6" in moves_of(state) and "b6-c6" in moves_of(state)


# -- front-end helpers ----------------------------------------------------------------------------


def test_movable_squares_and_destinations_with_capture_flags() -> None:
    pieces = {"b0": "N", "b4": "N", "e0": "N", "g0": "N"}
    pieces |= {"c6": "D", "d5": "D", "e5": "D", "g6": "D", "d6": "C"}
    state = position(pieces, 0)
    legal = GAME.legal_actions(state, 0)
    assert movable_squares(legal) == ["b0", "b4", "e0", "g0"]
    assert destinations(pieces, legal, "b4") == [
        {"to": "a6", "captures": None, "notation": "Nb4-a6"},
        {"to": "c6", "captures": "D", "notation": "Nb4xc6"},
        {"to": "d3", "captures": None, "notation": "Nb4-d3"},
        {"to": "d5", "captures": "D", "notation": "Nb4xd5"},
    ]


# -- perft ----------------------------------------------------------------------------------------


def perft(state: dict[str, Any], depth: int) -> int:
    """Leaf nodes of the game tree ``depth`` plies deep (finished games count as one leaf)."""
    seat = GAME.to_act(state)
    if depth == 0 or seat is None:
        return 1
    legal = GAME.legal_actions(state, seat)
    if depth == 1:
        return len(legal)
    return sum(perft(GAME.apply(state, seat, a, RNG)[0], depth - 1) for a in legal)


@pytest.mark.parametrize("crown", ["d6", "e6"])
def test_perft_from_the_start(crown: str) -> None:
    state = placed(crown)
    # Depth 1, by hand (spec 2): b0 → a2 c2 d1 (3), d0 → b1 c2 e2 f1 (4), e0 → c1 d2 f2 g1 (4),
    # g0 → e1 f2 h2 (3): 3 + 4 + 4 + 3 = 14. c2 and f2 count twice: two Knights reach each.
    # Depth 2, by hand: a first leap reaches row 2 at most, so no Knight attacks a Defender and
    # no Defender touches a Knight; the first special turn is restricted. Its moves never
    # involve a square of rows 0-2, so every first leap leaves the same 17 (spec 10.1, or the
    # mirror image for e6): 14 x 17 = 238.
    # Depth 3: Defender moves never change a Knight's count (Knights may land on Defenders), so
    # each of the 17 replies leaves as many attacker moves as the first leap did; the sum over
    # the 14 leaps is 192 (checked leap by leap below): 17 x 192 = 3264.
    assert [perft(state, d) for d in (1, 2, 3)] == [14, 238, 3264]


def test_perft_depth_3_leap_by_leap() -> None:
    # Attacker moves after each first leap (and any Defender reply): 14 - (the moved Knight's 3
    # or 4 start leaps) + (its leaps from the new square) - (leaps now onto an own Knight).
    expected = {
        "b0-a2": 14 - 3 + 2,  # a2 → b4, c3
        "b0-c2": 14 - 3 + 4 - 1,  # c2 → a3 b4 d4 e3; d0 → c2 now blocked
        "b0-d1": 14 - 3 + 4,  # d1 → b2 c3 e3 f2
        "d0-b1": 14 - 4 + 3,  # b1 → a3 c3 d2
        "d0-c2": 14 - 4 + 4 - 1,  # b0 → c2 blocked
        "d0-e2": 14 - 4 + 4,  # e2 → c3 d4 f4 g3
        "d0-f1": 14 - 4 + 4,  # f1 → d2 e3 g3 h2
        "e0-c1": 14 - 4 + 4,  # c1 → a2 b3 d3 e2
        "e0-d2": 14 - 4 + 4,  # d2 → b3 c4 e4 f3
        "e0-f2": 14 - 4 + 4 - 1,  # f2 → d3 e4 g4 h3; g0 → f2 blocked
        "e0-g1": 14 - 4 + 3,  # g1 → e2 f3 h3
        "g0-e1": 14 - 3 + 4,  # e1 → c2 d3 f3 g2
        "g0-f2": 14 - 3 + 4 - 1,  # e0 → f2 blocked
        "g0-h2": 14 - 3 + 2,  # h2 → f3 g4
    }
    start = placed()
    counted = {}
    for action in GAME.legal_actions(start, 0):
        after, _ = GAME.apply(start, 0, action, RNG)
        replies = GAME.legal_actions(after, 1)
        assert len(replies) == 17
        counts = {len(GAME.legal_actions(GAME.apply(after, 1, r, RNG)[0], 0)) for r in replies}
        assert len(counts) == 1
        counted[f"{action['from']}-{action['to']}"] = counts.pop()
    assert counted == expected
    assert sum(expected.values()) == 192


def test_perft_from_setup_counts_the_placement() -> None:
    state = GAME.setup(2, {}, RNG)
    assert [perft(state, d) for d in (1, 2, 3)] == [2, 28, 476]  # 2, 2 x 14, 2 x 238


def test_start_pieces() -> None:
    assert placed("e6")["pieces"] == dict(sorted((START | {"e6": "C"}).items()))
