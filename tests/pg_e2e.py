"""Run the end-to-end suite against PostgreSQL, without changing its fixtures (opt-in plugin)::

    .venv/bin/python -m pytest tests/e2e -p tests.pg_e2e

One PostgreSQL server (tests/pg.py) for the session; every distinct ``DATABASE_PATH`` a test's
bot is started with stands for a fresh PostgreSQL database of its own (a restarted bot, given the
same path, finds the same database). Tests that open the SQLite file behind the bot themselves
(``sqlite3.connect(w.db_path)``) cannot follow it there and fail: they need ``raw_connect``.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest

import bot as siege_bot
from tests.pg import PgCluster

_state: dict[str, object] = {}
_urls: dict[str, str] = {}


def _database(self: siege_bot.Settings) -> str:
    if self.database_url is not None:
        return self.database_url.get_secret_value()
    if self.database_path not in _urls:
        cluster = _state["cluster"]
        assert isinstance(cluster, PgCluster)
        _urls[self.database_path] = cluster.create()
    return _urls[self.database_path]


def pytest_sessionstart(session: pytest.Session) -> None:
    root = Path(tempfile.mkdtemp(prefix="siege-pg-e2e-"))
    _state.update(root=root, cluster=PgCluster(root), original=siege_bot.Settings.database)
    siege_bot.Settings.database = property(_database)  # type: ignore[method-assign,assignment]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    cluster, root = _state.get("cluster"), _state.get("root")
    if "original" in _state:
        siege_bot.Settings.database = _state["original"]  # type: ignore[method-assign,assignment]
    if isinstance(cluster, PgCluster):
        cluster.stop()
    if isinstance(root, Path):
        shutil.rmtree(root, ignore_errors=True)
