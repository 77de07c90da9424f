"""The Siege (``knights``) board pictures: the PNG and the text board, from engine views only."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

from PIL import Image, ImageChops, ImageFont

from engine.knights import GAME, SQUARES, square_kind
from presentation.knights_board import (
    FONT_BOLD_PATH,
    FONT_PATH,
    SQUARE_PX,
    image_size,
    load_font,
    render_board_png,
    square_boxes,
    text_board,
)

ROOT = Path(__file__).parents[2]
RNG = random.Random(0)  # never drawn from: there is no chance in Siege


def play(moves: list[tuple[int, str, str]], crown: str = "d6") -> dict[str, Any]:
    state = GAME.setup(2, {}, RNG)
    state, _ = GAME.apply(state, 1, {"type": "place_commander", "square": crown}, RNG)
    for seat, from_sq, to_sq in moves:
        state, _ = GAME.apply(state, seat, {"type": "move", "from": from_sq, "to": to_sq}, RNG)
    return state


def decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


CAPTURE = [(0, "d0", "c2"), (1, "f6", "g6"), (0, "c2", "b4"), (1, "g6", "g5"), (0, "b4", "c6")]


def test_png_decodes_with_the_expected_size() -> None:
    image = decode(render_board_png(GAME.view(play([]), None)))
    assert image.format == "PNG"
    assert image.size == image_size() == (2 * 28 + 8 * SQUARE_PX, 2 * 28 + 7 * SQUARE_PX + 40)
    small = decode(render_board_png(GAME.view(play([]), 0), square_px=40))
    assert small.size == image_size(40)


def test_png_differs_between_positions_and_orientations() -> None:
    first = render_board_png(GAME.view(play([]), None))
    second = render_board_png(GAME.view(play([(0, "d0", "c2")]), None))
    flipped = render_board_png(GAME.view(play([]), None), flip=True)
    assert len({first, second, flipped}) == 3


def test_png_accepts_a_bare_summary_and_marks_the_last_move() -> None:
    state = play(CAPTURE)
    view = GAME.view(state, None)
    marked = decode(render_board_png(view)).convert("RGB")
    plain = decode(render_board_png(GAME.summary(state))).convert("RGB")
    boxes = square_boxes(SQUARE_PX, False)
    for square in ("b4", "c6"):  # the from square and the capture on c6 are marked
        assert ImageChops.difference(
            marked.crop(boxes[square]), plain.crop(boxes[square])
        ).getbbox()
    # An unmarked square is drawn alike: the 256 colours picked for each picture may move a
    # shade by a step or two, never more.
    for square in ("h1", "a1", "d4"):
        difference = ImageChops.difference(marked.crop(boxes[square]), plain.crop(boxes[square]))
        assert max(high for _, high in difference.getextrema()) <= 4, square


def test_highlight_rings_squares() -> None:
    view = GAME.view(play([]), 0)
    plain = decode(render_board_png(view)).convert("RGB")
    ringed = decode(render_board_png(view, highlight=["c2", "b0"])).convert("RGB")
    boxes = square_boxes(SQUARE_PX, False)
    for square in ("c2", "b0"):
        assert ImageChops.difference(
            plain.crop(boxes[square]), ringed.crop(boxes[square])
        ).getbbox()


def test_square_kinds_differ_in_greyscale() -> None:
    # An empty square of each kind, in greyscale: every pair must look different (patterns, not
    # only colours, tell them apart).
    empty = {"pieces": {}, "captured": {"knights": 0, "defenders": 0}}
    grey = decode(render_board_png(empty)).convert("L")
    boxes = square_boxes(SQUARE_PX, False)
    sample = {square_kind(s): s for s in SQUARES}
    assert set(sample) == {"blue", "green", "start", "castle", "crown", "dot"}
    crops = {kind: grey.crop(boxes[square]) for kind, square in sample.items()}
    kinds = sorted(crops)
    for i, a in enumerate(kinds):
        for b in kinds[i + 1 :]:
            assert ImageChops.difference(crops[a], crops[b]).getbbox(), (a, b)


def test_pieces_differ_in_greyscale() -> None:
    summary = {"pieces": {"c3": "N", "d3": "D", "e3": "C"}}
    grey = decode(render_board_png(summary)).convert("L")
    boxes = square_boxes(SQUARE_PX, False)
    knight, footman, commander = (grey.crop(boxes[s]) for s in ("c3", "d3", "e3"))
    assert ImageChops.difference(knight, footman).getbbox()
    assert ImageChops.difference(footman, commander).getbbox()


def test_font_loads_from_the_bundled_assets() -> None:
    fonts = ROOT / "assets" / "fonts"
    assert (fonts / "DejaVuSans.ttf").resolve() == FONT_PATH
    assert (fonts / "DejaVuSans-Bold.ttf").resolve() == FONT_BOLD_PATH
    assert (fonts / "LICENSE-DejaVu.txt").read_text(encoding="utf-8").count("Bitstream") > 0
    font = load_font(20, bold=True)
    assert isinstance(font, ImageFont.FreeTypeFont)
    assert Path(str(font.path)).resolve() == FONT_BOLD_PATH
    assert font.getname()[0] == "DejaVu Sans"


def test_text_board_shows_every_piece() -> None:
    state = play(CAPTURE)
    text = text_board(GAME.view(state, None))
    grid = text.split("```")[1]
    assert grid.count("N") == 4 and grid.count("D") == 3 and grid.count("C") == 1
    assert "Knights: b0, c6, e0, g0 (0 captured)" in text
    assert "Defenders: d5, e5, g5 (1 captured)" in text
    assert "Commander: d6" in text
    assert "Last move: Nb4xc6 (attacker), capturing a Defender." in text
    rows = grid.strip("\n").splitlines()
    assert rows[1] == " 6  ~ . N C ^ * . ~"
    assert rows[7] == " 0    N   o N   N"


def test_text_board_before_placement_and_after_the_end() -> None:
    state = GAME.setup(2, {}, RNG)
    assert "Commander: not placed yet (d6 or e6)" in text_board(GAME.view(state, None))
    over = play([(0, "d0", "e2"), (1, "e5", "f5"), (0, "e2", "d4"), (1, "f6", "g6")], "e6")
    over, _ = GAME.apply(over, 0, {"type": "move", "from": "d4", "to": "e6"}, RNG)
    text = text_board(GAME.view(over, 1), flip=True, code_block=False)
    assert "Commander: captured" in text
    assert "capturing the Commander" in text
    assert text.splitlines()[0] == "    h g f e d c b a"
    assert "```" not in text


def test_text_board_fits_an_embed_field() -> None:
    rng = random.Random(7)
    for _ in range(40):
        state = GAME.setup(2, {}, RNG)
        while GAME.result(state) is None:
            seat = GAME.to_act(state)
            assert seat is not None
            state, _ = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)), RNG)
            assert len(text_board(GAME.view(state, None))) <= 1024
