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
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image

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


def encode(image: Image.Image, palette: Palette) -> bytes:
    """``image`` as a 256-colour PNG, mapped onto ``palette`` (no dithering)."""
    indexed = image.quantize(palette=_palette_image(palette), dither=Image.Dither.NONE)
    out = io.BytesIO()
    indexed.save(out, format="PNG", compress_level=1)
    return out.getvalue()


__all__ = ["Palette", "encode", "palette_colours"]
