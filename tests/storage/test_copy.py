"""``python -m storage copy``: a SQLite database copied into PostgreSQL, verified by replaying every
game, and refused (one line, exit 2) when the target is not empty or the copy does not match."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.castles import GAME
from storage import Store, TableRecord
from storage.to_postgres import ORDER, TABLES, CopyFailed, verify
from tests.pg import PgCluster, raw_execute, raw_rows

GUILD = 77
HOST, GUEST = 1001, 2002
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def target(pg_cluster: PgCluster) -> Iterator[str]:
    url = pg_cluster.create()
    try:
        yield url
    finally:
        pg_cluster.drop(url)


async def played(store: Store, channel: int, rng: random.Random, plies: int) -> TableRecord:
    table = await store.create_table(
        guild_id=GUILD,
        channel_id=channel,
        game="castles",
        host_id=HOST,
        seats=(HOST, GUEST),
        start=True,
        seed=rng.randrange(2**62),
        time_control="live:5",
    )
    for _ in range(plies):
        if table.status != "running":
            break
        state = table.running_state()
        seat = GAME.to_act(state)
        assert seat is not None
        action = rng.choice(GAME.legal_actions(state, seat))
        table, _ = await store.act(table.id, table.seats[seat], action, table.ply)
    return table


async def a_hall(path: Path) -> dict[int, TableRecord]:
    """A SQLite database with a bit of everything: games finished (rated), running and
    resigned, a lobby, a cancelled table, a daily game, an offer, a seek, names and a DM panel."""
    rng = random.Random(16)
    store = await Store.open(path)
    try:
        await store.migrate()
        tables = [await played(store, channel, rng, 400) for channel in range(1, 4)]
        tables.append(await played(store, 4, rng, 7))  # still running
        resigned = await played(store, 5, rng, 3)
        over, _ = await store.resign(resigned.id, GUEST)
        tables.append(over)
        tables.append(
            await store.create_table(guild_id=GUILD, channel_id=6, game="king", host_id=HOST)
        )
        cancelled = await store.create_table(
            guild_id=GUILD, channel_id=7, game="castles", host_id=GUEST
        )
        tables.append(await store.cancel(cancelled.id))
        daily, _ = await store.start_daily(
            guild_id=GUILD, channel_id=8, user_id=HOST, difficulty="normal", day="2026-11-25"
        )
        tables.append(daily)
        await store.challenge(
            guild_id=GUILD, channel_id=9, game="castles", challenger_id=HOST, challenged_id=GUEST
        )
        await store.post_seek(guild_id=GUILD, channel_id=10, game="king", author_id=GUEST)
        await store.remember_names({HOST: "Ada", GUEST: "Brandt"})
        await store.set_dm_panel(tables[0].id, HOST, 555, 666)
        await store.heartbeat()
        return {table.id: table for table in tables}
    finally:
        await store.close()


def copy_command(source: Path, url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "storage", "copy", "--to", url, "--db", str(source)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


async def test_a_sqlite_hall_copied_into_postgresql_plays_on(tmp_path: Path, target: str) -> None:
    source = tmp_path / "siege.db"
    tables = await a_hall(source)
    assert any(t.status == "over" and t.result is not None for t in tables.values())
    done = copy_command(source, target)
    assert done.returncode == 0, done.stderr
    assert "every game replays" in done.stdout and done.stderr == ""
    for table in TABLES:  # every row of every table, in the same order, is there
        query = f"SELECT * FROM {table} ORDER BY {ORDER[table]}"
        assert raw_rows(target, query) == raw_rows(source, query), table

    copied = await Store.open(target)
    try:
        for table_id, table in tables.items():
            assert await copied.get_table(table_id) == table
        assert await copied.leaderboard(GUILD, "castles") != []
        assert await copied.names([HOST, GUEST]) == {HOST: "Ada", GUEST: "Brandt"}
        running = next(t for t in tables.values() if t.status == "running" and t.game == "castles")
        seat = GAME.to_act(running.running_state())
        assert seat is not None
        action = GAME.legal_actions(running.running_state(), seat)[0]
        after, _ = await copied.act(running.id, running.seats[seat], action, running.ply)
        assert after.ply == running.ply + 1  # the game goes on where SQLite left it
        fresh = await copied.create_table(
            guild_id=GUILD, channel_id=99, game="castles", host_id=HOST
        )
        assert fresh.id == max(tables) + 1  # new ids carry on after the copied ones
        (seek,) = await copied.open_seeks(GUILD)  # the open seek came along, and its ids go on
        assert seek.author_id == GUEST and seek.game == "king"
        later = await copied.post_seek(guild_id=GUILD, channel_id=11, game="king", author_id=HOST)
        assert later.id == seek.id + 1
    finally:
        await copied.close()

    again = copy_command(source, target)  # the target is no longer empty
    assert again.returncode == 2 and again.stdout.count("\n") <= 1
    (line,) = again.stderr.splitlines()
    assert "already has tables" in line


async def test_a_copy_that_differs_from_its_source_is_caught(tmp_path: Path, target: str) -> None:
    source = tmp_path / "siege.db"
    tables = await a_hall(source)
    assert copy_command(source, target).returncode == 0
    table_id = next(t.id for t in tables.values() if t.ply > 2)
    raw_execute(  # one logged move altered on the copy only
        target,
        'UPDATE actions SET action = \'{"type": "draw"}\' WHERE table_id = ? AND ply = 1',
        (table_id,),
    )
    lite, pg = await Store.open(source), await Store.open(target)
    try:
        count = "SELECT count(*) FROM {}"
        counts = {table: int(raw_rows(source, count.format(table))[0][0]) for table in TABLES}
        with pytest.raises(CopyFailed, match="actions differs"):
            await verify(lite, pg, counts)
    finally:
        await lite.close()
        await pg.close()


def test_copy_refuses_a_missing_file_and_a_target_that_is_not_postgresql(
    tmp_path: Path, target: str
) -> None:
    missing = copy_command(tmp_path / "nope.db", target)
    assert missing.returncode == 2 and "nope.db" in missing.stderr
    assert "Traceback" not in missing.stderr
    wrong = copy_command(tmp_path / "nope.db", str(tmp_path / "other.db"))
    assert wrong.returncode == 2 and "postgresql://" in wrong.stderr
