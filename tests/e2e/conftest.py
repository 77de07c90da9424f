"""End-to-end fixtures: ``world`` is a server with the real bot in it (see ``world.py``)."""

from __future__ import annotations

from tests.e2e.world import world

__all__ = ["world"]
