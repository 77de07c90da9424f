"""PNG encoding for the table and panel pictures.

The pictures are flat colours and antialiased text, so 256 colours look the same as the RGB
picture and encode in about half the time at less than half the size; zlib's fastest level
loses little on an indexed picture.

Picking 256 colours for each picture (Pillow's adaptive octree) cost more than drawing it, so
each renderer declares the colours it draws (:class:`Palette`): its flat colours, kept exactly,
and the (ink, ground) pairs its antialiased text mixes, whose blends fill the rest of the 256
entries. The palette is built once per renderer from those declarations alone (never from a
picture), so the same picture always encodes to the same bytes, whatever was drawn before;
mapping a picture onto it is several times cheaper than choosing colours for it.

The renderers draw on a palette picture from the start (:func:`canvas`, mode "P"), so nothing
is mapped at the end: flat shapes take their colour's entry, pieces drawn once (cards, tokens)
are mapped once (:func:`indexed`), and text is laid by a table from coverage to entry for its
ink on the ground under it (:func:`lay_text`), worked out once per ink and ground by drawing
the 256 coverages in RGB and mapping them. The pixels are those of drawing in RGB and mapping
the picture afterwards (``tests/render/test_png_palette.py`` compares both, whole games of
each renderer); text laid over two or more colours is drawn in RGB and mapped, the patch it
covers alone. (Text laid over the soft edge of earlier text would differ by a palette step,
the edge being an entry where RGB had the exact blend; no picture does that.) A picture of
800 x 434 took 0.35-0.5 ms to map and twice the memory to draw on in RGB.

A picture drawn in a palette is written as a PNG here (:func:`encode`): its rows deflated by
zlib-ng (``zlib_ng``, level 2) in the four chunks a palette PNG needs. Pillow's PNG writer
deflates with zlib at its fastest level: 0.74 ms for that picture and 13.2 KB, against 0.20 ms
and 10.2 KB. An RGB picture is mapped onto the palette and written by Pillow, as before.
"""

from __future__ import annotations

import io
import math
import struct
import weakref
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw
from zlib_ng import zlib_ng

RGB = tuple[int, int, int]

# A blend this close (per channel) to a flat colour is left out: the flat colour stands in for it.
_NEAR_FLAT = 3


@dataclass(frozen=True)
class Palette:
    """The colours a renderer draws: ``colours`` flat (each kept exactly) and ``blends``, the
    (ink, ground) pairs that antialiased text (or a pasted mask) mixes on the picture."""

    colours: tuple[RGB, ...]
    blends: tuple[tuple[RGB, RGB], ...] = ()

    def flat(self) -> list[RGB]:
        """Every flat colour (the pairs' ends too), in declaration order, without repeats."""
        ends = [c for pair in self.blends for c in pair]
        return list(dict.fromkeys([*self.colours, *ends]))


def _mix(ink: RGB, ground: RGB, alpha: float) -> RGB:
    r, g, b = (round(gc + (ic - gc) * alpha) for ic, gc in zip(ink, ground, strict=True))
    return r, g, b


def _blends(palette: Palette, near_flat: set[RGB], spacing: float) -> list[RGB]:
    """Blends along each declared pair, about ``spacing`` levels apart, less those in
    ``near_flat``."""
    found: list[RGB] = []
    for ink, ground in palette.blends:
        length = max(abs(a - b) for a, b in zip(ink, ground, strict=True))
        steps = max(1, math.ceil(length / spacing))
        found += (_mix(ink, ground, k / steps) for k in range(1, steps))
    return [c for c in dict.fromkeys(found) if c not in near_flat]


def _near(colours: list[RGB], distance: int) -> set[RGB]:
    """Every colour within ``distance`` levels (per channel) of one of ``colours``."""
    offsets = range(-distance, distance + 1)
    return {
        (r + i, g + j, b + k)
        for r, g, b in colours
        for i in offsets
        for j in offsets
        for k in offsets
    }


def palette_colours(palette: Palette) -> list[RGB]:
    """The at most 256 colours of ``palette``: the flat colours first, then blends spaced evenly
    along the declared pairs, as finely as the free entries allow (the same declarations always
    give the same list)."""
    flat = palette.flat()
    if len(flat) > 256:
        raise ValueError(f"{len(flat)} flat colours do not fit a 256-colour palette")
    free = 256 - len(flat)
    near_flat = _near(flat, _NEAR_FLAT)
    # The finest spacing (in quarter levels) whose blends fit the free entries.
    low, high = 4, 4 * 256
    while low < high:
        middle = (low + high) // 2
        if len(_blends(palette, near_flat, middle / 4)) <= free:
            high = middle
        else:
            low = middle + 1
    blends = _blends(palette, near_flat, low / 4)
    # Pillow looks a colour up by its 4-level box, so a blend next to a flat colour can take the
    # flat colour's pixels: such blends are left out until every flat colour maps to itself.
    swatch = Image.new("RGB", (len(flat), 1))
    swatch.putdata(flat)
    while True:
        mapped = swatch.quantize(palette=_as_image(flat + blends), dither=Image.Dither.NONE)
        taken = {i for i in mapped.tobytes() if i >= len(flat)}
        if not taken:
            return flat + blends
        blends = [c for i, c in enumerate(blends, start=len(flat)) if i not in taken]


def _as_image(colours: list[RGB]) -> Image.Image:
    # Unused entries repeat the first colour, so nothing ever maps to them.
    colours = colours + [colours[0]] * (256 - len(colours))
    image = Image.new("P", (1, 1))
    image.putpalette([v for colour in colours for v in colour])
    return image


@lru_cache(maxsize=32)
def _palette_image(palette: Palette) -> Image.Image:
    return _as_image(palette_colours(palette))


@lru_cache(maxsize=32)
def _palette_bytes(palette: Palette) -> bytes:
    return bytes(_palette_image(palette).getpalette() or ())


@lru_cache(maxsize=32)
def _entries(palette: Palette) -> dict[RGB, int]:
    """Each colour of ``palette`` and its entry (the first, where a colour repeats)."""
    entries: dict[RGB, int] = {}
    for k, colour in enumerate(palette_colours(palette)):
        entries.setdefault(colour, k)
    return entries


#: Where a palette picture keeps the :class:`Palette` it is drawn in (its ``info``).
_PALETTE_INFO = "siege.palette"


def canvas(size: tuple[int, int], palette: Palette, fill: RGB) -> Image.Image:
    """A picture of ``size`` in ``palette``'s colours (mode "P"), all ``fill`` (one of its flat
    colours), to draw on with ``ImageDraw`` (flat colours) and this module (text, pieces)."""
    image = Image.new("P", size, _entries(palette)[fill])
    image.putpalette(_palette_bytes(palette), "RGB")
    image.info[_PALETTE_INFO] = palette
    return image


def palette_of(image: Image.Image) -> Palette | None:
    """The palette ``image`` is drawn in (None: an RGB picture)."""
    found = image.info.get(_PALETTE_INFO) if image.mode == "P" else None
    return found if isinstance(found, Palette) else None


def like(image: Image.Image, size: tuple[int, int], fill: RGB | None) -> Image.Image:
    """A new picture of ``size`` drawn as ``image`` is: in its palette, or in RGB (``fill``
    None: left unfilled, for a picture to be pasted over it)."""
    palette = palette_of(image)
    if palette is None:
        return Image.new("RGB", size, fill)
    return canvas(size, palette, fill if fill is not None else palette.colours[0])


class Draw(ImageDraw.ImageDraw):
    """``ImageDraw.Draw(image)`` that keeps its picture: text laid on a picture drawn in a
    palette needs the picture (:func:`draw`)."""

    def __init__(self, image: Image.Image) -> None:
        super().__init__(image)
        self.image = image


def draw(image: Image.Image) -> Draw:
    """An ``ImageDraw`` for ``image`` that text helpers can lay text with, in RGB or in a
    palette alike."""
    return Draw(image)


def picture_of(drawing: ImageDraw.ImageDraw) -> Image.Image | None:
    """The picture ``drawing`` draws on, when it keeps it (:func:`draw`)."""
    return drawing.image if isinstance(drawing, Draw) else None


#: Pieces mapped onto a palette, by the piece's id (checked by a weak reference: a piece is
#: someone's kept drawing, and an id can be reused once it is gone).
_MAPPED: dict[tuple[int, Palette], tuple[weakref.ref[Image.Image], Image.Image]] = {}
_MAPPED_KEPT = 1024


def paste(image: Image.Image, piece: Image.Image, xy: tuple[int, int], mask: Image.Image) -> None:
    """``image.paste(piece, xy, mask)`` for a piece drawn once in RGB and kept (a card, a
    token), on an RGB picture or one drawn in a palette (there the piece is mapped once). The
    mask is a shape, each pixel 0 or 255: a palette entry cannot be blended."""
    palette = palette_of(image)
    if palette is None:
        image.paste(piece, xy, mask)
        return
    key = (id(piece), palette)
    kept = _MAPPED.get(key)
    if kept is None or kept[0]() is not piece:
        if not set(mask.tobytes()) <= {0, 255}:
            raise ValueError("a piece pasted on a palette picture needs a mask of 0 and 255")
        if len(_MAPPED) >= _MAPPED_KEPT:
            _MAPPED.clear()
        kept = (weakref.ref(piece), indexed(piece, palette))
        _MAPPED[key] = kept
    image.paste(kept[1], xy, mask)


def indexed(piece: Image.Image, palette: Palette) -> Image.Image:
    """``piece`` (drawn in RGB) mapped onto ``palette``, to paste on a picture drawn in it (keep
    the result: a piece drawn once is mapped once)."""
    return piece.quantize(palette=_palette_image(palette), dither=Image.Dither.NONE)


@lru_cache(maxsize=1024)
def _coverage_table(palette: Palette, ink: RGB, ground: int) -> list[int]:
    """For text in ``ink`` on the entry ``ground``: the entry each coverage (0-255) maps to, as
    drawing it in RGB and mapping the picture would give (0: the ground, as it was)."""
    strip = Image.new("RGB", (256, 1), palette_colours(palette)[ground])
    ramp = Image.frombytes("L", (256, 1), bytes(range(256)))
    draw = ImageDraw.Draw(strip)
    draw.draw.draw_bitmap((0, 0), ramp.im, draw.draw.draw_ink(ink))
    table = list(indexed(strip, palette).tobytes())
    table[0] = ground
    return table


#: Text laid on one ground, by its coverage's id (checked by a weak reference, as ``_MAPPED``),
#: palette, ink and ground entry: the words recur picture after picture.
_LAID: dict[tuple[int, Palette, RGB, int], tuple[weakref.ref[Image.Image], Any]] = {}
_LAID_KEPT = 8192


def _laid(coverage: Image.Image, palette: Palette, ink: RGB, ground: int) -> Any:
    """``coverage`` as palette entries for ``ink`` on ``ground`` (Pillow's image core)."""
    key = (id(coverage), palette, ink, ground)
    kept = _LAID.get(key)
    if kept is not None and kept[0]() is coverage:
        return kept[1]
    entries = Image.frombytes("P", coverage.size, coverage.tobytes())
    laid = entries.im.point(_coverage_table(palette, ink, ground), None)
    if len(_LAID) >= _LAID_KEPT:
        _LAID.clear()
    _LAID[key] = (weakref.ref(coverage), laid)
    return laid


def lay_text(image: Image.Image, xy: tuple[int, int], coverage: Image.Image, ink: RGB) -> None:
    """Text whose coverage (an "L" picture, as a font renders it) starts at ``xy``, in ``ink``
    on ``image`` drawn in a palette: the pixels of drawing it in RGB and mapping afterwards.

    (Pillow's image core is used directly: ``Image.crop`` copies the palette and ``Image.point``
    rounds its table in Python at every call, several times the work of laying a word.)"""
    palette = palette_of(image)
    if palette is None:
        raise ValueError("lay_text draws on a palette picture (png.canvas)")
    x, y = xy
    box = (
        max(x, 0),
        max(y, 0),
        min(x + coverage.width, image.width),
        min(y + coverage.height, image.height),
    )
    if box[0] >= box[2] or box[1] >= box[3]:
        return
    if box != (x, y, x + coverage.width, y + coverage.height):
        coverage = coverage.crop((box[0] - x, box[1] - y, box[2] - x, box[3] - y))
    image.load()
    core = image.im
    low, high = core.crop(box).getextrema()
    if low == high:  # one ground: laid by its table
        core.paste(_laid(coverage, palette, ink, int(low)), box)
        return
    # Over two colours or more: this patch drawn in RGB and mapped, as the whole picture was.
    patch = image.crop(box).convert("RGB")
    draw = ImageDraw.Draw(patch)
    draw.draw.draw_bitmap((0, 0), coverage.im, draw.draw.draw_ink(ink))
    image.paste(indexed(patch, palette), box)


_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: zlib-ng's level for the pictures' rows (1 is a little faster and a fifth larger).
DEFLATE_LEVEL = 2


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _written(image: Image.Image) -> bytes:
    """``image`` (mode "P", 256 entries) as PNG bytes: each row behind its filter byte (0, none:
    a palette picture gains nothing from the others), deflated by zlib-ng."""
    width, height = image.size
    pixels = memoryview(image.tobytes())
    # Each row behind a filter byte of 0 (joined with b"" first: a 0 before the first row).
    # (A picture one column wider, pasted into and read out, took four times as long.)
    rows = b"\0".join([b"", *(pixels[y : y + width] for y in range(0, width * height, width))])
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)  # 8 bits, palette colour
    return b"".join(
        (
            _SIGNATURE,
            _chunk(b"IHDR", header),
            _chunk(b"PLTE", bytes(image.getpalette() or ())),
            _chunk(b"IDAT", zlib_ng.compress(rows, DEFLATE_LEVEL)),
            _chunk(b"IEND", b""),
        )
    )


def encode(image: Image.Image, palette: Palette) -> bytes:
    """``image`` as a 256-colour PNG: drawn in ``palette`` (:func:`canvas`) as it is, an RGB
    picture mapped onto it (no dithering) and written by Pillow."""
    if palette_of(image) == palette:
        return _written(image)
    indexed = image.quantize(palette=_palette_image(palette), dither=Image.Dither.NONE)
    out = io.BytesIO()
    indexed.save(out, format="PNG", compress_level=1)
    return out.getvalue()


__all__ = [
    "Draw",
    "Palette",
    "canvas",
    "draw",
    "encode",
    "indexed",
    "lay_text",
    "like",
    "palette_colours",
    "palette_of",
    "paste",
    "picture_of",
]
