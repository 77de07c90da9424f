"""The pictures' fixed palettes (presentation.png): each renderer's 256 colours come from the
colours it declares, never from a picture, so a picture always encodes to the same bytes; mapped
onto them, a picture keeps its flat colours exactly and its antialiased text within a few levels
of the RGB drawing. The kept text masks and card faces draw the same pixels as drawing afresh."""

from __future__ import annotations

import io
import random
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
        knights_board._text_mask,
        knights_board.text_length,
        towers_table._face,
        towers_table._back,
        king_table._token,
        king_table._castle_face,
    ):
        cached.cache_clear()


ENCODE = png.encode


def capture(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Image.Image, png.Palette | None]]:
    """The RGB pictures the renderers hand to ``png.encode`` (with their palettes)."""
    caught: list[tuple[Image.Image, png.Palette | None]] = []

    def keep(image: Image.Image, palette: png.Palette | None = None) -> bytes:
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


@pytest.mark.parametrize("key", sorted(PALETTES))
def test_the_fixed_palette_is_faithful_to_the_rgb_picture(
    key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    caught = capture(monkeypatch)
    renderer = get_renderer(key)
    for seed in (4, 9, 14):
        for view, events in positions(key, seed, every=5):
            renderer.table_image(view, events)
            if key == "knights" and events:
                # The panel picture too: turned round, destinations ringed.
                pieces = sorted(view["summary"]["pieces"])
                knights_board.render_board_png(
                    view, flip=True, highlight=pieces[:3], chosen=pieces[-1]
                )
    assert len(caught) >= 8
    worst_mean, worst = 0.0, 0
    for image, palette in caught:
        assert palette is PALETTES[key]
        difference = ImageChops.difference(image, decoded(ENCODE(image, palette)))
        worst_mean = max(worst_mean, *ImageStat.Stat(difference).mean)
        worst = max(worst, *(high for _, high in difference.getextrema()))  # type: ignore[misc]
    # Measured: mean at most 0.09 a channel, no pixel 13 levels off (Pillow's adaptive
    # 256 colours: 0.15-0.6 and 15). A colour drawn but not declared shows as 40 or more.
    assert worst_mean < 0.3, (key, worst_mean)
    assert worst <= 20, (key, worst)


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
