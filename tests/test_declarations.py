"""Each game declares itself once (issue 24): the declaration is complete and consistent, and the
pages of ``docs/`` made from it are up to date."""

from __future__ import annotations

import pytest

import engine
from engine import ai
from engine.declaration import About, is_command_name
from presentation import RENDERERS, playable_games
from siegehall import docs
from siegehall.__main__ import main
from tests.toy import registered


def test_every_game_declares_a_distinct_command_and_a_blurb() -> None:
    commands = [game.about.command for game in engine.GAMES.values()]
    assert len(set(commands)) == len(commands)
    for game in engine.GAMES.values():
        assert is_command_name(game.about.command)
        assert game.about.blurb and len(f"{game.title}: {game.about.blurb}") <= 100
        assert game.about.rules and (docs.DOCS / "rules" / game.about.rules).is_file()
        if game.about.sides:
            assert len(game.about.sides) == game.max_seats


def test_declared_computer_levels_have_a_computer() -> None:
    for game in engine.GAMES.values():
        if game.about.computer_levels or game.about.hint:
            assert game.key in ai.BUDGETS, game.key
            assert set(game.about.computer_levels) <= set(ai.LEVELS)


def test_every_game_with_rules_has_a_renderer() -> None:
    assert set(playable_games()) == set(engine.GAMES) == set(RENDERERS)


def test_a_declaration_refuses_what_discord_would() -> None:
    with pytest.raises(ValueError, match="command name"):
        About(command="Castles Besieged", blurb="x")
    with pytest.raises(ValueError, match="one short line"):
        About(command="castles", blurb="x" * 81)


def test_the_docs_made_from_the_declarations_are_up_to_date() -> None:
    assert docs.stale() == []
    assert main(["docs", "--check"]) == 0


def test_a_new_declaration_shows_up_in_the_docs(tmp_path: object) -> None:
    with registered():
        afk = docs.afk_page(list(engine.GAMES.values()))
        index = docs.rules_index(list(engine.GAMES.values()))
    assert "## Siege Sticks\n- **No automatic move**: every choice is yours." in afk
    assert "| Siege Sticks | 2 players | `/play siege-sticks` | — |" in index
    assert "sticks" not in engine.GAMES  # registered for the block only
