"""The database unavailable during play: a full disk (SQLite), the server refusing every
connection (PostgreSQL), the write-ahead log deleted under the writer (SQLite). Each request then
gets the defined StorageUnavailable ("nothing changed, try again") instead of a raw driver error,
the log says once when the outage began and once when it ended, and play resumes by itself."""

from __future__ import annotations

import logging
import os
import sqlite3
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from storage import StorageUnavailable, Store, TableRecord
from storage.postgres import is_url
from tests.pg import raw_execute, raw_rows
from tests.storage.test_hardening import HOST, running_table

TRIES_DURING = 6


async def act_any(store: Store, table: TableRecord) -> TableRecord:
    """The table's first legal move, by whoever is to act."""
    state = table.running_state()
    seat = table.engine.to_act(state)
    assert seat is not None
    action = table.engine.legal_actions(state, seat)[0]
    after, _ = await store.act(table.id, table.seats[seat], action, table.ply)
    return after


def admin_url(url: str) -> str:
    head, _, tail = url.partition("?")
    return f"{head.rsplit('/', 1)[0]}/postgres?{tail}"


@asynccontextmanager
async def unavailable(store: Store, db_path: Path | str) -> AsyncIterator[None]:
    """PostgreSQL: the database refuses every connection and the store's are cut (a server
    going down). SQLite: the disk is full (SQLite's own SQLITE_FULL: no page may be added)."""
    if is_url(db_path):
        url = str(db_path)
        name = url.split("?")[0].rsplit("/", 1)[1]
        raw_execute(admin_url(url), f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        raw_execute(
            admin_url(url),
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ?",
            (name,),
        )
        try:
            yield
        finally:
            raw_execute(admin_url(url), f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        return
    writer = store._db._writer  # type: ignore[union-attr]
    async with writer.execute("PRAGMA page_count") as cursor:
        (pages,) = await cursor.fetchone()
    async with writer.execute(f"PRAGMA max_page_count = {pages}") as cursor:
        await cursor.fetchall()
    try:
        yield
    finally:
        async with writer.execute("PRAGMA max_page_count = 1073741823") as cursor:
            await cursor.fetchall()


def records(caplog: pytest.LogCaptureFixture, text: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if text in r.getMessage()]


async def test_an_outage_is_answered_unavailable_logged_once_and_play_resumes(
    store: Store, db_path: Path | str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="siege.storage")
    table = await running_table(store)
    acknowledged = 0
    async with unavailable(store, db_path):
        refused = 0
        for _ in range(400):  # SQLite: moves fill the free space of the pages there are
            try:
                table = await act_any(store, table)
                acknowledged += 1
            except StorageUnavailable as exc:
                assert "nothing changed" in str(exc)
                refused += 1
                if refused == TRIES_DURING:
                    break
        assert refused == TRIES_DURING
    # Nothing of the refused moves was written; every acknowledged one was.
    stored = raw_rows(db_path, "SELECT ply FROM tables WHERE id = ?", (table.id,))
    assert stored == [(table.ply,)] and table.ply == acknowledged
    assert len(await store.actions(table.id)) == acknowledged
    # Back: the next move goes through, with no restart.
    table = await act_any(store, table)
    assert table.ply == acknowledged + 1
    began = records(caplog, "unavailable (")
    ended = records(caplog, "available again")
    assert len(began) == 1 and began[0].levelno == logging.ERROR and began[0].exc_info is None
    assert len(ended) == 1 and f"{TRIES_DURING} requests refused" in ended[0].getMessage()
    assert [r for r in caplog.records if r.exc_info] == []


# -- the write-ahead log deleted under the writer ---------------------------------------------


@pytest.mark.sqlite_only("SQLite's write-ahead log")
@pytest.mark.parametrize("how", ["deleted", "replaced"])
async def test_a_wal_deleted_under_the_writer_stops_writes(
    db_path: Path, how: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = await Store.open(db_path)
    try:
        await store.migrate()
        table = await running_table(store)
        table = await act_any(store, table)
        wal = db_path.with_name(db_path.name + "-wal")
        assert wal.exists()
        wal.unlink()
        if how == "replaced":
            wal.write_bytes(b"")
        with pytest.raises(StorageUnavailable):
            await act_any(store, table)
        for _ in range(3):  # and every later write, without touching the file
            with pytest.raises(StorageUnavailable):
                await store.join(table.id, HOST + 99)
        lines = records(caplog, "write-ahead log")
        assert (
            len(lines) == 1 and str(wal) in lines[0].getMessage() and how in lines[0].getMessage()
        )
    finally:
        await store.close()
    # What the file holds is what was acknowledged before the deletion was noticed: the move
    # after it was refused, so none was acknowledged and then lost.
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("SELECT ply FROM tables WHERE id = ?", (table.id,)).fetchone()[0] <= (
            table.ply
        )
    finally:
        conn.close()


@pytest.mark.sqlite_only("SQLite's write-ahead log")
async def test_a_wal_left_alone_is_never_taken_for_deleted(db_path: Path) -> None:
    """Checkpoints and other processes' writes keep the log's file: no false alarm."""
    store = await Store.open(db_path)
    other = await Store.open(db_path)
    try:
        await store.migrate()
        table = await running_table(store)
        for n in range(30):
            writer = other if n % 2 else store
            table = await act_any(writer, table)
            if n % 7 == 0:
                writer = store._db._writer  # type: ignore[union-attr]
                async with writer.execute("PRAGMA wal_checkpoint(TRUNCATE)") as cursor:
                    await cursor.fetchall()
        assert os.path.exists(f"{db_path}-wal")
        assert table.ply == 30 and (await store.get_table(table.id)) == table
    finally:
        await other.close()
        await store.close()
