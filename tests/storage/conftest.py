"""Fixtures of the storage tests: a fresh database, and a migrated store on it, on each backend.

Every test that takes ``db_path`` (or ``store``) runs twice: on a SQLite file (``db_path`` is its
``Path``) and on a fresh PostgreSQL database of the session's server (``db_path`` is its
``postgresql://`` URL; see tests/pg.py). A test about SQLite files themselves says so with
``@pytest.mark.sqlite_only("why")`` and runs on SQLite only (it is not skipped on the other).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from storage import Store
from tests.fakeclock import Clock
from tests.pg import PgCluster, backends_for


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        metafunc.parametrize("backend", backends_for(metafunc), indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def db_path(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path | str]:
    """The test's empty database: a SQLite file's path, or a PostgreSQL URL."""
    if backend == "sqlite":
        yield tmp_path / "hall.db"
        return
    cluster: PgCluster = request.getfixturevalue("pg_cluster")
    # A test with a store gets the migrated template (its migrate() then has nothing to do).
    url = cluster.create(migrated="store" in request.fixturenames)
    try:
        yield url
    finally:
        cluster.drop(url)


@pytest.fixture
async def store(db_path: Path | str) -> AsyncIterator[Store]:
    opened = await Store.open(db_path)
    await opened.migrate()
    yield opened
    await opened.close()


@pytest.fixture
def clock() -> Clock:
    """The hand-moved clock of ``timed``."""
    return Clock()


@pytest.fixture
async def timed(db_path: Path | str, clock: Clock) -> AsyncIterator[Store]:
    """A migrated store on ``clock`` (deadlines, reminders, offers)."""
    store = await Store.open(db_path, clock=clock)
    await store.migrate()
    yield store
    await store.close()
