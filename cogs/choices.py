"""Choices the slash commands share: clocks, and games picked from the registry.

A game parameter is an autocompleted string read through :class:`GameKey`, not a fixed list of
choices: the list comes from the registry when someone types (so a game registered after this
module was imported is offered too), and anything typed that is not a game of the list is
refused with a sentence, like every other bad input.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

import discord
from discord import app_commands

from engine import get_game
from engine.rules import Game
from presentation import playable_games
from storage import TableError, clock

log = logging.getLogger("siege.commands")

TIME_HELP = "Time per move (default: no clock)"
MISSES_HELP = "Missed moves before a seat forfeits (default 2)"
CLOCK_CHOICES = [
    app_commands.Choice(name=clock.describe(control).capitalize(), value=control)
    for control in clock.choices()
]
#: Discord shows at most 25 suggestions.
SUGGESTIONS_MAX = 25


async def time_control_choices(
    interaction: discord.Interaction[Any], current: str
) -> list[app_commands.Choice[str]]:
    """The clocks to choose from, narrowed by what has been typed."""
    typed = current.strip().lower()
    return [c for c in CLOCK_CHOICES if typed in c.name.lower() or typed in c.value][
        :SUGGESTIONS_MAX
    ]


def time_control(text: str) -> str:
    """A clock chosen from the list, or typed as its name or value ("live:10")."""
    typed = text.strip().lower()
    for choice in CLOCK_CHOICES:
        if typed in (choice.value, choice.name.lower()):
            return choice.value
    names = ", ".join(choice.name for choice in CLOCK_CHOICES)
    raise TableError(f"Pick a time control from the list: {names}.")


class NotAGame(app_commands.AppCommandError):
    """A game parameter that names no game offered there; the message is for the player."""


def any_game(game: Game) -> bool:
    return True


def two_player(game: Game) -> bool:
    return game.min_seats == game.max_seats == 2


class GameKey(app_commands.Transformer):
    """A game of the registry, suggested by title as the player types; the command gets its
    key. ``offered`` narrows the list (two-player games for a challenge)."""

    def __init__(self, offered: Callable[[Game], bool] = any_game, what: str = "a game") -> None:
        self.offered = offered
        self.what = what

    def games(self) -> list[Game]:
        return [game for game in map(get_game, playable_games()) if self.offered(game)]

    async def autocomplete(  # type: ignore[override]
        self, interaction: discord.Interaction[Any], value: str
    ) -> list[app_commands.Choice[str]]:
        typed = value.strip().lower()
        return [
            app_commands.Choice(name=game.title, value=game.key)
            for game in self.games()
            if typed in game.title.lower() or typed in game.key
        ][:SUGGESTIONS_MAX]

    async def transform(self, interaction: discord.Interaction[Any], value: Any) -> str:
        typed = str(value).strip().lower()
        for game in self.games():
            if typed in (game.key, game.title.lower(), game.about.command):
                return game.key
        titles = ", ".join(game.title for game in self.games())
        raise NotAGame(f"Pick {self.what} from the list: {titles}.")


def with_others(game: Game) -> bool:
    return game.max_seats > 1


AnyGame = app_commands.Transform[str, GameKey()]
TwoPlayerGame = app_commands.Transform[str, GameKey(two_player, "a two-player game")]
SeekableGame = app_commands.Transform[str, GameKey(with_others, "a game for two or more")]


class Refuses(Protocol):
    async def refuse(self, interaction: discord.Interaction[Any], text: str) -> None: ...


async def command_failed(
    hall: Refuses, interaction: discord.Interaction[Any], error: app_commands.AppCommandError
) -> None:
    """What fails before a command's flow starts (flows run inside ``Hall.guarded``): a game
    that is not on the list is refused with its sentence; anything else is logged and the
    player gets a one-line apology."""
    if isinstance(error, NotAGame):
        await hall.refuse(interaction, str(error))
        return
    log.error("slash command failed", exc_info=error)
    await hall.refuse(interaction, "Sorry, something went wrong handling that command.")
