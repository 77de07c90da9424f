"""Terminal play, ``python -m siegehall play`` (issue 15), driven through a pipe.

Each test runs the real command in a subprocess with its standard input prepared: a whole game
against a computer to its end, bad input refused with the sentences a player gets, and the end
of input or ``q`` leaving cleanly with status 0.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import engine

ROOT = Path(__file__).resolve().parents[1]


def play(*args: str, stdin: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    return subprocess.run(
        [sys.executable, "-m", "siegehall", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
        check=False,
    )


def test_a_game_against_the_computer_to_its_end() -> None:
    done = play("king", "--vs", "computer:normal", "--seed", "5", stdin="1\n" * 400)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    out = done.stdout
    assert out.startswith("Siege the King: seat 1 Player, seat 2 Computer (normal)")
    assert "Goodbye" not in out  # the game ended, not the input
    # The end: the table and the result line.
    assert "wins" in out.splitlines()[-1] or "draw" in out.splitlines()[-1].lower()
    assert out.count("Your choice") >= 5


def test_a_solo_game_to_its_end_with_a_hint() -> None:
    done = play("kurth", "--seed", "9", stdin="h\n" + "1\n" * 300)
    assert done.returncode == 0, done.stderr
    assert "The computer would choose " in done.stdout
    assert "Goodbye" not in done.stdout


def test_bad_input_is_refused_and_the_game_goes_on() -> None:
    refused = [
        "0",
        "99",
        "draw",
        "{not json",
        '{"type": "lay", "card": "ZZ"}',
        '{"type": "attack", "pos": 0}',
        '{"type": "fly"}',
    ]
    done = play(
        "castles", "--vs", "computer:easy", "--seed", "3", stdin="\n".join(refused) + "\nq\n"
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.count("That is not one of your choices: type a number from 1 to ") == 3
    assert "That is not a move: type the number of a choice." in out
    # The engine's own sentences, as on Discord.
    assert "You do not hold that card." in out
    assert "You have no card at that position." in out
    assert "That is not a move in Castles Besieged: draw, lay, attack or pass." in out
    assert out.rstrip().endswith("Goodbye: the game was left unfinished (seed 3).")


def test_end_of_input_leaves_cleanly() -> None:
    done = play("towers", "--vs", "computer:hard", "--vs", "computer:easy", "--seed", "2", stdin="")
    assert done.returncode == 0
    assert done.stderr == ""
    assert done.stdout.rstrip().endswith("Goodbye: the game was left unfinished (seed 2).")


def test_hot_seat_shows_only_the_seat_to_act() -> None:
    """Two people at one keyboard: each panel is one seat's view, after a pause to pass over."""
    done = play("castles", "--seats", "2", "--seed", "6", stdin="\n1\n\n1\nq\n")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Player 1, your turn: press Enter" in out or "Player 2, your turn: press Enter" in out
    assert out.count("Your hand") >= 2


def test_bad_arguments_are_one_line_and_status_2() -> None:
    done = play("towers", "--seats", "9", stdin="")
    assert done.returncode == 2
    title = engine.GAMES["towers"].title
    assert done.stderr.strip() == f"python -m siegehall: {title} is played by 2 to 7 seats, not 9."
    done = play("castles", "--vs", "computer:genius", stdin="")
    assert done.returncode == 2
    assert "computer:hard" in done.stderr


def test_choices_read_as_the_panel_offers_them() -> None:
    """Cards of one value are one choice (never a raw action), a second step does not repeat
    its first, and no Discord markup or talk of buttons reaches the terminal (issue 25)."""
    from engine import chance, get_game
    from presentation import get_renderer
    from siegehall.terminal import choices

    castles = get_game("castles")
    hands = [["3H", "3C", "9D", "4S", "KH", "2D", "7C"], []]
    state = chance.deal(castles, 2, {"dealer": 1}, 1, {"hands": hands})
    legal = castles.legal_actions(state, 0)
    offered = choices(get_renderer("castles"), castles.view(state, 0), legal)
    labels = [c.label for c in offered]
    assert len(offered) == len(legal) - 1  # 3♥ and 3♣ are one choice, as on the panel
    assert sum("×2" in label for label in labels) == 1
    assert not any(label.startswith("lay (") for label in labels)

    king = get_game("king")
    state = chance.deal(king, 2, {}, 1, {"first": 0, "hands": [["D1", "D1", "D4", "A3", "A8"], []]})
    while state["to_act"] == 0 and state["phase"] != "play":  # hide the King first
        state, _ = chance.advance(king, state, 0, king.legal_actions(state, 0)[0], 1, 0)
        state, _ = chance.advance(king, state, 1, king.legal_actions(state, 1)[0], 1, 1)
    labels = [
        c.label
        for c in choices(get_renderer("king"), king.view(state, 0), king.legal_actions(state, 0))
    ]
    assert any(label.startswith("Defender 1 → your") for label in labels), labels
    assert not any("×2: Defender" in label for label in labels), labels

    kurth = play("kurth", "--seed", "9", stdin="1\n" * 20 + "q\n")
    assert kurth.returncode == 0, kurth.stderr
    assert "button" not in kurth.stdout.lower() and "`" not in kurth.stdout


def test_the_hint_in_the_terminal_thinks_under_the_bots_cap(monkeypatch: Any) -> None:
    """The terminal's hint gets the same time cap as a computer's move (the bot's
    ``ai.THINKING_SECONDS``): a deadline that is not up at first."""
    from engine import ai
    from siegehall import terminal

    asked: list[dict[str, Any]] = []
    real_hint = ai.hint

    def spy(*args: Any, **kwargs: Any) -> Any:
        asked.append(kwargs)
        return real_hint(*args, **kwargs)

    monkeypatch.setattr(ai, "hint", spy)
    game = engine.GAMES["kurth"]
    answers = iter(["h", "q"])
    table = terminal.Terminal(
        game, [terminal.Seat("Player", None)], 9, {}, io.StringIO(), lambda _: next(answers)
    )
    with pytest.raises(terminal.Quit):
        table.play()
    assert len(asked) == 1
    deadline = asked[0]["deadline"]
    assert callable(deadline) and deadline() is False
