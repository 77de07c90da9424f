"""Scale-out benchmark: the same tables served by one bot process, then by two, on one PostgreSQL.

Not a test. ``table_load.py``'s run (Castles, a picture every move, moves from the table and from
DM panels; the fake Discord and the players in this process) on a PostgreSQL server started from
the ``pgserver`` package, over two shards with one server on each and half the tables in each:
first one process serving both shards, then two processes serving one shard each (as
``SHARD_COUNT=2``, ``SHARD_IDS=0`` and ``1``), each on a fresh database. Printed: each run's
figures as ``table_load`` prints them (CPU summed over the processes), then the two totals side
by side. A DM panel's click goes to shard 0's process whatever server its table is in (Discord
sends DMs on shard 0), so that process carries more than half.

Run: ``.venv/bin/python benchmarks/scale_out.py [--tables 1000] [--moves 3] [--rate 200]``. The
last line is one JSON object (``RESULT {...}``) for ``benchmarks/all.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.table_load import (  # noqa: E402
    Deployment,
    Result,
    as_json,
    children_cpu_seconds,
    cpu_seconds,
    load_average,
    report,
    run_size,
)

SHARDS = 2


@contextlib.contextmanager
def postgres_server() -> Iterator[Any]:
    """A PostgreSQL server of its own (pgserver), stopped and removed afterwards."""
    with tempfile.TemporaryDirectory() as root, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: "XDG_RUNTIME_DIR is not set"
        import pgserver

        server = pgserver.get_server(Path(root), cleanup_mode="stop")
        try:
            yield server
        finally:
            server.cleanup()


def tree_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and its live children (the PostgreSQL server and its backends)."""
    return cpu_seconds(pid) + children_cpu_seconds(pid)


async def fresh_database(server: Any, name: str) -> str:
    """A new database on ``server``, migrated to the store's schema; its URL."""
    import psycopg

    from storage import Store

    base = server.get_uri()
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name}")
        conn.execute(f"CREATE DATABASE {name}")
    head, _, tail = base.partition("/postgres?")
    url = f"{head}/{name}?{tail}"
    store = await Store.open(url)
    try:
        await store.migrate()
    finally:
        await store.close()
    return url


async def amain(args: argparse.Namespace) -> list[Result]:
    results = []
    with postgres_server() as server:
        for processes in (1, SHARDS):
            url = await fresh_database(server, f"load_{processes}")
            deployment = Deployment(processes=processes, shards=SHARDS, database=url)
            print(f"-- {deployment.label}: {args.tables} tables offered {args.rate}/s", flush=True)
            postmaster = server.get_pid()
            result = await run_size(
                args.tables,
                args.moves,
                args.rate,
                debug_loop=False,
                deployment=deployment,
                others={"PostgreSQL (all its processes)": partial(tree_cpu, postmaster)},
            )
            report(result)
            results.append(result)
    one, two = results
    ratio = two.moves_per_second / one.moves_per_second
    print(
        f"one process: {one.moves_per_second:.0f} moves/s (p99 {one.p99_ms:.0f} ms, "
        f"{one.cpu_ms_per_move:.2f} ms CPU per move); two processes: "
        f"{two.moves_per_second:.0f} moves/s (p99 {two.p99_ms:.0f} ms, "
        f"{two.cpu_ms_per_move:.2f} ms CPU per move): "
        f"x{ratio:.2f} (load average now {load_average():.1f})"
    )
    return results


def arguments(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--moves", type=int, default=3, help="moves per table")
    parser.add_argument("--rate", type=int, default=200, help="clicks/s offered, 0: unpaced")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    results = asyncio.run(amain(arguments(argv)))
    print("RESULT " + json.dumps([as_json(r) for r in results]))


if __name__ == "__main__":
    main()
