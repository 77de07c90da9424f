"""``python -m engine.verify`` on files that are not full exports: a hand-written script, an
action the rules refuse, and a file that is not a script at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.verify import main, verify

SCRIPT = {
    "game": "kurth",
    "seats": 1,
    "options": {},
    "seed": 1,
    "actions": [{"seat": 0, "action": {"type": "move", "to": "armory"}}],
}


def test_a_script_without_commitment_or_log_is_replayed_and_says_what_it_lacks() -> None:
    verdict = verify(SCRIPT)
    assert verdict.ok
    text = verdict.text()
    assert "no commitment" in text and "1 move played again" in text
    assert "no record of the opening deal" in text and "no record of the final state" in text


def test_an_action_the_rules_refuse_fails_verification() -> None:
    forged = {**SCRIPT, "actions": [{"seat": 0, "action": {"type": "move", "to": "temple"}}]}
    verdict = verify(forged)
    assert not verdict.ok and "move 1 is refused by the rules" in verdict.text()


def test_a_file_that_is_not_a_script_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.json"
    path.write_text("[1, 2")
    assert main([str(path)]) == 2
    assert "not a game export" in capsys.readouterr().err
    assert main([]) == 2
