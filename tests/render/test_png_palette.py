"""The pictures' fixed palettes (presentation.png): each renderer's 256 colours come from the
colours it declares, never from a picture, so a picture always encodes to the same bytes; mapped
onto them, a picture keeps its flat colours exactly and its antialiased text within a few levels
of the RGB drawing. The renderers draw in the palette from the start (``png.canvas``): the
pixels are those of drawing in RGB and mapping afterwards. The kept text masks and card faces
draw the same pixels as drawing afresh."""

from __future__ import annotations

import io
import random
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PIL import Image, ImageChops, ImageDraw, ImageStat

from engine import get_game
from engine.rules import Event, rng_for
from presentation import (
    castles_table,
    get_renderer,
    king_table,
    knights_board,
    knights_table,
    kurth_board,
    png,
    towers_table,
)

PALETTES = {
    "castles": castles_table.PALETTE,
    "king": king_table.PALETTE,
    "knights": knights_board.PALETTE,
    "kurth": kurth_board.PALETTE,
    "towers": towers_table.PALETTE,
}
SEATS = {"kurth": 1, "towers": 3}


def positions(key: str, seed: int, every: int = 7) -> Iterator[tuple[dict[str, Any], list[Event]]]:
    """Spectator views (with the events that led to them) along a seeded random game."""
    game = get_game(key)
    rng = random.Random(seed)
    state = game.setup(SEATS.get(key, 2), {}, rng_for(seed, "setup"))
    events: list[Event] = []
    for ply in range(400):
        if ply % every == 0:
            yield game.view(state, None), events
        seat = game.to_act(state)
        if seat is None:
            yield game.view(state, None), events
            return
        action = rng.choice(game.legal_actions(state, seat))
        state, events = game.apply(state, seat, action, rng_for(seed, ply))


def clear_caches() -> None:
    """Forget every palette, kept word and card drawn so far in this process."""
    for cached in (
        png._palette_image,
        png._palette_bytes,
        png._entries,
        png._coverage_table,
        knights_board._text_mask,
        knights_board.text_length,
        towers_table._face,
        towers_table._back,
        king_table._token,
        king_table._castle_face,
        *BACKGROUNDS,
    ):
        cached.cache_clear()
    png._MAPPED.clear()
    png._LAID.clear()


#: The backgrounds drawn once and copied (on the canvas of the first picture drawn).
BACKGROUNDS = (knights_board._base_board, knights_table._strip, kurth_board._base_city)


def in_rgb(monkeypatch: pytest.MonkeyPatch) -> None:
    """Draw the pictures in RGB from now on (mapped onto the palette at the end, as before the
    renderers drew in it), backgrounds drawn anew."""
    monkeypatch.setattr(png, "canvas", lambda size, palette, fill: Image.new("RGB", size, fill))
    for cached in BACKGROUNDS:
        cached.cache_clear()


ENCODE = png.encode


def capture(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Image.Image, png.Palette]]:
    """The pictures the renderers hand to ``png.encode`` (with their palettes)."""
    caught: list[tuple[Image.Image, png.Palette]] = []

    def keep(image: Image.Image, palette: png.Palette) -> bytes:
        caught.append((image.copy(), palette))
        return ENCODE(image, palette)

    monkeypatch.setattr(png, "encode", keep)
    return caught


def decoded(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


@pytest.mark.parametrize("key", sorted(PALETTES))
def test_a_palette_keeps_every_flat_colour_exactly(key: str) -> None:
    palette = PALETTES[key]
    colours = png.palette_colours(palette)
    flat = palette.flat()
    assert len(colours) <= 256 and colours[: len(flat)] == flat
    swatch = Image.new("RGB", (len(flat), 1))
    swatch.putdata(flat)
    back = decoded(png.encode(swatch, palette))
    assert [back.getpixel((x, 0)) for x in range(len(flat))] == flat


def test_a_picture_encodes_to_the_same_bytes_whatever_was_drawn_before() -> None:
    views = {key: list(positions(key, 21, every=11))[:4] for key in PALETTES}
    castles = get_renderer("castles")
    target, events = views["castles"][-1]
    clear_caches()
    first = castles.table_image(target, events)
    assert png.palette_colours(castles_table.PALETTE) == png.palette_colours(castles_table.PALETTE)
    # Another process order: every other game and position first, from empty caches.
    clear_caches()
    for key, sample in views.items():
        for view, last in sample:
            get_renderer(key).table_image(view, last)
    assert castles.table_image(target, events) == first
    for key, sample in views.items():
        view, last = sample[1]
        one = get_renderer(key).table_image(view, last)
        assert one == get_renderer(key).table_image(view, last), key


def pictures(key: str, seeds: tuple[int, ...], every: int) -> Iterator[bytes]:
    """Table pictures along seeded random games (Siege's panel picture too: turned round,
    destinations ringed)."""
    renderer = get_renderer(key)
    for seed in seeds:
        for view, events in positions(key, seed, every=every):
            picture = renderer.table_image(view, events)
            assert picture is not None
            yield picture
            if key == "knights" and events:
                pieces = sorted(view["summary"]["pieces"])
                yield knights_board.render_board_png(
                    view, flip=True, highlight=pieces[:3], chosen=pieces[-1]
                )


@pytest.mark.parametrize("key", sorted(PALETTES))
def test_the_fixed_palette_is_faithful_to_the_rgb_picture(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    in_rgb(monkeypatch)
    caught = capture(monkeypatch)
    for _ in pictures(key, (4, 9, 14), every=5):
        pass
    assert len(caught) >= 8
    worst_mean, worst = 0.0, 0
    for image, palette in caught:
        assert palette is PALETTES[key] and image.mode == "RGB"
        difference = ImageChops.difference(image, decoded(ENCODE(image, palette)))
        worst_mean = max(worst_mean, *ImageStat.Stat(difference).mean)
        worst = max(worst, *(high for _, high in difference.getextrema()))  # type: ignore[misc]
    # Measured: mean at most 0.09 a channel, no pixel 13 levels off (Pillow's adaptive
    # 256 colours: 0.15-0.6 and 15). A colour drawn but not declared shows as 40 or more.
    assert worst_mean < 0.3, (key, worst_mean)
    assert worst <= 20, (key, worst)


@pytest.mark.parametrize("key", sorted(PALETTES))
def test_drawn_in_the_palette_is_drawn_in_rgb_and_mapped(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pixel for pixel, whole games of each: what the renderers draw in the palette from the
    start and what they drew in RGB and mapped at the end."""
    clear_caches()
    caught = capture(monkeypatch)
    drawn = list(pictures(key, (3, 8), every=3))
    assert all(image.mode == "P" for image, _ in caught) and len(caught) == len(drawn) >= 8
    in_rgb(monkeypatch)
    mapped = list(pictures(key, (3, 8), every=3))
    assert [image.mode for image, _ in caught[len(drawn) :]] == ["RGB"] * len(mapped)
    for one, two in zip(drawn, mapped, strict=True):
        assert decoded(one).tobytes() == decoded(two).tobytes(), key


def same_pixels(
    draw_one: Callable[[Image.Image], None], draw_two: Callable[[Image.Image], None]
) -> None:
    one = Image.new("RGB", (220, 120), towers_table.FELT)
    two = one.copy()
    draw_one(one)
    draw_two(two)
    assert one.tobytes() == two.tobytes()


def test_kept_words_and_cards_draw_the_same_pixels_as_drawing_afresh() -> None:
    font = knights_board.load_font(17, bold=True)
    spots = [((10, 10), None), ((30.5, 40.25), "mm"), ((200.75, 90), "ra"), ((15, 100.5), "lm")]

    def kept(image: Image.Image) -> None:
        draw = ImageDraw.Draw(image)
        for xy, anchor in spots:
            knights_board.draw_text(draw, xy, "Tower 3 ♥", towers_table.GOLD, font, anchor)

    def afresh(image: Image.Image) -> None:
        draw = ImageDraw.Draw(image)
        for xy, anchor in spots:
            draw.text(xy, "Tower 3 ♥", fill=towers_table.GOLD, font=font, anchor=anchor)

    same_pixels(kept, afresh)
    assert knights_board.text_length(font, "Seat 2") == ImageDraw.Draw(
        Image.new("RGB", (1, 1))
    ).textlength("Seat 2", font=font)
    for card in (("TH", 72, 100), ("XR", 48, 67), ("AS", 44, 62)):
        same_pixels(
            lambda image, card=card: towers_table.paste_card(image, 5, 7, *card),  # type: ignore[misc]
            lambda image, card=card: towers_table.draw_card(ImageDraw.Draw(image), 5, 7, *card),  # type: ignore[misc]
        )
    same_pixels(
        lambda image: towers_table.paste_back(image, 3, 4, 52, 74),
        lambda image: towers_table.draw_back(ImageDraw.Draw(image), 3, 4, 52, 74),
    )


def test_text_on_a_palette_picture_is_text_drawn_in_rgb_and_mapped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One ground and two (the patch drawn in RGB), at fractional spots and clipped at the
    picture's edges, kept words and a long line alike."""
    palette = castles_table.PALETTE
    font = knights_board.load_font(17, bold=True)
    spots = [
        ((10, 10), None, "Tower 3 ♥"),
        ((30.5, 40.25), "mm", "Castle: 3/10 hits"),
        ((200.75, 52), "ra", "TO ACT"),  # across the seat's edge: two grounds
        ((-4, 100.5), "lm", "clipped on the left"),
        ((205, 152), None, "clipped on the right and below"),
        ((6, 120), None, "Last: a line longer than the words a process keeps drawn, once"),
    ]  # apart: text laid over the soft edge of other text may differ by a palette step
    rgb = Image.new("RGB", (220, 160), towers_table.FELT)
    ImageDraw.Draw(rgb).rectangle((0, 60, 219, 159), fill=towers_table.SEAT_FILL)
    indexed = png.canvas(rgb.size, palette, towers_table.FELT)
    png.draw(indexed).rectangle((0, 60, 219, 159), fill=towers_table.SEAT_FILL)
    patches: list[tuple[int, int]] = []
    mapping = png.indexed

    def counted(piece: Image.Image, palette: png.Palette) -> Image.Image:
        patches.append(piece.size)
        return mapping(piece, palette)

    monkeypatch.setattr(png, "indexed", counted)
    for k, (xy, anchor, text) in enumerate(spots):
        ink = (towers_table.GOLD, towers_table.WHITE)[k % 2]
        ImageDraw.Draw(rgb).text(xy, text, fill=ink, font=font, anchor=anchor)
        knights_board.draw_text(png.draw(indexed), xy, text, ink, font, anchor)
    # (Each ink and ground's table is worked out on a strip of 256.) "TO ACT", across the
    # seat's edge, is drawn in RGB and mapped.
    assert [size for size in patches if size != (256, 1)] == [(71, 12)]
    assert indexed.mode == "P"
    assert indexed.tobytes() == mapping(rgb, palette).tobytes()
    # A plain ImageDraw would blend palette entries as numbers: refused.
    with pytest.raises(ValueError, match=r"png\.draw"):
        knights_board.draw_text(ImageDraw.Draw(indexed), (5, 5), "x", towers_table.GOLD, font)


def test_pieces_on_a_palette_picture_are_mapped_once_and_never_stale() -> None:
    palette = towers_table.PALETTE
    indexed = png.canvas((220, 120), palette, towers_table.FELT)
    rgb = Image.new("RGB", (220, 120), towers_table.FELT)
    for image in (indexed, rgb):
        towers_table.paste_card(image, 5, 7, "TH", 72, 100)
        towers_table.paste_back(image, 90, 4, 52, 74)
    assert indexed.tobytes() == png.indexed(rgb, palette).tobytes()
    # A kept mapping whose piece is gone (its id reused by another piece) is not used.
    piece = Image.new("RGB", (4, 4), towers_table.GOLD)
    mask = Image.new("L", (4, 4), 255)
    stale = Image.new("P", (4, 4), 0)
    gone = Image.new("RGB", (1, 1))
    png._MAPPED[(id(piece), palette)] = (weakref.ref(gone), stale)
    png.paste(indexed, piece, (0, 0), mask)
    assert indexed.getpixel((1, 1)) == png.palette_colours(palette).index(towers_table.GOLD)
    # A blended mask cannot be pasted on palette entries.
    soft = Image.new("L", (4, 4), 128)
    with pytest.raises(ValueError, match="0 and 255"):
        png.paste(indexed, Image.new("RGB", (4, 4), towers_table.RED), (0, 0), soft)


def test_a_palette_picture_is_written_as_a_valid_png_of_its_pixels() -> None:
    """``png.encode`` writes a picture drawn in a palette itself (zlib-ng): a PNG whose every
    chunk checks, with the picture's size, palette and pixels, as Pillow writes it."""
    view, events = list(positions("castles", 5, every=9))[-1]
    caught: list[Image.Image] = []

    def keep(image: Image.Image, palette: png.Palette) -> bytes:
        caught.append(image)
        return b""

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(png, "encode", keep)
        get_renderer("castles").table_image(view, events)
    (image,) = caught
    data = png.encode(image, castles_table.PALETTE)
    Image.open(io.BytesIO(data)).verify()  # every chunk's CRC, and the stream's end
    written = Image.open(io.BytesIO(data))
    assert (written.format, written.mode, written.size) == ("PNG", "P", image.size)
    assert written.getpalette() == image.getpalette()
    assert written.tobytes() == image.tobytes()
    by_pillow = io.BytesIO()
    image.save(by_pillow, format="PNG")
    assert decoded(data).tobytes() == decoded(by_pillow.getvalue()).tobytes()
    assert len(data) < len(by_pillow.getvalue()) * 1.2
