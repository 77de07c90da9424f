"""Siege the King (``king``) table pictures: a PNG drawn with Pillow from the public view.

Reads only the spectator view (``engine.king.King.view`` with seat ``None``), whose summary shows
a castle card only once it is revealed (or the game is over), and the public events of the last
action: nothing hidden can be drawn. All six columns show, three a side (the second player's
above, the first's below, each from its owner's left, under its player's name): the castle card
at the base (a card back until revealed, then the King ♚ or a Throne ♜), the column's value
large, and its cards as tokens whose sign says how they count (``+5`` defends, ``−3``
attacks, ``W`` for a Warrior), defenders blue and attackers red, so the picture reads in
greyscale too. A closed column is greyed. The column the last move
touched is framed in gold and the move is said in lines at the bottom; a finished game's picture
opens with a banner saying the result.

800 px wide, so that Discord's ~400 px preview halves it, on the dark felt of the other tables.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from engine.king import COLUMN_NAMES, KING, card_value
from engine.rules import Event
from presentation import png
from presentation.base import fit_alt
from presentation.knights_board import draw_text, load_font, text_length
from presentation.picture_text import picture_names, seat_names, with_banner, wrap
from presentation.towers_table import (
    BACK,
    BACK_EDGE,
    FELT,
    FELT_DARK,
    GOLD,
    INK,
    MUTED,
    PAPER,
    SEAT_DIM,
    SEAT_FILL,
    WHITE,
    card_mask,
    paste_back,
)

RGB = tuple[int, int, int]

WIDTH = 800
MARGIN = 16
SEAT_H = 40
COLUMN_GAP = 12
COLUMN_W = (WIDTH - 2 * MARGIN - 2 * COLUMN_GAP) // 3
HEADER_H = 30
CASTLE_W, CASTLE_H = 64, 88
TOKEN_W, TOKEN_H = 50, 52
TOKEN_GAP = 6
TOKENS_PER_LINE = 4
MIDDLE_H = 40
FOOTER_H = 34
FOOTER_LINE_H = 21
NAME_W = 300  # a name longer than this is shortened with "…"

ATTACK_FILL: RGB = (196, 52, 52)
DEFEND_FILL: RGB = (36, 104, 196)
CLOSED_FILL: RGB = (58, 66, 62)
KING_INK: RGB = (150, 110, 0)
LOW_VALUE: RGB = (255, 150, 150)  # a column worth 3 or less

PALETTE = png.Palette(
    colours=(FELT, FELT_DARK, PAPER, INK, GOLD, WHITE, MUTED, SEAT_FILL, SEAT_DIM,
             BACK, BACK_EDGE, ATTACK_FILL, DEFEND_FILL, CLOSED_FILL, KING_INK, LOW_VALUE),
    blends=(
        (INK, PAPER),
        (KING_INK, PAPER),
        (WHITE, FELT),
        (GOLD, FELT),
        *((ink, SEAT_DIM) for ink in (WHITE, MUTED, GOLD)),
        *((ink, ground) for ground in (SEAT_FILL, CLOSED_FILL) for ink in (WHITE, MUTED)),
        (LOW_VALUE, SEAT_FILL),
        (WHITE, DEFEND_FILL),
        (WHITE, ATTACK_FILL),
        (WHITE, GOLD),  # a long token's words reach its gold frame
        (INK, GOLD),  # the result banner
    ),
)  # fmt: skip
# Characters DejaVu Sans has no glyph for (emoji and their variation selector) are left out of
# the words drawn on the picture; the embed keeps them.
_NOT_DRAWN = re.compile("[\U0001f000-\U0001faff\ufe0f\u2728\u2694\u2696]|\\*\\*")


def _token_lines(count: int) -> int:
    return max(1, (count + TOKENS_PER_LINE - 1) // TOKENS_PER_LINE)


def _side_height(columns: Sequence[Mapping[str, Any]]) -> int:
    lines = max(_token_lines(len(c["cards"])) for c in columns)
    return HEADER_H + CASTLE_H + 10 + lines * (TOKEN_H + TOKEN_GAP) + 6


def image_height(summary: Mapping[str, Any], footer_lines: int = 1) -> int:
    sides = sum(_side_height(summary["columns"][s]) for s in (0, 1))
    footer = FOOTER_H + (footer_lines - 1) * FOOTER_LINE_H
    return MARGIN + 2 * (SEAT_H + 6) + sides + MIDDLE_H + footer + MARGIN


def token_text(code: str, role: str) -> str:
    """A card on a column as the picture writes it: ``+5``, ``−3``, ``+W4``."""
    sign = "+" if role == "defender" else "−"
    value = card_value(code)
    return f"{sign}W{value}" if code.startswith("W") else f"{sign}{value}"


def _draw_castle_face(draw: ImageDraw.ImageDraw, x: int, y: int, castle: str) -> None:
    draw.rounded_rectangle((x, y, x + CASTLE_W, y + CASTLE_H), radius=7, fill=PAPER, outline=INK)
    king = castle == KING
    draw_text(
        draw,
        (x + CASTLE_W / 2, y + CASTLE_H * 0.42),
        "♚" if king else "♜",
        fill=KING_INK if king else INK,
        font=load_font(44),
        anchor="mm",
    )
    draw_text(
        draw,
        (x + CASTLE_W / 2, y + CASTLE_H * 0.85),
        "KING" if king else "THRONE",
        fill=INK,
        font=load_font(12, bold=True),
        anchor="mm",
    )


@lru_cache(maxsize=8)
def _castle_face(castle: str) -> tuple[Image.Image, Image.Image]:
    """A revealed castle card, drawn once (with the mask of its shape)."""
    face = Image.new("RGB", (CASTLE_W + 1, CASTLE_H + 1), PAPER)
    _draw_castle_face(ImageDraw.Draw(face), 0, 0, castle)
    return face, card_mask(CASTLE_W, CASTLE_H, 7)


def _castle_card(image: Image.Image, x: int, y: int, castle: str | None) -> None:
    if castle is None:
        paste_back(image, x, y, CASTLE_W, CASTLE_H)
        return
    face, mask = _castle_face(castle)
    png.paste(image, face, (x, y), mask)


@lru_cache(maxsize=8)
def _token(colour: RGB, last: bool) -> tuple[Image.Image, Image.Image]:
    """A card's token on a column, without its words, drawn once (with its shape's mask)."""
    token = Image.new("RGB", (TOKEN_W + 1, TOKEN_H + 1), colour)
    ImageDraw.Draw(token).rounded_rectangle(
        (0, 0, TOKEN_W, TOKEN_H),
        radius=7,
        fill=colour,
        outline=GOLD if last else WHITE,
        width=4 if last else 1,
    )
    return token, card_mask(TOKEN_W, TOKEN_H, 7)


def _column(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    column: Mapping[str, Any],
    index: int,
    box: tuple[int, int, int, int],
    marked: bool,
) -> None:
    x0, y0, x1, y1 = box
    fill = SEAT_FILL if column["open"] else CLOSED_FILL
    draw.rounded_rectangle(box, radius=10, fill=fill, outline=FELT_DARK, width=2)
    draw_text(
        draw,
        (x0 + 10, y0 + 6),
        COLUMN_NAMES[index].capitalize(),
        fill=MUTED,
        font=load_font(17, bold=True),
    )
    cx, cy = x0 + 10, y0 + HEADER_H
    _castle_card(image, cx, cy, column["castle"])
    if not column["open"]:
        draw_text(
            draw, (cx + CASTLE_W + 14, cy + 20), "Closed", fill=WHITE, font=load_font(24, bold=True)
        )
        draw_text(draw, (cx + CASTLE_W + 14, cy + 52), "a Throne", fill=MUTED, font=load_font(17))
    else:
        value = column["value"]
        shown = f"−{-value}" if value < 0 else str(value)
        draw_text(
            draw,
            (cx + CASTLE_W + 14, cy + 6),
            shown,
            fill=WHITE if value > 3 else LOW_VALUE,
            font=load_font(44, bold=True),
        )
        draw_text(draw, (cx + CASTLE_W + 14, cy + 60), "value", fill=MUTED, font=load_font(15))
    ty = cy + CASTLE_H + 10
    cards: list[str] = column["cards"]
    for k, (code, role) in enumerate(zip(cards, column["roles"], strict=True)):
        line, n = divmod(k, TOKENS_PER_LINE)
        tx = x0 + 10 + n * (TOKEN_W + TOKEN_GAP)
        top = ty + line * (TOKEN_H + TOKEN_GAP)
        colour = DEFEND_FILL if role == "defender" else ATTACK_FILL
        last = marked and k == len(cards) - 1
        token, mask = _token(colour, last)
        png.paste(image, token, (tx, top), mask)
        # The words after the shape: a long one (+W4) reaches the token's edge.
        text = token_text(code, role)
        draw_text(
            draw,
            (tx + TOKEN_W / 2, top + TOKEN_H / 2),
            text,
            fill=WHITE,
            font=load_font(22 if len(text) <= 2 else 18, bold=True),
            anchor="mm",
        )
    if marked:
        draw.rounded_rectangle((x0 - 3, y0 - 3, x1 + 3, y1 + 3), radius=12, outline=GOLD, width=4)


def _marked_columns(events: Sequence[Event]) -> set[tuple[int, int]]:
    marked = set()
    for event in events:
        column = event.get("column")
        if event.get("type") in (
            "card_played",
            "card_removed",
            "column_cleared",
            "cards_matched",
            "castle_revealed",
        ) and isinstance(column, list):
            marked.add((int(column[0]), int(column[1])))
    return marked


def _seat_band(
    draw: ImageDraw.ImageDraw,
    summary: Mapping[str, Any],
    seat: int,
    top: int,
    acting: bool,
    name: str,
) -> None:
    box = (MARGIN, top, WIDTH - MARGIN, top + SEAT_H)
    draw.rounded_rectangle(
        box,
        radius=9,
        fill=SEAT_DIM,
        outline=GOLD if acting else FELT_DARK,
        width=4 if acting else 2,
    )
    font = load_font(20, bold=True)
    draw_text(draw, (MARGIN + 12, top + 8), name, fill=WHITE, font=font)
    n = summary["hand_sizes"][seat]
    hand = f"{n} card{'s' if n != 1 else ''} in hand"
    after = MARGIN + 12 + max(128, int(text_length(font, name)) + 20)
    draw_text(draw, (after, top + 11), hand, fill=MUTED, font=load_font(17))
    if acting:
        draw_text(
            draw,
            (WIDTH - MARGIN - 12, top + 10),
            "TO ACT",
            fill=GOLD,
            font=load_font(17, bold=True),
            anchor="ra",
        )


def render_table(
    view: Mapping[str, Any],
    last_events: Sequence[Event] = (),
    last_line: Callable[[Sequence[Event]], str | None] = lambda events: None,
    names: Sequence[str] = (),
    result: str | None = None,
) -> bytes:
    """The table as a PNG, from the spectator view and the last action's (public) events, the
    players named by ``names``; ``last_line`` says that action in words (with the same names)
    for the bottom lines, and ``result`` (the game's result in words) makes the banner."""
    summary = view["summary"]
    drawn = picture_names(names, 2, load_font(20, bold=True), NAME_W)
    line = last_line(last_events)
    font = load_font(16)
    lines = (
        wrap(font, "Last: " + _NOT_DRAWN.sub("", line).strip(), WIDTH - 2 * MARGIN) if line else []
    )
    image = png.canvas((WIDTH, image_height(summary, max(1, len(lines)))), PALETTE, FELT)
    draw = png.draw(image)
    to_act = view["to_act"] if view["result"] is None else None
    marked = _marked_columns(last_events)
    top = MARGIN
    for seat in (1, 0):
        if seat == 0:
            # The middle strip: turn, piles.
            over = view["result"] is not None
            turn = summary["turn"] if over else summary["turn"] + 1
            words = (
                f"{'Turns played' if over else 'Turn'} {turn}   ·   draw pile {summary['pile']}"
                f"   ·   discard {len(summary['discard'])}"
            )
            draw_text(
                draw,
                (WIDTH / 2, top + MIDDLE_H / 2),
                words,
                fill=WHITE,
                font=load_font(19, bold=True),
                anchor="mm",
            )
            top += MIDDLE_H
            below = top + _side_height(summary["columns"][0]) + 6
            _seat_band(draw, summary, 0, below, to_act == 0, drawn[0])
        else:
            _seat_band(draw, summary, 1, top, to_act == 1, drawn[1])
            top += SEAT_H + 6
        height = _side_height(summary["columns"][seat])
        for i, column in enumerate(summary["columns"][seat]):
            x0 = MARGIN + i * (COLUMN_W + COLUMN_GAP)
            box = (x0, top, x0 + COLUMN_W, top + height - 6)
            _column(image, draw, column, i, box, (seat, i) in marked)
        top += height
    top += SEAT_H + 6
    for k, text in enumerate(lines):
        draw_text(draw, (MARGIN, top + 8 + k * FOOTER_LINE_H), text, fill=GOLD, font=font)
    if result is not None:
        image = with_banner(image, result, fill=GOLD, ink=INK)
    return png.encode(image, PALETTE)


def alt_text(
    view: Mapping[str, Any],
    last_events: Sequence[Event] = (),
    last: str | None = None,
    names: Sequence[str] = (),
    result: str | None = None,
) -> str:
    """The picture in words: the result once over, the turn and piles, each side's hand and its
    three columns (castle card as far as it is known, value, cards), the last move (at most 1024
    characters)."""
    summary = view["summary"]
    sides = seat_names(names, 2)
    over = view["result"] is not None
    turn = summary["turn"] if over else summary["turn"] + 1
    parts = [
        f"Siege the King table, {'after ' if over else ''}turn {turn}. "
        f"Draw pile {summary['pile']}, discard {len(summary['discard'])}."
    ]
    if result is not None:
        parts.append(f"Game over: {result}")
    for seat in (0, 1):
        columns = []
        for i, column in enumerate(summary["columns"][seat]):
            name = COLUMN_NAMES[i]
            if not column["open"]:
                columns.append(f"{name} closed (a Throne)")
                continue
            castle = column["castle"]
            head = {None: "face down", KING: "the King"}.get(castle, "a Throne")
            tokens = " ".join(
                token_text(c, r) for c, r in zip(column["cards"], column["roles"], strict=True)
            )
            value = column["value"]
            columns.append(
                f"{name} {head}, value {value}" + (f", cards {tokens}" if tokens else "")
            )
        n = summary["hand_sizes"][seat]
        parts.append(f"{sides[seat]} ({n} in hand): " + "; ".join(columns) + ".")
    if last:
        parts.append(f"Last move: {last.replace('**', '')}")
    if not over and view["to_act"] is not None:
        parts.append(f"{sides[view['to_act']]} to act.")
    text = " ".join(parts)
    return fit_alt(text)
