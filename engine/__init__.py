"""Siege Hall's rules engine: pure, synchronous game logic behind one registry.

No Discord, database, asyncio, clock or module-level random lives here (a test reads the
imports). See :mod:`engine.rules` for the contract every game follows.
"""

from __future__ import annotations

from engine.castles import GAME as CASTLES
from engine.king import GAME as KING
from engine.knights import GAME as KNIGHTS
from engine.kurth import GAME as KURTH
from engine.rules import Game, Option, Result, RuleError, SetupError, rng_for
from engine.towers import GAME as TOWERS

GAMES: dict[str, Game] = {game.key: game for game in (CASTLES, KING, KNIGHTS, KURTH, TOWERS)}


def register(game: Game) -> None:
    """Add a game to the registry under its key (a test registers a game of its own); a key
    already taken is a ValueError."""
    if game.key in GAMES:
        raise ValueError(f"A game is already registered as {game.key!r}.")
    GAMES[game.key] = game


def unregister(key: str) -> None:
    """Take a registered game out again."""
    GAMES.pop(key, None)


def daily_game() -> Game:
    """The game whose declaration has a daily challenge (Siege at Kurth): the first such in the
    registry; a SetupError if none has."""
    for game in GAMES.values():
        if game.about.daily is not None:
            return game
    raise SetupError("No game of the registry has a daily challenge.")


def daily_option() -> Option | None:
    """The option of the daily game that gives each of its values a board of its own (Siege at
    Kurth's difficulty), or None for one board."""
    game = daily_game()
    daily = game.about.daily
    return next((o for o in game.options if daily is not None and o.name == daily.option), None)


def get_game(key: str) -> Game:
    """The game bundle for a key such as ``"castles"``; a SetupError names the known keys."""
    try:
        return GAMES[key]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise SetupError(f"Unknown game {key!r}; known games: {known}.") from None


__all__ = [
    "GAMES",
    "Game",
    "Result",
    "RuleError",
    "SetupError",
    "daily_game",
    "daily_option",
    "get_game",
    "register",
    "rng_for",
    "unregister",
]
