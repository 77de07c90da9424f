"""Upgrades and first starts a hostile operator breaks: a kill in the middle of an upgrade, a full
disk during the copy taken before it, two processes starting on one new file, and a database file
truncated to nothing."""

from __future__ import annotations

import asyncio
import logging
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from storage import DatabaseUnusable, Store
from storage.migration import backup_path
from tests.storage.test_ratings import ALICE, BOB, GUILD, back_to_schema_4, play

ROOT = Path(__file__).resolve().parents[2]
SECRET = "MTIz.not-a-real-token.for-tests"


def run_python(
    code: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
    )


async def finished_games_at_schema_4(path: Path, games: int = 3) -> None:
    """A file as the release before results left it: schema 4, ``games`` finished games."""
    store = await Store.open(path)
    try:
        await store.migrate()
        for _ in range(games):
            await play(store, ALICE, BOB)
    finally:
        await store.close()
    back_to_schema_4(path)


def dump(path: Path) -> list[str]:
    """Every row and every piece of schema of the file, as SQL text."""
    conn = sqlite3.connect(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def raw(path: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


# -- 1. a kill between the migrations and the results backfill ---------------------------------

KILLED_IN_THE_BACKFILL = """
import asyncio, os, signal, sys
from storage import Store, results

def killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)  # kill -9 while the first old result is written

results.record = killed

async def main():
    store = await Store.open(sys.argv[1])
    await store.migrate()

asyncio.run(main())
"""


@pytest.mark.sqlite_only("a SQLite file from before schema 5; PostgreSQL starts at schema 11")
async def test_a_kill_during_the_upgrade_loses_no_old_result(db_path: Path) -> None:
    await finished_games_at_schema_4(db_path)
    killed = run_python(KILLED_IN_THE_BACKFILL, str(db_path))
    assert killed.returncode == -9, killed.stderr
    # Nothing of the upgrade committed: the next start does all of it, backfill included.
    assert raw(db_path, "PRAGMA user_version") == [(4,)]
    store = await Store.open(db_path)
    try:
        await store.migrate()
        alice = await store.standing(GUILD, "castles", ALICE)
        assert alice is not None and (alice.games, alice.wins) == (3, 3)
    finally:
        await store.close()
    assert raw(db_path, "SELECT count(*) FROM results") == [(3,)]


# -- 2. a full disk during the copy taken before migrating -------------------------------------

# SQLite's own "database or disk is full" (SQLITE_FULL), as a full disk gives it: the copy's file
# may grow by no more than one page.
FULL_DISK_START = """
import sqlite3, sys
real = sqlite3.connect

def connect(database, *args, **kwargs):
    conn = real(database, *args, **kwargs)
    if "-before-v" in str(database):
        conn.execute("PRAGMA max_page_count = 1")
    return conn

sqlite3.connect = connect
import bot
raise SystemExit(bot.main())
"""


@pytest.mark.sqlite_only("the file copy taken before a SQLite migration")
async def test_a_full_disk_during_the_pre_migration_copy_exits_2_with_one_line(
    db_path: Path,
) -> None:
    await finished_games_at_schema_4(db_path)
    original = dump(db_path)
    done = run_python(FULL_DISK_START, env={"DISCORD_TOKEN": SECRET, "DATABASE_PATH": str(db_path)})
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1 and lines[0].startswith("Siege Hall: "), done.stderr
    assert "disk is full" in lines[0] and str(db_path) in lines[0]
    # No partial copy or journal is left, and the database is as it was.
    assert sorted(p.name for p in db_path.parent.iterdir() if "before" in p.name) == []
    assert dump(db_path) == original
    assert raw(db_path, "PRAGMA user_version") == [(4,)]
    # With room again, the start goes through and the copy is whole.
    store = await Store.open(db_path)
    try:
        latest = await store.migrate()
    finally:
        await store.close()
    assert raw(backup_path(db_path, latest), "PRAGMA integrity_check") == [("ok",)]


# -- 4. two processes starting on one new file -------------------------------------------------


START_AND_MIGRATE = """
import asyncio, sys, time, traceback
from storage import DatabaseUnusable, Store

async def main():
    while time.time() < float(sys.argv[2]):  # both processes go at the same moment
        pass
    try:
        store = await Store.open(sys.argv[1])
        try:
            print(await store.migrate())
        finally:
            await store.close()
    except DatabaseUnusable as exc:
        print(exc)
        traceback.print_exception(exc.__cause__ or exc.__context__ or exc)  # which statement
        return 3
    return 0

raise SystemExit(asyncio.run(main()))
"""


@pytest.mark.sqlite_only("two processes creating one SQLite file")
def test_two_processes_starting_on_one_new_file_both_start(tmp_path: Path) -> None:
    import time

    root = str(ROOT)
    for attempt in range(6):
        path = tmp_path / f"new-{attempt}.db"
        go = f"{time.time() + 1.5:.3f}"
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", START_AND_MIGRATE, str(path), go],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                cwd=root,
                env={**os.environ, "PYTHONPATH": root},
            )
            for _ in range(2)
        ]
        outcomes = [(p.wait(timeout=120), p.communicate()) for p in procs]
        for code, (out, err) in outcomes:
            assert code == 0, f"attempt {attempt}: {out} {err}"
        assert {out.strip() for _, (out, _) in outcomes} == {str(max_version())}
        assert raw(path, "PRAGMA integrity_check") == [("ok",)]


def max_version() -> int:
    return max(int(p.name[:3]) for p in (ROOT / "storage" / "migrations").glob("*.sql"))


# -- 5. a database file truncated to nothing ---------------------------------------------------


@pytest.mark.sqlite_only("a SQLite file of zero bytes")
@pytest.mark.parametrize("evidence", ["copy", "wal"])
async def test_an_empty_file_beside_traces_of_use_is_refused(db_path: Path, evidence: str) -> None:
    await finished_games_at_schema_4(db_path)
    store = await Store.open(db_path)
    await store.migrate()  # leaves siege-before-v11.db beside it
    await store.close()
    if evidence == "wal":  # no copy, but the log of a writer that was killed
        for copy in db_path.parent.glob("*-before-v*"):
            copy.unlink()
        (db_path.parent / f"{db_path.name}-wal").write_bytes(b"\0" * 4096)
    db_path.write_bytes(b"")  # truncated by accident
    with pytest.raises(DatabaseUnusable, match="empty") as caught:
        await Store.open(db_path)
    assert "\n" not in str(caught.value) and str(db_path) in str(caught.value)
    assert db_path.read_bytes() == b""  # nothing was written over it
    done = run_python(
        "import bot; raise SystemExit(bot.main())",
        env={"DISCORD_TOKEN": SECRET, "DATABASE_PATH": str(db_path)},
    )
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "empty" in done.stderr and db_path.read_bytes() == b""


@pytest.mark.sqlite_only("a SQLite file of zero bytes")
async def test_an_empty_file_alone_is_a_new_database_with_a_warning(
    db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db_path.write_bytes(b"")
    with caplog.at_level(logging.WARNING, logger="siege.storage"):
        store = await Store.open(db_path)
    try:
        assert await store.migrate() == max_version()
    finally:
        await store.close()
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and str(db_path) in warnings[0] and "empty" in warnings[0]


@pytest.mark.sqlite_only("a SQLite file created new")
async def test_a_missing_file_is_a_new_database_without_a_warning(
    db_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="siege.storage"):
        store = await Store.open(db_path)
    await store.close()
    assert [r for r in caplog.records if r.levelno >= logging.WARNING] == []


async def test_a_store_that_waits_for_another_start_finds_the_schema_current(
    db_path: Path | str,
) -> None:
    """Two migrations at once in one process (as two processes would): one migrates, the other
    waits for the lock and finds nothing to do."""
    first, second = await Store.open(db_path), await Store.open(db_path)
    try:
        versions = await asyncio.gather(first.migrate(), second.migrate())
        assert versions[0] == versions[1] == await first.schema_version()
    finally:
        await first.close()
        await second.close()


class _Busy:
    """A connection whose switch to WAL meets another process's lock ``times`` times."""

    def __init__(self, times: int, error: str = "database is locked") -> None:
        self.times, self.error, self.tries = times, error, 0

    def execute(self, sql: str) -> Any:
        self.tries += 1
        if self.tries <= self.times:
            raise sqlite3.OperationalError(self.error)
        return self

    def fetchone(self) -> tuple[str]:
        return ("wal",)


def test_the_switch_to_wal_waits_out_another_starting_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """SQLite refuses the journal-mode change at once (no busy timeout) while another process
    holds the file; start-up tries again instead of refusing the database (the two-processes
    test above met this 1 run in 4 on a loaded machine)."""
    from storage import migration

    monkeypatch.setattr(migration, "WAL_RETRY", 0)
    busy = _Busy(3)
    assert migration.wal_mode(busy) == ("wal",) and busy.tries == 4  # type: ignore[arg-type]
    with pytest.raises(sqlite3.OperationalError, match="disk I/O"):
        migration.wal_mode(_Busy(1, "disk I/O error"))  # type: ignore[arg-type]
