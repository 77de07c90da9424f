"""pytest plugin: the ``fakecord`` fixture.

Register it with ``pytest_plugins = ["tests.fakecord.plugin"]`` in ``tests/conftest.py`` (or
``-p tests.fakecord.plugin`` on the command line).  The fixture starts a :class:`FakeDiscord`,
installs it into discord.py, yields it, stops any client still running, and fails the test if
the fake recorded violations.  Tests that provoke violations on purpose take them out with
``fake.pop_violations("...")`` after asserting on them.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio

from .harness import stop_all_clients
from .server import FakeDiscord


@contextlib.asynccontextmanager
async def fakecord_session(**options: Any) -> AsyncIterator[FakeDiscord]:
    """What the fixture does, for modules that want their own fixture (``options`` go to
    :class:`FakeDiscord`): start + install, then stop clients, uninstall, stop, and
    ``pytest.fail`` if violations remain."""
    fake = FakeDiscord(**options)
    await fake.start()
    fake.install()
    try:
        yield fake
    finally:
        await stop_all_clients()
        fake.uninstall()
        await fake.stop()
    if fake.violations:
        listing = "\n".join(f"  - {v}" for v in fake.violations)
        pytest.fail(f"the fake Discord recorded violations:\n{listing}", pytrace=False)


@pytest_asyncio.fixture
async def fakecord() -> AsyncIterator[FakeDiscord]:
    """A started, installed :class:`FakeDiscord`; the test fails if violations remain."""
    async with fakecord_session() as fake:
        yield fake
