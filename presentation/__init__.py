"""How each game looks, kept apart from its rules and from any front end.

A renderer turns engine *views* (never raw states) and events into :class:`~presentation.base.
Sheet` s (title, text, fields, footer, picture), *controls* (choices with labels) and pictures.
Front ends make what they show of these: the Discord adapter (:mod:`cogs.sheets`) embeds,
buttons and select menus whose custom ids carry the table id, the ply and the index of the action
in the engine's legal list; the terminal plain text. Nothing here imports discord or storage (an
import-linter contract says so), and no rule lives here: renderers only describe what the engine
says.
"""

from __future__ import annotations

import importlib

from engine import GAMES
from presentation.base import Renderer

#: Renderers by game key. Each game's renderer is ``RENDERER`` in ``presentation/<key>.py``, found
#: by the game's key the first time it is asked for; a test's game registers its own.
RENDERERS: dict[str, Renderer] = {}


def _discover(game: str) -> Renderer | None:
    try:
        module = importlib.import_module(f"{__name__}.{game}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{game}":
            raise
        return None
    renderer: Renderer | None = getattr(module, "RENDERER", None)
    return renderer


def register(renderer: Renderer) -> None:
    """Add a game's renderer (its rules must be registered with :func:`engine.register`)."""
    if renderer.game in RENDERERS:
        raise ValueError(f"A renderer is already registered for {renderer.game!r}.")
    RENDERERS[renderer.game] = renderer


def unregister(game: str) -> None:
    RENDERERS.pop(game, None)


def get_renderer(game: str) -> Renderer:
    """The renderer of a registered game; a KeyError when it has none."""
    found = RENDERERS.get(game)
    if found is None:
        found = _discover(game)
        if found is None:
            raise KeyError(game)
        RENDERERS[game] = found
    return found


def playable_games() -> list[str]:
    """Game keys that have both rules and a renderer (offered by ``/play``), in the engine
    registry's order."""
    playable = []
    for key in list(GAMES):
        try:
            get_renderer(key)
        except KeyError:
            continue
        playable.append(key)
    return playable


playable_games()  # find the registered games' renderers now, so RENDERERS lists them all
