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


# -- Malformed scripts that used to crash or pass (issue 12, defect 8) -------------------------
# Every case must end like any malformed script: status 2, nothing on stdout, exactly one line
# on stderr and never a traceback. ``named`` is a word that line must contain.


def assert_one_line_malformed(proc: subprocess.CompletedProcess[str], named: str | None) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert proc.stdout == ""
    assert proc.stderr.startswith("malformed script: "), proc.stderr
    assert proc.stderr.endswith("\n")
    assert proc.stderr.count("\n") == 1
    if named is not None:
        assert named in proc.stderr


def script_of(game: str, **keys: Any) -> str:
    return json.dumps({"game": game, "seats": 2, **keys})


DEEP = 100_000

ROBUSTNESS: dict[str, tuple[str, str | None]] = {
    # Nesting deeper than the JSON reader (or anything after it) can follow.
    "deep_array": ("[" * DEEP, "nested"),
    "deep_array_closed": ("[" * DEEP + "]" * DEEP, "nested"),
    "deep_object": ('{"a": ' * DEEP, "nested"),
    "deep_in_an_action": (
        '{"game": "castles", "seats": 2, "actions": [{"seat": 1, "action": {"type": "lay", '
        '"card": ' + "[" * DEEP + "]" * DEEP + "}}]}",
        "nested",
    ),
    "deep_in_the_stack": (
        '{"game": "king", "seats": 2, "stack": {"pile": ' + "[" * DEEP + "]" * DEEP + "}}",
        "nested",
    ),
    # A number too long for Python to read is not a crash either; NaN and Infinity are not JSON.
    "five_thousand_digit_seed": (
        '{"game": "castles", "seats": 2, "seed": ' + "9" * 5000 + "}",
        "digits",
    ),
    "nan_in_an_action": (
        '{"game": "castles", "seats": 2, "actions": [{"seat": 1, "action": '
        '{"type": "attack", "pos": NaN}}]}',
        "NaN",
    ),
    "infinity_as_a_die": ('{"game": "castles", "seats": 2, "stack": {"dice": [Infinity]}}', None),
    # Steps that are not {"seat": n, "action": {...}} objects.
    "action_entry_null": (script_of("castles", actions=[None]), None),
    "action_entry_number": (script_of("castles", actions=[1]), None),
    "action_entry_list": (script_of("castles", actions=[[1, {"type": "draw"}]]), None),
    "action_is_a_list": (script_of("king", actions=[{"seat": 0, "action": ["arrange"]}]), None),
    "action_is_null": (script_of("knights", actions=[{"seat": 1, "action": None}]), None),
    "step_seat_float": (script_of("castles", actions=[{"seat": 1.0, "action": DRAW}]), None),
    "step_seat_true": (script_of("castles", actions=[{"seat": True, "action": DRAW}]), None),
    # Top-level whole numbers given as floats, booleans or null.
    "seats_float": (json.dumps({"game": "castles", "seats": 2.0}), None),
    "seats_true": (json.dumps({"game": "king", "seats": True}), None),
    "seed_float": (script_of("castles", seed=1.0), "seed"),
    "seed_null": (script_of("knights", seed=None), "seed"),
    "options_null": (script_of("castles", options=None), "options"),
    "stack_null": (script_of("knights", stack=None), "stack"),
}

STACK_VALUES: dict[str, tuple[str, str | None]] = {
    # Castles: every stack key, null and the wrong kinds of number (castles.md section 4).
    "castles_dealer_null": (script_of("castles", stack={"dealer": None}), "dealer"),
    "castles_dealer_float": (script_of("castles", stack={"dealer": 1.0}), "dealer"),
    "castles_dealer_true": (script_of("castles", stack={"dealer": True}), "dealer"),
    "castles_dealer_string": (script_of("castles", stack={"dealer": "0"}), "dealer"),
    "castles_dealer_null_with_option": (
        script_of("castles", options={"dealer": 0}, stack={"dealer": None}),
        "dealer",
    ),
    "castles_hands_null": (script_of("castles", stack={"hands": None}), "hands"),
    "castles_hands_empty": (script_of("castles", stack={"hands": []}), "hands"),
    "castles_hand_null": (script_of("castles", stack={"hands": [None, []]}), "hands"),
    "castles_pile_null": (script_of("castles", stack={"pile": None}), "pile"),
    "castles_pile_number": (script_of("castles", stack={"pile": [1.0]}), None),
    "castles_dice_null": (script_of("castles", stack={"dice": None}), "dice"),
    "castles_die_float": (script_of("castles", stack={"dice": [6, 1.0]}), "dice"),
    "castles_die_true": (script_of("castles", stack={"dice": [True]}), "dice"),
    "castles_die_null": (script_of("castles", stack={"dice": [None]}), "dice"),
    "castles_option_dealer_float": (script_of("castles", options={"dealer": 1.0}), "dealer"),
    "castles_option_dealer_true": (script_of("castles", options={"dealer": True}), "dealer"),
    # Siege the King (king.md section 4): "`1.0` and `true` are malformed".
    "king_first_float": (script_of("king", stack={"first": 1.0}), "first"),
    "king_first_zero_float": (script_of("king", stack={"first": 0.0}), "first"),
    "king_first_true": (script_of("king", stack={"first": True}), "first"),
    "king_first_false": (script_of("king", stack={"first": False}), "first"),
    "king_first_null": (script_of("king", stack={"first": None}), "first"),
    "king_first_list": (script_of("king", stack={"first": [1]}), "first"),
    "king_hands_null": (script_of("king", stack={"hands": None}), "hands"),
    "king_hand_null": (script_of("king", stack={"hands": [[], None]}), None),
    "king_pile_null": (script_of("king", stack={"pile": None}), "pile"),
    "king_pile_number": (script_of("king", stack={"pile": [5]}), None),
    "king_option_specials_one": (script_of("king", options={"specials": 1}), "specials"),
    "king_option_specials_null": (script_of("king", options={"specials": None}), "specials"),
    # Siege (knights.md section 4): no options and no stack key at all, null or not.
    "knights_stack_key_null": (script_of("knights", stack={"first": None}), "first"),
    "knights_option_null": (script_of("knights", options={"variant": None}), "variant"),
}


@pytest.mark.parametrize("case", sorted(ROBUSTNESS))
def test_script_that_cannot_be_played_exits_2_without_a_traceback(case: str) -> None:
    text, named = ROBUSTNESS[case]
    assert_one_line_malformed(run("-", stdin=text), named)


@pytest.mark.parametrize("case", sorted(STACK_VALUES))
def test_malformed_stack_or_option_value_exits_2(case: str) -> None:
    text, named = STACK_VALUES[case]
    assert_one_line_malformed(run("-", stdin=text), named)


def test_deeply_nested_file_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * DEEP, encoding="utf-8")
    assert_one_line_malformed(run(str(path)), "nested")


def test_file_that_is_not_utf8_exits_2(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"game": "castles", "seats": 2, "seed": 1, "options": {"caf\xe9": 1}}')
    assert_one_line_malformed(run(str(path)), "UTF-8")


def test_stdin_that_is_not_utf8_exits_2() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "engine.script", "-"],
        cwd=ROOT,
        input=b'{"game": "\xff"}',
        capture_output=True,
        timeout=60,
        check=False,
    )
    text = subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode("utf-8", "replace")
    )
    assert_one_line_malformed(text, "UTF-8")


@pytest.mark.parametrize(
    ("game", "stack"),
    [
        ("castles", {"dealer": 1}),
        ("castles", {"dealer": 0, "hands": [[], []], "pile": [], "dice": []}),
        ("king", {"first": 0}),
        ("king", {"first": 1, "hands": [[], []], "pile": []}),
        ("knights", {}),
    ],
)
def test_well_formed_stack_values_are_still_accepted(game: str, stack: dict[str, Any]) -> None:
    out = run_script({"game": game, "seats": 2, "stack": stack})
    assert out["result"] is None
    assert out["legal"]
