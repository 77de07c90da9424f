"""Each game declares itself once (issue 24): the declaration is complete and consistent, and the
pages of ``docs/`` made from it are up to date."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

import engine
from engine import ai
from engine.declaration import About, is_command_name
from presentation import RENDERERS, get_renderer, playable_games
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


ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "presentation", "cogs", "storage", "siegehall", "runtime")


def test_a_registered_game_brings_its_renderer_and_computer_by_its_key() -> None:
    """The toy game's folder holds its rules, renderer and computer; one registry line later the
    renderer and the computer are found by the key, and gone again with the registration."""
    with registered():
        assert "sticks" in playable_games()
        assert get_renderer("sticks").title == "Siege Sticks"
        assert ai.BUDGETS["sticks"]["hard"] == 300
        state = engine.GAMES["sticks"].setup(2, {"stones": 5}, random.Random(0))
        view = engine.GAMES["sticks"].view(state, 0)
        # Five stones: taking one leaves four, a lost pile for the other player.
        assert ai.choose("sticks", view, 0, "hard", random.Random(1)) == {"type": "take", "n": 1}
    assert "sticks" not in playable_games() and "sticks" not in ai.BUDGETS
    with pytest.raises(ValueError, match="No computer player"):
        ai.computer_for("sticks")


def test_no_registry_but_the_engines_imports_a_game() -> None:
    """The renderers' and the computers' registries find each game's module by its key: neither
    imports one (the engine's ``GAMES`` is the one list of games)."""
    for registry in ("presentation/__init__.py", "engine/ai/__init__.py"):
        tree = ast.parse((ROOT / registry).read_text())
        imported = {
            f"{node.module}.{alias.name}" if isinstance(node, ast.ImportFrom) else alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        }
        package = registry.split("/__init__")[0].replace("/", ".")
        for key in engine.GAMES:
            assert f"{package}.{key}" not in imported, (registry, key)
            assert f"{package}.{key}.RENDERER" not in imported, (registry, key)


def test_the_toy_game_is_named_only_in_its_own_files() -> None:
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            assert "sticks" not in path.read_text().lower(), path


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
