"""Shared pytest set-up: the loopback fake Discord fixture (``fakecord``) for end-to-end tests,
and one real PostgreSQL server for the session (``pg_cluster``, see tests/pg.py) for the tests
that run on both backends (storage and end-to-end)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.pg import PgCluster

pytest_plugins = ["tests.fakecord.plugin"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "sqlite_only(reason): a test that runs on SQLite only (about SQLite files, or one whose "
        "backend does not matter and is too long to run twice); never skipped on the other",
    )


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
