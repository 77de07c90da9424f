"""``/play <game>``: one subcommand per game, built from each game's declaration.

Nothing here names a game. When the cog loads, every game of the registry that has a renderer
gets a subcommand named by its declaration (``About.command``) with its own table options
(:class:`engine.rules.Option`: choices, ranges and yes/no, each with its line of help), a
``side`` where its seats are sides, and a clock where it has more than one seat. The games live
in a group of their own, apart from ``/siege``: Discord counts every name, description and
choice of a command against 4,000 characters, and five games' options would not fit beside the
hall's own commands.
"""

from __future__ import annotations

import inspect
import logging
import random
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Optional, cast

import discord
from discord import app_commands
from discord.ext import commands

from cogs.choices import (
    MISSES_HELP,
    TIME_HELP,
    command_failed,
    time_control,
    time_control_choices,
)
from engine import get_game
from engine.rules import Game, IntRange, Option, SetupError
from presentation import playable_games
from storage import Seating, TableError

if TYPE_CHECKING:
    from bot import SiegeBot

log = logging.getLogger("siege.play")

#: Discord's longest description of a command or an option.
DESCRIPTION_MAX = 100
SIDE_VALUES = ("host_first", "host_second")

Callback = Callable[..., Coroutine[Any, Any, None]]


def describe(text: str) -> str:
    """A description as Discord takes it: one line of at most 100 characters.

    >>> describe("who deals; the other player moves first (default: Random)")
    'Who deals; the other player moves first (default: Random)'
    """
    text = text[:1].upper() + text[1:]
    return text if len(text) <= DESCRIPTION_MAX else text[: DESCRIPTION_MAX - 1] + "…"


def choice_label(option: Option, value: Any) -> str:
    """How a value of an option reads: its label, else the value itself."""
    if option.labels:
        return option.labels[option.choices.index(value)]
    return "random" if value is None else str(value)


def is_yes_no(option: Option) -> bool:
    return not isinstance(option, IntRange) and sorted(option.choices, key=str) == [False, True]


def option_parameter(option: Option) -> tuple[inspect.Parameter, str, list[Any] | None]:
    """A game option as a slash-command parameter, its description and its choices (if any)."""
    help_text = option.description.rstrip(".")
    if isinstance(option, IntRange):
        annotation: Any = app_commands.Range[int, option.low, option.high]
        default = f"{option.default}"
        choices = None
    elif is_yes_no(option):
        annotation = bool
        default = "yes" if option.default else "no"
        choices = None
    else:
        annotation = str
        default = choice_label(option, option.default)
        choices = [
            app_commands.Choice(name=choice_label(option, value), value=choice_value(value))
            for value in option.choices
        ]
    return (
        _optional(option.name, annotation),
        describe(f"{help_text} (default: {default})"),
        choices,
    )


def choice_value(value: Any) -> str:
    """A choice's value on Discord: the engine's value as text, ``random`` for none.

    >>> choice_value(None), choice_value(1), choice_value("easy")
    ('random', '1', 'easy')
    """
    return "random" if value is None else str(value)


def option_value(option: Option, given: Any) -> Any:
    """The engine's value for what Discord sent (a choice comes back as its text)."""
    if isinstance(option, IntRange) or is_yes_no(option):
        return given
    for value in option.choices:
        if choice_value(value) == given:
            return value
    raise TableError(f"Pick the {option.name.replace('_', ' ')} from the list.")


def side_choices(sides: tuple[str, ...]) -> list[app_commands.Choice[str]]:
    named = [
        app_commands.Choice(name=describe(side), value=value)
        for side, value in zip(sides, SIDE_VALUES, strict=False)
    ]
    return [*named, app_commands.Choice(name="Random", value="random")]


def game_command(game: Game, open_table: OpenTable) -> app_commands.Command[Any, ..., None]:
    """The ``/play`` subcommand of one game."""
    about = game.about
    parameters = [inspect.Parameter("interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    descriptions: dict[str, str] = {}
    choices: dict[str, list[Any]] = {}
    for option in game.options:
        parameter, text, offered = option_parameter(option)
        parameters.append(parameter)
        descriptions[option.name] = text
        if offered is not None:
            choices[option.name] = offered
    if about.sides:
        parameters.append(_optional("side", str))
        descriptions["side"] = "The side you play (default: whoever joins second takes the other)"
        choices["side"] = side_choices(about.sides)
    clocked = game.max_seats > 1
    if clocked:
        parameters.append(_optional("time_control", str))
        parameters.append(_optional("forfeit_after", app_commands.Range[int, 1, 5]))
        descriptions["time_control"] = TIME_HELP
        descriptions["forfeit_after"] = MISSES_HELP
    options = {option.name: option for option in game.options}

    async def play(interaction: discord.Interaction[Any], **given: Any) -> None:
        chosen = {
            name: option_value(options[name], value)
            for name, value in given.items()
            if name in options and value is not None
        }
        side = given.get("side")
        seating = cast(Seating, "join" if side is None else side)
        await open_table(
            interaction,
            game.key,
            chosen,
            seating,
            given.get("time_control"),
            given.get("forfeit_after"),
        )

    play.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    play.__name__ = play.__qualname__ = f"play_{game.key}"
    callback: Callback = app_commands.describe(**descriptions)(play)
    if choices:
        callback = app_commands.choices(**choices)(callback)
    if clocked:
        callback = app_commands.autocomplete(time_control=time_control_choices)(callback)
    return app_commands.Command(
        name=about.command,
        description=describe(f"{game.title}: {about.blurb}"),
        callback=callback,
    )


def _optional(name: str, annotation: Any) -> inspect.Parameter:
    """An optional keyword parameter. ``Optional[...]``, not ``... | None``: a range is a
    transformer object, which ``|`` does not take."""
    optional = Optional[annotation]  # noqa: UP045
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, annotation=optional, default=None
    )


class OpenTable:
    """Opens a table from a ``/play`` command: the options checked together, then the hall."""

    def __init__(self, bot: SiegeBot) -> None:
        self.bot = bot

    async def __call__(
        self,
        interaction: discord.Interaction[Any],
        game_key: str,
        options: dict[str, Any],
        seating: Seating = "join",
        time_text: str | None = None,
        forfeit_after: int | None = None,
    ) -> None:
        hall = self.bot.hall

        async def flow() -> None:
            engine = get_game(game_key)
            if options:
                try:  # options that only make sense together (big bet ≥ small bet)
                    engine.setup(engine.min_seats, options, random.Random(0))
                except SetupError as exc:
                    raise TableError(str(exc)) from None
            # Left out, the clock and the forfeit rule are the server's defaults.
            control = None if time_text is None else time_control(time_text)
            await hall.open_table(interaction, game_key, options, seating, control, forfeit_after)

        await hall.guarded(interaction, flow)


def play_group(open_table: OpenTable) -> app_commands.Group:
    """``/play`` with a subcommand for every game that can be shown on Discord."""
    group = app_commands.Group(
        name="play", description="Open a table for a game in this channel", guild_only=True
    )
    for key in playable_games():
        group.add_command(game_command(get_game(key), open_table))

    @group.error
    async def failed(
        interaction: discord.Interaction[Any], error: app_commands.AppCommandError
    ) -> None:
        await command_failed(open_table.bot.hall, interaction, error)

    return group


class Play(commands.Cog):
    def __init__(self, bot: SiegeBot) -> None:
        self.bot = bot
        self.group = play_group(OpenTable(bot))

    async def cog_load(self) -> None:
        self.bot.tree.add_command(self.group)

    async def cog_unload(self) -> None:
        self.bot.tree.remove_command(self.group.name)


async def setup(bot: SiegeBot) -> None:
    await bot.add_cog(Play(bot))


__all__ = ["OpenTable", "Play", "game_command", "play_group"]
