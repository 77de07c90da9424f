"""A game that exists only for the tests: it proves a game is its own files plus one line.

Siege Sticks is a race to the gate: a pile of stones lies before it, each player in turn takes
one to three, and whoever takes the last one storms the gate. Its files lie as a real game's
would: rules (:mod:`.sticks`, like ``engine/<key>.py``), a renderer (:mod:`.presentation.sticks`,
like ``presentation/<key>.py``) and a computer player (:mod:`.ai.sticks`, like
``engine/ai/<key>.py``). :func:`registered` makes the two folders part of those packages (what
putting the files there would do) and registers the rules, the one line a real game adds to
``engine.GAMES``; the renderer and the computer are then found by the game's key, as the real
games' are. Nothing outside this folder names it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import engine
import engine.ai
import presentation
from tests.toy.sticks import GAME

HERE = Path(__file__).parent
FOLDERS = ((presentation, HERE / "presentation"), (engine.ai, HERE / "ai"))


@contextmanager
def registered() -> Iterator[None]:
    for package, folder in FOLDERS:
        package.__path__.append(str(folder))
    engine.register(GAME)  # the one registry line
    try:
        yield
    finally:
        engine.unregister(GAME.key)
        presentation.unregister(GAME.key)
        engine.ai.unregister(GAME.key)
        for package, folder in FOLDERS:
            package.__path__.remove(str(folder))
            sys.modules.pop(f"{package.__name__}.{GAME.key}", None)
