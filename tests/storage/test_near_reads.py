"""Reads of a move's hot path on the event loop's own thread (``Database.read_near``): they see
every commit, never wait for a lock, and answer a damaged file as the other reads do."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from storage import CorruptTable, Store
from storage.database import Database
from tests.counting import count_calls
from tests.storage.test_store import play_randomly, running_table

pytestmark = pytest.mark.sqlite_only("a SQLite connection on the loop's thread")


class Refusing:
    """A connection whose every statement fails with ``error``."""

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.in_transaction = False

    def execute(self, *_: Any) -> Any:
        raise self.error


def thread_reads(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The reads that go to the reader's thread, as they are made."""
    assert isinstance(store._db, Database)
    return count_calls(monkeypatch, store._db, "read")


async def test_a_moves_reads_run_on_the_loop_and_see_its_commit(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await play_randomly(store, await running_table(store), random.Random(2), 3)
    calls = thread_reads(store, monkeypatch)
    moved = await play_randomly(store, table, random.Random(3), 1)
    seen = await store.get_table(table.id)
    assert seen is not None and seen.ply == moved.ply == table.ply + 1
    assert await store.newest(table) == seen
    newest, _ = await store.delivery_targets(table)
    assert newest == seen
    store._tails.clear()
    assert [r.ply for r in await store.log_tail(seen, 40)] == list(range(seen.ply))
    assert calls == []  # none of them went to the reader's thread


async def test_a_busy_file_is_read_on_the_readers_thread(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await running_table(store)
    calls = thread_reads(store, monkeypatch)
    locked = sqlite3.OperationalError("database is locked")
    monkeypatch.setattr(store._db, "_near", Refusing(locked))
    assert await store.get_table(table.id) == table
    assert len(calls) == 1


async def test_a_damaged_page_read_on_the_loop_is_an_unreadable_table(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await running_table(store)
    damaged = sqlite3.DatabaseError("database disk image is malformed")
    monkeypatch.setattr(store._db, "_near", Refusing(damaged))
    with pytest.raises(CorruptTable):
        await store.get_table(table.id)


async def test_closing_closes_the_loops_connection(db_path: Path) -> None:
    store = await Store.open(db_path)
    db = store._db
    assert isinstance(db, Database) and db._near is not None
    near = db._near
    await store.close()
    assert db._near is None
    with pytest.raises(sqlite3.ProgrammingError):
        near.execute("SELECT 1")
