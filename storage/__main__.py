"""Operator commands for the database: ``python -m storage backup [--db PATH] DEST``.

``backup`` copies the live database with SQLite's online backup API: safe while the bot runs
and writes, and the copy is consistent. ``--db`` defaults to ``DATABASE_PATH`` (environment or
``.env``), then ``siege.db``. Exit status 0 on success, 2 with one line on standard error when
the database or the destination cannot be used.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
from pathlib import Path

from dotenv import load_dotenv

from storage.database import Database, DatabaseUnusable


async def backup(source: Path, destination: Path) -> None:
    if not source.is_file():
        raise DatabaseUnusable(source, "there is no database file there")
    db = await Database.open(source)
    try:
        await db.backup(destination)
    finally:
        await db.close()


def main(argv: list[str] | None = None) -> int:
    load_dotenv()
    parser = argparse.ArgumentParser(prog="python -m storage", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    copy = commands.add_parser("backup", help="copy the live database to DEST")
    copy.add_argument("--db", default=os.environ.get("DATABASE_PATH") or "siege.db")
    copy.add_argument("dest")
    args = parser.parse_args(argv)
    source, destination = Path(args.db), Path(args.dest)
    try:
        asyncio.run(backup(source, destination))
    except DatabaseUnusable as exc:
        print(f"backup failed: {exc}", file=sys.stderr)
        return 2
    except (OSError, sqlite3.Error) as exc:  # the destination: a full disk, a bad file...
        print(f"backup failed: cannot write {destination}: {exc}", file=sys.stderr)
        return 2
    print(f"backed up {source} to {destination}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
