"""Siege (``knights``) board pictures: a PNG drawn with Pillow and a monospace text board.

Both read only engine views (``engine.knights.Knights.view``) or public summaries, never raw
states. The board map and square kinds come from :mod:`engine.knights` (``board_rows``,
``square_kind``), so no rule lives here. Square kinds differ by colour (Okabe-Ito, colour-blind
safe) *and* by pattern, and pieces by shape and letter, so the picture reads in greyscale too.
The font is the DejaVu Sans bundled in ``assets/fonts`` (never a system font).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from engine.knights import COLUMNS, CROWNS, board_rows, square_kind
from presentation import png

FONT_DIR = Path(__file__).resolve().parents[1] / "assets" / "fonts"
FONT_PATH = FONT_DIR / "DejaVuSans.ttf"
FONT_BOLD_PATH = FONT_DIR / "DejaVuSans-Bold.ttf"

SQUARE_PX = 64
RGB = tuple[int, int, int]

# Okabe-Ito colours (safe for the common colour-vision deficiencies), lightened for squares.
PAPER: RGB = (247, 244, 236)
INK: RGB = (33, 33, 33)
GRID: RGB = (96, 96, 96)
SQUARE_FILL: dict[str, RGB] = {
    "green": (205, 228, 196),
    "start": (205, 228, 196),
    "blue": (86, 180, 233),  # Okabe-Ito sky blue
    "castle": (226, 205, 170),
    "dot": (226, 205, 170),
    "crown": (240, 228, 66),  # Okabe-Ito yellow
}
WAVES: RGB = (0, 114, 178)  # Okabe-Ito blue
MORTAR: RGB = (150, 122, 84)
CROWN_INK: RGB = (120, 92, 0)
WALL: RGB = (70, 52, 30)
KNIGHT_FILL: RGB = (230, 159, 0)  # Okabe-Ito orange
DEFENDER_FILL: RGB = (0, 114, 178)  # Okabe-Ito blue
COMMANDER_RING: RGB = (240, 228, 66)
MARK: RGB = (204, 121, 167)  # Okabe-Ito reddish purple: the last move
HIGHLIGHT: RGB = (0, 158, 115)  # Okabe-Ito bluish green: chosen destinations
WHITE: RGB = (255, 255, 255)

PALETTE = png.Palette(
    colours=(PAPER, INK, GRID, *SQUARE_FILL.values(), WAVES, MORTAR, CROWN_INK, WALL, KNIGHT_FILL,
             DEFENDER_FILL, COMMANDER_RING, MARK, HIGHLIGHT, WHITE),
    blends=((INK, PAPER), (INK, KNIGHT_FILL), (WHITE, DEFENDER_FILL), (WHITE, INK),
            (INK, COMMANDER_RING)),  # the last: the table picture's result banner
)  # fmt: skip

LEGEND = (
    ("blue", "Blue"),
    ("green", "Green"),
    ("start", "Knight start"),
    ("castle", "Castle"),
    ("crown", "Crown"),
    ("dot", "Dot"),
)
TEXT_SYMBOL = {"blue": "~", "green": ".", "start": "o", "castle": "#", "crown": "^", "dot": "*"}


@lru_cache(maxsize=128)
def load_font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans at ``size`` pixels."""
    return ImageFont.truetype(str(FONT_BOLD_PATH if bold else FONT_PATH), size)


# Words longer than this (a line saying the last move) seldom recur: they are not kept.
_KEPT_TEXT = 40
#: How many rendered words (and their lengths) a process keeps: every table's two or more names
#: and the labels, for about 1,500 tables drawn in turn. Tables take turns, so a smaller cache
#: than the names in play misses on every name (least recently used is the next one needed).
WORDS_KEPT = 4096


def _coverage(
    font: ImageFont.FreeTypeFont, text: str, anchor: str, start: tuple[float, float]
) -> tuple[Image.Image, tuple[int, int]]:
    """``text``'s coverage (an "L" picture) and its offset from where it is drawn."""
    mask, offset = font.getmask2(text, "L", anchor=anchor, start=start)
    return Image.frombytes("L", mask.size, bytes(mask)), offset


_text_mask = lru_cache(maxsize=WORDS_KEPT)(_coverage)


@lru_cache(maxsize=WORDS_KEPT)
def text_length(font: ImageFont.FreeTypeFont, text: str) -> float:
    """``draw.textlength(text, font=font)`` on an RGB picture, kept (the words recur)."""
    return font.getlength(text, "L")


def draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    fill: RGB,
    font: ImageFont.FreeTypeFont,
    anchor: str | None = None,
) -> None:
    """``draw.text(xy, text, fill, font, anchor)``, the same pixels, with the rendered words
    kept (most words recur picture after picture: labels, names, small numbers), so only new
    ones cost a FreeType rendering. On a picture drawn in a palette (``png.canvas``, drawn with
    ``png.draw``) the text is laid by ``png.lay_text``, the pixels of drawing it in RGB and
    mapping. Long lines are not kept; several lines (RGB pictures only) go to ``draw.text``."""
    picture = png.picture_of(draw)
    on_palette = picture is not None and png.palette_of(picture) is not None
    if not on_palette and draw.im.mode == "P":
        raise ValueError("text on a palette picture is drawn with png.draw(picture)")
    if "\n" in text:
        if on_palette:
            raise ValueError("one line at a time on a palette picture")
        draw.text(xy, text, fill=fill, font=font, anchor=anchor)
        return
    x, y = xy
    # As ImageDraw.text: the whole pixel where the text starts, the fraction rendered in.
    render = _text_mask if len(text) <= _KEPT_TEXT else _coverage
    coverage, (dx, dy) = render(font, text, anchor or "la", (math.modf(x)[0], math.modf(y)[0]))
    at = (int(x) + dx, int(y) + dy)
    if picture is not None and on_palette:
        png.lay_text(picture, at, coverage, fill)
    else:
        draw.draw.draw_bitmap(at, coverage.im, draw.draw.draw_ink(fill))


# -- reading views --------------------------------------------------------------------------------


def _unpack(view_or_summary: Mapping[str, Any]) -> tuple[dict[str, str], Mapping[str, Any] | None]:
    """The pieces and the last move (a view has one; a bare summary does not)."""
    if "summary" in view_or_summary:
        summary = view_or_summary["summary"]
        last = view_or_summary.get("last_move")
    else:
        summary, last = view_or_summary, None
    return dict(summary["pieces"]), last


def _captured(view_or_summary: Mapping[str, Any]) -> Mapping[str, int]:
    summary = view_or_summary.get("summary", view_or_summary)
    captured: Mapping[str, int] = summary.get("captured", {"knights": 0, "defenders": 0})
    return captured


# -- geometry -------------------------------------------------------------------------------------


def _layout(square_px: int) -> tuple[int, int, int, int]:
    """Margin, legend height, image width, image height."""
    margin = max(20, square_px * 7 // 16)
    legend = max(28, square_px // 2 + 8)
    return margin, legend, 2 * margin + 8 * square_px, 2 * margin + 7 * square_px + legend


def image_size(square_px: int = SQUARE_PX) -> tuple[int, int]:
    """The size in pixels of a rendered board."""
    _, _, width, height = _layout(square_px)
    return width, height


def square_boxes(square_px: int, flip: bool) -> dict[str, tuple[int, int, int, int]]:
    """Each square's box. ``flip`` turns the board round for the defender's side of the table."""
    margin = _layout(square_px)[0]
    rows = board_rows()
    if flip:
        rows = [list(reversed(r)) for r in reversed(rows)]
    boxes = {}
    for y, row in enumerate(rows):
        for x, square in enumerate(row):
            if square is not None:
                left, top = margin + x * square_px, margin + y * square_px
                boxes[square] = (left, top, left + square_px, top + square_px)
    return boxes


def _centre(box: tuple[int, int, int, int]) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


# -- the fixed board ------------------------------------------------------------------------------


def _pattern(draw: ImageDraw.ImageDraw, kind: str, box: tuple[int, int, int, int]) -> None:
    left, top, right, _ = box
    s = right - left
    if kind == "blue":
        # Water: three wavy lines.
        for n in (1, 2, 3):
            y = top + n * s / 4
            points = [(left + 2 + i * s / 8, y + (3 if i % 2 else -3) * s / 64) for i in range(8)]
            draw.line(points, fill=WAVES, width=max(1, s // 32), joint="curve")
    elif kind in ("castle", "dot", "crown"):
        # Masonry: courses of bricks, offset every other course.
        course = s / 4
        for n in range(1, 4):
            y = top + n * course
            draw.line([(left, y), (right, y)], fill=MORTAR, width=1)
        for n in range(4):
            offset = s / 4 if n % 2 else 0
            y0, y1 = top + n * course, top + (n + 1) * course
            for x in (left + offset + s / 2 * i for i in range(3)):
                if left < x < right:
                    draw.line([(x, y0), (x, y1)], fill=MORTAR, width=1)
    if kind == "crown":
        cx, cy = _centre(box)
        w, h = s * 0.34, s * 0.22
        points = [
            (cx - w, cy + h),
            (cx - w, cy - h),
            (cx - w / 2, cy),
            (cx, cy - h * 1.5),
            (cx + w / 2, cy),
            (cx + w, cy - h),
            (cx + w, cy + h),
        ]
        draw.polygon(points, fill=SQUARE_FILL["crown"], outline=CROWN_INK, width=max(2, s // 24))
    elif kind in ("dot", "start"):
        cx, cy = _centre(box)
        r = s * 0.12
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=INK)


@lru_cache(maxsize=8)
def _base_board(square_px: int, flip: bool) -> Image.Image:
    """The empty board with coordinates and legend (drawn once per size and orientation)."""
    margin, legend_h, width, height = _layout(square_px)
    image = png.canvas((width, height), PALETTE, PAPER)
    draw = png.draw(image)
    boxes = square_boxes(square_px, flip)
    for square, box in boxes.items():
        kind = square_kind(square)
        draw.rectangle(box, fill=SQUARE_FILL[kind])
        _pattern(draw, kind, box)
        draw.rectangle(box, outline=GRID, width=1)
    # The castle wall: a heavy frame round c3-f6.
    corners = [boxes[s] for s in ("c3", "f6", "c6", "f3")]
    wall = (
        min(b[0] for b in corners),
        min(b[1] for b in corners),
        max(b[2] for b in corners),
        max(b[3] for b in corners),
    )
    draw.rectangle(wall, outline=WALL, width=max(3, square_px // 16))

    font = load_font(max(11, square_px * 15 // 64), bold=True)
    columns = COLUMNS[::-1] if flip else COLUMNS
    rows = "0123456" if flip else "6543210"
    for x, letter in enumerate(columns):
        cx = margin + x * square_px + square_px / 2
        for cy in (margin / 2, margin + 7 * square_px + margin / 2):
            draw_text(draw, (cx, cy), letter, fill=INK, font=font, anchor="mm")
    for y, digit in enumerate(rows):
        cy = margin + y * square_px + square_px / 2
        for cx in (margin / 2, margin + 8 * square_px + margin / 2):
            draw_text(draw, (cx, cy), digit, fill=INK, font=font, anchor="mm")

    # Legend: a small swatch of each square kind with its name.
    small = load_font(max(10, square_px * 12 // 64))
    swatch = max(12, legend_h // 2)
    top = height - legend_h + (legend_h - swatch) // 2 - margin // 4
    x = margin
    for kind, label in LEGEND:
        box = (x, top, x + swatch, top + swatch)
        draw.rectangle(box, fill=SQUARE_FILL[kind])
        _pattern(draw, kind, box)
        draw.rectangle(box, outline=GRID, width=1)
        draw_text(
            draw, (x + swatch + 4, top + swatch / 2), label, fill=INK, font=small, anchor="lm"
        )
        x += swatch + 10 + int(text_length(small, label))
    return image


# -- pieces and marks -----------------------------------------------------------------------------


def _draw_piece(draw: ImageDraw.ImageDraw, piece: str, box: tuple[int, int, int, int]) -> None:
    cx, cy = _centre(box)
    s = box[2] - box[0]
    r = s * 0.36
    line = max(2, s // 24)
    font = load_font(max(12, int(s * 0.42)), bold=True)
    if piece == "N":
        # Knight: an orange disc, black letter.
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=KNIGHT_FILL, outline=INK, width=line)
        draw_text(draw, (cx, cy), "N", fill=INK, font=font, anchor="mm")
    elif piece == "D":
        # Defender: a blue shield-square, white letter.
        q = r * 0.9
        draw.rounded_rectangle(
            [cx - q, cy - q, cx + q, cy + q], radius=s // 20, fill=DEFENDER_FILL, outline=INK,
            width=line,
        )  # fmt: skip
        draw_text(draw, (cx, cy), "D", fill=WHITE, font=font, anchor="mm")
    else:
        # Commander: a blue diamond in a gold ring, white letter.
        draw.regular_polygon((cx, cy, r * 1.3), 4, rotation=45, fill=INK)
        draw.regular_polygon((cx, cy, r * 1.3 - line), 4, rotation=45, fill=COMMANDER_RING)
        draw.regular_polygon((cx, cy, r * 0.98), 4, rotation=45, fill=DEFENDER_FILL)
        draw_text(draw, (cx, cy), "C", fill=WHITE, font=font, anchor="mm")


def _frame(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], colour: RGB) -> None:
    """A thick coloured frame inside the square, edged in ink so it shows in greyscale too."""
    s = box[2] - box[0]
    width = max(3, s // 14)
    inset = width // 2 + 1
    inner = (box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset)
    draw.rectangle(inner, outline=colour, width=width)
    draw.rectangle(inner, outline=INK, width=1)
    draw.rectangle(
        (inner[0] + width - 1, inner[1] + width - 1, inner[2] - width + 1, inner[3] - width + 1),
        outline=INK,
        width=1,
    )


def _capture_badge(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], taken: str) -> None:
    """A black tag in the square's corner: ``×`` and the letter of the piece taken."""
    s = box[2] - box[0]
    font = load_font(max(9, s * 13 // 64), bold=True)
    text = f"×{taken}"
    w = text_length(font, text) + s * 0.12
    h = s * 0.3
    tag = (box[2] - w - 2, box[1] + 2, box[2] - 2, box[1] + 2 + h)
    draw.rounded_rectangle(tag, radius=s // 12, fill=INK, outline=WHITE, width=1)
    draw_text(draw, _centre((int(tag[0]), int(tag[1]), int(tag[2]), int(tag[3]))), text,
              fill=WHITE, font=font, anchor="mm")  # fmt: skip


def render_board_png(
    view_or_summary: Mapping[str, Any],
    *,
    flip: bool = False,
    highlight: Iterable[str] = (),
    chosen: str | None = None,
    square_px: int = SQUARE_PX,
) -> bytes:
    """The board as PNG bytes, from an engine view (which marks the last move and any capture)
    or a public summary. ``flip`` shows it from the defender's side; ``highlight`` marks squares
    (for example the destinations of a chosen piece, from ``engine.knights.destinations``) and
    ``chosen`` frames that piece's square."""
    image = draw_board(
        view_or_summary, flip=flip, highlight=highlight, chosen=chosen, square_px=square_px
    )
    return png.encode(image, PALETTE)


def draw_board(
    view_or_summary: Mapping[str, Any],
    *,
    flip: bool = False,
    highlight: Iterable[str] = (),
    chosen: str | None = None,
    square_px: int = SQUARE_PX,
) -> Image.Image:
    """The picture :func:`render_board_png` encodes."""
    pieces, last = _unpack(view_or_summary)
    image = _base_board(square_px, flip).copy()
    draw = png.draw(image)
    boxes = square_boxes(square_px, flip)

    kind = None if last is None else last.get("type")
    if kind == "moved":
        start, end = boxes[last["from"]], boxes[last["to"]]  # type: ignore[index]
        _frame(draw, start, MARK)
        _frame(draw, end, MARK)
        trail = max(3, square_px // 12)
        draw.line([_centre(start), _centre(end)], fill=INK, width=trail + 2)
        draw.line([_centre(start), _centre(end)], fill=MARK, width=trail)
        cx, cy = _centre(start)
        r = square_px * 0.1
        draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=MARK, outline=INK)
    elif kind == "commander_placed":
        _frame(draw, boxes[last["square"]], MARK)  # type: ignore[index]

    for square, piece in pieces.items():
        _draw_piece(draw, piece, boxes[square])

    if kind == "moved" and last is not None and last.get("captured"):
        _capture_badge(draw, boxes[last["to"]], last["captured"])

    if chosen is not None:
        _frame(draw, boxes[chosen], HIGHLIGHT)
    for square in highlight:
        cx, cy = _centre(boxes[square])
        width = max(3, square_px // 16)
        if square in pieces:  # a capture: a ring round the piece taken
            r = square_px * 0.44
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=INK, width=width + 2)
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], outline=HIGHLIGHT, width=width)
        else:  # an empty square: a dot large enough to see at Discord's preview size
            r = square_px * 0.2
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=HIGHLIGHT, outline=INK, width=2)
    return image


# -- the text board -------------------------------------------------------------------------------


def last_move_text(last: Mapping[str, Any] | None) -> str | None:
    if last is None:
        return None
    kind = last.get("type")
    side = "attacker" if last.get("seat") == 0 else "defender"
    if kind == "moved":
        text = f"Last move: {last['notation']} ({side})"
        if last.get("captured"):
            names = {"N": "a Knight", "D": "a Defender", "C": "the Commander"}
            text += f", capturing {names[last['captured']]}"
        return text + "."
    if kind == "passed":
        return f"Last move: the {side} passed."
    if kind == "commander_placed":
        return f"Last move: the Commander was placed on {last['square']}."
    return None


def text_board(
    view_or_summary: Mapping[str, Any], *, flip: bool = False, code_block: bool = True
) -> str:
    """A monospace board (in a code block unless ``code_block`` is false) followed by plain
    lines that list every piece and the last move, for screen readers and for when images are
    off. Fits an embed field (1024 characters)."""
    pieces, last = _unpack(view_or_summary)
    rows = board_rows()
    columns = COLUMNS
    if flip:
        rows = [list(reversed(r)) for r in reversed(rows)]
        columns = COLUMNS[::-1]
    header = "    " + " ".join(columns)
    grid = [header]
    for row in rows:
        digit = next(s for s in row if s is not None)[1]
        cells = [" " if s is None else pieces.get(s, TEXT_SYMBOL[square_kind(s)]) for s in row]
        grid.append(f" {digit}  " + " ".join(cells).rstrip())
    grid.append(header)
    board = "\n".join(grid)
    if code_block:
        board = f"```\n{board}\n```"

    captured = _captured(view_or_summary)
    knights = sorted(s for s, p in pieces.items() if p == "N")
    defenders = sorted(s for s, p in pieces.items() if p == "D")
    commander = [s for s, p in pieces.items() if p == "C"]
    lines = [
        f"Knights: {', '.join(knights) or 'none'} ({captured['knights']} captured)",
        f"Defenders: {', '.join(defenders) or 'none'} ({captured['defenders']} captured)",
    ]
    phase = view_or_summary.get("phase")
    if commander:
        lines.append(f"Commander: {commander[0]}")
    elif phase == "placement":
        lines.append(f"Commander: not placed yet ({' or '.join(CROWNS)})")
    elif phase == "over":
        lines.append("Commander: captured")
    else:
        lines.append("Commander: not on the board")
    moved = last_move_text(last)
    if moved:
        lines.append(moved)
    lines.append(
        "Key: N Knight, D Defender, C Commander; ~ blue, . green, o Knight start, # castle, "
        "^ crown, * dot."
    )
    return board + "\n" + "\n".join(lines)
