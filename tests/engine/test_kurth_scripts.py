"""The worked examples of ``../shared/spec/kurth.md`` section 10, run through the script runner
``python -m engine.script FILE`` as a subprocess, asserting what the spec's text states; then the
malformed scripts of section 4.

The runner only prints the final state, so "before any action" and "after step n" statements are
checked by replaying the first n actions in-process exactly as the runner does
(``chance.deal`` then ``chance.advance`` for each accepted action: engine/chance.py), with
``engine.kurth`` imported directly. The subprocess tests need ``kurth`` in the registry
(``engine/__init__.py``); the replays do not.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import chance
from engine.kurth import GAME, LOCATIONS
from engine.rules import RuleError, State

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "scripts" / "kurth"


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


def load(name: str) -> dict[str, Any]:
    script: dict[str, Any] = json.loads((SCRIPTS / f"{name}.json").read_text(encoding="utf-8"))
    return script


def example(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The script ``name`` and the runner's output for it."""
    done = run(str(SCRIPTS / f"{name}.json"))
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return load(name), json.loads(done.stdout)


def replay(script: dict[str, Any], steps: int) -> State:
    """The state after the first ``steps`` actions, as the runner plays them (a refused action
    changes nothing and uses no ply)."""
    seed = script["seed"]
    state = chance.deal(GAME, script["seats"], script["options"], seed, script.get("stack", {}))
    ply = 0
    for entry in script["actions"][:steps]:
        try:
            state, _ = chance.advance(GAME, state, entry["seat"], entry["action"], seed, ply)
        except RuleError:
            continue
        ply += 1
    return state


def oks(output: dict[str, Any]) -> list[bool]:
    return [step["ok"] for step in output["steps"]]


def only(markers: dict[str, int], **nonzero: int) -> bool:
    """The markers are exactly ``nonzero``, every other location 0."""
    return markers == {key: nonzero.get(key, 0) for key in LOCATIONS}


def ward_all() -> list[dict[str, Any]]:
    return [{"type": "cast", "spell": "ward_of_stone", "location": key} for key in LOCATIONS]


def legal_set(legal: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(a, sort_keys=True) for a in legal)


def test_every_example_of_section_10_has_a_script() -> None:
    assert sorted(p.stem for p in SCRIPTS.glob("*.json")) == [
        "example_10_1",
        "example_10_2",
        "example_10_2_variant",
        "example_10_3",
        "example_10_4",
        "example_10_5",
        "example_10_5_normal",
    ]


# -- Example 1: a first turn, and the passage ------------------------------------------------


def test_example_1_before_any_action() -> None:
    state = replay(load("example_10_1"), 0)
    s = GAME.summary(state)
    assert (s["turn"], s["phase"], s["cards"]) == (1, "move", ["K1", "K6", "K9"])
    assert (s["reinforcements"], s["bonus_strength"], s["mana_boost"]) == (6, 4, 2)
    assert only(s["markers"], main_gate=6, armory=6)
    assert (s["mana"], s["pile"]) == (8, 9)
    assert GAME.legal_actions(state, 0) == [
        {"type": "move", "to": "wardens_hall"},
        {"type": "move", "to": "armory"},
        {"type": "move", "to": "merchant_quarter"},
        {"type": "special", "name": "forced_march"},
        {"type": "special", "name": "arcane_surge"},
        {"type": "cast", "spell": "mistwalk"},
    ]


def test_example_1_steps() -> None:
    script = load("example_10_1")
    s = GAME.summary(replay(script, 1))
    assert (s["location"], s["phase"], s["strength"]) == ("armory", "attack", 8)
    assert s["markers"]["armory"] == 6
    s = GAME.summary(replay(script, 2))
    assert s["mana"] == 4
    assert replay(script, 2)["bonus"] == 4
    s = GAME.summary(replay(script, 3))
    assert s["roll"] == {"dice": [3, 3], "bonus": 4, "total": 10, "strength": 8, "won": True}
    assert s["markers"]["armory"] == 2 and s["passage_open"] is True and s["phase"] == "done"


def test_example_1_through_the_runner() -> None:
    _script, out = example("example_10_1")
    assert oks(out) == [True, True, True, True]
    assert out["to_act"] == 0 and out["result"] is None
    s = out["summary"]
    assert (s["turn"], s["round"], s["phase"], s["location"]) == (2, 1, "move", "armory")
    assert s["cards"] == ["K2", "K3", "K4"]
    assert (s["reinforcements"], s["bonus_strength"], s["mana_boost"]) == (3, 2, 4)
    assert (s["mana"], s["pile"], s["passage_open"]) == (8, 6, True)
    assert only(s["markers"], armory=2, merchant_quarter=3, main_gate=6, temple=3)
    assert s["strength"] == 4 and s["roll"] is None
    assert len(out["legal"]) == 17
    moves = [a["to"] for a in out["legal"] if a["type"] == "move"]
    assert sorted(moves) == sorted(
        ["merchant_quarter", "main_gate", "temple", "granary", "citadel", "wardens_hall"]
    )
    assert "barracks" not in moves  # a hop alone is no move
    assert [a["name"] for a in out["legal"] if a["type"] == "special"] == [
        "hold_fast",
        "counter_march",
        "meditate",
    ]
    assert [a for a in out["legal"] if a["type"] == "cast"] == ward_all()


# -- Example 2: 5 markers = A/S 3 ------------------------------------------------------------------


def test_example_2_steps() -> None:
    script = load("example_10_2")
    s = GAME.summary(replay(script, 0))
    assert (s["reinforcements"], s["bonus_strength"], s["mana_boost"]) == (5, 3, 2)
    assert only(s["markers"], main_gate=5, merchant_quarter=5) and s["mana"] == 8
    s = GAME.summary(replay(script, 1))
    assert s["phase"] == "attack" and s["strength"] == 6


def test_example_2_through_the_runner() -> None:
    _script, out = example("example_10_2")
    assert oks(out) == [True, True]
    s = out["summary"]
    assert (s["phase"], s["spirit"], s["mana"], s["passage_open"]) == ("done", 10, 8, False)
    assert s["markers"]["merchant_quarter"] == 5
    assert s["roll"] == {"dice": [2, 3], "bonus": 0, "total": 5, "strength": 6, "won": False}
    assert legal_set(out["legal"]) == legal_set(
        [{"type": "end_turn"}, {"type": "special", "name": "arcane_surge"}, *ward_all()]
    )
    assert out["result"] is None


def test_example_2_variant_with_flame_lance() -> None:
    _script, out = example("example_10_2_variant")
    assert oks(out) == [True, True, True]
    s = out["summary"]
    assert (s["mana"], s["spirit"], s["markers"]["merchant_quarter"]) == (6, 12, 3)
    assert s["roll"] == {"dice": [2, 3], "bonus": 2, "total": 7, "strength": 6, "won": True}
    assert s["strength"] == 5
    assert out["legal"] == [{"type": "end_turn"}, {"type": "special", "name": "arcane_surge"}]


# -- Example 3: protection, an "or" card on a protected location, Banish ----------------------


def test_example_3_steps() -> None:
    script = load("example_10_3")
    s = GAME.summary(replay(script, 0))
    assert (s["reinforcements"], s["bonus_strength"], s["mana_boost"]) == (3, 3, 2)
    assert only(s["markers"], merchant_quarter=3, citadel=3) and s["mana"] == 8
    s = GAME.summary(replay(script, 1))
    assert s["mana"] == 5 and s["protected"] == ["main_gate"]
    s = GAME.summary(replay(script, 2))
    assert s["location"] == "armory" and s["phase"] == "done"
    s = GAME.summary(replay(script, 3))
    assert s["spirit"] == 10 and s["protected"] == ["armory", "main_gate"]
    s = GAME.summary(replay(script, 4))
    assert (s["turn"], s["cards"]) == (2, ["K9", "K10", "K4"])
    assert (s["reinforcements"], s["bonus_strength"], s["mana_boost"]) == (4, 4, 3)
    assert s["placed"] == [
        {"location": "main_gate", "added": 0},
        {"location": "armory", "added": 0},
    ]
    assert s["protected"] == [] and s["mana"] == 8
    assert only(s["markers"], merchant_quarter=3, citadel=3)
    s = GAME.summary(replay(script, 5))
    assert s["phase"] == "attack" and s["strength"] == 6
    s = GAME.summary(replay(script, 6))
    assert s["mana"] == 4 and s["markers"]["merchant_quarter"] == 1 and s["strength"] == 5


def test_example_3_through_the_runner() -> None:
    _script, out = example("example_10_3")
    assert oks(out) == [True] * 7
    s = out["summary"]
    assert s["roll"] == {"dice": [6, 6], "bonus": 0, "total": 12, "strength": 5, "won": True}
    assert (s["turn"], s["phase"], s["spirit"], s["mana"]) == (2, "done", 10, 4)
    assert only(s["markers"], citadel=3)
    assert s["passage_open"] is True
    assert s["spells_cast_this_turn"] == ["banish"]
    assert out["legal"] == [{"type": "end_turn"}, {"type": "special", "name": "meditate"}]


# -- Example 4: Fate's Favor after Arcane Surge ---------------------------------------------------


def test_example_4_steps() -> None:
    script = load("example_10_4")
    s = GAME.summary(replay(script, 0))
    assert (s["reinforcements"], s["bonus_strength"], s["mana_boost"]) == (5, 3, 2)
    assert only(s["markers"], armory=5, barracks=5) and s["mana"] == 8
    s = GAME.summary(replay(script, 1))
    assert s["strength"] == 6
    s = GAME.summary(replay(script, 2))
    assert s["mana"] == 6
    s = GAME.summary(replay(script, 3))
    assert s["roll"] == {"dice": [1, 2], "bonus": 2, "total": 5, "strength": 6, "won": False}
    assert s["spirit"] == 10
    assert replay(script, 4)["dice"] == [6]  # the refused Fate's Favor rolled nothing
    s = GAME.summary(replay(script, 5))
    assert s["spirit"] == 9 and s["special_used"] == "arcane_surge"


def test_example_4_through_the_runner() -> None:
    _script, out = example("example_10_4")
    assert oks(out) == [True, True, True, False, True, True]
    assert out["steps"][3]["error"]
    s = out["summary"]
    assert (s["phase"], s["spirit"], s["mana"]) == ("done", 11, 5)
    assert only(s["markers"], armory=1, barracks=5)
    assert s["roll"] == {"dice": [6, 2], "bonus": 2, "total": 10, "strength": 6, "won": True}
    assert s["passage_open"] is False
    assert s["spells_cast_this_turn"] == ["flame_lance", "fates_favor"]
    assert s["special_used"] == "arcane_surge"
    assert out["legal"] == [{"type": "end_turn"}]


# -- Example 5: overrun on advanced ---------------------------------------------------------------


def test_example_5_steps() -> None:
    script = load("example_10_5")
    s = GAME.summary(replay(script, 0))
    assert s["reinforcements"] == 4 and s["overrun"] == 1
    assert only(s["markers"], merchant_quarter=8)
    s = GAME.summary(replay(script, 2))
    assert s["turn"] == 2 and s["reinforcements"] == 4
    assert only(s["markers"], merchant_quarter=8, wardens_hall=4, barracks=4)
    s = GAME.summary(replay(script, 4))
    assert s["turn"] == 3 and s["overrun"] == 3
    assert only(s["markers"], merchant_quarter=8, wardens_hall=8, barracks=8)


def test_example_5_through_the_runner() -> None:
    _script, out = example("example_10_5")
    assert oks(out) == [True] * 6
    assert out["to_act"] is None and out["legal"] == []
    assert out["result"] == {"winners": [], "reason": "overrun", "scores": [0]}
    s = out["summary"]
    assert (s["turn"], s["round"], s["phase"]) == (3, 1, "over")
    assert (s["spirit"], s["mana"], s["overrun"]) == (12, 14, 3)
    assert only(s["markers"], wardens_hall=8, merchant_quarter=8, barracks=8)


def test_example_5_on_normal_goes_on_to_turn_four() -> None:
    _script, out = example("example_10_5_normal")
    assert oks(out) == [True] * 6
    assert out["result"] is None and out["to_act"] == 0
    assert out["summary"]["turn"] == 4 and out["summary"]["phase"] == "move"


def test_the_same_script_prints_the_same_output() -> None:
    first = run(str(SCRIPTS / "example_10_1.json"))
    second = run(str(SCRIPTS / "example_10_1.json"))
    assert first.returncode == 0 and first.stdout == second.stdout


def test_a_game_played_to_its_end_through_the_runner() -> None:
    """A whole game with no stack: the first legal action every time, as a script."""
    script: dict[str, Any] = {"game": "kurth", "seats": 1, "options": {}, "seed": 99}
    state = replay({**script, "actions": []}, 0)
    actions = []
    while GAME.to_act(state) is not None:
        action = GAME.legal_actions(state, 0)[0]
        actions.append({"seat": 0, "action": action})
        state, _ = chance.advance(GAME, state, 0, action, 99, len(actions) - 1)
    done = run("-", stdin=json.dumps({**script, "actions": actions}))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert all(oks(out))
    result = GAME.result(state)
    assert result is not None and out["result"] == result.to_json()
    assert out["summary"] == GAME.summary(state)


# -- Section 4: malformed scripts exit 2 -------------------------------------------------------


def kurth_script(**keys: Any) -> str:
    return json.dumps({"game": "kurth", "seats": 1, "seed": 1, **keys})


MALFORMED: dict[str, tuple[str, str | None]] = {
    "two_seats": (kurth_script(seats=2), "Siege at Kurth"),
    "no_seats": (kurth_script(seats=0), "Siege at Kurth"),
    "unknown_option": (kurth_script(options={"variant": "x"}), "variant"),
    "bad_difficulty": (kurth_script(options={"difficulty": "hard"}), "difficulty"),
    "unknown_stack_key": (kurth_script(stack={"hands": [[]]}), "hands"),
    "pile_not_a_card": (kurth_script(stack={"pile": ["K13"]}), "K13"),
    "pile_null": (kurth_script(stack={"pile": None}), "pile"),
    "pile_twice": (kurth_script(stack={"pile": ["K4", "K4"]}), "twice"),
    "die_seven": (kurth_script(stack={"dice": [7]}), "dice"),
    "die_float": (kurth_script(stack={"dice": [2.0]}), "dice"),
    "die_true": (kurth_script(stack={"dice": [True]}), "dice"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_script_exits_2_with_one_line(case: str) -> None:
    text, named = MALFORMED[case]
    done = run("-", stdin=text)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("malformed script: ") and done.stderr.count("\n") == 1
    if named is not None:
        assert named in done.stderr


def test_refused_actions_are_answered_and_the_script_goes_on() -> None:
    text = kurth_script(
        actions=[
            {"seat": 0, "action": {"type": "end_turn"}},
            {"seat": 1, "action": {"type": "move", "to": "armory"}},
            {"seat": 0, "action": {"type": "move", "to": "temple"}},
            {"seat": 0, "action": {"type": "move", "to": "armory"}},
        ]
    )
    done = run("-", stdin=text)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert oks(out) == [False, False, False, True]
    assert all(step["error"] for step in out["steps"][:3])
    assert out["summary"]["location"] == "armory"
