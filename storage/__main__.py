"""Operator commands for the database.

``python -m storage backup [--db PATH] DEST`` copies the live database with SQLite's online
backup API: safe while the bot runs and writes, and the copy is consistent.

``python -m storage check [--db PATH]`` runs SQLite's full integrity check, page by page (the
bot does not at start: at 10,000 games it reads hundreds of megabytes). Exit status 0 when the
file is sound, 1 with the problems found.

``python -m storage copy --to postgresql://… [--db PATH]`` copies a SQLite database into an empty
PostgreSQL database and verifies the copy by replaying every game on it (storage/to_postgres.py).
Exit status 0 when the copy is made and verified, 2 with one line otherwise.

``--db`` defaults to ``DATABASE_URL``, then ``DATABASE_PATH`` (environment or ``.env``), then
``siege.db`` (for ``copy``: ``DATABASE_PATH``, then ``siege.db``). ``backup`` and ``check`` are
SQLite's: given a PostgreSQL database they refuse in one line (use pg_dump and pg_amcheck). Exit
status 2 with one line on standard error when the database or the destination cannot be used.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import sys
from pathlib import Path

import psycopg
from dotenv import load_dotenv

from storage.database import Database, DatabaseUnusable
from storage.postgres import BACKUP_REFUSAL, CHECK_REFUSAL, is_url, redact
from storage.to_postgres import CopyFailed, copy_to_postgres


async def _existing(source: Path) -> Database:
    if not source.is_file():
        raise DatabaseUnusable(source, "there is no database file there")
    return await Database.open(source)


async def backup(source: Path, destination: Path) -> None:
    db = await _existing(source)
    try:
        await db.backup(destination)
    finally:
        await db.close()


async def check(source: Path) -> list[str]:
    db = await _existing(source)
    try:
        return await db.integrity_check()
    finally:
        await db.close()


def main(argv: list[str] | None = None) -> int:
    load_dotenv()
    parser = argparse.ArgumentParser(prog="python -m storage", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    copy = commands.add_parser("backup", help="copy the live database to DEST")
    copy.add_argument("dest")
    verify = commands.add_parser("check", help="run SQLite's full integrity check")
    configured = os.environ.get("DATABASE_URL") or os.environ.get("DATABASE_PATH") or "siege.db"
    for command in (copy, verify):
        command.add_argument("--db", default=configured)
    move = commands.add_parser("copy", help="copy a SQLite database into PostgreSQL and verify it")
    move.add_argument("--to", required=True, help="the PostgreSQL database (postgresql://…)")
    move.add_argument("--db", default=os.environ.get("DATABASE_PATH") or "siege.db")
    args = parser.parse_args(argv)
    if args.command == "copy":
        return _copy(Path(args.db), args.to)
    if is_url(args.db):
        refusal = BACKUP_REFUSAL if args.command == "backup" else CHECK_REFUSAL
        print(f"{args.command} failed: {redact(args.db)}: {refusal}", file=sys.stderr)
        return 2
    if args.command == "check":
        return _check(Path(args.db))
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


def _check(source: Path) -> int:
    try:
        problems = asyncio.run(check(source))
    except DatabaseUnusable as exc:
        print(f"check failed: {exc}", file=sys.stderr)
        return 2
    if problems == ["ok"]:
        print(f"{source}: ok")
        return 0
    for problem in problems:
        print(f"{source}: {problem}")
    return 1


def _copy(source: Path, url: str) -> int:
    if not is_url(url):
        print(f"copy failed: --to must be a postgresql:// URL, not {url!r}", file=sys.stderr)
        return 2
    try:
        report = asyncio.run(copy_to_postgres(source, url, say=print))
    except (DatabaseUnusable, CopyFailed) as exc:
        print(f"copy failed: {exc}", file=sys.stderr)
        return 2
    except (sqlite3.Error, psycopg.Error) as exc:
        print(f"copy failed: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    total = sum(report.rows.values())
    print(f"copied {total} rows from {source} to {redact(url)}; every game replays")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
