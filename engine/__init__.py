"""Siege Hall's rules engine: pure, synchronous game logic behind one registry.

No Discord, database, asyncio, clock or module-level random lives here (a test reads the
imports). See :mod:`engine.rules` for the contract every game follows.
"""

from __future__ import annotations

from engine.castles import GAME as CASTLES
from engine.king import GAME as KING
from engine.knights import GAME as KNIGHTS
from engine.kurth import GAME as KURTH
from engine.rules import Game, Result, RuleError, SetupError, rng_for
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
    "get_game",
    "register",
    "rng_for",
    "unregister",
]
