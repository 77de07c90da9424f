"""Rules of Siege (``knights``): setup, the placement, refusals, every end, resign, views, events,
JSON round trips and a random-play conformance run. Spec: ``../shared/spec/knights.md``."""

from __future__ import annotations

import ast
import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine.knights import GAME, position_key
from engine.rules import Result, RuleError, SetupError, dumps, loads

RNG = random.Random(0)  # never drawn from: there is no chance in Siege
State = dict[str, Any]


def fresh() -> State:
    return GAME.setup(2, {}, RNG)


def act(state: State, seat: int, action: dict[str, Any]) -> tuple[State, list[dict[str, Any]]]:
    return GAME.apply(state, seat, action, RNG)


def mv(state: State, seat: int, from_sq: str, to_sq: str) -> State:
    new, _ = act(state, seat, {"type": "move", "from": from_sq, "to": to_sq})
    return new


def placed(crown: str = "d6") -> State:
    return act(fresh(), 1, {"type": "place_commander", "square": crown})[0]


def position(
    pieces: dict[str, str], to_act: int, special_turns_left: int = 0, plies: int = 0
) -> State:
    """A game in progress with exactly these pieces, its position recorded once."""
    state = placed()
    state["pieces"] = dict(sorted(pieces.items()))
    state["to_act"] = to_act
    state["special_turns_left"] = special_turns_left
    state["plies_since_capture"] = plies
    state["positions"] = {position_key(pieces, to_act): 1}
    return state


def refusal(state: State, seat: int, action: Any) -> str:
    before = copy.deepcopy(state)
    with pytest.raises(RuleError) as info:
        GAME.apply(state, seat, action, RNG)
    assert state == before
    return str(info.value)


# -- setup ----------------------------------------------------------------------------------------


def test_setup_position_and_counters() -> None:
    state = fresh()
    assert state["version"] == GAME.state_version
    assert GAME.to_act(state) == 1
    assert GAME.result(state) is None
    assert GAME.summary(state) == {
        "pieces": {
            "b0": "N", "c6": "D", "d0": "N", "d5": "D", "e0": "N", "e5": "D", "f6": "D", "g0": "N",
        },
        "captured": {"knights": 0, "defenders": 0},
        "special_turns_left": 4,
        "restricted": False,
        "plies_since_capture": 0,
    }  # fmt: skip
    assert GAME.legal_actions(state, 1) == [
        {"type": "place_commander", "square": "d6"},
        {"type": "place_commander", "square": "e6"},
    ]
    assert GAME.legal_actions(state, 0) == []


@pytest.mark.parametrize(
    ("seats", "options", "stack"),
    [
        (1, {}, None),
        (3, {}, None),
        (2, {"dealer": 0}, None),
        (2, {}, {"dice": [1]}),
        (2, {}, {"first": 0}),
        (2, {}, {"first": None}),
        (2, {"dealer": None}, None),
        (1.0, {}, None),
        (True, {}, None),
    ],
)
def test_setup_malformed(seats: int, options: dict[str, Any], stack: Any) -> None:
    with pytest.raises(SetupError):
        GAME.setup(seats, options, RNG, stack)


def test_setup_accepts_an_empty_stack_and_ignores_the_rng() -> None:
    assert GAME.setup(2, {}, random.Random(1), {}) == GAME.setup(2, {}, random.Random(2), None)


# -- the placement --------------------------------------------------------------------------------


def test_placement_is_not_a_turn() -> None:
    state, events = act(fresh(), 1, {"type": "place_commander", "square": "e6"})
    assert events == [{"type": "commander_placed", "seat": 1, "square": "e6"}]
    assert GAME.to_act(state) == 0
    summary = GAME.summary(state)
    assert summary["pieces"]["e6"] == "C"
    assert summary["special_turns_left"] == 4
    assert summary["plies_since_capture"] == 0
    assert state["positions"] == {position_key(state["pieces"], 0): 1}
    assert len(GAME.legal_actions(state, 0)) == 14


# -- refusals -------------------------------------------------------------------------------------


def test_refusals_before_the_placement() -> None:
    state = fresh()
    assert refusal(state, 0, {"type": "place_commander", "square": "d6"}) == (
        "It is not your turn."
    )
    assert "Commander" in refusal(state, 1, {"type": "move", "from": "c6", "to": "b6"})
    assert "Commander" in refusal(state, 1, {"type": "pass"})
    assert refusal(state, 1, {"type": "place_commander", "square": "c6"}) == (
        "The Commander starts on a crown: d6 or e6."
    )
    assert refusal(state, 1, {"type": "place_commander", "square": "z9"}) == (
        "The Commander starts on a crown: d6 or e6."
    )
    assert "d6 or e6" in refusal(state, 1, {"type": "place_commander"})


def test_refusals_in_play() -> None:
    state = placed()
    assert refusal(state, 1, {"type": "move", "from": "c6", "to": "b6"}) == "It is not your turn."
    assert refusal(state, 0, {"type": "place_commander", "square": "e6"}) == (
        "The Commander has already been placed."
    )
    assert "not a move" in refusal(state, 0, {"type": "castle"})
    assert "not a move" in refusal(state, 0, {"from": "b0", "to": "c2"})
    assert "not a move" in refusal(state, 0, ["move"])
    assert "'from' square" in refusal(state, 0, {"type": "move", "to": "c2"})
    assert "'to' square" in refusal(state, 0, {"type": "move", "from": "b0", "to": "C2"})
    assert "'to' square" in refusal(state, 0, {"type": "move", "from": "b0", "to": 12})
    assert "'from' square" in refusal(state, 0, {"type": "move", "from": "a0", "to": "c2"})
    assert refusal(state, 0, {"type": "move", "from": "c2", "to": "d4"}) == (
        "You have no piece there."
    )
    assert refusal(state, 0, {"type": "move", "from": "c6", "to": "b6"}) == (
        "You have no piece there."
    )
    assert refusal(state, 0, {"type": "pass"}) == "You have a legal move; you may not pass."
    assert refusal(state, 0, {"type": "move", "from": "b0", "to": "b2"}) == (
        "That piece cannot move there. A Knight leaps two squares one way and one square across."
    )


@pytest.mark.parametrize(
    ("pieces", "from_sq", "to_sq", "why"),
    [
        ({"d1": "N"}, "d1", "b0", "Outside the castle a Knight leaps only forward"),
        ({"e3": "N"}, "e3", "g2", "A Knight that has entered the castle can never leave it."),
        ({"c5": "N"}, "c5", "a6", "A Knight that has entered the castle can never leave it."),
        ({"c2": "N", "b4": "N"}, "c2", "b4", "Your own piece stands there."),
        ({"b3": "D"}, "b3", "a3", "Defenders may not step onto blue squares."),
        ({"b4": "D", "a5": "N"}, "b4", "a5", "Defenders may not step onto blue squares."),
        ({"d4": "D", "d5": "N"}, "d4", "d5", "A Defender captures a Knight only with a diagonal"),
        ({"d4": "D"}, "d4", "d6", "A Defender steps one square."),
        ({"d4": "C"}, "d4", "d5", "The Commander moves only diagonally"),
        ({"e6": "C"}, "e6", "e5", "The Commander moves only diagonally"),
        ({"c3": "C", "d4": "D"}, "c3", "e5", "The Commander cannot pass over other pieces."),
        ({"c3": "C", "d4": "N"}, "c3", "e5", "The Commander cannot pass over other pieces."),
        ({"c3": "C"}, "c3", "b2", "The Commander never leaves the castle."),
    ],
)
def test_refused_destinations_say_why(
    pieces: dict[str, str], from_sq: str, to_sq: str, why: str
) -> None:
    seat = 0 if pieces[from_sq] == "N" else 1
    filler = {"h1": "N"} if seat else {"a1": "D", "f6": "C"}
    state = position(pieces | filler, seat)
    message = refusal(state, seat, {"type": "move", "from": from_sq, "to": to_sq})
    assert message.startswith("That piece cannot move there. ")
    assert why in message


def test_special_rule_refusal() -> None:
    state = mv(placed(), 0, "d0", "c2")
    message = refusal(state, 1, {"type": "move", "from": "d6", "to": "c5"})
    assert message == "In your first four turns you must move a Defender off its dot."
    assert refusal(state, 1, {"type": "move", "from": "d5", "to": "c6"}) == (
        "That piece cannot move there. Your own piece stands there."
    )


def test_refusals_after_the_end() -> None:
    state, _ = GAME.resign(placed(), 0)
    assert refusal(state, 1, {"type": "move", "from": "c6", "to": "b6"}) == "The game is over."
    assert refusal(state, 0, {"type": "pass"}) == "The game is over."
    assert GAME.legal_actions(state, 0) == [] and GAME.legal_actions(state, 1) == []
    assert GAME.to_act(state) is None


# -- moves and events -----------------------------------------------------------------------------


def test_move_events_carry_notation_and_captures() -> None:
    # Spec 10.3's final position: the Defender on d5 takes the Knight on c4 diagonally.
    pieces = {"b0": "N", "c4": "N", "d0": "N", "e0": "N"}
    pieces |= {"b6": "D", "d5": "D", "f6": "D", "g5": "D", "d6": "C"}
    state = position(pieces, 1, special_turns_left=1, plies=7)
    new, events = act(state, 1, {"type": "move", "from": "d5", "to": "c4"})
    assert events == [
        {
            "type": "moved",
            "seat": 1,
            "piece": "D",
            "from": "d5",
            "to": "c4",
            "captured": "N",
            "notation": "Dd5xc4",
            "special_turn": 4,
            "restricted": False,
        }
    ]
    summary = GAME.summary(new)
    assert summary["captured"] == {"knights": 1, "defenders": 0}
    assert summary["plies_since_capture"] == 0
    assert summary["special_turns_left"] == 0
    assert "c4" in summary["pieces"] and summary["pieces"]["c4"] == "D"
    assert GAME.view(new, None)["last_move"] == events[0]


def test_knight_captures_a_defender() -> None:
    state = mv(mv(mv(placed(), 0, "d0", "c2"), 1, "f6", "g6"), 0, "c2", "b4")
    new, events = act(mv(state, 1, "g6", "g5"), 0, {"type": "move", "from": "b4", "to": "c6"})
    assert events[0]["notation"] == "Nb4xc6" and events[0]["captured"] == "D"
    assert "special_turn" not in events[0]
    assert GAME.summary(new)["captured"] == {"knights": 0, "defenders": 1}


def test_restricted_turn_events_say_so() -> None:
    state = mv(placed(), 0, "d0", "c2")
    _, events = act(state, 1, {"type": "move", "from": "c6", "to": "c5"})
    assert events[0]["special_turn"] == 1 and events[0]["restricted"] is True


def test_summary_restricted_only_on_the_defenders_restricted_turns() -> None:
    state = placed()
    assert GAME.summary(fresh())["restricted"] is False
    assert GAME.summary(state)["restricted"] is False  # the attacker's turn
    state = mv(state, 0, "d0", "c2")
    assert GAME.summary(state)["restricted"] is True
    assert GAME.summary(GAME.resign(state, 1)[0])["restricted"] is False


# -- ends -----------------------------------------------------------------------------------------


def test_commander_captured() -> None:
    pieces = {"c4": "N", "b6": "D", "d5": "D", "d6": "C"}
    state = position(pieces, 0)
    new, events = act(state, 0, {"type": "move", "from": "c4", "to": "d6"})
    assert events[0]["notation"] == "Nc4xd6"
    assert events[-1] == {"type": "game_ended", "winners": [0], "reason": "commander_captured"}
    assert GAME.result(new) == Result((0,), "commander_captured")
    assert "C" not in GAME.summary(new)["pieces"].values()
    assert GAME.summary(new)["captured"] == {"knights": 0, "defenders": 0}
    assert GAME.to_act(new) is None


def test_knights_eliminated() -> None:
    pieces = {"e4": "N", "d5": "D", "d6": "C"}
    state = position(pieces, 1)
    new, events = act(state, 1, {"type": "move", "from": "d5", "to": "e4"})
    assert GAME.result(new) == Result((1,), "knights_eliminated")
    assert events[-1]["reason"] == "knights_eliminated"
    assert GAME.summary(new)["captured"]["knights"] == 1


def test_three_knights_left_is_not_the_end() -> None:
    pieces = {"e4": "N", "b0": "N", "d5": "D", "d6": "C"}
    new = mv(position(pieces, 1), 1, "d5", "e4")
    assert GAME.result(new) is None and GAME.to_act(new) == 0


def test_pass_and_no_moves() -> None:
    # Unreachable in real play (every Knight always has a leap, and a search over all small
    # blockades finds no position where the defender is stuck), so an empty board tests the rule:
    # neither side has a move.
    state = position({}, 0, special_turns_left=2, plies=5)
    assert GAME.legal_actions(state, 0) == [{"type": "pass"}]
    state, events = act(state, 0, {"type": "pass"})
    assert events == [{"type": "passed", "seat": 0}]
    assert GAME.result(state) is None
    assert GAME.summary(state)["plies_since_capture"] == 6
    assert state["positions"][position_key({}, 1)] == 1
    assert GAME.legal_actions(state, 1) == [{"type": "pass"}]
    state, events = act(state, 1, {"type": "pass"})
    assert events[0] == {"type": "passed", "seat": 1, "special_turn": 3, "restricted": False}
    assert events[-1] == {"type": "game_ended", "winners": [], "reason": "no_moves"}
    assert GAME.summary(state)["special_turns_left"] == 1  # the pass used a special turn
    assert GAME.summary(state)["plies_since_capture"] == 7


def test_a_pass_after_a_move_does_not_end_the_game() -> None:
    state = position({"d6": "C", "h1": "N"}, 0)
    state = mv(state, 0, "h1", "g3")
    state["pieces"] = {}  # the defender is left with nothing to move
    state, _ = act(state, 1, {"type": "pass"})
    assert GAME.result(state) is None


def test_repetition_on_the_third_occurrence() -> None:
    pieces = {"c3": "N", "a1": "D", "c6": "C"}
    state = position(pieces, 0)
    shuffle = [(0, "c3", "e4"), (1, "a1", "b1"), (0, "e4", "c3"), (1, "b1", "a1")]
    for n, (seat, from_sq, to_sq) in enumerate(shuffle * 2, start=1):
        assert GAME.result(state) is None
        state = mv(state, seat, from_sq, to_sq)
        if n < 8:
            assert GAME.result(state) is None, n
    # The start position came back after ply 4 (second time) and ply 8 (third time).
    assert GAME.result(state) == Result((), "repetition")
    assert GAME.summary(state)["plies_since_capture"] == 8


def test_repetition_counts_the_side_to_move() -> None:
    # The same pieces with the other side to move are a different position.
    pieces = {"c3": "N", "a1": "D", "c6": "C"}
    state = position(pieces, 0)
    state["positions"][position_key(pieces, 1)] = 2
    state = mv(mv(state, 0, "c3", "e4"), 1, "a1", "b1")
    state = mv(mv(state, 0, "e4", "c3"), 1, "b1", "a1")
    assert GAME.result(state) is None


def test_no_capture_after_80_plies() -> None:
    pieces = {"c3": "N", "a1": "D", "c6": "C"}
    state = position(pieces, 0, plies=78)
    state = mv(state, 0, "c3", "e4")
    assert GAME.result(state) is None and GAME.summary(state)["plies_since_capture"] == 79
    state, events = act(state, 1, {"type": "move", "from": "a1", "to": "b1"})
    assert GAME.result(state) == Result((), "no_capture")
    assert GAME.summary(state)["plies_since_capture"] == 80
    assert events[-1]["reason"] == "no_capture"


def test_a_capture_on_the_80th_ply_resets_the_count() -> None:
    pieces = {"e4": "N", "h1": "N", "a1": "D", "c6": "C"}
    state = position(pieces, 1, plies=79)
    state = mv(state, 1, "c6", "e4")  # the Commander slides c6-d5-e4 and takes the Knight
    assert GAME.result(state) is None
    assert GAME.summary(state)["plies_since_capture"] == 0
    assert state["positions"] == {position_key(state["pieces"], 0): 1}


def test_repetition_is_checked_before_no_capture() -> None:
    pieces = {"c3": "N", "a1": "D", "c6": "C"}
    after = {"c3": "N", "b1": "D", "c6": "C"}
    state = position(pieces, 1, plies=79)
    assert GAME.result(mv(state, 1, "a1", "b1")) == Result((), "no_capture")
    state["positions"][position_key(after, 0)] = 2
    # The 80th quiet ply also brings a position for the third time: repetition comes first.
    assert GAME.result(mv(state, 1, "a1", "b1")) == Result((), "repetition")


# -- resign, views, rematch, JSON -----------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1])
def test_resign(seat: int) -> None:
    state = placed()
    before = copy.deepcopy(state)
    new, events = GAME.resign(state, seat)
    assert state == before
    assert GAME.result(new) == Result((1 - seat,), "resigned")
    assert events == [
        {"type": "resigned", "seat": seat},
        {"type": "game_ended", "winners": [1 - seat], "reason": "resigned"},
    ]
    with pytest.raises(RuleError):
        GAME.resign(new, 1 - seat)


def test_resign_during_the_placement_and_by_a_stranger() -> None:
    assert GAME.result(GAME.resign(fresh(), 0)[0]) == Result((1,), "resigned")
    with pytest.raises(RuleError):
        GAME.resign(fresh(), 2)


def test_views_hide_nothing() -> None:
    state = mv(placed(), 0, "d0", "c2")
    spectator = GAME.view(state, None)
    assert spectator["summary"] == GAME.summary(state)
    assert spectator["phase"] == "play" and spectator["to_act"] == 1 and spectator["ply"] == 1
    assert spectator["last_move"] == {
        "type": "moved", "seat": 0, "piece": "N", "from": "d0", "to": "c2",
        "captured": None, "notation": "Nd0-c2",
    }  # fmt: skip
    for seat, side in ((0, "attacker"), (1, "defender")):
        view = GAME.view(state, seat)
        assert view["side"] == side
        assert {k: v for k, v in view.items() if k not in ("seat", "side")} == {
            k: v for k, v in spectator.items() if k not in ("seat", "side")
        }
    assert GAME.view(fresh(), None)["phase"] == "placement"
    assert GAME.view(GAME.resign(state, 0)[0], 1)["phase"] == "over"
    with pytest.raises(ValueError):
        GAME.view(state, 2)


def test_rematch_options() -> None:
    assert GAME.rematch_options({}, Result((0,), "commander_captured")) == {}


def test_json_round_trip_and_version() -> None:
    state = mv(mv(placed("e6"), 0, "d0", "e2"), 1, "e5", "f5")
    text = dumps(state)
    assert loads(text, GAME) == state
    assert GAME.legal_actions(loads(text, GAME), 0) == GAME.legal_actions(state, 0)
    with pytest.raises(ValueError):
        loads(json.dumps({**state, "version": 99}), GAME)


def test_engine_module_is_pure() -> None:
    source = Path(__file__).parents[2] / "engine" / "knights.py"
    banned = {"discord", "asyncio", "sqlite3", "aiosqlite", "time", "datetime", "PIL", "random"}
    imported = set()
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    # ``random`` is imported for the type of the ``rng`` argument only; nothing draws from it.
    assert imported & banned <= {"random"}
    assert "random." not in source.read_text(encoding="utf-8").replace("random.Random", "")


# -- random play ----------------------------------------------------------------------------------

GAMES_PLAYED = 500
# Captures are final and there are at most 8 that do not end the game (4 Defenders, 3 Knights);
# each resets the 80-ply count, so no game can run longer than 9 x 80 plies.
PLY_CAP = 9 * 80


def _choose(rng: random.Random, state: State, legal: list[dict[str, Any]], cautious: bool) -> Any:
    """Uniform random play, or 'cautious' play that mostly avoids captures (long games that reach
    the draws)."""
    if cautious and rng.random() < 0.95:
        quiet = [a for a in legal if a.get("to") not in state["pieces"]]
        if quiet:
            return rng.choice(quiet)
    return rng.choice(legal)


def test_random_play_conformance() -> None:
    reasons: dict[str, int] = {}
    for game in range(GAMES_PLAYED):
        rng = random.Random(game)
        state = fresh()
        plies = 0
        while GAME.result(state) is None:
            seat = GAME.to_act(state)
            assert seat is not None
            legal = GAME.legal_actions(state, seat)
            assert legal, plies
            assert GAME.legal_actions(state, 1 - seat) == []
            if game % 5 == 0:
                # Every fifth game: every legal action is accepted.
                for action in legal:
                    GAME.apply(state, seat, action, RNG)
            action = _choose(rng, state, legal, cautious=game % 2 == 1)
            stored = json.loads(dumps(state))
            new, events = GAME.apply(state, seat, action, RNG)
            assert state == stored  # the input is untouched and round-trips through JSON
            assert events and events[0]["type"] in ("commander_placed", "moved", "passed")
            state = new
            plies += 1
            assert plies <= PLY_CAP + 1  # + the placement
        assert GAME.to_act(state) is None
        result = GAME.result(state)
        assert result is not None
        reasons[result.reason] = reasons.get(result.reason, 0) + 1
    assert sum(reasons.values()) == GAMES_PLAYED
    assert {"commander_captured", "knights_eliminated", "no_capture"} <= set(reasons)
