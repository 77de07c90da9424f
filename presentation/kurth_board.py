"""Siege at Kurth (``kurth``) city pictures: a PNG drawn with Pillow from an engine view.

Reads only the public view (``engine.kurth.Kurth.view``): its summary gives every count drawn.
The city is the four location cards in a 2×2 grid, card I top-left, II top-right, III
bottom-right, IV bottom-left, each with its two locations laid out so that the eight read
clockwise round the grid (arrows between them). Each location shows its marker count large, a
bar of the eight slots that lead to an overrun, the markers this turn's upkeep put there, a
shield when protected, and the player's token. The passage links Armory and Barracks across the
middle (solid and labelled when open). Tracks for round and turn, spirit and mana frame it.
Colours are Okabe-Ito (colour-blind safe) and every state also has a word or a shape, so the
picture reads in greyscale too. The font is the bundled DejaVu Sans (``load_font``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engine.kurth import (
    LOCATION_CARDS,
    LOCATION_NAMES,
    LOCATIONS,
    MANA_CAP,
    OVERRUN_MARKERS,
    START_SPIRIT,
    TURNS,
    TURNS_PER_ROUND,
)
from presentation import png
from presentation.knights_board import draw_text, load_font, text_length

RGB = tuple[int, int, int]
Box = tuple[int, int, int, int]

WIDTH = 800
MARGIN = 20
HEADER_H = 70
CARD_GAP_X = 28
CARD_GAP_Y = 56
CARD_H = 236
CARD_TAB = 30
TRACKS_H = 150

PAPER: RGB = (244, 238, 222)
INK: RGB = (33, 33, 33)
MUTED: RGB = (110, 104, 96)
CARD_FILL: RGB = (214, 200, 172)
CARD_EDGE: RGB = (92, 70, 40)
TILE_FILL: RGB = (250, 247, 240)
OVERRUN_FILL: RGB = (244, 196, 176)
OVERRUN_INK: RGB = (170, 48, 0)
SLOT_EMPTY: RGB = (226, 220, 208)
MARKER: RGB = (213, 94, 0)  # Okabe-Ito vermillion: siege markers
PROTECT: RGB = (0, 114, 178)  # Okabe-Ito blue: protection
TOKEN: RGB = (230, 159, 0)  # Okabe-Ito orange: the Warden
PASSAGE_OPEN: RGB = (0, 158, 115)  # Okabe-Ito bluish green
SPIRIT: RGB = (204, 121, 167)  # Okabe-Ito reddish purple
MANA: RGB = (86, 180, 233)  # Okabe-Ito sky blue
WHITE: RGB = (255, 255, 255)
HATCH: RGB = (234, 170, 142)  # the stripes on an overrun location
PASSAGE_CLOSED: RGB = (90, 84, 76)

PALETTE = png.Palette(
    colours=(PAPER, INK, MUTED, CARD_FILL, CARD_EDGE, TILE_FILL, OVERRUN_FILL, OVERRUN_INK,
             SLOT_EMPTY, MARKER, PROTECT, TOKEN, PASSAGE_OPEN, SPIRIT, MANA, WHITE, HATCH,
             PASSAGE_CLOSED),
    blends=(
        *((ink, PAPER) for ink in (INK, MUTED, OVERRUN_INK)),
        (CARD_EDGE, CARD_FILL),
        *((ink, TILE_FILL) for ink in (INK, MUTED, PROTECT)),
        *((ink, ground) for ground in (OVERRUN_FILL, HATCH) for ink in (INK, OVERRUN_INK, PROTECT)),
        *((WHITE, ground) for ground in (MARKER, PASSAGE_OPEN, OVERRUN_INK)),
        (INK, TOKEN),
    ),
)  # fmt: skip

ROMAN = ("I", "II", "III", "IV")


# -- geometry ---------------------------------------------------------------------------------


def _city_top() -> int:
    return MARGIN + HEADER_H


def image_size() -> tuple[int, int]:
    """The size in pixels of every rendered city."""
    return WIDTH, _city_top() + 2 * CARD_H + CARD_GAP_Y + 16 + TRACKS_H + MARGIN


def card_boxes() -> list[Box]:
    """The four location cards, I to IV (top-left, top-right, bottom-right, bottom-left)."""
    width = (WIDTH - 2 * MARGIN - CARD_GAP_X) // 2
    top = _city_top()
    left, right = MARGIN, MARGIN + width + CARD_GAP_X
    bottom = top + CARD_H + CARD_GAP_Y
    spots = ((left, top), (right, top), (right, bottom), (left, bottom))
    return [(x, y, x + width, y + CARD_H) for x, y in spots]


def location_boxes() -> dict[str, Box]:
    """Each location's tile. On the top cards the first location is on the left, on the bottom
    cards on the right, so that the clockwise order runs round the grid."""
    boxes: dict[str, Box] = {}
    for n, (card, pair) in enumerate(zip(card_boxes(), LOCATION_CARDS, strict=True)):
        left, top, right, bottom = card
        inner = 8
        mid = (left + right) // 2
        halves = (
            (left + inner, top + CARD_TAB, mid - inner // 2, bottom - inner),
            (mid + inner // 2, top + CARD_TAB, right - inner, bottom - inner),
        )
        first, second = (halves[0], halves[1]) if n < 2 else (halves[1], halves[0])
        boxes[pair[0]] = first
        boxes[pair[1]] = second
    return boxes


def _centre(box: Box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


# -- the fixed city ---------------------------------------------------------------------------


def _arrow(draw: ImageDraw.ImageDraw, x: float, y: float, direction: str, size: float) -> None:
    """A small filled arrowhead pointing ``direction`` (right, left, down, up)."""
    s = size
    points = {
        "right": [(x - s / 2, y - s), (x + s / 2, y), (x - s / 2, y + s)],
        "left": [(x + s / 2, y - s), (x - s / 2, y), (x + s / 2, y + s)],
        "down": [(x - s, y - s / 2), (x, y + s / 2), (x + s, y - s / 2)],
        "up": [(x - s, y + s / 2), (x, y - s / 2), (x + s, y + s / 2)],
    }[direction]
    draw.polygon(points, fill=MUTED)


def _wrap(draw: ImageDraw.ImageDraw, text: str, width: int, size: int) -> list[str]:
    font = load_font(size, bold=True)
    if text_length(font, text) <= width or " " not in text:
        return [text]
    head, tail = text.split(" ", 1)
    return [head, tail]


@lru_cache(maxsize=2)
def _base_city() -> Image.Image:
    """Cards, tiles, names and the clockwise arrows (drawn once)."""
    image = png.canvas(image_size(), PALETTE, PAPER)
    draw = png.draw(image)
    tab_font = load_font(18, bold=True)
    for n, box in enumerate(card_boxes()):
        draw.rounded_rectangle(box, radius=12, fill=CARD_FILL, outline=CARD_EDGE, width=3)
        draw_text(
            draw,
            (box[0] + 14, box[1] + CARD_TAB / 2 + 1),
            f"Card {ROMAN[n]}",
            fill=CARD_EDGE,
            font=tab_font,
            anchor="lm",
        )
    boxes = location_boxes()
    for box in boxes.values():
        draw.rounded_rectangle(box, radius=8, fill=TILE_FILL, outline=CARD_EDGE, width=1)
    # Clockwise arrows between neighbours: along the top, down the right, back along the bottom
    # and up the left.
    for i, key in enumerate(LOCATIONS):
        a, b = boxes[key], boxes[LOCATIONS[(i + 1) % len(LOCATIONS)]]
        if a[1] == b[1]:  # the same row: between the tiles, near their tops
            x = (a[2] + b[0]) / 2 if a[2] <= b[0] else (a[0] + b[2]) / 2
            _arrow(draw, x, a[1] + 16, "right" if a[2] <= b[0] else "left", 7)
        else:
            y = (a[3] + b[1]) / 2 if a[3] <= b[1] else (a[1] + b[3]) / 2
            x = (a[0] + a[2]) / 2
            x = x + 46 if x > WIDTH / 2 else x - 46
            _arrow(draw, x, y, "down" if a[3] <= b[1] else "up", 9)
    return image


# -- state marks --------------------------------------------------------------------------------


def _shield(draw: ImageDraw.ImageDraw, x: float, y: float, s: float) -> None:
    points = [
        (x - s, y - s),
        (x + s, y - s),
        (x + s, y + s * 0.2),
        (x, y + s * 1.2),
        (x - s, y + s * 0.2),
    ]
    draw.polygon(points, fill=PROTECT, outline=INK)
    draw.line([(x, y - s * 0.7), (x, y + s * 0.8)], fill=WHITE, width=2)
    draw.line([(x - s * 0.6, y - s * 0.2), (x + s * 0.6, y - s * 0.2)], fill=WHITE, width=2)


def _token(draw: ImageDraw.ImageDraw, x: float, y: float, r: float) -> None:
    """The Warden: an orange disc with a dark ring and the word YOU."""
    draw.ellipse([x - r - 3, y - r - 3, x + r + 3, y + r + 3], fill=INK)
    draw.ellipse([x - r, y - r, x + r, y + r], fill=TOKEN)
    draw_text(draw, (x, y), "YOU", fill=INK, font=load_font(int(r * 0.78), bold=True), anchor="mm")


def _slots(draw: ImageDraw.ImageDraw, box: Box, markers: int, y: float) -> None:
    """Eight slots, one per marker up to the overrun threshold; more than eight say so."""
    left, _, right, _ = box
    slot, gap = 14, 4
    total = OVERRUN_MARKERS * slot + (OVERRUN_MARKERS - 1) * gap
    x0 = (left + right - total) / 2
    for n in range(OVERRUN_MARKERS):
        x = x0 + n * (slot + gap)
        filled = n < markers
        draw.rectangle(
            [x, y, x + slot, y + slot],
            fill=MARKER if filled else SLOT_EMPTY,
            outline=INK if filled else MUTED,
        )


@lru_cache(maxsize=4)
def _hatch(width: int, height: int) -> Image.Image:
    """Diagonal stripes the size of a tile (less its border)."""
    stripes = Image.new("RGB", (width - 6, height - 6), OVERRUN_FILL)
    draw = ImageDraw.Draw(stripes)
    for x in range(-height, width, 18):
        draw.line([(x, height), (x + height, 0)], fill=HATCH, width=4)
    return stripes


@lru_cache(maxsize=4)
def _hatch_mask(width: int, height: int) -> Image.Image:
    mask = Image.new("L", (width - 6, height - 6), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, width - 7, height - 7), radius=6, fill=255)
    return mask


def _tile(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    key: str,
    box: Box,
    summary: Mapping[str, Any],
    added: int,
) -> None:
    left, top, right, bottom = box
    cx = (left + right) / 2
    markers = int(summary["markers"][key])
    overrun = markers >= OVERRUN_MARKERS
    here = summary["location"] == key
    protected = key in summary["protected"]
    if overrun:
        draw.rounded_rectangle(box, radius=8, fill=OVERRUN_FILL, outline=OVERRUN_INK, width=3)
        # Hatching, so an overrun location stands out without colour too.
        size = (right - left, bottom - top)
        png.paste(image, _hatch(*size), (left + 3, top + 3), _hatch_mask(*size))
    if protected:
        draw.rounded_rectangle(box, radius=8, outline=PROTECT, width=5)
    if here:
        draw.rounded_rectangle(
            (left - 3, top - 3, right + 3, bottom + 3), radius=10, outline=INK, width=7
        )
        draw.rounded_rectangle(
            (left - 1, top - 1, right + 1, bottom + 1), radius=9, outline=TOKEN, width=4
        )
    lines = _wrap(draw, LOCATION_NAMES[key], right - left - 16, 21)
    name_font = load_font(21, bold=True)
    y = top + 18
    for line in lines:
        draw_text(draw, (cx, y), line, fill=INK, font=name_font, anchor="mm")
        y += 24
    count_font = load_font(52, bold=True)
    count_y = top + 88
    colour = OVERRUN_INK if overrun else (INK if markers else MUTED)
    # With a reinforcement tag beside it, the count steps left to leave the tag room.
    count_x = cx - 16 if added else cx
    draw_text(draw, (count_x, count_y), str(markers), fill=colour, font=count_font, anchor="mm")
    word = "OVERRUN" if overrun else ("marker" if markers == 1 else "markers")
    draw_text(
        draw, (cx, count_y + 36), word, fill=colour, font=load_font(16, bold=overrun), anchor="mm"
    )
    _slots(draw, box, markers, count_y + 48)
    if added:
        # This turn's reinforcements: a vermillion tag beside the count.
        font = load_font(18, bold=True)
        text = f"+{added}"
        w = text_length(font, text) + 14
        tag = (right - w - 4, count_y - 12, right - 4, count_y + 12)
        draw.rounded_rectangle(tag, radius=6, fill=MARKER, outline=INK)
        draw_text(draw, ((tag[0] + tag[2]) / 2, count_y), text, fill=WHITE, font=font, anchor="mm")
    row = bottom - 21
    if protected:
        _shield(draw, right - 64, row - 2, 10)
        draw_text(
            draw,
            (right - 50, row),
            "safe",
            fill=PROTECT,
            font=load_font(16, bold=True),
            anchor="lm",
        )
    if here:
        _token(draw, left + 34, row, 17)


def _passage(draw: ImageDraw.ImageDraw, is_open: bool) -> None:
    boxes = location_boxes()
    armory, barracks = boxes["armory"], boxes["barracks"]
    start = ((armory[0] + armory[2]) / 2, card_boxes()[1][3] + 2)
    end = ((barracks[0] + barracks[2]) / 2, card_boxes()[3][1] - 2)
    if is_open:
        draw.line([start, end], fill=INK, width=9)
        draw.line([start, end], fill=PASSAGE_OPEN, width=5)
    else:
        steps = 12
        for n in range(0, steps, 2):
            a = n / steps
            b = (n + 1) / steps
            draw.line(
                [
                    (start[0] + (end[0] - start[0]) * a, start[1] + (end[1] - start[1]) * a),
                    (start[0] + (end[0] - start[0]) * b, start[1] + (end[1] - start[1]) * b),
                ],
                fill=PASSAGE_CLOSED,
                width=4,
            )
    label = "PASSAGE OPEN" if is_open else "passage closed"
    font = load_font(17, bold=is_open)
    mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
    w = text_length(font, label) + 18
    pill = (mx - w / 2, my - 13, mx + w / 2, my + 13)
    draw.rounded_rectangle(
        pill,
        radius=12,
        fill=PASSAGE_OPEN if is_open else PAPER,
        outline=INK if is_open else MUTED,
        width=2,
    )
    draw_text(draw, (mx, my), label, fill=WHITE if is_open else MUTED, font=font, anchor="mm")


def _pips(
    draw: ImageDraw.ImageDraw,
    x: float,
    y: float,
    count: int,
    filled: int,
    colour: RGB,
    size: int,
    gap: int,
) -> None:
    for n in range(count):
        px = x + n * (size + gap)
        on = n < filled
        draw.ellipse(
            [px, y, px + size, y + size],
            fill=colour if on else SLOT_EMPTY,
            outline=INK if on else MUTED,
            width=2 if on else 1,
        )


def _header(draw: ImageDraw.ImageDraw, summary: Mapping[str, Any], over: bool) -> None:
    top = MARGIN
    font = load_font(26, bold=True)
    turn = int(summary["turn"])
    draw_text(
        draw,
        (MARGIN, top + 20),
        f"Round {summary['round']} · Turn {turn}/{TURNS}",
        fill=INK,
        font=font,
        anchor="lm",
    )
    # The turn track: twelve squares in three rounds of four.
    size, gap, round_gap = 22, 5, 14
    x0 = WIDTH - MARGIN - (TURNS * size + (TURNS - 1) * gap + 2 * round_gap)
    for n in range(TURNS):
        x = x0 + n * (size + gap) + (n // TURNS_PER_ROUND) * round_gap
        number = n + 1
        if number < turn or (over and number == turn):
            fill, outline = MUTED, INK
        elif number == turn:
            fill, outline = TOKEN, INK
        else:
            fill, outline = SLOT_EMPTY, MUTED
        draw.rectangle([x, top + 9, x + size, top + 9 + size], fill=fill, outline=outline, width=2)
        if number == turn and not over:
            draw.rectangle([x - 3, top + 6, x + size + 3, top + 12 + size], outline=INK, width=2)
    limit = summary["overrun_limit"]
    difficulty = str(summary["difficulty"]).capitalize()
    small = load_font(18)
    draw_text(
        draw,
        (MARGIN, top + 52),
        f"{difficulty}: the city falls at {limit} overrun locations (8+ markers).",
        fill=MUTED,
        font=small,
        anchor="lm",
    )


def _tracks(draw: ImageDraw.ImageDraw, summary: Mapping[str, Any]) -> None:
    top = card_boxes()[2][3] + 22
    label_font = load_font(24, bold=True)
    rows = (
        ("Spirit", int(summary["spirit"]), START_SPIRIT, SPIRIT),
        ("Mana", int(summary["mana"]), MANA_CAP, MANA),
    )
    for n, (name, value, cap, colour) in enumerate(rows):
        y = top + n * 40
        draw_text(draw, (MARGIN, y + 13), f"{name} {value}", fill=INK, font=label_font, anchor="lm")
        size, gap = (26, 8) if cap == START_SPIRIT else (22, 6)
        _pips(draw, MARGIN + 150, y, cap, value, colour, size, gap)
    y = top + 92
    overrun, limit = int(summary["overrun"]), int(summary["overrun_limit"])
    text = f"Overrun {overrun} of {limit}"
    draw_text(
        draw,
        (MARGIN, y + 12),
        text,
        fill=OVERRUN_INK if overrun else INK,
        font=label_font,
        anchor="lm",
    )
    x = MARGIN + 12 + text_length(label_font, text)
    strength = int(summary["strength"])
    where = LOCATION_NAMES[str(summary["location"])]
    detail = (
        f"· siege strength at the {where}: {strength}"
        if strength
        else f"· no markers at the {where}"
    )
    draw_text(draw, (x, y + 12), detail, fill=INK, font=load_font(20), anchor="lm")


def _banner(draw: ImageDraw.ImageDraw, result: Mapping[str, Any]) -> None:
    won = bool(result["winners"])
    scores = result.get("scores") or [0]
    why = {"overrun": "overrun", "spirit_broken": "spirit broken", "resigned": "resigned"}
    reason = why.get(str(result["reason"]))
    fallen = f"KURTH HAS FALLEN — {reason}" if reason else "KURTH HAS FALLEN"
    text = f"KURTH IS RELIEVED — score {scores[0]}" if won else fallen
    font = load_font(34, bold=True)
    cy = card_boxes()[0][3] + CARD_GAP_Y / 2
    w = text_length(font, text) + 40
    box = (WIDTH / 2 - w / 2, cy - 30, WIDTH / 2 + w / 2, cy + 30)
    draw.rounded_rectangle(
        box, radius=14, fill=PASSAGE_OPEN if won else OVERRUN_INK, outline=INK, width=3
    )
    draw_text(draw, (WIDTH / 2, cy), text, fill=WHITE, font=font, anchor="mm")


def render_city_png(view: Mapping[str, Any]) -> bytes:
    """The city as PNG bytes, from an engine view (``Kurth.view``)."""
    summary = view["summary"]
    result = view.get("result")
    image = _base_city().copy()
    draw = png.draw(image)
    _header(draw, summary, result is not None)
    added: dict[str, int] = {}
    for placed in summary["placed"]:
        added[placed["location"]] = added.get(placed["location"], 0) + int(placed["added"])
    _passage(draw, bool(summary["passage_open"]))
    for key, box in location_boxes().items():
        _tile(image, draw, key, box, summary, added.get(key, 0))
    _tracks(draw, summary)
    if result is not None:
        _banner(draw, result)
    return png.encode(image, PALETTE)


def alt_text(view: Mapping[str, Any]) -> str:
    """The picture in words (one line a location), for an image description or a text field."""
    summary = view["summary"]
    lines = []
    for n, pair in enumerate(LOCATION_CARDS):
        for key in pair:
            lines.append(f"{ROMAN[n]} · {location_line(summary, key)}")
    return "\n".join(lines)


def location_line(summary: Mapping[str, Any], key: str) -> str:
    """One location in words: its name, markers and marks (token, protection, overrun)."""
    markers = int(summary["markers"][key])
    parts = [f"{LOCATION_NAMES[key]}: {markers} marker{'s' if markers != 1 else ''}"]
    added = sum(int(p["added"]) for p in summary["placed"] if p["location"] == key)
    if added:
        parts.append(f"+{added} this upkeep")
    if markers >= OVERRUN_MARKERS:
        parts.append("OVERRUN")
    if key in summary["protected"]:
        parts.append("protected")
    if summary["location"] == key:
        parts.append("you are here")
    return " · ".join(parts)
