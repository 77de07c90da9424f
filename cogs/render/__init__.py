"""How each game looks on Discord, kept apart from its rules.

A renderer turns engine *views* (never raw states) and events into embeds and *controls*; the
generic layout in :mod:`cogs.components` turns controls into buttons and select menus whose
custom ids carry the table id, the ply and the index of the action in the engine's legal list.
No rule lives here: renderers only describe what the engine says.
"""

from __future__ import annotations

from cogs.render.base import Renderer
from cogs.render.castles import RENDERER as CASTLES
from cogs.render.king import RENDERER as KING
from cogs.render.knights import RENDERER as KNIGHTS
from cogs.render.kurth import RENDERER as KURTH
from cogs.render.towers import RENDERER as TOWERS

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
