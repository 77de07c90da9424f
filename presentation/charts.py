"""Small pictures of figures: a player's rating over their games, for ``/siege stats``.

Drawn with Pillow and the bundled font, sized for Discord's preview width on the dark theme.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

from PIL import Image, ImageDraw

from presentation.knights_board import load_font

WIDTH, HEIGHT = 480, 200
MARGIN_LEFT, MARGIN_RIGHT, MARGIN_TOP, MARGIN_BOTTOM = 52, 14, 38, 26
BACKGROUND = (43, 45, 49)
GRID = (70, 73, 79)
TEXT = (219, 222, 225)
LINE = (212, 160, 23)


def rating_chart(title: str, points: Sequence[float]) -> bytes:
    """A PNG line chart of ``points`` (a rating after each game, oldest first)."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = load_font(13)
    draw.text((MARGIN_LEFT, 8), title, font=load_font(14, bold=True), fill=TEXT)
    low, high = min(points), max(points)
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
    xy = [(left + n * step, y_of(value)) for n, value in enumerate(points)]
    if len(xy) == 1:
        x, y = xy[0]
        draw.ellipse([(x - 4, y - 4), (x + 4, y + 4)], fill=LINE)
    else:
        draw.line(xy, fill=LINE, width=3, joint="curve")
    games = f"{len(points)} rated game" + ("" if len(points) == 1 else "s")
    draw.text((left, bottom + 6), games, font=font, fill=TEXT)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


__all__ = ["rating_chart"]
