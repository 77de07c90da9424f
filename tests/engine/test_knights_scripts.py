"""The worked examples of ``../shared/spec/knights.md`` section 10, run through the script runner
as a subprocess (``tests/scripts/knights/example_10_N.json``), and the malformed scripts of
section 4."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).parents[2]
SCRIPTS = ROOT / "tests" / "scripts" / "knights"


def run(path: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.script", path],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def output_of(n: int) -> dict[str, Any]:
    done = run(str(SCRIPTS / f"example_10_{n}.json"))
    assert done.returncode == 0, done.stderr
    out: dict[str, Any] = json.loads(done.stdout)
    return out


def moves(pairs: str) -> list[dict[str, str]]:
    """``"b0-a2 b0-d1"`` as legal-list entries."""
    return [{"type": "move", "from": p.split("-")[0], "to": p.split("-")[1]} for p in pairs.split()]


def test_example_10_1_opening_and_a_restricted_turn() -> None:
    out = output_of(1)
    assert [s["ok"] for s in out["steps"]] == [True, True, False, True]
    assert out["steps"][2]["error"] == (
        "In your first four turns you must move a Defender off its dot."
    )
    assert out["steps"][1]["events"][0]["notation"] == "Nd0-c2"
    assert out["to_act"] == 0
    assert out["result"] is None
    assert out["summary"] == {
        "pieces": {
            "b0": "N", "c2": "N", "e0": "N", "g0": "N",
            "c5": "D", "d5": "D", "e5": "D", "f6": "D", "d6": "C",
        },
        "captured": {"knights": 0, "defenders": 0},
        "special_turns_left": 3,
        "restricted": False,
        "plies_since_capture": 2,
    }  # fmt: skip
    # b0 → c2 is gone: a Knight stands there.
    assert out["legal"] == moves(
        "b0-a2 b0-d1 c2-a3 c2-b4 c2-d4 c2-e3 e0-c1 e0-d2 e0-f2 e0-g1 g0-e1 g0-f2 g0-h2"
    )


def test_example_10_2_a_threat_frees_a_special_turn() -> None:
    out = output_of(2)
    assert [s["ok"] for s in out["steps"]] == [True] * 5
    assert out["steps"][2]["events"][0]["restricted"] is True  # f6 → g6 obeyed the rule
    free = out["steps"][4]["events"][0]
    assert free["notation"] == "Cd6-e6" and free["restricted"] is False
    assert free["special_turn"] == 2
    assert out["to_act"] == 0
    assert out["result"] is None
    assert out["summary"] == {
        "pieces": {
            "b0": "N", "b4": "N", "e0": "N", "g0": "N",
            "c6": "D", "d5": "D", "e5": "D", "g6": "D", "e6": "C",
        },
        "captured": {"knights": 0, "defenders": 0},
        "special_turns_left": 2,
        "restricted": False,
        "plies_since_capture": 4,
    }  # fmt: skip


def test_example_10_3_knights_outside_into_and_inside_the_castle() -> None:
    out = output_of(3)
    ok = [True, True, True, True, True, False, False, True, True, False, False, True]
    assert [s["ok"] for s in out["steps"]] == ok
    for step in (5, 6, 9, 10):
        assert out["steps"][step]["error"].startswith("That piece cannot move there.")
    assert "forward" in out["steps"][5]["error"]
    assert "never leave" in out["steps"][9]["error"]
    assert out["to_act"] == 1
    assert out["result"] is None
    assert out["summary"] == {
        "pieces": {
            "b0": "N", "c4": "N", "d0": "N", "e0": "N",
            "b6": "D", "d5": "D", "f6": "D", "g5": "D", "d6": "C",
        },
        "captured": {"knights": 0, "defenders": 0},
        "special_turns_left": 1,
        "restricted": False,
        "plies_since_capture": 7,
    }  # fmt: skip
    # The Defender on d5 could capture the Knight on c4 diagonally.
    assert {"type": "move", "from": "d5", "to": "c4"} in out["legal"]


def test_example_10_4_the_commander_is_captured() -> None:
    out = output_of(4)
    assert [s["ok"] for s in out["steps"]] == [True, True, True, True, False, True, True]
    assert out["steps"][6]["events"][0]["notation"] == "Nd4xe6"
    assert out["steps"][6]["events"][0]["captured"] == "C"
    assert out["to_act"] is None
    assert out["legal"] == []
    assert out["result"] == {"winners": [0], "reason": "commander_captured"}
    assert out["summary"] == {
        "pieces": {
            "b0": "N", "e0": "N", "g0": "N", "e6": "N",
            "c6": "D", "d5": "D", "f5": "D", "g6": "D",
        },
        "captured": {"knights": 0, "defenders": 0},
        "special_turns_left": 2,
        "restricted": False,
        "plies_since_capture": 0,
    }  # fmt: skip


def test_example_scripts_are_the_spec_scripts() -> None:
    # Each saved file is a complete script in the spec's shape: no stack, seed 0, no options.
    for n in (1, 2, 3, 4):
        script = json.loads((SCRIPTS / f"example_10_{n}.json").read_text(encoding="utf-8"))
        assert set(script) == {"game", "seats", "options", "seed", "actions"}
        assert (script["game"], script["seats"], script["options"]) == ("knights", 2, {})


@pytest.mark.parametrize(
    "changes",
    [{"seats": 3}, {"options": {"variant": 1}}, {"stack": {"dice": [6]}}],
)
def test_malformed_scripts_exit_2(changes: dict[str, Any]) -> None:
    script = {"game": "knights", "seats": 2, "options": {}, "seed": 0, "actions": []} | changes
    done = run("-", stdin=json.dumps(script))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("malformed script:")
    assert len(done.stderr.strip().splitlines()) == 1


def test_empty_stack_and_placement_legal() -> None:
    script = {"game": "knights", "seats": 2, "options": {}, "seed": 5, "stack": {}, "actions": []}
    done = run("-", stdin=json.dumps(script))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["to_act"] == 1
    assert out["legal"] == [
        {"type": "place_commander", "square": "d6"},
        {"type": "place_commander", "square": "e6"},
    ]
