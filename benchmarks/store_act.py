"""How much one game action costs the store, next to a raw SQLite commit on the same disk.

    .venv/bin/python benchmarks/store_act.py [--actions N] [--tables T] [--dir DIR]

Three figures, all with ``synchronous = FULL`` in WAL mode (what the store uses, so both sides
pay the same fsync), in one run on one disk:

1. raw: a plain ``sqlite3`` connection committing one single-row INSERT per transaction;
2. ``Store.act`` one at a time: load, check, engine, write state + log row, commit, answer.
   1 and 2 run interleaved, in rounds of 1/10 of the actions each, so that both see the same
   disk and the same background load (a shared machine drifts over seconds);
3. ``Store.act`` with T tables (default 1,000) acting at once, every table always having one
   action in flight: the latency of each call and the actions per second.

It prints p50/p99 and the ratio to the raw commit. Targets (issue 12): ``Store.act`` p50 ≤ 3× and
p99 ≤ 5× the raw commit.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from engine.castles import GAME
from storage import Store, TableRecord


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def show(name: str, samples: list[float], raw: list[float] | None = None) -> None:
    p50, p99 = pct(samples, 0.50), pct(samples, 0.99)
    line = (
        f"{name:<34} n={len(samples):>6}  mean {statistics.fmean(samples) * 1e3:7.3f} ms"
        f"  p50 {p50 * 1e3:7.3f} ms  p99 {p99 * 1e3:7.3f} ms"
    )
    if raw:
        raw_p50, raw_p99 = pct(raw, 0.50), pct(raw, 0.99)
        line += (
            f"  (p50 {p50 / raw_p50:4.2f}x raw p50; p99 {p99 / raw_p99:4.2f}x raw p99,"
            f" {p99 / raw_p50:4.2f}x raw p50)"
        )
    print(line, flush=True)


def raw_connection(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)")
    return conn


def raw_commits(conn: sqlite3.Connection, n: int, samples: list[float]) -> None:
    payload = "x" * 200
    for _ in range(n):
        start = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (v) VALUES (?)", (payload,))
        conn.execute("COMMIT")
        samples.append(time.perf_counter() - start)


async def interleaved(
    where: Path, actions: int, rounds: int = 10
) -> tuple[list[float], list[float]]:
    """Raw commits and one-at-a-time ``Store.act`` calls, alternating in ``rounds`` rounds."""
    raw: list[float] = []
    acts: list[float] = []
    conn = raw_connection(where / "raw.db")
    store = await Store.open(where / "one.db")
    await store.migrate()
    chooser = random.Random(0)
    table = await new_table(store, 1, chooser)
    try:
        for _ in range(rounds):
            raw_commits(conn, actions // rounds, raw)
            table = await play_on(store, table, 1, actions // rounds, chooser, acts)
    finally:
        await store.close()
        conn.close()
    return raw, acts


async def new_table(store: Store, channel: int, chooser: random.Random) -> TableRecord:
    return await store.create_table(
        guild_id=1,
        channel_id=channel,
        game="castles",
        host_id=1,
        seats=(1, 2),
        start=True,
        seed=chooser.randrange(2**40),
    )


async def play(
    store: Store, channel: int, actions: int, chooser: random.Random, samples: list[float]
) -> None:
    """Act ``actions`` times on a table of ``channel`` (a new game when one ends)."""
    await play_on(
        store, await new_table(store, channel, chooser), channel, actions, chooser, samples
    )


async def play_on(
    store: Store,
    table: TableRecord,
    channel: int,
    actions: int,
    chooser: random.Random,
    samples: list[float],
) -> TableRecord:
    for _ in range(actions):
        if table.status != "running":
            table = await new_table(store, channel, chooser)
        state = table.running_state()
        seat = GAME.to_act(state)
        assert seat is not None
        action = chooser.choice(GAME.legal_actions(state, seat))
        start = time.perf_counter()
        table, _ = await store.act(table.id, table.seats[seat], action, table.ply)
        samples.append(time.perf_counter() - start)
    return table


async def store_acts(path: Path, actions: int, tables: int) -> tuple[list[float], float]:
    store = await Store.open(path)
    await store.migrate()
    samples: list[float] = []
    try:
        per_table = max(1, actions // tables)
        start = time.perf_counter()
        await asyncio.gather(
            *(play(store, n + 1, per_table, random.Random(n), samples) for n in range(tables))
        )
        elapsed = time.perf_counter() - start
    finally:
        await store.close()
    return samples, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--dir", default=None, help="where the database files go (the disk)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        where = Path(folder)
        print(f"disk: {where}  sqlite {sqlite3.sqlite_version}  synchronous=FULL, WAL")
        warm = raw_connection(where / "warm.db")
        raw_commits(warm, 200, [])  # file system and page cache warm-up
        warm.close()
        raw, one = asyncio.run(interleaved(where, args.actions))
        show("raw sqlite3 single-row commit", raw)
        show("Store.act, one at a time", one, raw)
        many, elapsed = asyncio.run(
            store_acts(where / "many.db", max(args.actions, args.tables * 3), args.tables)
        )
        show(f"Store.act, {args.tables} tables at once", many, raw)
        # With every table's next action queued at once, each call waits for the queue ahead of
        # it (Little's law), so the cost of an action is the time per action, not a call's wait.
        per_action = elapsed / len(many)
        print(
            f"{'':<34} {len(many) / elapsed:8.0f} actions/s over {elapsed:.1f} s:"
            f" {per_action * 1e3:.3f} ms per action, {per_action / pct(raw, 0.5):.2f}x raw p50"
        )


if __name__ == "__main__":
    main()
