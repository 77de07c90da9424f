"""What a game says about itself to the hall, beside its rules: one declaration per game.

A game module's bundle carries an :class:`About` as ``about``. Everything that shows or offers a
game reads it — the ``/play`` subcommands and their options, the lobby, ``/siege help``, the
rules index and the automatic-move page in ``docs/``, the terminal — so no front end names a
game, and a new game is its own files plus one line in the registry.

Options are declared once too, with the rules that check them (:class:`engine.rules.Option`):
their name, choices or range, default, labels and one line of help.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: The levels a computer seat plays, weakest first (``engine.ai`` says what each one is).
COMPUTER_LEVELS: tuple[str, ...] = ("easy", "normal", "hard")


@dataclass(frozen=True)
class Daily:
    """A game that has a daily challenge: one deal a day for everyone in a server.

    ``option`` names the table option whose values each get a board of their own (Siege at
    Kurth's difficulty); the empty string for one board."""

    option: str = ""


@dataclass(frozen=True)
class About:
    """The hall's facts about a game (rules apart).

    ``command`` is the ``/play`` subcommand, in Discord's command-name form; ``blurb`` one line
    after the title ("two players, cards and dice: storm the other castle ten times").
    ``sides`` names the seats when they are sides of the game (the host may pick one, or
    random); empty when seats are alike. ``hint`` is whether a player may ask the computer what
    it would play. ``computer_levels`` are the levels a computer seat can play (empty: no
    computer seats). ``automatic_move`` says, one bullet a line, what the missed-turn ladder
    plays for an absent player (``Game.safe_action``), for ``docs/afk.md``. ``rules`` is the
    rules page's file name under ``docs/rules/`` ("" for a game without one). ``draws``: the
    game's rules have drawn results, so when the player to move abandons a game without a
    clock the others may claim a draw instead of the win (``Game.claim_draw``).
    """

    command: str
    blurb: str
    sides: tuple[str, ...] = ()
    hint: bool = False
    daily: Daily | None = None
    computer_levels: tuple[str, ...] = ()
    automatic_move: tuple[str, ...] = field(default=())
    rules: str = ""
    draws: bool = False

    def __post_init__(self) -> None:
        if not is_command_name(self.command):
            raise ValueError(f"{self.command!r} is not a Discord command name (a-z, 0-9, -).")
        if len(self.blurb) > 80:
            raise ValueError(f"A blurb is one short line (80 characters), not {self.blurb!r}.")


def is_command_name(name: str) -> bool:
    """Whether ``name`` can be a Discord slash (sub)command: 1–32 lowercase letters, digits or
    dashes.

    >>> is_command_name("castles-besieged"), is_command_name("Castles"), is_command_name("")
    (True, False, False)
    """
    return (
        1 <= len(name) <= 32
        and all(c.isascii() and (c.isalnum() or c == "-") for c in name)
        and (name == name.lower())
    )
