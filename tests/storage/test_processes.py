"""The store across real processes (issue 12): a writer killed with SIGKILL at random moments loses
no acknowledged action and leaves a sound file, and two processes racing on one table's ply apply
the action exactly once.

The other process is ``python -m tests.storage.worker`` (see that module); every wait on it has a
timeout, so a stuck worker fails the test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import sqlite3
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from engine.castles import GAME
from storage import Store, TableRecord

ROOT = Path(__file__).resolve().parents[2]
WORKER = "tests.storage.worker"
TIMEOUT = 20.0  # seconds for any one line or exit of a worker; never reached when all is well
HOST, GUEST = 1, 2  # the users the worker seats (tests/storage/worker.py)
SEED = 12

KILL_ROUNDS = 6
FEWEST_ACKS, MOST_ACKS = 5, 300

RACE_PLIES = 6
ATTEMPTS = 50  # per process and ply


@asynccontextmanager
async def worker(*args: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """A worker process on pipes; killed on the way out if it is still running."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        WORKER,
        *args,
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        yield proc
    finally:
        if proc.returncode is None:
            proc.kill()
            await asyncio.wait_for(proc.wait(), TIMEOUT)


async def read_line(proc: asyncio.subprocess.Process) -> str:
    assert proc.stdout is not None and proc.stderr is not None
    line = await asyncio.wait_for(proc.stdout.readline(), TIMEOUT)
    if not line:
        await asyncio.wait_for(proc.wait(), TIMEOUT)
        errors = await asyncio.wait_for(proc.stderr.read(), TIMEOUT)
        raise AssertionError(
            f"the worker ended (exit {proc.returncode}) without a line:\n{errors.decode()}"
        )
    return line.decode().rstrip("\n")


def parse_acks(lines: list[str]) -> list[tuple[int, int]]:
    acks = []
    for line in lines:
        word, table_id, ply = line.split()
        assert word == "ack", line
        acks.append((int(table_id), int(ply)))
    return acks


# -- Crash safety ----------------------------------------------------------------------------------


async def play_and_kill(db_path: Path, seed: int, acks: int) -> list[tuple[int, int]]:
    """Run a playing worker, SIGKILL it once ``acks`` acknowledgements have been read and return
    every acknowledgement it printed (those read before the kill and those still in the pipe)."""
    async with worker("play", str(db_path), str(seed), "--limit", "1000000") as proc:
        lines = [await read_line(proc) for _ in range(acks)]
        proc.kill()
        assert proc.stdout is not None
        rest = await asyncio.wait_for(proc.stdout.read(), TIMEOUT)
        assert await asyncio.wait_for(proc.wait(), TIMEOUT) == -signal.SIGKILL
    # A line cut short by the kill is not an acknowledgement (the worker writes whole lines).
    lines += rest.decode().split("\n")[:-1]
    return parse_acks(lines)


def check_file(db_path: Path) -> list[int]:
    """What a plain SQLite connection says about the file a killed writer left behind; returns
    the ids of its tables."""
    conn = sqlite3.connect(db_path, isolation_level=None)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
        seats: dict[int, list[tuple[int, int]]] = {}
        for table_id, seat, user_id in conn.execute(
            "SELECT table_id, seat, user_id FROM seats ORDER BY table_id, seat"
        ):
            seats.setdefault(table_id, []).append((seat, user_id))
        tables = conn.execute(
            "SELECT id, status, ply, state IS NULL, channel_id FROM tables ORDER BY id"
        ).fetchall()
        logged = dict(conn.execute("SELECT table_id, COUNT(*) FROM actions GROUP BY table_id"))
    finally:
        conn.close()
    assert set(seats) <= {row[0] for row in tables}
    for table_id, status, ply, no_state, _ in tables:
        held = seats.get(table_id, [])
        assert status != "cancelled", f"table {table_id}: nothing cancels a table here"
        if status == "lobby":
            assert held in ([(0, HOST)], [(0, HOST), (1, GUEST)]), (table_id, held)
            assert (ply, no_state, logged.get(table_id, 0)) == (0, 1, 0), table_id
        else:
            assert held == [(0, HOST), (1, GUEST)], (table_id, status, held)
            assert not no_state, f"table {table_id} is {status} without a state"
            assert logged.get(table_id, 0) == ply, (
                f"table {table_id} ({status}) is at ply {ply} with"
                f" {logged.get(table_id, 0)} logged actions"
            )
    open_channels = [row[4] for row in tables if row[1] in ("lobby", "running")]
    assert len(open_channels) == len(set(open_channels)), "two open tables in one channel"
    return [row[0] for row in tables]


async def check_store(db_path: Path, table_ids: list[int]) -> dict[int, TableRecord]:
    """Every table, read through a fresh Store, is consistent with its log; returns them."""
    store = await Store.open(db_path)
    try:
        tables: dict[int, TableRecord] = {}
        open_ids: list[int] = []
        for table_id in table_ids:
            table = tables[table_id] = await fetch(store, table_id)
            if table.status == "lobby":
                assert table.state is None and await store.actions(table.id) == []
            else:
                await check_game(store, table)
            if table.is_open:
                open_ids.append(table.id)
        assert [table.id for table in await store.open_tables_of(HOST)] == open_ids
        return tables
    finally:
        await store.close()


async def fetch(store: Store, table_id: int) -> TableRecord:
    table = await store.get_table(table_id)
    assert table is not None
    return table


async def check_game(store: Store, table: TableRecord) -> None:
    state = table.running_state()
    assert table.seats == (HOST, GUEST)
    assert state == await store.replay(table.id)
    log = await store.actions(table.id)
    assert len(log) == table.ply
    assert [record.ply for record in log] == list(range(table.ply))
    result = GAME.result(state)
    if table.status == "over":
        assert result is not None and table.result == result
    else:
        assert table.status == "running" and result is None and table.result is None
        assert GAME.to_act(state) is not None


async def test_a_killed_writer_loses_no_acknowledged_action(tmp_path: Path) -> None:
    db_path = tmp_path / "hall.db"
    rng = random.Random(SEED)
    acknowledged: dict[int, int] = {}  # the highest acknowledged ply of every table
    rounds_of: dict[int, set[int]] = {}  # the rounds that acknowledged actions of every table
    before: dict[int, int] = {}
    tables: dict[int, TableRecord] = {}
    for round_ in range(KILL_ROUNDS):
        acks = await play_and_kill(db_path, SEED + round_, rng.randint(FEWEST_ACKS, MOST_ACKS))
        for table_id, ply in acks:
            acknowledged[table_id] = max(ply, acknowledged.get(table_id, 0))
            rounds_of.setdefault(table_id, set()).add(round_)

        tables = await check_store(db_path, check_file(db_path))
        plies = {table_id: table.ply for table_id, table in tables.items()}
        lost = {t: (p, plies.get(t)) for t, p in acknowledged.items() if p > plies.get(t, -1)}
        assert lost == {}, f"round {round_}: acknowledged (ply, stored ply) lost: {lost}"
        went_back = {t: (p, plies.get(t)) for t, p in before.items() if p > plies.get(t, -1)}
        assert went_back == {}, f"round {round_}: tables went back: {went_back}"
        before = plies
    # The rounds finished games and started new ones, and carried on with tables they found open.
    assert any(table.status == "over" for table in tables.values())
    assert any(len(rounds) > 1 for rounds in rounds_of.values())


# -- Two processes racing on one ply ---------------------------------------------------------------


async def test_two_processes_racing_on_a_ply_apply_it_once(tmp_path: Path) -> None:
    db_path = tmp_path / "hall.db"
    store = await Store.open(db_path)
    try:
        await store.migrate()
        table = await store.create_table(
            guild_id=77, channel_id=500, game="castles", host_id=HOST, options={}, seed=SEED
        )
        await store.join(table.id, GUEST)
        table = await store.start(table.id, HOST)
        rng = random.Random(SEED)
        args = ("race", str(db_path), str(table.id), "--attempts", str(ATTEMPTS))
        async with worker(*args) as first, worker(*args) as second:
            racers = (first, second)
            for ply in range(RACE_PLIES):
                for proc in racers:
                    assert await read_line(proc) == "ready"
                table = await fetch(store, table.id)
                assert table.ply == ply and table.status == "running"
                state = table.running_state()
                seat = GAME.to_act(state)
                assert seat is not None
                user, action = table.seats[seat], rng.choice(GAME.legal_actions(state, seat))
                for proc in racers:
                    assert proc.stdin is not None
                    proc.stdin.write(f"go {ply} {user} {json.dumps(action)}\n".encode())
                    await proc.stdin.drain()

                reports = []
                for proc in racers:
                    word, _, report = (await read_line(proc)).partition(" ")
                    assert word == "result"
                    reports.append(json.loads(report))
                assert [r["errors"] for r in reports] == [[], []]
                assert sum(r["applied"] for r in reports) == 1, reports
                assert sum(r["stale"] for r in reports) == 2 * ATTEMPTS - 1, reports

                after = await fetch(store, table.id)
                log = await store.actions(table.id)
                assert after.ply == ply + 1 and len(log) == ply + 1
                assert (log[-1].ply, log[-1].user_id, log[-1].action) == (ply, user, action)
                assert after.state == await store.replay(table.id)
            for proc in racers:
                assert await read_line(proc) == "ready"
                assert proc.stdin is not None
                proc.stdin.write(b"quit\n")
                await proc.stdin.drain()
            for proc in racers:
                assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0
    finally:
        await store.close()
