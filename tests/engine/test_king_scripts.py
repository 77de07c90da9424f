"""The worked examples of ``../shared/spec/king.md`` section 10 (which include the three examples
of the seed, 10.1 to 10.3), run through the script runner ``python -m engine.script FILE`` as a
subprocess, asserting what the spec's text states; then the malformed scripts of section 4.

"After step n" statements are checked by replaying the first n actions in-process exactly as the
runner does (``chance.deal``, then ``chance.advance``: engine/chance.py), since the runner only
prints the final state; statements about a seat's hand use that seat's private view.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import chance
from engine.king import GAME as KING
from engine.rules import State
from engine.script import MalformedScript, run_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "scripts" / "king"


def run_file(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.script", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def example(n: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """The script of example 10.n and the runner's output for it."""
    path = SCRIPTS / f"example_10_{n}.json"
    done = run_file(path)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return json.loads(path.read_text(encoding="utf-8")), json.loads(done.stdout)


def replay(script: dict[str, Any], steps: int) -> State:
    """The state after the first ``steps`` actions, each of which must be accepted."""
    seed = script["seed"]
    state = chance.deal(KING, script["seats"], script["options"], seed, script["stack"])
    for ply, entry in enumerate(script["actions"][:steps]):
        state, _ = chance.advance(KING, state, entry["seat"], entry["action"], seed, ply)
    return state


def oks(output: dict[str, Any]) -> list[bool]:
    return [step["ok"] for step in output["steps"]]


def column(output_or_state: dict[str, Any], s: int, i: int) -> dict[str, Any]:
    summary = output_or_state.get("summary") or KING.summary(output_or_state)
    found: dict[str, Any] = summary["columns"][s][i]
    return found


def test_every_example_of_section_10_has_a_script() -> None:
    spec_examples = 6
    assert sorted(p.name for p in SCRIPTS.glob("example_10_*.json")) == [
        f"example_10_{n}.json" for n in range(1, spec_examples + 1)
    ]


def test_example_10_1_seed_ten_minus_four_plus_five() -> None:
    script, out = example(1)
    assert oks(out) == [True, True, True, True]
    after3 = replay(script, 3)
    assert column(after3, 1, 2)["cards"] == ["A4"] and column(after3, 1, 2)["value"] == 6
    assert sorted(KING.view(after3, 0)["hand"]) == sorted(["D1", "D2", "A7", "W3", "D3"])
    assert column(out, 1, 2) == {
        "open": True,
        "value": 11,
        "cards": ["A4", "D5"],
        "roles": ["attacker", "defender"],
        "castle": None,
    }
    summary = out["summary"]
    assert out["to_act"] == 0 and out["result"] is None
    assert (summary["phase"], summary["turn"], summary["first"]) == ("play", 2, 0)
    assert (summary["hand_sizes"], summary["pile"], summary["discard"]) == ([5, 5], 33, [])
    assert len(out["legal"]) == 18
    expected = [{"type": "play", "card": "A7", "column": [1, i]} for i in range(3)]
    expected += [
        {"type": "play", "card": d, "column": [0, i]} for d in ("D1", "D2", "D3") for i in range(3)
    ]
    expected += [{"type": "play", "card": "W3", "column": [s, i]} for s in (0, 1) for i in range(3)]
    assert out["legal"] == expected


def test_example_10_2_seed_equal_values_cancel() -> None:
    script, out = example(2)
    assert oks(out) == [True, True, True, True]
    after3 = replay(script, 3)
    assert column(after3, 0, 0)["cards"] == ["D2"] and column(after3, 0, 0)["value"] == 12
    assert column(out, 0, 0) == {
        "open": True,
        "value": 10,
        "cards": [],
        "roles": [],
        "castle": None,
    }
    summary = out["summary"]
    assert summary["discard"] == ["A2", "D2"] and summary["pile"] == 33
    assert summary["hand_sizes"] == [5, 5] and out["to_act"] == 0


def test_example_10_3_seed_five_is_two_plus_three() -> None:
    script, out = example(3)
    assert oks(out) == [True, True, True, True, True]
    after4 = replay(script, 4)
    assert column(after4, 0, 0)["cards"] == ["D2", "A3"] and column(after4, 0, 0)["value"] == 9
    assert column(out, 0, 0) == {
        "open": True,
        "value": 10,
        "cards": [],
        "roles": [],
        "castle": None,
    }
    summary = out["summary"]
    assert summary["discard"] == ["A3", "D2", "D5"] and summary["pile"] == 32
    assert summary["hand_sizes"] == [5, 5] and summary["turn"] == 3 and out["to_act"] == 1


def test_example_10_4_the_assassin_reveals_a_throne() -> None:
    script, out = example(4)
    assert oks(out) == [True, True, True, False, False, True, False]
    assert all(step["error"] for step in out["steps"] if not step["ok"])
    after3 = replay(script, 3)
    assert column(after3, 1, 0)["cards"] == ["A5"] and column(after3, 1, 0)["value"] == 5
    assert KING.summary(after3)["phase"] == "assassinate" and KING.to_act(after3) == 0
    assert KING.legal_actions(after3, 0) == [
        {"type": "assassinate", "column": 0},
        {"type": "assassinate", "column": 1},
        {"type": "assassinate", "column": 2},
    ]
    accepted = [a for a, ok in zip(script["actions"], oks(out), strict=True) if ok]
    after6 = replay({**script, "actions": accepted}, 4)  # the refused steps changed nothing
    assert "A6" in KING.view(after6, 0)["hand"]
    assert column(out, 1, 0) == {
        "open": False,
        "value": 0,
        "cards": [],
        "roles": [],
        "castle": "THRONE",
    }
    summary = out["summary"]
    assert summary["discard"] == ["A5", "ASSASSIN"] and summary["pile"] == 33
    assert summary["hand_sizes"] == [5, 5]
    assert (summary["phase"], summary["turn"], out["to_act"]) == ("play", 1, 1)


def test_example_10_5_the_artisan_cancels_a_judge() -> None:
    script, out = example(5)
    assert oks(out) == [True, True, True, True, True]
    after4 = replay(script, 4)
    assert column(after4, 1, 2)["cards"] == ["A4", "D6"] and column(after4, 1, 2)["value"] == 12
    assert "D7" in KING.view(after4, 0)["hand"] and "A7" in KING.view(after4, 1)["hand"]
    final = replay(script, 5)
    assert "D8" in KING.view(final, 1)["hand"] and "A8" in KING.view(final, 0)["hand"]
    assert "ARTISAN" not in KING.view(final, 1)["hand"]
    assert column(out, 1, 2) == {
        "open": True,
        "value": 12,
        "cards": ["A4", "D6"],
        "roles": ["attacker", "defender"],
        "castle": None,
    }
    summary = out["summary"]
    assert summary["discard"] == ["ARTISAN", "JUDGE"] and summary["pile"] == 31
    assert summary["hand_sizes"] == [5, 5] and summary["turn"] == 3 and out["to_act"] == 1


def test_example_10_6_a_siege_reveals_the_king() -> None:
    script, out = example(6)
    assert oks(out) == [True, True, True, True, True]
    after3 = replay(script, 3)
    assert column(after3, 1, 1)["cards"] == ["A8"] and column(after3, 1, 1)["value"] == 2
    assert out["result"] == {"winners": [0], "reason": "king_revealed"}
    assert out["to_act"] is None and out["legal"] == []
    summary = out["summary"]
    assert summary["phase"] == "over"
    assert column(out, 1, 1) == {
        "open": True,
        "value": -1,
        "cards": ["A8", "A3"],
        "roles": ["attacker", "attacker"],
        "castle": "KING",
    }
    assert column(out, 0, 0)["castle"] == "KING" and column(out, 0, 1)["castle"] == "THRONE"
    assert summary["hand_sizes"] == [4, 5] and summary["pile"] == 33 and summary["turn"] == 2


def test_the_same_script_prints_the_same_output() -> None:
    path = SCRIPTS / "example_10_4.json"
    assert run_file(path).stdout == run_file(path).stdout


def test_an_unstacked_script_deals_from_the_seed() -> None:
    script = {
        "game": "king",
        "seats": 2,
        "seed": 9,
        "actions": [
            {"seat": 0, "action": {"type": "arrange", "order": ["THRONE", "KING", "THRONE"]}},
            {"seat": 1, "action": {"type": "arrange", "order": ["THRONE", "THRONE", "KING"]}},
        ],
    }
    out = run_script(script)
    assert out == run_script(script)
    assert out["summary"]["hand_sizes"] == [5, 5] and out["summary"]["pile"] == 35
    assert out["to_act"] == out["summary"]["first"] and out["legal"]
    assert out["summary"]["first"] in (0, 1)


BASE: dict[str, Any] = {"game": "king", "seats": 2, "options": {}, "seed": 1, "actions": []}


@pytest.mark.parametrize(
    "changes",
    [
        {"seats": 3},
        {"seats": 1},
        {"options": {"jokers": True}},
        {"options": {"specials": "true"}},
        {"stack": {"dealer": 0}},
        {"stack": {"pile": ["KING"]}},
        {"stack": {"pile": ["THRONE"]}},
        {"options": {"specials": False}, "stack": {"pile": ["SORC"]}},
        {"stack": {"pile": ["A8", "A8", "A8"]}},
        {"stack": {"hands": [["A1"], ["A2"], []]}},
        {"stack": {"hands": [["A1", "A2", "A3", "A4", "A5", "A6"], []]}},
        {"stack": {"hands": [["ASSASSIN"], []]}},
        {"stack": {"first": 2}},
        {"stack": {"first": "1"}},
    ],
)
def test_malformed_scripts_are_refused(changes: dict[str, Any]) -> None:
    with pytest.raises(MalformedScript):
        run_script({**BASE, **changes})


def test_a_malformed_script_exits_2_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**BASE, "stack": {"hands": [["ASSASSIN"], []]}}), encoding="utf-8")
    done = run_file(path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "malformed script" in done.stderr
