"""A game that exists only for the tests: it proves a game is its own files plus registration.

Siege Sticks is a race to the gate: a pile of stones lies before it, each player in turn takes
one to three, and whoever takes the last one storms the gate. It has rules (:mod:`.sticks`) and
a text renderer (:mod:`.sticks_text`) and nothing else; :func:`registered` adds both to the
registries for the length of a test. Nothing outside this folder names it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import engine
import presentation as render
from tests.toy.sticks import GAME
from tests.toy.sticks_text import RENDERER


@contextmanager
def registered() -> Iterator[None]:
    engine.register(GAME)
    render.register(RENDERER)
    try:
        yield
    finally:
        render.unregister(GAME.key)
        engine.unregister(GAME.key)
