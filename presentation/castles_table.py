"""Castles Besieged (``castles``) table pictures: a PNG drawn with Pillow from the public view.

Reads only the spectator view (``engine.castles.Castles.view`` with seat ``None``) and the public
events of the last action, so nothing hidden (a hand) can be drawn. The two rows face each other
position by position, as the rules lay them: the second player's row above, the first's below,
the position numbers between them, ten positions to a band (a long row wraps into further bands).
Each side has its player's name, its castle with ten pips for the hits it can take, its hand size
and the dealer button; the seat to act has a gold frame. The last move is framed in gold and said
in lines at the bottom; a finished game's picture opens with a banner saying the result.

800 px wide, so that Discord's ~400 px preview halves it; cards are white with large ranks and
DejaVu suit symbols (♠♥♦♣), red suits in red, on the dark felt of the tower poker table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PIL import ImageDraw

from engine import cards
from engine.castles import HITS_TO_LOSE
from engine.rules import Event
from presentation import png
from presentation.base import fit_alt
from presentation.endings import abandoned_line, resigned_line
from presentation.knights_board import draw_text, load_font, text_length
from presentation.picture_text import picture_names, seat_names, with_banner, wrap
from presentation.towers_table import (
    CARD_BLENDS,
    FELT,
    FELT_DARK,
    GOLD,
    INK,
    MUTED,
    PAPER,
    RED,
    SEAT_FILL,
    WHITE,
    paste_card,
)

RGB = tuple[int, int, int]

WIDTH = 800
MARGIN = 16
SEAT_H = 64
CARD_W, CARD_H = 66, 92
CARD_GAP = 9
PER_BAND = 10
NUMBER_H = 26
BAND_GAP = 14
FOOTER_H = 40
FOOTER_LINE_H = 22
NAME_W = 250  # a name longer than this is shortened with "…"
PIP_EMPTY: RGB = (60, 90, 76)

PALETTE = png.Palette(
    colours=(FELT, FELT_DARK, PAPER, INK, RED, GOLD, WHITE, MUTED, SEAT_FILL, PIP_EMPTY),
    blends=(
        *CARD_BLENDS,
        *((ink, ground) for ground in (FELT, SEAT_FILL) for ink in (WHITE, GOLD, MUTED)),
        (FELT_DARK, WHITE),
        (INK, GOLD),  # the result banner
    ),
)


def _bands(rows: Sequence[Sequence[str]]) -> int:
    longest = max((len(r) for r in rows), default=0)
    return max(1, (longest + PER_BAND - 1) // PER_BAND)


def image_height(rows: Sequence[Sequence[str]], footer_lines: int = 1) -> int:
    band = CARD_H + NUMBER_H + CARD_H + BAND_GAP
    footer = FOOTER_H + (footer_lines - 1) * FOOTER_LINE_H
    return MARGIN + SEAT_H + 10 + _bands(rows) * band + SEAT_H + footer + MARGIN


def last_move_text(events: Sequence[Event], names: Sequence[str] = ()) -> str | None:
    """The last action in words with the players' names (the picture and the alt text say it
    alike)."""
    sides = seat_names(names, 2)
    for event in events:
        kind = event.get("type")
        seat = event.get("seat")
        if not isinstance(seat, int):
            continue
        who = sides[seat]
        other = sides[1 - seat]
        if kind == "card_drawn":
            return f"{who} drew a card."
        if kind == "card_laid":
            return f"{who} laid {cards.pretty(event['card'])} at position {event['pos'] + 1}."
        if kind == "attacked":
            dice = event["dice"]
            roll = f"rolled {dice[0]} + {dice[1]} = {sum(dice)}, needed {event['needed']}+"
            attacker = cards.pretty(event["card"])
            if event["target"] == "card":
                target = f"{other}'s {cards.pretty(event['target_card'])}"
                outcome = "killed it" if event["hit"] else "missed"
            else:
                target = f"{other}'s castle"
                outcome = "a hit" if event["hit"] else "missed"
            return (
                f"{who}'s {attacker} (position {event['pos'] + 1}) attacked {target}: "
                f"{roll}, {outcome}."
            )
        if kind == "passed":
            return f"{who} passed."
        if kind == "resigned":
            return resigned_line(who, event)
        if kind == "abandoned":
            return abandoned_line(who)
    return None


def _marked(events: Sequence[Event]) -> tuple[int, int] | None:
    """The (seat, position) of the card the last move laid or attacked with."""
    for event in events:
        if event.get("type") in ("card_laid", "attacked"):
            return int(event["seat"]), int(event["pos"])
    return None


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
        radius=10,
        fill=SEAT_FILL,
        outline=GOLD if acting else FELT_DARK,
        width=4 if acting else 2,
    )
    x, y = MARGIN + 14, top + 8
    font = load_font(22, bold=True)
    draw_text(draw, (x, y), name, fill=WHITE, font=font)
    after = x + int(text_length(font, name)) + 12
    if summary["dealer"] == seat:
        cx = after + 12
        after += 34
        draw.ellipse((cx - 12, y + 1, cx + 12, y + 25), fill=WHITE, outline=FELT_DARK)
        draw_text(
            draw, (cx, y + 13), "D", fill=FELT_DARK, font=load_font(16, bold=True), anchor="mm"
        )
    n = summary["hand_sizes"][seat]
    draw_text(
        draw,
        (x, y + 30),
        f"{n} card{'s' if n != 1 else ''} in hand",
        fill=MUTED,
        font=load_font(17),
    )
    if acting:
        draw_text(draw, (after, y + 4), "TO ACT", fill=GOLD, font=load_font(17, bold=True))
    hits = summary["hits"][seat]
    label = f"Castle: {hits}/{HITS_TO_LOSE} hits"
    right = WIDTH - MARGIN - 14
    pip, gap = 18, 5
    pips_left = right - HITS_TO_LOSE * (pip + gap) + gap
    draw_text(draw, (right, y), label, fill=WHITE, font=load_font(20, bold=True), anchor="ra")
    for k in range(HITS_TO_LOSE):
        px = pips_left + k * (pip + gap)
        fill = RED if k < hits else PIP_EMPTY
        draw.rectangle((px, y + 32, px + pip, y + 32 + pip), fill=fill, outline=FELT_DARK)


def _slot(draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
    """An empty position: a dashed outline, so the pairing still reads."""
    for k in range(0, CARD_W, 12):
        draw.line((x + k, y, x + min(k + 6, CARD_W), y), fill=MUTED)
        draw.line((x + k, y + CARD_H, x + min(k + 6, CARD_W), y + CARD_H), fill=MUTED)
    for k in range(0, CARD_H, 12):
        draw.line((x, y + k, x, y + min(k + 6, CARD_H)), fill=MUTED)
        draw.line((x + CARD_W, y + k, x + CARD_W, y + min(k + 6, CARD_H)), fill=MUTED)


def render_table(
    view: Mapping[str, Any],
    last_events: Sequence[Event] = (),
    names: Sequence[str] = (),
    result: str | None = None,
) -> bytes:
    """The table as a PNG, from the spectator view and the last action's (public) events, the
    players named by ``names``; ``result`` (the game's result in words) makes the banner."""
    summary = view["summary"]
    rows: list[list[str]] = summary["rows"]
    drawn = picture_names(names, 2, load_font(22, bold=True), NAME_W)
    footer = f"Draw pile {summary['pile']} · killed {summary['discard']}"
    moved = last_move_text(last_events, drawn)
    if moved:
        footer = f"Last: {moved}"
    font = load_font(17)
    lines = wrap(font, footer, WIDTH - 2 * MARGIN)
    image = png.canvas((WIDTH, image_height(rows, len(lines))), PALETTE, FELT)
    draw = png.draw(image)
    to_act = view["to_act"]
    _seat_band(draw, summary, 1, MARGIN, to_act == 1, drawn[1])
    marked = _marked(last_events)
    top = MARGIN + SEAT_H + 10
    width = PER_BAND * CARD_W + (PER_BAND - 1) * CARD_GAP
    x0 = (WIDTH - width) // 2
    numbers = load_font(17, bold=True)
    for band in range(_bands(rows)):
        upper, middle = top, top + CARD_H
        lower = middle + NUMBER_H
        longest = max(len(rows[0]), len(rows[1]))
        for k in range(PER_BAND):
            pos = band * PER_BAND + k
            if pos >= max(longest, 1) and not (band == 0 and k == 0):
                break
            x = x0 + k * (CARD_W + CARD_GAP)
            for seat, y in ((1, upper), (0, lower)):
                row = rows[seat]
                if pos < len(row):
                    paste_card(image, x, y, row[pos], CARD_W, CARD_H)
                    if marked == (seat, pos):
                        draw.rounded_rectangle(
                            (x - 4, y - 4, x + CARD_W + 4, y + CARD_H + 4),
                            radius=8,
                            outline=GOLD,
                            width=4,
                        )
                else:
                    _slot(draw, x, y)
            draw_text(
                draw,
                (x + CARD_W / 2, middle + NUMBER_H / 2),
                str(pos + 1),
                fill=MUTED,
                font=numbers,
                anchor="mm",
            )
        top = lower + CARD_H + BAND_GAP
    _seat_band(draw, summary, 0, top, to_act == 0, drawn[0])
    for k, line in enumerate(lines):
        y = top + SEAT_H + 10 + k * FOOTER_LINE_H
        draw_text(draw, (MARGIN, y), line, fill=GOLD if moved else WHITE, font=font)
    if result is not None:
        image = with_banner(image, result, fill=GOLD, ink=INK)
    return png.encode(image, PALETTE)


def alt_text(
    view: Mapping[str, Any],
    last_events: Sequence[Event] = (),
    names: Sequence[str] = (),
    result: str | None = None,
) -> str:
    """The picture in words: the result once over, each side's castle and hand, the rows
    position by position, the pile and the last move (at most 1024 characters, Discord's limit
    for alt text)."""
    summary = view["summary"]
    rows: list[list[str]] = summary["rows"]
    sides = seat_names(names, 2)
    parts = ["Castles Besieged table."]
    if result is not None:
        parts.append(f"Game over: {result}")
    for seat in (0, 1):
        dealer = ", dealer" if summary["dealer"] == seat else ""
        parts.append(
            f"{sides[seat]}: castle {summary['hits'][seat]} of {HITS_TO_LOSE} hits, "
            f"{summary['hand_sizes'][seat]} in hand{dealer}."
        )
    pairs = []
    for pos in range(max(len(rows[0]), len(rows[1]))):
        a = cards.pretty(rows[0][pos]) if pos < len(rows[0]) else "castle"
        b = cards.pretty(rows[1][pos]) if pos < len(rows[1]) else "castle"
        pairs.append(f"{pos + 1}: {a} against {b}")
    parts.append(
        f"Rows, {sides[0]} against {sides[1]}: " + "; ".join(pairs) + "."
        if pairs
        else "No cards in play."
    )
    parts.append(f"Draw pile {summary['pile']}, killed {summary['discard']}.")
    moved = last_move_text(last_events, sides)
    if moved:
        parts.append(f"Last move: {moved}")
    if view["result"] is None and view["to_act"] is not None:
        parts.append(f"{sides[view['to_act']]} to act.")
    text = " ".join(parts)
    return fit_alt(text)
