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

from presentation.base import Renderer
from presentation.castles import RENDERER as CASTLES
from presentation.king import RENDERER as KING
from presentation.knights import RENDERER as KNIGHTS
from presentation.kurth import RENDERER as KURTH
from presentation.towers import RENDERER as TOWERS

RENDERERS: dict[str, Renderer] = {r.game: r for r in (CASTLES, KING, KNIGHTS, KURTH, TOWERS)}


def register(renderer: Renderer) -> None:
    """Add a game's renderer (its rules must be registered with :func:`engine.register`)."""
    if renderer.game in RENDERERS:
        raise ValueError(f"A renderer is already registered for {renderer.game!r}.")
    RENDERERS[renderer.game] = renderer


def unregister(game: str) -> None:
    RENDERERS.pop(game, None)


def get_renderer(game: str) -> Renderer:
    return RENDERERS[game]


def playable_games() -> list[str]:
    """Game keys that have both rules and a Discord renderer (offered by ``/play``)."""
    return list(RENDERERS)
