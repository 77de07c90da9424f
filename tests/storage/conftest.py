"""Fixtures of the storage tests: a fresh database, and a migrated store on it, on each backend.

Every test that takes ``db_path`` (or ``store``) runs twice: on a SQLite file (``db_path`` is its
``Path``) and on a fresh PostgreSQL database of the session's server (``db_path`` is its
``postgresql://`` URL; see tests/pg.py). A test about SQLite files themselves says so with
``@pytest.mark.sqlite_only("why")`` and runs on SQLite only (it is not skipped on the other).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from storage import Store
from tests.pg import PgCluster

BACKENDS = ("sqlite", "postgresql")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "sqlite_only(reason): a storage test about SQLite files, run on SQLite only"
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        only = metafunc.definition.get_closest_marker("sqlite_only")
        backends = ["sqlite"] if only is not None else list(BACKENDS)
        metafunc.parametrize("backend", backends, indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    # Not under pytest's own temporary folder: a pytest session started beside this one (the
    # checkout is shared) prunes older sessions' folders, server and all.
    root = Path(tempfile.mkdtemp(prefix="siege-pg-"))
    cluster = PgCluster(root)
    try:
        yield cluster
    finally:
        cluster.stop()
        shutil.rmtree(root, ignore_errors=True)


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
