"""Small pictures of figures: a player's rating over their games, for ``/siege stats``.

Drawn with Pillow and the bundled font, sized for Discord's preview width on the dark theme.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from datetime import datetime

from PIL import Image, ImageDraw

from presentation.base import count
from presentation.knights_board import load_font

WIDTH, HEIGHT = 480, 200
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 52, 14, 38, 26
BACKGROUND = (43, 45, 49)
GRID = (70, 73, 79)
TEXT = (219, 222, 225)
LINE = (212, 160, 23)


def day_label(ended_at: str) -> str:
    """An ISO time as a short date for an axis.

    >>> day_label("2026-11-03T10:00:00+00:00")
    '3 Nov'
    """
    when = datetime.fromisoformat(ended_at)
    return f"{when.day} {when.strftime('%b')}"


def rating_chart(title: str, points: Sequence[tuple[str, float]]) -> bytes:
    """A PNG line chart of a rating after each game (``(ended_at, rating)``, oldest first),
    with the dates of the first, middle and last game under it."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = load_font(13)
    heading = f"{title} · {count(len(points), 'rated game')}"
    bold = load_font(14, bold=True)
    while draw.textlength(heading, font=bold) > WIDTH - MARGIN_LEFT - MARGIN_RIGHT:
        heading = heading[:-2] + "…"  # a long title is cut, never drawn past the edge
    draw.text((MARGIN_LEFT, 8), heading, font=bold, fill=TEXT)
    values = [rating for _, rating in points]
    low, high = min(values), max(values)
    if high - low < 40:  # a flat line still gets a readable scale
        middle = (high + low) / 2
        low, high = middle - 20, middle + 20
    left, right = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
    top, bottom = MARGIN_TOP, HEIGHT - MARGIN_BOTTOM

    def y_of(value: float) -> float:
        return bottom - (value - low) / (high - low) * (bottom - top)

    for value in (low, (low + high) / 2, high):
        y = y_of(value)
        draw.line([(left, y), (right, y)], fill=GRID, width=1)
        draw.text((6, y - 8), f"{value:.0f}", font=font, fill=TEXT)
    step = (right - left) / max(1, len(points) - 1)
    xy = [(left + n * step, y_of(value)) for n, value in enumerate(values)]
    if len(xy) == 1:
        x, y = xy[0]
        draw.ellipse([(x - 4, y - 4), (x + 4, y + 4)], fill=LINE)
    else:
        draw.line(xy, fill=LINE, width=3, joint="curve")
    for n in sorted({0, (len(points) - 1) // 2, len(points) - 1}):
        label = day_label(points[n][0])
        width = draw.textlength(label, font=font)
        x = min(max(xy[n][0] - width / 2, left), right - width)
        draw.text((x, bottom + 6), label, font=font, fill=TEXT)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def rating_alt(title: str, points: Sequence[tuple[str, float]]) -> str:
    """The chart in words, for the picture's alt text.

    >>> points = [("2026-11-03T10:00:00", 1000.0), ("2026-11-05T09:00:00", 1031.4)]
    >>> rating_alt("Castles Besieged", points)  # doctest: +NORMALIZE_WHITESPACE
    'Castles Besieged: rating after each of 2 rated games, 3 Nov to 5 Nov:
     from 1000 to 1031 (lowest 1000, highest 1031).'
    """
    values = [rating for _, rating in points]
    first, last = day_label(points[0][0]), day_label(points[-1][0])
    when = first if first == last else f"{first} to {last}"
    each = (
        "after 1 rated game"
        if len(points) == 1
        else f"after each of {count(len(points), 'rated game')}"
    )
    return (
        f"{title}: rating {each}, {when}: from {values[0]:.0f} to {values[-1]:.0f} "
        f"(lowest {min(values):.0f}, highest {max(values):.0f})."
    )


__all__ = ["rating_alt", "rating_chart"]
