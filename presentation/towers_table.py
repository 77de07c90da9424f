"""Siege tower poker (``towers``) table pictures: a PNG drawn with Pillow from the public view.

Reads only the spectator view (``engine.towers.Towers.view`` with seat ``None``): its summary
gives every number drawn, and ``shows`` the hands the show made public. Nothing hidden is ever
passed in, so nothing hidden can be drawn.

Layout, 800 px wide so that Discord's ~400 px preview halves it: a header (hand, pot, next flip),
the four towers as stacks of card backs with their heights, the cards turned up this hand (the
hold card first), the burned card, then one box per seat (two columns) with chips, bet this
round, chips in the pot and a status word (folded, all-in, out, left), the player's name, the
dealer button, and a gold frame on the seat to act. A hand shown at the show is drawn in its
seat's box, and once the hand is over the cards face up are those that decided the show. A
finished game's picture opens with a banner saying the result. Cards are
white with large ranks and DejaVu suit symbols (♠♥♦♣), red suits in red, on a dark felt that
reads on Discord's dark theme; every status also has a word, so greyscale reads too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw

from presentation import png
from presentation.knights_board import draw_text, load_font, text_length
from presentation.picture_text import picture_names, with_banner

RGB = tuple[int, int, int]

WIDTH = 800
MARGIN = 16
HEADER_H = 44
CARD_W, CARD_H = 72, 100
SMALL_W, SMALL_H = 44, 62
TOWER_ROW_H = 150
SEAT_H = 96
SEAT_GAP = 10
NAME_W = 230  # a name longer than this is shortened with "…"

FELT: RGB = (22, 78, 56)
FELT_DARK: RGB = (14, 52, 38)
PAPER: RGB = (250, 250, 246)
INK: RGB = (25, 25, 25)
RED: RGB = (200, 30, 40)
BACK: RGB = (44, 70, 140)
BACK_EDGE: RGB = (210, 216, 232)
GOLD: RGB = (240, 190, 40)
WHITE: RGB = (255, 255, 255)
MUTED: RGB = (170, 190, 178)
SEAT_FILL: RGB = (30, 96, 70)
SEAT_DIM: RGB = (40, 56, 50)
STATUS_COLOURS: dict[str, RGB] = {
    "FOLDED": (180, 180, 180),
    "ALL-IN": (255, 140, 60),
    "OUT": (230, 90, 90),
    "LEFT": (160, 160, 160),
}

# The card faces' colours (castles and king draw cards too): ink and red on paper.
CARD_BLENDS: tuple[tuple[RGB, RGB], ...] = ((INK, PAPER), (RED, PAPER))
PALETTE = png.Palette(
    colours=(FELT, FELT_DARK, PAPER, INK, RED, BACK, BACK_EDGE, GOLD, WHITE, MUTED, SEAT_FILL,
             SEAT_DIM, *STATUS_COLOURS.values()),
    blends=(
        *CARD_BLENDS,
        *((ink, FELT) for ink in (WHITE, GOLD, MUTED)),
        *((ink, ground) for ground in (SEAT_FILL, SEAT_DIM)
          for ink in (WHITE, GOLD, *STATUS_COLOURS.values())),
        (INK, WHITE),
        (INK, GOLD),  # the result banner
    ),
)  # fmt: skip

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_TEXT = {"T": "10"}


def card_colour(code: str) -> RGB:
    return RED if code in ("XR",) or code[1:] in ("H", "D") else INK


def seat_status(summary: Mapping[str, Any], seat: int) -> str | None:
    """The word for a seat that is not simply playing: left, out, folded or all-in."""
    if summary["left"][seat]:
        return "LEFT"
    if summary["out"][seat]:
        return "OUT"
    if summary["phase"] == "over":
        return None
    if summary["folded"][seat]:
        return "FOLDED"
    if summary["chips"][seat] == 0:
        return "ALL-IN"
    return None


def draw_card(draw: ImageDraw.ImageDraw, x: int, y: int, code: str, w: int, h: int) -> None:
    """A face-up card: rank in the corner, a big suit in the middle (a joker says JOKER)."""
    draw.rounded_rectangle((x, y, x + w, y + h), radius=max(4, w // 10), fill=PAPER, outline=INK)
    colour = card_colour(code)
    if code in ("XB", "XR"):
        # A star in the rank's corner (it stays visible when cards overlap) and a big one.
        draw_text(
            draw, (x + w * 0.08, y + h * 0.04), "★", fill=colour, font=load_font(int(w * 0.38))
        )
        draw_text(
            draw,
            (x + w * 0.55, y + h * 0.58),
            "★",
            fill=colour,
            font=load_font(int(w * 0.6)),
            anchor="mm",
        )
        draw_text(
            draw,
            (x + w * 0.55, y + h * 0.88),
            "JOKER",
            fill=colour,
            font=load_font(max(8, int(w * 0.17)), bold=True),
            anchor="mm",
        )
        return
    rank = RANK_TEXT.get(code[0], code[0])
    suit = SUIT_SYMBOLS[code[1]]
    size = int(w * 0.42)
    draw_text(
        draw, (x + w * 0.08, y + h * 0.04), rank, fill=colour, font=load_font(size, bold=True)
    )
    draw_text(
        draw,
        (x + w * 0.55, y + h * 0.66),
        suit,
        fill=colour,
        font=load_font(int(w * 0.62)),
        anchor="mm",
    )


def draw_back(draw: ImageDraw.ImageDraw, x: int, y: int, w: int, h: int) -> None:
    draw.rounded_rectangle(
        (x, y, x + w, y + h), radius=max(4, w // 10), fill=BACK, outline=BACK_EDGE
    )
    draw.rounded_rectangle((x + 5, y + 5, x + w - 5, y + h - 5), radius=4, outline=BACK_EDGE)


@lru_cache(maxsize=16)
def card_mask(w: int, h: int, radius: int) -> Image.Image:
    """The mask of a ``w`` × ``h`` rounded rectangle drawn at (0, 0) (a card, a token): the
    pixels it covers, for pasting a shape drawn once."""
    mask = Image.new("L", (w + 1, h + 1), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, w, h), radius=radius, fill=255, outline=255)
    return mask


@lru_cache(maxsize=256)
def _face(code: str, w: int, h: int) -> tuple[Image.Image, Image.Image]:
    """A face-up card drawn once (with the mask of its shape) for :func:`paste_card`."""
    face = Image.new("RGB", (w + 1, h + 1), PAPER)
    draw_card(ImageDraw.Draw(face), 0, 0, code, w, h)
    return face, card_mask(w, h, max(4, w // 10))


@lru_cache(maxsize=8)
def _back(w: int, h: int) -> tuple[Image.Image, Image.Image]:
    back = Image.new("RGB", (w + 1, h + 1), BACK)
    draw_back(ImageDraw.Draw(back), 0, 0, w, h)
    return back, card_mask(w, h, max(4, w // 10))


def paste_card(image: Image.Image, x: int, y: int, code: str, w: int, h: int) -> None:
    """:func:`draw_card` on ``image``, the same pixels, from a card drawn once per size."""
    face, mask = _face(code, w, h)
    png.paste(image, face, (x, y), mask)


def paste_back(image: Image.Image, x: int, y: int, w: int, h: int) -> None:
    """:func:`draw_back` on ``image``, the same pixels, from a back drawn once per size."""
    back, mask = _back(w, h)
    png.paste(image, back, (x, y), mask)


def image_height(seats: int) -> int:
    rows = (seats + 1) // 2
    return MARGIN + HEADER_H + TOWER_ROW_H + 24 + rows * (SEAT_H + SEAT_GAP) + MARGIN


def _header(draw: ImageDraw.ImageDraw, summary: Mapping[str, Any]) -> None:
    font = load_font(26, bold=True)
    if summary["phase"] == "over":
        text = "Game over"
    else:
        text = f"Hand {summary['hand_no']}   ·   Pot {summary['pot']}"
    draw_text(draw, (MARGIN, MARGIN), text, fill=WHITE, font=font)
    cost = summary["next_flip_cost"]
    right = "No more flips this hand" if cost is None else f"Next flip costs {cost}"
    if summary["jackpot"]:
        right = "JACKPOT: 2 cards + 3 tower cards"
    if summary["phase"] == "over":
        right = ""
    draw_text(
        draw,
        (WIDTH - MARGIN, MARGIN + 4),
        right,
        fill=GOLD,
        font=load_font(20, bold=True),
        anchor="ra",
    )


def _towers(image: Image.Image, draw: ImageDraw.ImageDraw, view: Mapping[str, Any]) -> None:
    summary = view["summary"]
    top = MARGIN + HEADER_H
    label = load_font(15, bold=True)
    small = load_font(13, bold=True)
    # Four towers on the left: a stack of backs, its height under it.
    for t, height in enumerate(summary["towers"]):
        x = MARGIN + t * 70
        if height:
            for k in range(min(height, 4) - 1, -1, -1):
                paste_back(image, x + k * 3, top + 8 - k * 3 + 9, 52, 74)
        else:
            draw.rounded_rectangle((x, top + 17, x + 52, top + 91), radius=5, outline=MUTED)
        draw_text(draw, (x + 28, top + 110), f"Tower {t + 1}", fill=MUTED, font=small, anchor="mm")
        draw_text(draw, (x + 28, top + 130), f"{height} left", fill=WHITE, font=label, anchor="mm")
    # The cards turned up this hand, the hold card first.
    x0 = MARGIN + 4 * 70 + 16
    face_up, burned, label_text = table_cards(view)
    draw_text(draw, (x0, top + 2), label_text, fill=MUTED, font=label)
    step = CARD_W + 8 if len(face_up) <= 4 else (WIDTH - MARGIN - 90 - x0) // len(face_up)
    for i, code in enumerate(face_up):
        x = x0 + i * step
        paste_card(image, x, top + 22, code, CARD_W, CARD_H)
        if step >= CARD_W:
            word = "hold" if i == 0 else ("extra" if i >= 4 else f"flip {i + 1}")
        else:  # overlapping cards: short words
            word = "hold" if i == 0 else ("+" if i >= 4 else f"#{i + 1}")
        draw_text(
            draw,
            (x + CARD_W / 2, top + 22 + CARD_H + 12),
            word,
            fill=MUTED,
            font=label,
            anchor="mm",
        )
    if not face_up:
        # A game that ended on a fold (or a walk-out) had no show to decide its last hand.
        over = summary["phase"] == "over"
        none = "none: the last hand ended without a show" if over else "none"
        draw_text(draw, (x0, top + 40), none, fill=WHITE, font=load_font(18))
    bx = WIDTH - MARGIN - 60
    draw_text(draw, (bx + 24, top + 2), "burned", fill=MUTED, font=label, anchor="ma")
    if burned:
        paste_card(image, bx, top + 22, burned, 48, 67)


def _seat(
    image: Image.Image,
    draw: ImageDraw.ImageDraw,
    summary: Mapping[str, Any],
    seat: int,
    box: tuple[int, int, int, int],
    to_act: int | None,
    shown: Sequence[str] | None,
    name: str,
) -> None:
    x0, y0, x1, y1 = box
    status = seat_status(summary, seat)
    fill = SEAT_DIM if status in ("LEFT", "OUT", "FOLDED") else SEAT_FILL
    acting = to_act == seat
    draw.rounded_rectangle(
        box, radius=10, fill=fill, outline=GOLD if acting else FELT_DARK, width=5 if acting else 2
    )
    font = load_font(22, bold=True)
    draw_text(draw, (x0 + 12, y0 + 8), name, fill=WHITE, font=font)
    after = x0 + 12 + int(text_length(font, name)) + 10
    if summary["dealer"] == seat and summary["phase"] != "over":
        cx = after + 13
        after += 34
        draw.ellipse((cx - 13, y0 + 8, cx + 13, y0 + 34), fill=WHITE, outline=INK)
        draw_text(draw, (cx, y0 + 21), "D", fill=INK, font=load_font(17, bold=True), anchor="mm")
    if acting:
        draw_text(draw, (after, y0 + 12), "TO ACT", fill=GOLD, font=load_font(16, bold=True))
    body = load_font(18)
    draw_text(
        draw,
        (x0 + 12, y0 + 40),
        f"Chips {summary['chips'][seat]}",
        fill=WHITE,
        font=load_font(20, bold=True),
    )
    bet = summary["round_bets"][seat]
    draw_text(
        draw,
        (x0 + 12, y0 + 66),
        f"Bet {bet} · in pot {summary['in_pot'][seat]}",
        fill=WHITE,
        font=body,
    )
    if status:
        draw_text(
            draw,
            (x1 - 12, y0 + 10),
            status,
            fill=STATUS_COLOURS[status],
            font=load_font(18, bold=True),
            anchor="ra",
        )
    if shown:
        sx = x1 - 10 - len(shown) * (SMALL_W + 3)
        for i, code in enumerate(shown):
            paste_card(image, sx + i * (SMALL_W + 3), y1 - SMALL_H - 6, code, SMALL_W, SMALL_H)


def table_cards(view: Mapping[str, Any]) -> tuple[list[str], str | None, str]:
    """The cards face up on the table, the burned card and the words over them: this hand's
    while one is played, or, once the hand (or the game) ended with no card turned up since,
    those of the last show, which decided it."""
    summary = view["summary"]
    shows = view.get("shows") or []
    if not summary["face_up"] and shows and shows[-1].get("face_up"):
        show = shows[-1]
        return list(show["face_up"]), show.get("burned"), "Face up at the last show"
    return list(summary["face_up"]), summary["burned"], "Face up this hand"


def render_table(
    view: Mapping[str, Any], names: Sequence[str] = (), result: str | None = None
) -> bytes:
    """The table as a PNG, the players named by ``names``; ``result`` (the game's result in
    words) makes the banner."""
    summary = view["summary"]
    seats = len(summary["chips"])
    drawn = picture_names(names, seats, load_font(22, bold=True), NAME_W)
    image = png.canvas((WIDTH, image_height(seats)), PALETTE, FELT)
    draw = png.draw(image)
    _header(draw, summary)
    _towers(image, draw, view)
    shows = view.get("shows") or []
    shown_hands: list[Any] = shows[-1]["hands"] if shows else [None] * seats
    top = MARGIN + HEADER_H + TOWER_ROW_H + 24
    col_w = (WIDTH - 2 * MARGIN - SEAT_GAP) // 2
    for seat in range(seats):
        row, col = divmod(seat, 2)
        x0 = MARGIN + col * (col_w + SEAT_GAP)
        y0 = top + row * (SEAT_H + SEAT_GAP)
        _seat(
            image,
            draw,
            summary,
            seat,
            (x0, y0, x0 + col_w, y0 + SEAT_H),
            view["to_act"],
            shown_hands[seat],
            drawn[seat],
        )
    if result is not None:
        image = with_banner(image, result, fill=GOLD, ink=INK)
    return png.encode(image, PALETTE)
