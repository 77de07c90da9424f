"""The store across real processes (issues 12 and 16): a writer killed with SIGKILL at random
moments loses no acknowledged action and leaves a sound file; two processes racing on one table's
ply apply the action exactly once; two processes running the periodic jobs at once never act
twice on one item. The last two run on SQLite and on PostgreSQL.

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
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from engine.castles import GAME
from storage import Store, TableRecord, computers
from tests.fakeclock import Clock
from tests.pg import raw_rows
from tests.storage import worker as sweeper

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


@pytest.mark.sqlite_only("kill -9 of a SQLite writer, then SQLite's check of the file it left")
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


async def test_two_processes_racing_on_a_ply_apply_it_once(db_path: Path | str) -> None:
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


# -- Two processes running the periodic jobs at once -----------------------------------------------

CLOCKED, LOBBIES, OFFERS, COMPUTER_TABLES = 12, 4, 6, 6


async def test_two_sweepers_never_act_twice_on_one_item(db_path: Path | str) -> None:
    clock = Clock()
    store = await Store.open(db_path, clock=clock)
    try:
        await store.migrate()
        channels = iter(range(100, 1000))
        clocked, lobbies, computer_tables, offer_ids = [], [], [], []
        for _ in range(CLOCKED):  # GUEST to act, 5 minutes a move
            table = await store.create_table(
                guild_id=77,
                channel_id=next(channels),
                game="castles",
                host_id=HOST,
                seats=(HOST, GUEST),
                start=True,
                options={"dealer": 0},
                time_control="live:5",
            )
            clocked.append(table.id)
        for _ in range(LOBBIES):  # nobody starts these
            lobby = await store.create_table(
                guild_id=77, channel_id=next(channels), game="castles", host_id=HOST
            )
            lobbies.append(lobby.id)
        robot = computers.computer_id("easy", 1)
        for _ in range(COMPUTER_TABLES):  # the computer to act
            table = await store.create_table(
                guild_id=77,
                channel_id=next(channels),
                game="castles",
                host_id=HOST,
                seats=(HOST, robot),
                start=True,
                options={"dealer": 0},
            )
            computer_tables.append(table.id)
        for n in range(OFFERS):
            offer = await store.challenge(
                guild_id=77,
                channel_id=next(channels),
                game="castles",
                challenger_id=HOST,
                challenged_id=GUEST + 10 + n,
            )
            offer_ids.append(offer.id)
        later = (clock() + timedelta(days=2)).isoformat()
        async with (
            worker("sweep", str(db_path), later, "--slot", "0") as first,
            worker("sweep", str(db_path), later, "--slot", "1") as second,
        ):
            racers = (first, second)
            for proc in racers:
                assert await read_line(proc) == "ready"
            for proc in racers:
                assert proc.stdin is not None
                proc.stdin.write(b"go\n")
                await proc.stdin.drain()
            reports = []
            for proc in racers:
                word, _, report = (await read_line(proc)).partition(" ")
                assert word == "result"
                reports.append(json.loads(report))
            for proc in racers:
                assert await asyncio.wait_for(proc.wait(), TIMEOUT) == 0

        def both(job: str) -> list[Any]:
            return sorted(reports[0][job] + reports[1][job])

        # Every deadline acted on once: a lobby closed, a seat's safe move played for it.
        timed_out = both("timed_out")
        assert [tid for tid, _, _ in timed_out] == sorted(clocked + lobbies)
        assert {(tid, ply) for tid, ply, _ in timed_out} == {(t, 0) for t in clocked + lobbies}
        assert {rung for tid, _, rung in timed_out if tid in lobbies} == {"lobby_expired"}
        assert {rung for tid, _, rung in timed_out if tid in clocked} == {"auto_move"}
        for table_id in clocked:
            table = await fetch(store, table_id)
            assert table.ply == 1 and len(await store.actions(table_id)) == 1
            assert (
                raw_rows(db_path, "SELECT sum(misses) FROM seats WHERE table_id = ?", (table_id,))[
                    0
                ][0]
                == 1
            )
        # A reminder at most once per move; every offer expired once; every computer moved once.
        reminded = both("reminded")
        assert len({tuple(item) for item in reminded}) == len(reminded)
        assert both("expired") == sorted(offer_ids)
        assert both("computer") == [[tid, 0] for tid in sorted(computer_tables)]
        for table_id in computer_tables:
            assert len(await store.actions(table_id)) == 1
        # One daily secret for the server, whoever made it: every daily game has the day's seed,
        # and each player's first game of the day is the one scored, once.
        daily = both("daily")
        assert len(daily) == 2 * len(sweeper.DAILY_USERS)
        assert len({seed for _, seed, _, _ in daily}) == 1
        assert raw_rows(db_path, "SELECT count(*) FROM guild_secrets") == [(1,)]
        for user in sweeper.DAILY_USERS:
            assert sorted(scored for _, _, who, scored in daily if who == user) == [0, 1]
    finally:
        await store.close()
