"""Shared pytest set-up: the loopback fake Discord fixture (``fakecord``) for end-to-end tests."""

from __future__ import annotations

pytest_plugins = ["tests.fakecord.plugin"]
