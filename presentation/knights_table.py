"""Siege (1966) (``knights``) table pictures: the board (:mod:`presentation.knights_board`) under
a strip naming the two sides' players, the side to move marked, and for a finished game a banner
saying the result above them.

Reads only the spectator view, as the board does; the names are plain text from the front end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image

from engine.knights import ATTACKER, DEFENDER
from presentation import png
from presentation.knights_board import (
    COMMANDER_RING,
    INK,
    PALETTE,
    PAPER,
    draw_board,
    draw_text,
    image_size,
    load_font,
    text_length,
)
from presentation.picture_text import picture_names, with_banner

# What each seat commands, as the strip and the alt text say it.
SIDE_WORDS = {ATTACKER: "Knights (attacker)", DEFENDER: "Castle (defender)"}
TO_MOVE = "▶"
STRIP_PAD = 8
STRIP_LINE_H = 26
NAME_FONT = 18


@lru_cache(maxsize=64)
def _strip(width: int, names: tuple[str, ...], to_act: int | None) -> Image.Image:
    """The two sides' lines: "▶ Knights (attacker): alice" (the marker on the side to move),
    drawn once per table and side to move (they recur move after move)."""
    font = load_font(NAME_FONT, bold=True)
    strip = png.canvas((width, 2 * STRIP_PAD + 2 * STRIP_LINE_H), PALETTE, PAPER)
    draw = png.draw(strip)
    for line, seat in enumerate((ATTACKER, DEFENDER)):
        y = STRIP_PAD + line * STRIP_LINE_H + STRIP_LINE_H / 2
        if seat == to_act:
            draw_text(draw, (STRIP_PAD + 10, y), TO_MOVE, fill=INK, font=font, anchor="mm")
        draw_text(
            draw, (STRIP_PAD + 24, y), f"{SIDE_WORDS[seat]}: {names[seat]}", fill=INK,
            font=font, anchor="lm",
        )  # fmt: skip
    return strip


def drawn_names(names: Sequence[str]) -> list[str]:
    """The players' names as the strip draws them (shortened to fit the board's width)."""
    font = load_font(NAME_FONT, bold=True)
    room = image_size()[0] - 2 * STRIP_PAD - 24 - text_length(font, SIDE_WORDS[ATTACKER] + ": ")
    return picture_names(names, 2, font, room)


def render_table(
    view: Mapping[str, Any], names: Sequence[str] = (), result: str | None = None
) -> bytes:
    """The table as a PNG: the players' names over the board; ``result`` (the game's result in
    words) makes the banner."""
    board = draw_board(view)
    drawn = drawn_names(names)
    to_act = view.get("to_act") if view.get("result") is None else None
    strip = _strip(board.width, tuple(drawn), to_act)
    # Left unfilled: the strip and the board cover it all.
    image = png.like(board, (board.width, strip.height + board.height), None)
    image.paste(strip, (0, 0))
    image.paste(board, (0, strip.height))
    if result is not None:
        image = with_banner(image, result, fill=COMMANDER_RING, ink=INK)
    return png.encode(image, PALETTE)


__all__ = ["SIDE_WORDS", "drawn_names", "render_table"]
