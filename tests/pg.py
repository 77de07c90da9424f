"""A real PostgreSQL server for tests (the ``pgserver`` package: PostgreSQL in a wheel, no system
install), one per test session, and a fresh database on it per test.

:class:`PgCluster` starts the server in a folder of its own and keeps two template databases: an
empty one and one migrated to the store's schema; a test's database is a ``CREATE DATABASE …
TEMPLATE`` copy of either, dropped again after the test. A thread makes the next copies while
tests run (a copy takes tens of milliseconds alone, several times that once the server is
busy). The server runs with ``fsync = off``: tests prove behaviour, not durability.

:func:`raw_connect` is a plain connection beside the store's, for either database, with the
sqlite3-style ``execute(sql, params)`` (``?`` placeholders) the tests use.
"""

from __future__ import annotations

import asyncio
import itertools
import queue
import sqlite3
import threading
import warnings
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import psycopg
import pytest

from storage import Store
from storage.pg_dialect import PgConnection, connect
from storage.postgres import is_url

BACKENDS = ("sqlite", "postgresql")
EMPTY_TEMPLATE = "siege_empty"
MIGRATED_TEMPLATE = "siege_migrated"


class PgCluster:
    """One PostgreSQL server and the databases the tests make on it."""

    def __init__(self, root: Path) -> None:
        with warnings.catch_warnings():  # platformdirs: "XDG_RUNTIME_DIR is not set"
            warnings.simplefilter("ignore")
            import pgserver  # imported here: only the PostgreSQL tests need it

            self._server = pgserver.get_server(root, cleanup_mode="stop")
        self._base = self._server.get_uri()  # postgresql://postgres:@/postgres?host=<socket dir>
        self._names = itertools.count(1)
        with self._admin() as conn:
            for setting in ("fsync", "synchronous_commit", "full_page_writes"):
                conn.execute(f"ALTER SYSTEM SET {setting} = off")
            conn.execute("SELECT pg_reload_conf()")
            for name in (EMPTY_TEMPLATE, MIGRATED_TEMPLATE):
                conn.execute(f"DROP DATABASE IF EXISTS {name}")
                conn.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        _run_apart(_migrate(self.url(MIGRATED_TEMPLATE)))
        self._ready = {kind: queue.Queue[str](maxsize=2) for kind in (False, True)}
        self._stopping = threading.Event()
        self._makers = [
            threading.Thread(target=self._make_ahead, args=(kind,), daemon=True)
            for kind in self._ready
        ]
        for maker in self._makers:
            maker.start()

    def _make_ahead(self, migrated: bool) -> None:
        """Keep a few databases of one kind ready (``put`` waits while the queue is full)."""
        template = MIGRATED_TEMPLATE if migrated else EMPTY_TEMPLATE
        with self._admin() as conn:
            while not self._stopping.is_set():
                name = f"test_{next(self._names)}"
                conn.execute(f"CREATE DATABASE {name} TEMPLATE {template} STRATEGY FILE_COPY")
                while not self._stopping.is_set():
                    try:
                        self._ready[migrated].put(self.url(name), timeout=0.2)
                        break
                    except queue.Full:
                        continue

    def url(self, database: str) -> str:
        head, _, tail = self._base.partition("/postgres?")
        return f"{head}/{database}?{tail}"

    def _admin(self) -> psycopg.Connection[Any]:
        return psycopg.connect(self._base, autocommit=True)

    def create(self, *, migrated: bool = False) -> str:
        """A new database (empty, or at the store's schema); its URL."""
        return self._ready[migrated].get(timeout=60)

    def drop(self, url: str) -> None:
        name = url.split("?")[0].rsplit("/", 1)[1]
        with self._admin() as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        self._stopping.set()
        for maker in self._makers:
            maker.join(timeout=60)
        self._server.cleanup()


def _run_apart(coroutine: Coroutine[Any, Any, None]) -> None:
    """Run ``coroutine`` to its end in a thread of its own: the cluster may be started from an
    async fixture, inside a running event loop (the end-to-end tests)."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(coroutine)
        except BaseException as exc:  # handed to the caller below
            failed.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]


async def _migrate(url: str) -> None:
    store = await Store.open(url)
    try:
        await store.migrate()
    finally:
        await store.close()


class RawPg:
    """A PostgreSQL connection that answers like ``sqlite3.connect(path, isolation_level=None)``
    for the calls tests make (every statement commits on its own)."""

    def __init__(self, url: str) -> None:
        self._conn: PgConnection = connect(url)

    def execute(self, sql: str, params: Any = ()) -> Any:
        return self._conn.execute(sql, params)

    def executemany(self, sql: str, rows: Any) -> Any:
        return self._conn.executemany(sql, rows)

    def close(self) -> None:
        self._conn.raw.close()

    def __enter__(self) -> RawPg:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def backends_for(metafunc: pytest.Metafunc) -> list[str]:
    """The backends a test runs on: both, or SQLite alone when it is marked ``sqlite_only``."""
    only = metafunc.definition.get_closest_marker("sqlite_only")
    return ["sqlite"] if only is not None else list(BACKENDS)


def raw_connect(db: Path | str) -> Any:
    """A plain connection to the test's database, SQLite file or PostgreSQL URL."""
    if is_url(db):
        return RawPg(str(db))
    return sqlite3.connect(db, isolation_level=None)


def raw_rows(db: Path | str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every row of one query, as plain tuples, through a connection of its own."""
    conn = raw_connect(db)
    try:
        return [tuple(row) for row in conn.execute(sql, params).fetchall()]
    finally:
        conn.close()


def raw_execute(db: Path | str, sql: str, params: tuple[Any, ...] = ()) -> None:
    conn = raw_connect(db)
    try:
        conn.execute(sql, params)
    finally:
        conn.close()
