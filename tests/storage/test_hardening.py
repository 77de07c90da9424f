"""The store under a hostile operator: other writers on the file, cancelled tasks, damaged rows
and files, read-only files, backups and migrations of a database that has data in it.

Each test here reproduces a defect of issue 12 that the store used to have."""

from __future__ import annotations

import asyncio
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from engine.castles import GAME
from engine.rules import RuleError
from storage import CorruptTable, DatabaseUnusable, Store, StoreBusy, TableRecord
from storage.migration import backup_path
from storage.postgres import is_url
from tests.pg import PgCluster, raw_execute
from tests.unprivileged import as_nobody

MIGRATIONS = Path(__file__).resolve().parents[2] / "storage" / "migrations"
GUILD, CHANNEL = 77, 500
HOST, GUEST = 1001, 2002
DRAW = {"type": "draw"}


async def running_table(store: Store, channel: int = CHANNEL) -> TableRecord:
    """A castles table with HOST in seat 0 (the dealer) and GUEST to act."""
    table = await store.create_table(
        guild_id=GUILD,
        channel_id=channel,
        game="castles",
        host_id=HOST,
        options={"dealer": 0},
        seed=4242,
    )
    await store.join(table.id, GUEST)
    return await store.start(table.id, HOST)


LOCK_HOLDER = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
conn.execute("UPDATE players SET dm_mode = dm_mode")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


PG_LOCK_HOLDER = """
import sys, time, psycopg
conn = psycopg.connect(sys.argv[1], autocommit=True)
conn.execute("BEGIN")
conn.execute("LOCK TABLE tables IN EXCLUSIVE MODE")  # reads go on, writes wait
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("COMMIT")
"""


def hold_lock(db_path: Path | str, seconds: float) -> subprocess.Popen[str]:
    """Another process that holds the write lock (SQLite's file lock, or on PostgreSQL a lock
    that makes every write to ``tables`` wait) for ``seconds``, then commits. Returns once the
    lock is held."""
    script = PG_LOCK_HOLDER if is_url(db_path) else LOCK_HOLDER
    holder = subprocess.Popen(
        [sys.executable, "-c", script, str(db_path), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "locked"
    return holder


# -- Defect 2: other writers, and reads of uncommitted writes ------------------------------------


async def test_an_action_waits_for_another_process_holding_the_lock(
    store: Store, db_path: Path
) -> None:
    table = await running_table(store)
    holder = hold_lock(db_path, 0.6)
    # What a click does: read the table, then act. The act must wait for the other writer
    # (the busy timeout), not fail at once with "database is locked".
    seen = await store.get_table(table.id)
    assert seen is not None and seen.ply == 0
    after, _ = await store.act(table.id, GUEST, DRAW, 0)
    assert holder.wait(timeout=30) == 0
    assert after.ply == 1


async def test_a_lock_held_past_the_busy_timeout_is_a_polite_refusal(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("storage.database.BUSY_TIMEOUT_MS", 50)
    store = await Store.open(db_path)
    try:
        await store.migrate()
        table = await running_table(store)
        holder = hold_lock(db_path, 1.0)
        with pytest.raises(StoreBusy, match="nothing changed"):
            await store.act(table.id, GUEST, DRAW, 0)
        assert holder.wait(timeout=30) == 0
        assert await store.get_table(table.id) == table
        after, _ = await store.act(table.id, GUEST, DRAW, 0)  # and once it is free, it works
        assert after.ply == 1
    finally:
        await store.close()


async def test_reads_never_see_a_write_that_is_rolled_back(store: Store, db_path: Path) -> None:
    table = await running_table(store)
    # A stray log row at ply 0 makes the action's INSERT fail after its UPDATE ran.
    raw_execute(
        db_path,
        "INSERT INTO actions (table_id, ply, seat, user_id, action, events, created_at)"
        " VALUES (?, 0, 0, 0, '{}', '[]', 'x')",
        (table.id,),
    )
    seen: set[int] = set()

    async def reader() -> None:
        for _ in range(30):
            record = await store.get_table(table.id)
            assert record is not None
            seen.add(record.ply)
            await asyncio.sleep(0)

    results = await asyncio.gather(
        store.act(table.id, GUEST, DRAW, 0), reader(), reader(), return_exceptions=True
    )
    assert isinstance(results[0], sqlite3.IntegrityError)
    assert results[1:] == [None, None]
    assert seen == {0}


# -- Defect 3: a corrupt action-log row ------------------------------------------------------------


@pytest.mark.parametrize("column", ["events", "action"])
async def test_a_corrupt_log_row_is_a_corrupt_table(
    store: Store, db_path: Path, column: str
) -> None:
    table = await running_table(store)
    table, _ = await store.act(table.id, GUEST, DRAW, 0)
    raw_execute(db_path, f"UPDATE actions SET {column} = '[{{' WHERE table_id = ?", (table.id,))
    with pytest.raises(CorruptTable, match="Move 0 of table"):
        await store.recent_actions(table.id, 5)
    with pytest.raises(CorruptTable):
        await store.actions(table.id)
    # The table itself is unharmed and plays on.
    assert (await store.get_table(table.id)) == table
    seat = GAME.to_act(table.running_state())
    assert seat is not None
    after, _ = await store.act(table.id, table.seats[seat], DRAW, 1)
    assert after.ply == 2


# -- Defect 5: cancellation ----------------------------------------------------------------------


async def test_a_cancelled_action_leaves_no_transaction_open(store: Store, db_path: Path) -> None:
    table = await running_table(store)
    # The lock is taken once the table exists (opening it is a write that would wait out the
    # lock, and on a busy machine leave the action nothing to wait for).
    lock_holder = hold_lock(db_path, 1.5)
    task = asyncio.create_task(store.act(table.id, GUEST, DRAW, 0))
    for _ in range(5):  # let it reach the database thread, where it waits for the lock
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert lock_holder.wait(timeout=30) == 0
    # The store still writes (a write queues behind the cancelled one, so once it is done the
    # cancelled action has either applied whole or not at all).
    await store.set_dm_mode(HOST, "off")
    assert await store.dm_mode(HOST) == "off"
    now = await store.get_table(table.id)
    assert now is not None and now.ply in (0, 1)
    assert len(await store.actions(table.id)) == now.ply
    assert await store.replay(table.id) == now.state
    seat = GAME.to_act(now.running_state())
    assert seat is not None
    after, _ = await store.act(table.id, now.seats[seat], DRAW, now.ply)
    assert after.ply == now.ply + 1


async def test_closing_finishes_queued_actions(db_path: Path) -> None:
    store = await Store.open(db_path)
    await store.migrate()
    table = await running_table(store)
    pending = asyncio.ensure_future(store.act(table.id, GUEST, DRAW, 0))
    await store.close()  # a shutdown while a move is queued
    after, _ = await pending
    again = await Store.open(db_path)
    try:
        assert await again.get_table(table.id) == after
    finally:
        await again.close()


# -- Defect 6: seats in their own table ----------------------------------------------------------


def schema_v3(db_path: Path) -> sqlite3.Connection:
    """A database as the previous release left it (migrations 1-3, seats as JSON)."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    for number in (1, 2, 3):
        (script,) = MIGRATIONS.glob(f"{number:03d}_*.sql")
        conn.executescript(script.read_text(encoding="utf-8"))
    conn.execute("PRAGMA user_version = 3")
    return conn


def add_v3_table(conn: sqlite3.Connection, channel: int, seats: str) -> int:
    cur = conn.execute(
        "INSERT INTO tables (guild_id, channel_id, game, options, seed, host_id, seats, status,"
        " created_at, updated_at) VALUES (?, ?, 'castles', '{}', 1, ?, ?, 'lobby', 'x', 'x')",
        (GUILD, channel, HOST, seats),
    )
    assert cur.lastrowid is not None
    return cur.lastrowid


@pytest.mark.sqlite_only("upgrades a SQLite file from schema 3")
async def test_one_malformed_seat_list_breaks_no_other_table(db_path: Path) -> None:
    conn = schema_v3(db_path)
    good = add_v3_table(conn, 1, f"[{HOST}, {GUEST}]")
    bad = add_v3_table(conn, 2, f"[{HOST}, ")
    conn.close()

    store = await Store.open(db_path)
    try:
        assert await store.migrate() > 3
        mine = await store.open_tables_of(GUEST)
        assert [t.id for t in mine] == [good]
        assert mine[0].seats == (HOST, GUEST)
        assert [t.id for t in await store.open_tables_of(HOST)] == [good]
        with pytest.raises(CorruptTable):
            await store.get_table(bad)
        assert await store.close_channel(2) == bad  # an admin can still close it
        # The user's tables come from an index, not a scan of every table.
        plan = await store._db.read(
            lambda c: c.execute(
                "EXPLAIN QUERY PLAN SELECT table_id FROM seats WHERE user_id = ?", (GUEST,)
            ).fetchall()
        )
        assert "seats_user" in " ".join(str(row[3]) for row in plan)
    finally:
        await store.close()


# -- Backups and migrations ------------------------------------------------------------------------


@pytest.mark.sqlite_only("the file copy taken before a SQLite migration")
async def test_a_migration_of_a_database_with_data_backs_it_up_first(db_path: Path) -> None:
    conn = schema_v3(db_path)
    table_id = add_v3_table(conn, 1, f"[{HOST}]")
    conn.close()
    store = await Store.open(db_path)
    try:
        latest = await store.migrate()
    finally:
        await store.close()
    copy = backup_path(db_path, latest)
    assert copy.exists()
    saved = sqlite3.connect(copy)
    try:
        assert saved.execute("PRAGMA user_version").fetchone() == (3,)
        assert saved.execute("SELECT id, seats FROM tables").fetchall() == [(table_id, f"[{HOST}]")]
        assert saved.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        saved.close()


@pytest.mark.sqlite_only("the file copy taken before a SQLite migration")
async def test_a_new_database_is_not_backed_up(db_path: Path) -> None:
    store = await Store.open(db_path)
    try:
        latest = await store.migrate()
    finally:
        await store.close()
    assert not backup_path(db_path, latest).exists()


async def test_a_failing_migration_leaves_the_file_as_it_was(
    db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = await Store.open(db_path)
    await store.migrate()
    latest = await store.schema_version()
    table = await running_table(store)
    broken = "CREATE TABLE half_done (x INTEGER);\nTHIS IS NOT SQL;"
    monkeypatch.setattr("storage.schema._migrations", lambda *_: [(latest + 1, broken)])
    try:
        with pytest.raises(DatabaseUnusable, match=f"migration {latest + 1:03d} failed"):
            await store.migrate()
        assert await store.schema_version() == latest
        query = (
            "SELECT table_name FROM information_schema.tables"
            if is_url(db_path)
            else "SELECT name FROM sqlite_master"
        )
        names = await store._db.read(lambda c: [r[0] for r in c.execute(query).fetchall()])
        assert "half_done" not in names
        assert await store.get_table(table.id) == table
    finally:
        await store.close()


@pytest.mark.sqlite_only("SQLite's online backup API")
async def test_online_backup_of_a_live_database(store: Store, tmp_path: Path) -> None:
    table = await running_table(store)
    table, _ = await store.act(table.id, GUEST, DRAW, 0)
    copy = tmp_path / "copy.db"
    await store.backup(copy)
    restored = await Store.open(copy)
    try:
        assert await restored.get_table(table.id) == table
        assert await restored.replay(table.id) == table.state
    finally:
        await restored.close()


@pytest.mark.sqlite_only("SQLite's online backup API; PostgreSQL's refusal is tested below")
def test_backup_command(store: Store, db_path: Path, tmp_path: Path) -> None:
    copy = tmp_path / "nightly.db"
    done = subprocess.run(
        [sys.executable, "-m", "storage", "backup", "--db", str(db_path), str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert str(copy) in done.stdout
    conn = sqlite3.connect(copy)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert conn.execute("PRAGMA user_version").fetchone()[0] > 3
    finally:
        conn.close()
    missing = subprocess.run(
        [sys.executable, "-m", "storage", "backup", "--db", str(tmp_path / "nope.db"), str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2
    assert "nope.db" in missing.stderr and "Traceback" not in missing.stderr


# -- Defects 1 and 4: damaged and read-only files ------------------------------------------------


async def real_database(path: Path, tables: int = 40) -> None:
    store = await Store.open(path)
    try:
        await store.migrate()
        for channel in range(tables):
            await running_table(store, channel=channel + 1)
    finally:
        await store.close()


def truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def garbage(path: Path) -> None:
    path.write_bytes(b"this is not a database, it is a shopping list\n" * 200)


def zeroed_header(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[16:100] = bytes(84)
    path.write_bytes(bytes(data))


@pytest.mark.sqlite_only("damaged SQLite files")
@pytest.mark.parametrize(
    ("damage", "cause"),
    [
        (garbage, "not a SQLite database"),
        (truncate, "damaged"),
        (zeroed_header, "not a SQLite database"),
    ],
)
async def test_a_damaged_file_is_refused_with_one_line_and_nothing_left_open(
    db_path: Path, damage: object, cause: str
) -> None:
    await real_database(db_path)
    assert callable(damage)
    damage(db_path)
    with pytest.raises(DatabaseUnusable) as caught:
        await asyncio.wait_for(Store.open(db_path), timeout=5)
    message = str(caught.value)
    assert "\n" not in message and str(db_path) in message and cause in message
    # In a process of its own, the failed open leaves no connection thread that would keep
    # the process from exiting (it used to hang forever).
    done = open_in_subprocess(db_path)
    assert done.returncode == 3, done.stderr
    assert done.stdout.strip() == message and done.stderr == ""


@pytest.mark.parametrize(
    ("where", "cause"),
    [
        (lambda tmp: tmp / "no-such-folder" / "siege.db", "does not exist"),
        (lambda tmp: tmp, "is a folder"),
    ],
)
async def test_a_path_that_cannot_be_a_database_is_refused(
    tmp_path: Path, where: object, cause: str
) -> None:
    assert callable(where)
    path = where(tmp_path)
    with pytest.raises(DatabaseUnusable, match=cause) as caught:
        await Store.open(path)
    assert str(path) in str(caught.value)


OPEN_SCRIPT = """
import asyncio, sys
from storage import DatabaseUnusable, Store

async def main():
    try:
        store = await Store.open(sys.argv[1])
    except DatabaseUnusable as exc:
        print(exc)
        return 3
    await store.close()
    return 0

raise SystemExit(asyncio.run(main()))
"""


def open_in_subprocess(
    path: Path, *, prefix: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """``Store.open`` in a fresh process: exit 3 and the one-line reason when refused."""
    root = Path(__file__).resolve().parents[2]
    return subprocess.run(
        [*prefix, sys.executable, "-c", OPEN_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )


async def test_a_read_only_database_is_refused_at_open() -> None:
    folder = Path(tempfile.mkdtemp(prefix="siege-ro-"))
    try:
        path = folder / "siege.db"
        await real_database(path, tables=2)
        os.chmod(folder, 0o755)  # the unprivileged user must reach the file
        os.chmod(path, 0o444)
        done = open_in_subprocess(path, prefix=as_nobody())
        assert done.returncode == 3, done.stderr
        line = done.stdout.strip()
        assert "read-only" in line and str(path) in line and "\n" not in line
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- Group commit ----------------------------------------------------------------------------------


@pytest.mark.sqlite_only("SQLite's group commit; PostgreSQL gives each write its own transaction")
async def test_writes_that_arrive_together_share_a_commit_and_fail_alone(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = [await running_table(store, channel=n) for n in range(1, 9)]
    import storage.database

    groups: list[int] = []
    real = storage.database._commit_group

    def counted(batch: list[Any], memo: dict[Any, Any], *rest: Any) -> list[tuple[bool, Any]]:
        groups.append(len(batch))
        return real(batch, memo, *rest)

    monkeypatch.setattr(storage.database, "_commit_group", counted)
    # Even tables get a legal draw; odd ones an action the rules refuse (not your turn).
    results = await asyncio.gather(
        *(store.act(t.id, GUEST if n % 2 == 0 else HOST, DRAW, 0) for n, t in enumerate(tables)),
        return_exceptions=True,
    )
    assert max(groups) > 1 and sum(groups) == len(tables)
    for n, (table, outcome) in enumerate(zip(tables, results, strict=True)):
        stored = await store.get_table(table.id)
        assert stored is not None
        if n % 2 == 0:
            assert not isinstance(outcome, BaseException) and outcome[0] == stored
            assert stored.ply == 1 and len(await store.actions(table.id)) == 1
        else:
            assert isinstance(outcome, RuleError)
            assert stored == table and await store.actions(table.id) == []


# -- A damaged page found after start-up -----------------------------------------------------------


def run_storage(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "storage", *args], capture_output=True, text=True, timeout=60
    )


@pytest.mark.sqlite_only("a damaged page of a SQLite file")
async def test_a_damaged_page_answers_for_its_table_and_the_check_command_finds_it(
    db_path: Path,
) -> None:
    await real_database(db_path, tables=30)
    healthy = run_storage("check", "--db", str(db_path))
    assert healthy.returncode == 0 and healthy.stdout.strip() == f"{db_path}: ok"
    conn = sqlite3.connect(db_path)
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'tables'").fetchone()
    (page_size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    with db_path.open("r+b") as handle:  # a bad sector in the middle of the file
        handle.seek((root - 1) * page_size)
        handle.write(b"\xa5" * page_size)

    store = await Store.open(db_path)  # the header and schema are sound: the bot starts
    try:
        with pytest.raises(CorruptTable, match="python -m storage check"):
            await store.get_table(1)
        with pytest.raises(CorruptTable):
            await store.act(1, GUEST, DRAW, 0)
        await store.set_dm_mode(HOST, "off")  # what does not touch the page still works
        assert await store.dm_mode(HOST) == "off"
    finally:
        await store.close()
    damaged = run_storage("check", "--db", str(db_path))
    assert damaged.returncode == 1 and damaged.stdout.count(str(db_path)) >= 1
    assert "ok" not in damaged.stdout.split(": ", 1)[1].split()


async def test_writes_queued_behind_a_cancelled_one_still_commit(
    store: Store, db_path: Path
) -> None:
    tables = [await running_table(store, channel=n) for n in range(1, 5)]
    holder = hold_lock(db_path, 0.6)  # the first write waits in the writer's thread
    first = asyncio.create_task(store.act(tables[0].id, GUEST, DRAW, 0))
    for _ in range(5):
        await asyncio.sleep(0)
    behind = [asyncio.create_task(store.act(t.id, GUEST, DRAW, 0)) for t in tables[1:]]
    await asyncio.sleep(0)
    first.cancel()
    done = await asyncio.gather(*behind)
    assert holder.wait(timeout=30) == 0
    assert [after.ply for after, _ in done] == [1, 1, 1]
    with pytest.raises(asyncio.CancelledError):
        await first
    now = await store.get_table(tables[0].id)
    assert now is not None and now.ply in (0, 1)  # the cancelled one: whole or not at all
    assert len(await store.actions(tables[0].id)) == now.ply


@pytest.mark.parametrize("command", ["backup", "check"])
def test_the_file_commands_refuse_a_postgresql_database_in_one_line(
    pg_cluster: PgCluster, tmp_path: Path, command: str
) -> None:
    url = pg_cluster.create()
    try:
        extra = [str(tmp_path / "copy.db")] if command == "backup" else []
        done = run_storage(command, "--db", url, *extra)
    finally:
        pg_cluster.drop(url)
    assert done.returncode == 2 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert "PostgreSQL" in line and ("pg_dump" if command == "backup" else "pg_amcheck") in line
    assert not (tmp_path / "copy.db").exists()


def test_a_postgresql_user_that_may_not_write_is_refused_at_open(pg_cluster: PgCluster) -> None:
    url = pg_cluster.create(migrated=True)
    try:
        raw_execute(url, "DROP ROLE IF EXISTS onlooker")
        raw_execute(url, "CREATE ROLE onlooker LOGIN")
        raw_execute(url, "GRANT SELECT ON ALL TABLES IN SCHEMA public TO onlooker")
        as_onlooker = url.replace("postgres:@", "onlooker:@", 1)
        assert as_onlooker != url
        done = open_in_subprocess(as_onlooker)  # type: ignore[arg-type]
        assert done.returncode == 3, done.stderr
        line = done.stdout.strip()
        assert "may not write" in line and "onlooker" in line and "\n" not in line
    finally:
        pg_cluster.drop(url)
        raw_execute(pg_cluster.url("postgres"), "DROP ROLE IF EXISTS onlooker")
