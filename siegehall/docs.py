"""The pages of ``docs/`` that list the games, written from each game's declaration.

``python -m siegehall docs`` writes them; ``python -m siegehall docs --check`` says which are out
of date (the test suite runs the check, so a declaration and its page never disagree):

* ``docs/afk.md``: what the missed-turn ladder plays for an absent player, per game
  (``About.automatic_move``);
* ``docs/rules/README.md``: the rules index, one line a game (title, players, ``/play``
  command, its page).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import engine
from engine.rules import Game

DOCS = Path(__file__).resolve().parent.parent / "docs"
WIDTH = 100

AFK_OPENING = """\
# When you miss your turn: the automatic move

When a table has a time limit and you let your deadline pass, Siege Hall first tries to play an
**automatic move** for you. It only ever makes a move you would hardly regret: it never gives up
the game, and it never spends anything you would want to choose for yourself (chips, mana,
spirit, a card from your hand, a piece on the board). If your game has no such move at that
moment, nothing is played for you and you go straight to the next step of the missed-turn
ladder (after the number of misses the table set, you forfeit).
"""


def players(game: Game) -> str:
    if game.min_seats == game.max_seats == 1:
        return "solo"
    if game.min_seats == game.max_seats:
        return f"{game.min_seats} players"
    return f"{game.min_seats}–{game.max_seats} players"


def _bullet(text: str) -> str:
    return textwrap.fill(text, WIDTH, initial_indent="- ", subsequent_indent="  ")


def afk_page(games: list[Game]) -> str:
    sections = [AFK_OPENING]
    for game in games:
        heading = f"## {game.title}" + (" (solo)" if game.max_seats == 1 else "")
        bullets = game.about.automatic_move or ("**No automatic move**: every choice is yours.",)
        sections.append("\n".join([heading, *map(_bullet, bullets)]) + "\n")
    return "\n".join(sections)


def rules_index(games: list[Game]) -> str:
    lines = [
        "# The rules of Siege Hall's games",
        "",
        "Each page opens with how the game plays on Discord, then its rules. In Discord, "
        "`/siege rules` shows the same pages.",
        "",
        "| game | players | start it with | rules |",
        "|---|---|---|---|",
    ]
    for game in games:
        page = f"[{game.about.rules}]({game.about.rules})" if game.about.rules else "—"
        lines.append(f"| {game.title} | {players(game)} | `/play {game.about.command}` | {page} |")
    return "\n".join(lines) + "\n"


def pages(root: Path = DOCS) -> dict[Path, str]:
    """Every generated page, by path, from the games of the registry."""
    games = list(engine.GAMES.values())
    return {root / "afk.md": afk_page(games), root / "rules" / "README.md": rules_index(games)}


def stale(root: Path = DOCS) -> list[Path]:
    """The generated pages whose file differs from what the declarations say."""
    return [
        path
        for path, text in pages(root).items()
        if not path.exists() or path.read_text(encoding="utf-8") != text
    ]


def write(root: Path = DOCS) -> list[Path]:
    """Write the pages that changed; the paths written."""
    changed = stale(root)
    for path, text in pages(root).items():
        if path in changed:
            path.write_text(text, encoding="utf-8")
    return changed
