"""Pictures drawn off the event loop and kept by what they show.

Drawing a board and encoding it as PNG takes tens of milliseconds of CPU: on the event loop that
would hold up every other table's click for as long. :class:`Pictures` runs the renderer in a
worker thread (``asyncio.to_thread``; PIL releases the GIL while it compresses) and keeps the
last pictures in an LRU keyed by the game and a digest of the arguments (the view and what it
marks), so a position drawn once — the table re-rendered for a panel click, a repost, a second
flow racing the first — is not drawn again. Two flows asking for the same picture at once share
one drawing.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, TypeVar

PICTURES_KEPT = 512  # about 30–80 KB each

T = TypeVar("T")


def picture_key(game: str, args: tuple[Any, ...]) -> tuple[str, str]:
    """What a picture shows, as a key: the game and a digest of the renderer's arguments."""
    text = json.dumps(args, sort_keys=True, default=str, separators=(",", ":"))
    return game, hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


class Pictures:
    def __init__(self, kept: int = PICTURES_KEPT) -> None:
        self.kept = kept
        self._done: OrderedDict[tuple[str, str], Any] = OrderedDict()
        self._drawing: dict[tuple[str, str], asyncio.Future[Any]] = {}
        self.drawn = 0  # pictures actually drawn
        self.reused = 0  # pictures served from the cache or from a drawing under way

    async def render(self, game: str, draw: Callable[..., T], *args: Any) -> T:
        """``draw(*args)`` in a worker thread, or the picture it drew before for the same
        arguments."""
        key = picture_key(game, args)
        if key in self._done:
            self._done.move_to_end(key)
            self.reused += 1
            kept: T = self._done[key]
            return kept
        pending = self._drawing.get(key)
        if pending is not None:
            self.reused += 1
            shared: T = await asyncio.shield(pending)
            return shared
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._drawing[key] = future
        try:
            picture = await asyncio.to_thread(draw, *args)
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: a flow that did not wait for it logs nothing
            raise
        finally:
            self._drawing.pop(key, None)
        self.drawn += 1
        future.set_result(picture)
        self._done[key] = picture
        if len(self._done) > self.kept:
            self._done.popitem(last=False)
        return picture


__all__ = ["Pictures", "picture_key"]
