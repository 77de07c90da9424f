"""PNG encoding for the table and panel pictures.

Encoding, not drawing, was most of a picture's cost (about two thirds, on an 800 px RGB
picture). The pictures are flat colours and antialiased text, so 256 colours picked for each
picture (Pillow's fast octree, no dithering) look the same and encode in about half the time
at less than half the size; zlib's fastest level loses little on an indexed picture.
"""

from __future__ import annotations

import io

from PIL import Image


def encode(image: Image.Image) -> bytes:
    """``image`` as a 256-colour PNG."""
    indexed = image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    out = io.BytesIO()
    indexed.save(out, format="PNG", compress_level=1)
    return out.getvalue()


__all__ = ["encode"]
