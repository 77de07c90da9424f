"""Scenario tests through the script runner, ``python -m engine.script FILE``.

Every worked example of ``/work/shared/spec/castles.md`` section 10 runs as a subprocess and its
output is checked against the spec's text: each step's ``ok``, ``to_act``, the exact ``legal``
list, the ``summary`` and the ``result``. Intermediate claims of an example ("after step 4 the
rows are ...") are checked in-process with :func:`engine.script.run_script` on a prefix of the
script, which keeps the subprocess count small.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine.cards import DECK52
from engine.script import run_script

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "tests" / "scripts" / "castles"

DRAW = {"type": "draw"}


def lay(card: str) -> dict[str, Any]:
    return {"type": "lay", "card": card}


def attack(pos: int) -> dict[str, Any]:
    return {"type": "attack", "pos": pos}


def run(arg: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.script", arg],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def run_ok(arg: str, stdin: str | None = None) -> dict[str, Any]:
    proc = run(arg, stdin)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    output: dict[str, Any] = json.loads(proc.stdout)
    return output


def example(name: str) -> dict[str, Any]:
    script: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    return script


def after_steps(script: dict[str, Any], count: int) -> dict[str, Any]:
    """The runner's output for the first ``count`` actions of a script (in-process)."""
    return run_script({**script, "actions": script["actions"][:count]})


def last_attack(
    seat: int, pos: int, target: str, needed: int, dice: list[int], hit: bool
) -> dict[str, Any]:
    return {"seat": seat, "pos": pos, "target": target, "needed": needed, "dice": dice, "hit": hit}


# -- Section 10 examples -----------------------------------------------------------------------


def test_example_10_1_two_attacking_ten_needs_eight() -> None:
    out = run_ok(str(EXAMPLES / "example_10_1.json"))
    assert [step["ok"] for step in out["steps"]] == [True] * 6
    assert out["to_act"] == 1
    assert out["result"] is None
    assert out["summary"] == {
        "dealer": 0,
        "rows": [["2H"], []],
        "hits": [0, 0],
        "hand_sizes": [6, 8],
        "pile": 36,
        "discard": 1,
        "quiet_turns": 0,
        "last_attack": last_attack(0, 0, "card", 8, [5, 3], True),
    }
    assert out["legal"] == [
        DRAW,
        *(lay(c) for c in ["AD", "3D", "4D", "6H", "7C", "8C", "9H", "QS"]),
    ]

    script = example("example_10_1")
    first = after_steps(script, 1)
    assert first["summary"]["rows"] == [[], ["TS"]]
    assert first["to_act"] == 0
    second = after_steps(script, 2)
    assert second["summary"]["rows"] == [["2H"], ["TS"]]
    assert second["to_act"] == 1
    assert attack(0) in second["legal"]  # TS now faces 2H
    third = after_steps(script, 3)
    assert third["summary"]["pile"] == 37
    assert third["legal"][-1] == attack(0)  # seat 0 may now attack with 2H
    missed = after_steps(script, 4)
    assert missed["summary"]["last_attack"] == last_attack(0, 0, "card", 8, [4, 3], False)
    assert missed["summary"]["rows"] == [["2H"], ["TS"]]
    assert missed["summary"]["discard"] == 0


def test_example_10_2_unblocked_attacks_and_closing_the_gap() -> None:
    out = run_ok(str(EXAMPLES / "example_10_2.json"))
    assert [step["ok"] for step in out["steps"]] == [True] * 10
    assert out["to_act"] == 0
    assert out["result"] is None
    assert out["summary"] == {
        "dealer": 1,
        "rows": [[], ["9D"]],
        "hits": [1, 0],
        "hand_sizes": [8, 5],
        "pile": 36,
        "discard": 2,
        "quiet_turns": 0,
        "last_attack": last_attack(1, 0, "card", 7, [6, 1], True),
    }
    assert out["legal"] == [
        DRAW,
        *(lay(c) for c in ["2D", "2C", "4S", "5H", "7D", "8S", "9C", "JS"]),
    ]

    script = example("example_10_2")
    assert after_steps(script, 4)["summary"]["rows"] == [["KH"], ["5C", "9D"]]
    step6 = after_steps(script, 6)["summary"]
    assert step6["hits"] == [1, 0]
    assert step6["last_attack"] == last_attack(1, 1, "player", 7, [3, 4], True)
    step7 = after_steps(script, 7)["summary"]
    assert step7["last_attack"] == last_attack(0, 0, "card", 7, [2, 4], False)
    assert step7["rows"] == [["KH"], ["5C", "9D"]]
    step8 = after_steps(script, 8)["summary"]
    assert step8["last_attack"] == last_attack(1, 1, "player", 7, [1, 1], False)
    assert step8["hits"] == [1, 0]
    step9 = after_steps(script, 9)
    assert step9["summary"]["last_attack"] == last_attack(0, 0, "card", 7, [6, 5], True)
    assert step9["summary"]["rows"] == [["KH"], ["9D"]]
    # 9D moved to position 0 and faces KH: seat 1 now has exactly one attack, at position 0.
    assert [a for a in step9["legal"] if a["type"] == "attack"] == [attack(0)]


def test_example_10_3_refused_actions() -> None:
    out = run_ok(str(EXAMPLES / "example_10_3.json"))
    oks = [step["ok"] for step in out["steps"]]
    assert oks == [False, False, False, False, True, False, True, False, True]
    errors = [step.get("error") for step in out["steps"]]
    assert errors == [
        "It is not your turn.",
        "You do not hold that card.",
        "You can still act; you may not pass.",
        "You have no card at that position.",
        None,
        "You have no card at that position.",
        None,
        "You have no card at that position.",
        None,
    ]
    assert out["to_act"] == 0
    assert out["result"] is None
    assert out["summary"] == {
        "dealer": 0,
        "rows": [["KS"], ["7C"]],
        "hits": [0, 0],
        "hand_sizes": [6, 6],
        "pile": 38,
        "discard": 0,
        "quiet_turns": 0,
        "last_attack": last_attack(1, 0, "card", 7, [2, 3], False),
    }
    assert out["legal"] == [
        DRAW,
        *(lay(c) for c in ["3C", "5S", "6D", "8D", "TC", "QH"]),
        attack(0),
    ]


def test_example_10_4_a_castle_is_stormed() -> None:
    out = run_ok(str(EXAMPLES / "example_10_4.json"))
    assert [step["ok"] for step in out["steps"]] == [True] * 23 + [False]
    assert out["steps"][23]["error"] == "The game is over."
    assert out["to_act"] is None
    assert out["legal"] == []
    assert out["result"] == {"winners": [1], "reason": "castle_stormed", "scores": [10, 0]}
    summary = out["summary"]
    assert summary["hits"] == [10, 0]
    assert summary["rows"] == [[], ["QD"]]
    assert summary["hand_sizes"] == [18, 6]
    assert summary["pile"] == 27
    assert summary["discard"] == 0
    assert summary["last_attack"] == last_attack(1, 0, "player", 7, [2, 6], True)

    # Rolls 7, 7, 8, 9, 7, 6 (miss), 12, 7, 10, 7, 8: the hits after each attack.
    script = example("example_10_4")
    hits = [after_steps(script, 1 + 2 * n)["summary"]["hits"][0] for n in range(1, 12)]
    assert hits == [1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10]
    before_last = after_steps(script, 21)
    assert before_last["result"] is None
    assert before_last["to_act"] == 0


def test_readme_example_script() -> None:
    """The script of the spec's README: seat 0 deals, seat 1 acts first."""
    out = run_script(
        {
            "game": "castles",
            "seats": 2,
            "options": {},
            "seed": 42,
            "stack": {
                "dealer": 0,
                "hands": [["KS", "2H"], ["7C"]],
                "pile": ["AS", "9D"],
                "dice": [6, 5, 3, 4],
            },
            "actions": [
                {"seat": 1, "action": lay("7C")},
                {"seat": 1, "action": DRAW},
                {"seat": 0, "action": DRAW},
            ],
        }
    )
    assert [step["ok"] for step in out["steps"]] == [True, False, True]
    assert out["steps"][1]["error"] == "It is not your turn."
    assert out["to_act"] == 1
    assert out["result"] is None
    summary = out["summary"]
    assert summary["rows"] == [[], ["7C"]]
    assert summary["hand_sizes"] == [8, 6]
    assert summary["pile"] == 37
    assert out["legal"][0] == DRAW
    assert out["legal"][-1] == attack(0)
    assert len(out["legal"]) == 1 + 6 + 1


# -- Standard input, determinism, refusals -------------------------------------------------


def test_standard_input_dash() -> None:
    text = (EXAMPLES / "example_10_1.json").read_text(encoding="utf-8")
    from_stdin = run("-", stdin=text)
    assert from_stdin.returncode == 0
    assert from_stdin.stderr == ""
    assert json.loads(from_stdin.stdout) == run_script(json.loads(text))


def test_same_script_same_output() -> None:
    # Nothing stacked: the seed alone decides the hands, the pile and the dice.
    script = {
        "game": "castles",
        "seats": 2,
        "options": {"dealer": 0},
        "seed": 77,
        "actions": [
            {"seat": 1, "action": DRAW},
            {"seat": 0, "action": DRAW},
            {"seat": 1, "action": DRAW},
        ],
    }
    text = json.dumps(script)
    first, second = run("-", stdin=text), run("-", stdin=text)
    assert first.returncode == second.returncode == 0
    assert first.stdout == second.stdout
    assert json.loads(first.stdout) == run_script(script)
    assert run_script({**script, "seed": 78})["legal"] != json.loads(first.stdout)["legal"]


def test_refused_action_and_the_script_goes_on() -> None:
    script = {
        "game": "castles",
        "seats": 2,
        "options": {"dealer": 0},
        "seed": 3,
        "stack": {"pile": ["KS"], "dice": [6, 6]},
        "actions": [
            {"seat": 1, "action": {"type": "jump"}},
            {"seat": 1, "action": DRAW},
            {"seat": 0, "action": attack(0)},
            {"seat": 0, "action": {"type": "attack", "pos": "0"}},
            {"seat": 0, "action": DRAW},
        ],
    }
    out = run_ok("-", stdin=json.dumps(script))
    assert [step["ok"] for step in out["steps"]] == [False, True, False, False, True]
    for step in out["steps"]:
        assert ("error" in step) is (not step["ok"])
        if not step["ok"]:
            assert isinstance(step["error"], str)
            assert step["error"]
    assert out["steps"][2]["error"] == "You have no card at that position."
    assert out["summary"]["hand_sizes"] == [8, 8]
    assert out["summary"]["pile"] == 36
    assert out["to_act"] == 1


# -- Malformed scripts: exit 2, one line on stderr, nothing on stdout ------------------------


def malformed(change: dict[str, Any]) -> str:
    """Example 10.1 with some top-level keys replaced (``stack`` keys merged)."""
    script = example("example_10_1")
    for key, value in change.items():
        if key == "stack":
            script["stack"] = {**script["stack"], **value}
        else:
            script[key] = value
    return json.dumps(script)


PILE_39 = [c for c in DECK52 if c not in ("AS", "2S", "3S", "4S", "5S", "6S", "7S")][:39]

MALFORMED: dict[str, tuple[str, str | None]] = {
    "unknown_game": (malformed({"game": "chess"}), "chess"),
    "seats_3": (malformed({"seats": 3}), None),
    "unknown_option": (malformed({"options": {"dealer": 0, "speed": 2}}), "speed"),
    "bad_dealer_option": (malformed({"options": {"dealer": 2}}), "dealer"),
    "unknown_stack_key": (malformed({"stack": {"towers": []}}), "towers"),
    "card_not_in_deck": (malformed({"stack": {"pile": ["3D", "1C"]}}), "1C"),
    "card_named_twice": (malformed({"stack": {"pile": ["3D", "2H"]}}), None),
    "hands_not_two_lists": (malformed({"stack": {"hands": [["2H", "5C"]]}}), None),
    "eight_cards_in_a_hand": (
        malformed({"stack": {"hands": [["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S"], []]}}),
        None,
    ),
    "pile_of_39": (json.dumps({"game": "castles", "seats": 2, "stack": {"pile": PILE_39}}), None),
    "die_of_7": (malformed({"stack": {"dice": [4, 7]}}), None),
    "stack_dealer_contradicts_option": (malformed({"stack": {"dealer": 1}}), None),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_script_exits_2(case: str) -> None:
    text, named = MALFORMED[case]
    proc = run("-", stdin=text)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip()
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.endswith("\n")
    if named is not None:
        assert named in proc.stderr


def test_bad_json_file_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"game": "castles", "seats": 2,', encoding="utf-8")
    proc = run(str(path))
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip()
    assert proc.stderr.count("\n") == 1
