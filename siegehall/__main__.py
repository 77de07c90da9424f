"""``python -m siegehall play <game> [--vs computer:hard] [--seats N] [--seed S]``.

Plays a game in the terminal (see :mod:`siegehall.terminal`). Exit status 0 when the game ends
or the player leaves (q, Ctrl-C, end of input); 2 with a one-line message for bad arguments.

``python -m siegehall docs [--check]`` writes the pages of ``docs/`` made from the games'
declarations (:mod:`siegehall.docs`); with ``--check`` it only lists the stale ones (status 1).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

import engine
from siegehall import docs
from siegehall.terminal import run


def write_docs(*, check: bool) -> int:
    if check:
        out_of_date = docs.stale()
        for path in out_of_date:
            print(f"out of date: {path} (run python -m siegehall docs)")
        return 1 if out_of_date else 0
    for path in docs.write():
        print(f"wrote {path}")
    return 0


def _option(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"an option is name=value, not {text!r}")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m siegehall", description="Play Siege Hall's games in a terminal."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("play", help="play a game, hot-seat or against computers")
    play.add_argument("game", choices=sorted(engine.GAMES), help="the game's key")
    play.add_argument(
        "--vs",
        action="append",
        default=[],
        metavar="computer:LEVEL",
        help="a computer seat (easy, normal or hard); repeat for several (tower poker)",
    )
    play.add_argument("--seats", type=int, help="seats at the table (tower poker: 2 to 7)")
    play.add_argument("--seed", type=int, help="fix every shuffle and roll (replays a game)")
    play.add_argument("--seat", type=int, default=1, help="your seat, from 1 (default 1)")
    play.add_argument(
        "--option",
        action="append",
        default=[],
        type=_option,
        metavar="NAME=VALUE",
        help='a table option, such as specials=false or difficulty="advanced"',
    )
    pages = commands.add_parser("docs", help="write the docs pages made from the games")
    pages.add_argument("--check", action="store_true", help="only list stale pages (status 1)")
    args = parser.parse_args(argv)
    if args.command == "docs":
        return write_docs(check=args.check)
    try:
        return run(
            args.game,
            args.vs,
            args.seats,
            args.seed,
            args.seat - 1,
            dict(args.option),
            sys.stdout,
            input,
        )
    except (ValueError, engine.SetupError) as error:
        print(f"python -m siegehall: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
