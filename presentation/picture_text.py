"""Words on the table pictures: the players' names shortened to fit, long lines wrapped, and the
result banner a finished game's picture opens with.

Names come in as plain data (the display names the front end knows, computers as "🤖 Computer 1
(hard)"), never as mentions: the picture draws them in the bundled DejaVu Sans, leaving out what
that font has no glyph for (emoji, most CJK), and the alt text says them whole.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageFont

from engine.rules import Result
from presentation import png
from presentation.endings import told_with_view
from presentation.knights_board import draw_text, load_font, text_length

RGB = tuple[int, int, int]

# Joiners and variation selectors draw nothing useful (and DejaVu draws a box for some).
_INVISIBLE = frozenset("\u200b\u200c\u200d\u2060\ufe0e\ufe0f")
# A code point surely absent from any font: its mask is the font's "missing glyph" box.
_MISSING = "\uffff"


def _mask(font: ImageFont.FreeTypeFont, char: str) -> tuple[tuple[int, int], bytes]:
    mask = font.getmask(char)
    return mask.size, bytes(mask)


@lru_cache(maxsize=4096)
def _has_glyph(font: ImageFont.FreeTypeFont, char: str) -> bool:
    if char in _INVISIBLE:
        return False
    return char.isspace() or _mask(font, char) != _mask(font, _MISSING)


def drawable(font: ImageFont.FreeTypeFont, text: str) -> str:
    """``text`` without the characters ``font`` cannot draw, spaces tidied.

    >>> drawable(load_font(20, bold=True), "🤖 Computer 1 (hard)")
    'Computer 1 (hard)'
    """
    kept = "".join(c for c in text.replace("**", "") if _has_glyph(font, c))
    return " ".join(kept.split())


def fit(font: ImageFont.FreeTypeFont, text: str, width: float) -> str:
    """``text`` as drawn in ``font``, shortened with "…" to at most ``width`` pixels.

    >>> fit(load_font(20), "Alexandrina Victoria of Kent", 120)
    'Alexandri…'
    """
    if text_length(font, text) <= width:
        return text
    while text and text_length(font, text.rstrip() + "…") > width:
        text = text[:-1]
    return text.rstrip() + "…"


def seat_names(names: Sequence[str], seats: int, fallback: str = "Player") -> list[str]:
    """Each seat's name as given, or ``"Player 2"`` (the fallback and the seat's number) when the
    front end gave none.

    >>> seat_names(["alice"], 2)
    ['alice', 'Player 2']
    """
    return [
        names[seat] if seat < len(names) and names[seat].strip() else f"{fallback} {seat + 1}"
        for seat in range(seats)
    ]


def picture_names(
    names: Sequence[str], seats: int, font: ImageFont.FreeTypeFont, width: float
) -> list[str]:
    """The seats' names as a picture draws them: drawable in ``font`` and at most ``width``
    pixels (a name with nothing drawable left reads "Player N")."""
    return list(_picture_names(tuple(names), seats, font, width))


@lru_cache(maxsize=2048)  # a table's names, for as many tables as the words kept (WORDS_KEPT)
def _picture_names(
    names: tuple[str, ...], seats: int, font: ImageFont.FreeTypeFont, width: float
) -> tuple[str, ...]:
    # A table's names recur move after move: worked out once.
    drawn = [drawable(font, name) for name in seat_names(names, seats)]
    return tuple(fit(font, name, width) for name in seat_names(drawn, seats))


def wrap(font: ImageFont.FreeTypeFont, text: str, width: float, max_lines: int = 3) -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` pixels (a word longer than a
    line is cut), at most ``max_lines`` of them, the last shortened with "…" if need be.

    >>> wrap(load_font(16), "needed 7+, missed, and the castle still stands tall", 240)
    ['needed 7+, missed, and the', 'castle still stands tall']
    >>> wrap(load_font(16), "needed 7+, missed, and the castle still stands tall", 120, 2)
    ['needed 7+,', 'missed, and…']
    """
    if text_length(font, text) <= width:  # the common case: one line
        return [text] if text else []
    lines: list[str] = []
    line = ""
    words = text.split()
    for k, word in enumerate(words):
        attempt = f"{line} {word}" if line else word
        if text_length(font, attempt) <= width:
            line = attempt
            continue
        if line:
            lines.append(fit(font, line, width))
        line = word
        if len(lines) == max_lines - 1:
            rest = " ".join(words[k:])
            return [*lines, fit(font, rest, width)]
    if line:
        lines.append(fit(font, line, width))
    return lines


def result_words(
    view: Mapping[str, Any],
    names: Sequence[str],
    result_line: Callable[[Result, list[str]], str],
) -> str | None:
    """A finished game's result as ``result_line`` says it, with the seats' plain names (None
    while the game runs)."""
    result = view.get("result")
    if result is None:
        return None
    seats = seat_names(names, len(names) or _seats_of(view))
    told = Result.from_json(result)
    return told_with_view(view, told, seats, result_line(told, seats)).replace("**", "")


def _seats_of(view: Mapping[str, Any]) -> int:
    summary = view.get("summary") or {}
    for key in ("chips", "hand_sizes", "hits"):
        if key in summary:
            return len(summary[key])
    return 2


BANNER_PAD = 12
BANNER_LINE_H = 34


def banner_lines(text: str, width: int) -> list[str]:
    """The result as the banner writes it: drawable, on at most two lines."""
    font = load_font(26, bold=True)
    return wrap(font, drawable(font, text), width - 2 * BANNER_PAD, max_lines=2)


def with_banner(image: Image.Image, text: str, *, fill: RGB, ink: RGB) -> Image.Image:
    """``image`` under a banner that says the result (``text``), ``ink`` on ``fill``."""
    font = load_font(26, bold=True)
    lines = banner_lines(text, image.width)
    height = 2 * BANNER_PAD + len(lines) * BANNER_LINE_H
    # Left unfilled (RGB): the table is pasted below and the banner painted over the rest.
    framed = png.like(image, (image.width, image.height + height), None)
    framed.paste(image, (0, height))
    draw = png.draw(framed)
    draw.rectangle((0, 0, image.width - 1, height - 1), fill=fill)
    for k, line in enumerate(lines):
        y = BANNER_PAD + k * BANNER_LINE_H + BANNER_LINE_H / 2
        draw_text(draw, (image.width / 2, y), line, fill=ink, font=font, anchor="mm")
    return framed


__all__ = [
    "banner_lines",
    "drawable",
    "fit",
    "picture_names",
    "result_words",
    "seat_names",
    "with_banner",
    "wrap",
]
