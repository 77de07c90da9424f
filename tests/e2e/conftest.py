"""End-to-end fixtures: ``world`` is a server with the real bot in it (see ``world.py``).

Every test that takes ``world`` runs twice: with the bot on a SQLite file and on a PostgreSQL
database (``pg_cluster`` in tests/conftest.py), so both backends are proved by the same clicks.
A test marked ``@pytest.mark.sqlite_only("why")`` runs on SQLite alone (never skipped).
"""

from __future__ import annotations

import pytest

from tests.e2e.world import e2e_backend, world
from tests.pg import backends_for

__all__ = ["e2e_backend", "world"]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "e2e_backend" in metafunc.fixturenames:
        metafunc.parametrize("e2e_backend", backends_for(metafunc), indirect=True)
