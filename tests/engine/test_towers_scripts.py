"""The worked examples of ``/work/shared/spec/towers.md`` section 10, run through the script runner
``python -m engine.script FILE`` as a subprocess and asserting what the spec's text states; then
malformed scripts of section 4 (exit status 2).

Each example also runs in-process through :func:`engine.script.run_script` with the game put in
the registry for the test only, so the figures are checked before ``engine/__init__.py`` lists
``towers``; the subprocess runs need that registry line. "After step n" statements are checked
by replaying the first n actions exactly as the runner does (``chance.deal``, then
``chance.advance``: engine/chance.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import engine
from engine import chance
from engine.rules import State, rng_for
from engine.script import run_script
from engine.towers import GAME

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "scripts" / "towers"
Runner = Callable[[dict[str, Any]], dict[str, Any]]


def run_subprocess(script: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "engine.script", "-"],
        cwd=ROOT,
        input=json.dumps(script),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    output: dict[str, Any] = json.loads(done.stdout)
    return output


@pytest.fixture(params=["subprocess", "in_process"])
def runner(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runner]:
    if request.param == "in_process":
        monkeypatch.setitem(engine.GAMES, "towers", GAME)
        yield run_script
    else:
        yield run_subprocess


def example(n: int, runner: Runner) -> tuple[dict[str, Any], dict[str, Any]]:
    """The script of example 10.n (read from its file) and the runner's output for it."""
    script = json.loads((SCRIPTS / f"example_10_{n}.json").read_text(encoding="utf-8"))
    if runner is run_subprocess:
        done = subprocess.run(
            [sys.executable, "-m", "engine.script", str(SCRIPTS / f"example_10_{n}.json")],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        return script, json.loads(done.stdout)
    return script, runner(script)


def replay(script: dict[str, Any], steps: int) -> State:
    seed = script["seed"]
    state = chance.deal(GAME, script["seats"], script["options"], seed, script["stack"])
    ply = 0
    for entry in script["actions"][:steps]:
        try:
            state, _ = chance.advance(GAME, state, entry["seat"], entry["action"], seed, ply)
        except engine.RuleError:
            continue
        ply += 1
    return state


def oks(output: dict[str, Any]) -> list[bool]:
    return [step["ok"] for step in output["steps"]]


def test_every_example_of_section_10_has_a_script() -> None:
    assert sorted(p.name for p in SCRIPTS.glob("example_10_*.json")) == [
        f"example_10_{n}.json" for n in range(1, 5)
    ]


def test_example_10_1_a_heads_up_hand(runner: Runner) -> None:
    script, out = example(1, runner)
    start = GAME.summary(replay(script, 0))
    assert (start["chips"], start["pot"], start["burned"]) == ([99, 99], 2, "9S")
    assert start["face_up"] == ["KH"] and start["towers"] == [9, 10, 10, 10]
    assert start["phase"] == "betting"
    state0 = replay(script, 0)
    assert state0["to_act"] == 1
    assert GAME.legal_actions(state0, 1) == [{"type": "check"}, {"type": "bet"}, {"type": "leave"}]
    after2 = replay(script, 2)
    assert GAME.summary(after2)["pot"] == 4 and after2["phase"] == "flip_offer"
    assert after2["to_act"] == 1 and GAME.summary(after2)["next_flip_cost"] == 1
    after4 = GAME.summary(replay(script, 4))
    assert (after4["fees"], after4["pot"], after4["face_up"]) == (1, 5, ["KH", "5C"])

    assert oks(out) == [True] * 8
    s = out["summary"]
    assert out["to_act"] == 0 and out["result"] is None
    assert (s["phase"], s["hand_no"], s["dealer"]) == ("betting", 2, 1)
    assert (s["chips"], s["pot"], s["in_pot"], s["fees"]) == ([101, 97], 2, [1, 1], 0)
    assert (s["face_up"], s["towers"], s["spire"], s["dungeon"]) == (["4D"], [8, 9, 10, 10], 61, 1)
    assert s["last_hand"] == {
        "hand_no": 1,
        "winners": [0],
        "payouts": [5, 0],
        "categories": ["three_of_a_kind", "three_of_a_kind"],
    }


def test_example_10_2_a_joker_in_hand_five_of_a_kind_beats_a_straight_flush(
    runner: Runner,
) -> None:
    script, out = example(2, runner)
    state0 = replay(script, 0)
    assert state0["to_act"] == 0 and state0["face_up"] == ["7H"]
    legal = GAME.legal_actions(state0, 0)
    assert legal == [
        {"type": "check"},
        {"type": "bet"},
        {"type": "reveal_joker", "discard": "3D"},
        {"type": "reveal_joker", "discard": "7C"},
        {"type": "reveal_joker", "discard": "7S"},
        {"type": "leave"},
    ]
    after1 = replay(script, 1)
    assert sorted(GAME.view(after1, 0)["hand"]) == ["7C", "7D", "7S", "XB"]
    assert GAME.summary(after1)["joker_revealed"] == [True, False, False]
    assert after1["to_act"] == 0

    assert oks(out) == [True, False, True, True, True, True, True]
    assert "already revealed" in out["steps"][1]["error"]
    s = out["summary"]
    assert (s["hand_no"], s["dealer"], s["chips"], s["pot"]) == (2, 0, [102, 97, 98], 3)
    assert s["face_up"] == ["5S"] and out["to_act"] == 1
    assert s["last_hand"] == {
        "hand_no": 1,
        "winners": [0],
        "payouts": [5, 0, 0],
        "categories": ["five_of_a_kind", "straight_flush", None],
    }


def test_example_10_3_all_in_a_side_pot_and_a_seat_going_out(runner: Runner) -> None:
    script, out = example(3, runner)
    start = GAME.summary(replay(script, 0))
    assert (start["chips"], start["pot"], start["face_up"]) == ([2, 2, 2], 3, ["2C"])
    after4 = GAME.summary(replay(script, 4))
    assert (after4["chips"], after4["fees"]) == ([2, 1, 2], 1)
    after7 = replay(script, 7)
    assert GAME.summary(after7)["raises"] == 1 and after7["to_act"] == 2
    assert GAME.summary(after7)["in_pot"] == [3, 2, 2]

    assert oks(out) == [True] * 8
    s = out["summary"]
    assert (s["phase"], out["to_act"], s["hand_no"], s["dealer"]) == ("betting", 2, 2, 1)
    assert (s["chips"], s["pot"], s["in_pot"], s["face_up"]) == ([0, 6, 1], 2, [0, 1, 1], ["JD"])
    assert s["out"] == [True, False, False] and s["folded"] == [True, False, False]
    assert s["next_flip_cost"] == 1
    assert s["last_hand"] == {
        "hand_no": 1,
        "winners": [1, 2],
        "payouts": [0, 7, 2],
        "categories": ["pair", "three_of_a_kind", "two_pair"],
    }


def test_example_10_4_four_tower_jokers_the_jackpot(runner: Runner) -> None:
    script, out = example(4, runner)
    state0 = replay(script, 0)
    assert GAME.summary(state0)["burned"] == "TC" and state0["face_up"] == ["XB"]
    assert state0["phase"] == "discard" and state0["to_act"] == 0
    assert len(GAME.legal_actions(state0, 0)) == 6
    after1 = replay(script, 1)
    assert sorted(after1["hands"][0]) == ["AH", "AS", "JC", "KC"]
    after4 = replay(script, 4)
    assert after4["phase"] == "discard" and after4["to_act"] == 1
    assert len(GAME.legal_actions(after4, 1)) == 17
    after5 = replay(script, 5)
    assert sorted(after5["hands"][1]) == ["9C", "9D", "JD", "JH"]
    after9 = replay(script, 9)
    assert after9["to_act"] == 0 and after9["discard"]["mode"] == "up_to_4"
    after11 = replay(script, 11)
    assert sorted(after11["hands"][1]) == ["9D", "JD", "JH", "JS"]
    assert GAME.summary(after11)["bet_size"] == 2
    after14 = replay(script, 14)
    assert after14["jackpot"] and after14["to_act"] == 1
    assert after14["face_up"] == ["XB", "XR", "XB", "XR", "2S", "3S", "4S", "5S"]
    after16 = replay(script, 16)
    assert sorted(after16["hands"][0]) == ["AH", "AS"] and sorted(after16["hands"][1]) == [
        "JH",
        "JS",
    ]
    assert GAME.summary(after16)["pot"] == 22

    assert oks(out) == [True] * 18
    s = out["summary"]
    assert (s["hand_no"], s["dealer"], s["chips"], s["pot"]) == (2, 1, [113, 85], 2)
    assert (s["towers"], s["jokers_from_towers"], s["jackpot"]) == ([7, 8, 8, 8], 4, False)
    assert out["to_act"] == 0 and s["phase"] == "betting"
    assert s["last_hand"] == {
        "hand_no": 1,
        "winners": [0],
        "payouts": [22, 0],
        "categories": ["five_of_a_kind", "five_of_a_kind"],
    }


def test_every_listed_action_is_accepted_after_each_example() -> None:
    for n in range(1, 5):
        script = json.loads((SCRIPTS / f"example_10_{n}.json").read_text(encoding="utf-8"))
        state = replay(script, len(script["actions"]))
        seat = state["to_act"]
        for action in GAME.legal_actions(state, seat):
            GAME.apply(state, seat, action, rng_for(0, 0))  # no RuleError


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"seats": 8}, "2 to 7"),
        ({"options": {"big_bet": 1, "small_bet": 2}}, "at least 'small_bet'"),
        ({"options": {"ante": 101}}, "from 0 to 100"),
        ({"stack": {"burn": []}}, "Unknown stack key"),
        ({"stack": {"pile": ["XB", "XB", "XB"]}}, "names XB 3 times"),
        ({"stack": {"towers": [[], [], []]}}, "exactly 4 lists"),
        ({"stack": {"hands": [[], [], []]}}, "exactly 2 lists"),
        ({"stack": {"dealer": 5}}, "whole number 0 or 1"),
    ],
)
def test_malformed_scripts_exit_2(change: dict[str, Any], words: str) -> None:
    script = {"game": "towers", "seats": 2, "options": {}, "seed": 1, "actions": [], **change}
    done = subprocess.run(
        [sys.executable, "-m", "engine.script", "-"],
        cwd=ROOT,
        input=json.dumps(script),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert words in done.stderr and done.stderr.count("\n") == 1
