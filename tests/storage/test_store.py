"""The SQLite store on real database files: migrations, lobby, one open table per channel,
atomic game actions guarded by the ply, replays, players' DM settings and corrupt rows."""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from engine import chance
from engine.castles import GAME
from engine.rules import RuleError, SetupError, dumps
from storage import (
    CorruptTable,
    Seating,
    StaleAction,
    Store,
    TableError,
    TableExists,
    TableRecord,
)
from storage.database import BUSY_TIMEOUT_MS, on_thread
from storage.lobby import seat_order
from storage.postgres import is_url
from tests.pg import raw_connect, raw_rows

MIGRATIONS = Path(__file__).resolve().parents[2] / "storage" / "migrations"
LATEST = max(int(path.name[:3]) for path in MIGRATIONS.glob("[0-9][0-9][0-9]_*.sql"))

GUILD = 77
CHANNEL = 500
HOST, GUEST, OTHER = 1001, 2002, 3003
SEED = 4242
DRAW = {"type": "draw"}


def raw(db_path: Path | str) -> Any:
    """A plain connection beside the store's (WAL lets both in, on SQLite)."""
    return raw_connect(db_path)


async def running_table(
    store: Store, channel: int = CHANNEL, seed: int = SEED, dealer: int = 0
) -> TableRecord:
    """A started castles table: HOST in seat 0, GUEST in seat 1, seat ``1 - dealer`` to act."""
    table = await store.create_table(
        guild_id=GUILD,
        channel_id=channel,
        game="castles",
        host_id=HOST,
        options={"dealer": dealer},
        seed=seed,
    )
    await store.join(table.id, GUEST)
    return await store.start(table.id, HOST)


def user_to_act(table: TableRecord) -> int:
    assert table.state is not None
    seat = GAME.to_act(table.state)
    assert seat is not None
    return table.seats[seat]


async def fetch(store: Store, table_id: int) -> TableRecord:
    table = await store.get_table(table_id)
    assert table is not None
    return table


# -- Migrations and connection settings --------------------------------------------------------


async def test_migrations_from_empty_are_idempotent(db_path: Path) -> None:
    store = await Store.open(db_path)
    try:
        assert await store.schema_version() == 0
        assert await store.migrate() == LATEST
        assert await store.schema_version() == LATEST
        table = await running_table(store)
        assert await store.migrate() == LATEST  # nothing to do the second time
    finally:
        await store.close()

    if is_url(db_path):
        assert raw_rows(db_path, "SELECT version FROM siege_schema") == [(LATEST,)]
        query = "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
    else:
        assert raw_rows(db_path, "PRAGMA user_version") == [(LATEST,)]
        query = "SELECT name FROM sqlite_master"
    names = {row[0] for row in raw_rows(db_path, query)}
    assert {"tables", "actions", "players", "dm_panels"} <= names

    again = await Store.open(db_path)  # a restart: migrate again, data intact
    try:
        assert await again.migrate() == LATEST
        assert (await fetch(again, table.id)).state == table.state
    finally:
        await again.close()


@pytest.mark.sqlite_only("SQLite's journal mode, busy timeout and synchronous setting")
async def test_wal_mode_busy_timeout_and_full_sync(store: Store, db_path: Path) -> None:
    assert raw_rows(db_path, "PRAGMA journal_mode") == [("wal",)]
    # Busy timeout and synchronous are per connection: ask the store's own two.
    db = store._db
    for conn in (db._writer, db._reader):
        assert await on_thread(conn, lambda c: c.execute("PRAGMA busy_timeout").fetchone()[0]) == (
            BUSY_TIMEOUT_MS
        )
    # FULL (2): an acknowledged commit is on disk, not only in the OS cache (power loss).
    assert await on_thread(db._writer, lambda c: c.execute("PRAGMA synchronous").fetchone()[0]) == 2
    assert await on_thread(db._reader, lambda c: c.execute("PRAGMA query_only").fetchone()[0]) == 1
    assert BUSY_TIMEOUT_MS >= 1000


# -- Lobby -------------------------------------------------------------------------------------


async def test_lobby_create_join_leave_start(store: Store) -> None:
    table = await store.create_table(
        guild_id=GUILD, channel_id=CHANNEL, game="castles", host_id=HOST, seed=SEED
    )
    assert table.seats == (HOST,)
    assert table.host_id == HOST
    assert table.status == "lobby"
    assert table.state is None
    assert table.ply == 0
    assert table.options == {"dealer": None}
    assert table.seat_of(HOST) == 0

    table = await store.join(table.id, GUEST)
    assert table.seats == (HOST, GUEST)
    with pytest.raises(TableError):
        await store.join(table.id, GUEST)  # already seated
    with pytest.raises(TableError):
        await store.join(table.id, OTHER)  # full: castles seats two
    with pytest.raises(TableError):
        await store.leave(table.id, HOST)  # the host cancels instead
    with pytest.raises(TableError):
        await store.leave(table.id, OTHER)  # not seated

    table = await store.leave(table.id, GUEST)
    assert table.seats == (HOST,)
    with pytest.raises(TableError):
        await store.start(table.id, HOST)  # one seat is the wrong count
    assert (await fetch(store, table.id)).status == "lobby"

    await store.join(table.id, GUEST)
    with pytest.raises(TableError):
        await store.start(table.id, GUEST)  # only the host starts
    assert (await fetch(store, table.id)).state is None

    started = await store.start(table.id, HOST)
    assert started.status == "running"
    assert started.ply == 0
    assert started.state == chance.deal(GAME, 2, {"dealer": None}, SEED)
    assert started == await fetch(store, table.id)

    with pytest.raises(TableError):
        await store.start(table.id, HOST)
    with pytest.raises(TableError):
        await store.join(table.id, OTHER)
    with pytest.raises(TableError):
        await store.leave(table.id, GUEST)


async def test_create_started_table_and_bad_options(store: Store) -> None:
    table = await store.create_table(
        guild_id=None,
        channel_id=CHANNEL,
        game="castles",
        host_id=HOST,
        options={"dealer": 1},
        seed=9,
        seats=(HOST, GUEST),
        start=True,
    )
    assert table.status == "running"
    assert table.seats == (HOST, GUEST)
    assert table.state == chance.deal(GAME, 2, {"dealer": 1}, 9)
    with pytest.raises(SetupError):
        await store.create_table(
            guild_id=GUILD, channel_id=CHANNEL + 1, game="castles", host_id=HOST, options={"x": 1}
        )
    with pytest.raises(SetupError):
        await store.create_table(guild_id=GUILD, channel_id=CHANNEL + 2, game="chess", host_id=1)
    assert await store.open_table_in(CHANNEL + 1) is None


async def test_act_on_a_lobby_table_is_refused(store: Store) -> None:
    table = await store.create_table(
        guild_id=GUILD, channel_id=CHANNEL, game="castles", host_id=HOST
    )
    with pytest.raises(TableError):
        await store.act(table.id, HOST, DRAW, 0)


# -- One open table per channel ----------------------------------------------------------------


async def test_one_open_table_per_channel(store: Store) -> None:
    first = await store.create_table(
        guild_id=GUILD, channel_id=CHANNEL, game="castles", host_id=HOST
    )
    with pytest.raises(TableExists) as info:
        await store.create_table(guild_id=GUILD, channel_id=CHANNEL, game="castles", host_id=GUEST)
    assert info.value.table.id == first.id
    assert info.value.table.host_id == HOST

    thread = await store.create_table(
        guild_id=GUILD, channel_id=CHANNEL + 1, game="castles", host_id=GUEST
    )
    assert thread.id != first.id
    assert (await store.open_table_in(CHANNEL + 1)) == thread

    cancelled = await store.cancel(first.id)
    assert cancelled.status == "cancelled"
    assert await store.open_table_in(CHANNEL) is None
    with pytest.raises(TableError):
        await store.cancel(first.id)
    again = await store.create_table(
        guild_id=GUILD, channel_id=CHANNEL, game="castles", host_id=OTHER
    )
    assert again.id not in (first.id, thread.id)
    assert (await store.open_table_in(CHANNEL)) == again


async def test_running_table_holds_the_channel_until_it_is_over(store: Store) -> None:
    table = await running_table(store)
    with pytest.raises(TableExists) as info:
        await store.create_table(guild_id=GUILD, channel_id=CHANNEL, game="castles", host_id=OTHER)
    assert info.value.table.id == table.id
    over, _ = await store.resign(table.id, GUEST)
    assert over.status == "over"
    assert await store.open_table_in(CHANNEL) is None
    await store.create_table(guild_id=GUILD, channel_id=CHANNEL, game="castles", host_id=OTHER)


# -- Acting ------------------------------------------------------------------------------------


async def test_act_commits_state_log_row_and_ply_together(store: Store) -> None:
    table = await running_table(store)
    assert table.state is not None
    user = user_to_act(table)
    seat = table.seat_of(user)
    assert seat == 1  # seat 0 deals
    expected, expected_events = chance.advance(GAME, table.state, seat, DRAW, SEED, 0)

    after, events = await store.act(table.id, user, DRAW, 0)
    assert after.ply == 1
    assert after.version > table.version
    assert after.state == expected
    assert events == expected_events
    assert after == await fetch(store, table.id)
    log = await store.actions(table.id)
    assert [(r.ply, r.seat, r.user_id, r.action, r.events) for r in log] == [
        (0, 1, GUEST, DRAW, expected_events)
    ]


async def test_failed_log_write_rolls_back_the_state(store: Store, db_path: Path) -> None:
    table = await running_table(store)
    conn = raw(db_path)  # a stray log row at ply 0 makes the action's INSERT fail
    conn.execute(
        "INSERT INTO actions (table_id, ply, seat, user_id, action, events, created_at)"
        " VALUES (?, 0, 1, ?, '{}', '[]', 'x')",
        (table.id, GUEST),
    )
    conn.close()
    with pytest.raises(sqlite3.IntegrityError):
        await store.act(table.id, GUEST, DRAW, 0)
    after = await fetch(store, table.id)
    assert after.ply == 0
    assert after.state == table.state
    assert after.version == table.version


@pytest.mark.parametrize(
    "action",
    [
        {"type": "attack", "pos": 0},
        {"type": "lay", "card": "ZZ"},
        {"type": "pass"},
        {"type": "fly"},
    ],
)
async def test_rule_error_changes_nothing(store: Store, action: dict[str, Any]) -> None:
    table = await running_table(store)
    with pytest.raises(RuleError):
        await store.act(table.id, GUEST, action, 0)
    after = await fetch(store, table.id)
    assert after.ply == 0
    assert after.version == table.version
    assert after.state == table.state
    assert await store.actions(table.id) == []


async def test_not_your_turn_is_a_rule_error(store: Store) -> None:
    table = await running_table(store)
    with pytest.raises(RuleError, match="not your turn"):
        await store.act(table.id, HOST, DRAW, 0)
    assert (await fetch(store, table.id)).ply == 0


async def test_wrong_user_and_stale_ply(store: Store) -> None:
    table = await running_table(store)
    with pytest.raises(TableError) as info:
        await store.act(table.id, OTHER, DRAW, 0)
    assert not isinstance(info.value, StaleAction)

    await store.act(table.id, GUEST, DRAW, 0)
    with pytest.raises(StaleAction):
        await store.act(table.id, HOST, DRAW, 0)  # aimed at ply 0; the table is at ply 1
    with pytest.raises(StaleAction):
        await store.act(table.id, HOST, DRAW, 5)
    after = await fetch(store, table.id)
    assert after.ply == 1
    assert [r.ply for r in await store.actions(table.id)] == [0]
    with pytest.raises(TableError):
        await store.act(table.id + 99, HOST, DRAW, 0)  # no such table


def outcome(results: list[Any]) -> tuple[int, int]:
    applied = [r for r in results if not isinstance(r, BaseException)]
    stale = [r for r in results if isinstance(r, StaleAction)]
    others = [r for r in results if isinstance(r, BaseException) and not isinstance(r, StaleAction)]
    assert others == []
    return len(applied), len(stale)


async def test_fifty_concurrent_attempts_apply_once(store: Store) -> None:
    table = await running_table(store)
    results = await asyncio.gather(
        *(store.act(table.id, GUEST, DRAW, 0) for _ in range(50)), return_exceptions=True
    )
    assert outcome(results) == (1, 49)
    after = await fetch(store, table.id)
    assert after.ply == 1
    assert after.state is not None
    assert len(after.state["pile"]) == 37
    assert [r.ply for r in await store.actions(table.id)] == [0]


async def test_fifty_concurrent_attempts_on_two_connections_apply_once(
    store: Store, db_path: Path
) -> None:
    table = await running_table(store)
    second = await Store.open(db_path)
    try:
        results = await asyncio.gather(
            *((store if n % 2 else second).act(table.id, GUEST, DRAW, 0) for n in range(50)),
            return_exceptions=True,
        )
    finally:
        await second.close()
    assert outcome(results) == (1, 49)
    after = await fetch(store, table.id)
    assert after.ply == 1
    assert after.state is not None
    assert len(after.state["hands"][1]) == 8
    assert raw_rows(db_path, "SELECT ply FROM actions WHERE table_id = ?", (table.id,)) == [(0,)]


# -- Replay and resign -------------------------------------------------------------------------


async def play_randomly(
    store: Store, table: TableRecord, chooser: random.Random, plies: int
) -> TableRecord:
    """Play up to ``plies`` random legal actions through the store."""
    for _ in range(plies):
        if table.status != "running":
            break
        assert table.state is not None
        seat = GAME.to_act(table.state)
        assert seat is not None
        action = chooser.choice(GAME.legal_actions(table.state, seat))
        table, _ = await store.act(table.id, table.seats[seat], action, table.ply)
    return table


async def test_replay_of_a_full_game_equals_the_stored_state(store: Store) -> None:
    table = await running_table(store, seed=31337)
    table = await play_randomly(store, table, random.Random(5), 5000)
    assert table.status == "over"
    assert table.state is not None
    assert table.result is not None
    assert table.result == GAME.result(table.state)
    assert GAME.to_act(table.state) is None
    assert len(await store.actions(table.id)) == table.ply
    assert await store.replay(table.id) == table.state
    with pytest.raises(TableError):
        await store.act(table.id, HOST, DRAW, table.ply)


async def test_resign_and_replay(store: Store) -> None:
    table = await running_table(store, seed=99)
    table = await play_randomly(store, table, random.Random(8), 15)
    assert table.ply == 15
    with pytest.raises(StaleAction):
        await store.resign(table.id, GUEST, table.ply - 1)
    with pytest.raises(TableError):
        await store.resign(table.id, OTHER, table.ply)

    over, events = await store.resign(table.id, GUEST, table.ply)
    assert events
    assert over.status == "over"
    assert over.ply == 16
    assert over.result is not None
    assert over.result.winners == (0,)
    assert over.result.reason == "resigned"
    assert over.state is not None
    assert GAME.to_act(over.state) is None
    log = await store.actions(table.id)
    assert log[-1].action == {"type": "resign"}
    assert log[-1].seat == 1
    assert await store.replay(table.id) == over.state
    with pytest.raises(TableError):
        await store.act(table.id, HOST, DRAW, over.ply)
    with pytest.raises(TableError):
        await store.resign(table.id, HOST)


# -- Queries -----------------------------------------------------------------------------------


async def test_recent_actions_oldest_first(store: Store) -> None:
    table = await play_randomly(store, await running_table(store), random.Random(2), 6)
    recent = await store.recent_actions(table.id, 3)
    assert [r.ply for r in recent] == [3, 4, 5]
    everything = await store.actions(table.id)
    assert [r.ply for r in everything] == [0, 1, 2, 3, 4, 5]
    assert await store.recent_actions(table.id, 100) == everything
    assert [r.seat for r in everything] == [1, 0, 1, 0, 1, 0]


async def test_open_tables_of_a_user(store: Store) -> None:
    lobby = await store.create_table(guild_id=GUILD, channel_id=1, game="castles", host_id=HOST)
    running = await running_table(store, channel=2)
    cancelled = await store.create_table(guild_id=GUILD, channel_id=3, game="castles", host_id=HOST)
    await store.cancel(cancelled.id)
    finished = await running_table(store, channel=4)
    await store.resign(finished.id, HOST)

    assert {t.id for t in await store.open_tables_of(HOST)} == {lobby.id, running.id}
    assert {t.id for t in await store.open_tables_of(GUEST)} == {running.id}
    assert await store.open_tables_of(OTHER) == []


async def test_close_channel(store: Store) -> None:
    table = await running_table(store)
    assert await store.close_channel(CHANNEL) == table.id
    assert (await fetch(store, table.id)).status == "cancelled"
    assert await store.open_table_in(CHANNEL) is None
    assert await store.close_channel(CHANNEL) is None
    assert await store.close_channel(CHANNEL + 1) is None


async def test_dm_mode(store: Store) -> None:
    assert await store.dm_mode(HOST) == "on"
    await store.set_dm_mode(HOST, "off")
    assert await store.dm_mode(HOST) == "off"
    await store.set_dm_mode(HOST, "closed")
    assert await store.dm_mode(HOST) == "closed"
    assert await store.dm_mode(GUEST) == "on"
    await store.set_dm_mode(HOST, "on")
    assert await store.dm_mode(HOST) == "on"


async def test_dm_panel(store: Store) -> None:
    table = await running_table(store)
    assert await store.dm_panel(table.id, HOST) is None
    await store.set_dm_panel(table.id, HOST, 555, 777)
    assert await store.dm_panel(table.id, HOST) == (555, 777)
    await store.set_dm_panel(table.id, HOST, 556, 778)
    assert await store.dm_panel(table.id, HOST) == (556, 778)
    assert await store.dm_panel(table.id, GUEST) is None
    await store.forget_dm_panel(table.id, HOST)
    assert await store.dm_panel(table.id, HOST) is None


# -- Corrupt rows ------------------------------------------------------------------------------


async def test_corrupt_state_raises_corrupt_table_and_can_be_closed(
    store: Store, db_path: Path
) -> None:
    table = await running_table(store)
    conn = raw(db_path)
    conn.execute(
        "UPDATE tables SET state = ? WHERE id = ?", ('{"version": 1, "hands": [', table.id)
    )
    conn.close()

    with pytest.raises(CorruptTable) as info:
        await store.get_table(table.id)
    message = str(info.value)
    assert str(table.id) in message
    assert "\n" not in message
    assert "Traceback" not in message
    assert isinstance(info.value, TableError)
    with pytest.raises(CorruptTable):
        await store.open_table_in(CHANNEL)

    assert await store.close_channel(CHANNEL) == table.id
    assert raw_rows(db_path, "SELECT status FROM tables WHERE id = ?", (table.id,)) == [
        ("cancelled",)
    ]
    assert await store.open_table_in(CHANNEL) is None
    fresh = await store.create_table(
        guild_id=GUILD, channel_id=CHANNEL, game="castles", host_id=HOST
    )
    assert fresh.id != table.id


async def test_state_of_an_unknown_version_is_corrupt(store: Store, db_path: Path) -> None:
    table = await running_table(store)
    assert table.state is not None
    future = dumps({**table.state, "version": GAME.state_version + 1})
    conn = raw(db_path)
    conn.execute("UPDATE tables SET state = ? WHERE id = ?", (future, table.id))
    conn.close()
    with pytest.raises(CorruptTable):
        await store.get_table(table.id)


@pytest.mark.parametrize(
    "module",
    [
        "storage.lobby",
        "storage.ratings",
        "storage.players",
        "storage.postgres",
        "storage.pg_dialect",
    ],
)
def test_storage_doctests(module: str) -> None:
    import doctest
    import importlib

    outcome = doctest.testmod(importlib.import_module(module))
    assert outcome.attempted >= 2 and outcome.failed == 0


@pytest.mark.parametrize(
    ("seating", "expected"),
    [("join", (1, 2)), ("host_first", (1, 2)), ("host_second", (2, 1))],
)
async def test_seating_rule_orders_the_seats_at_start(
    store: Store, seating: Seating, expected: tuple[int, int]
) -> None:
    table = await store.create_table(
        guild_id=1, channel_id=77, game="knights", host_id=1, seating=seating
    )
    assert table.seating == seating
    await store.join(table.id, 2)
    started = await store.start(table.id, 1)
    assert started.seats == expected
    assert started.seat_of(1) == expected.index(1)


async def test_random_seating_is_fixed_by_the_seed(store: Store) -> None:
    orders = set()
    for channel in range(20):
        table = await store.create_table(
            guild_id=1,
            channel_id=channel,
            game="knights",
            host_id=1,
            seating="random",
            seed=channel,
        )
        await store.join(table.id, 2)
        started = await store.start(table.id, 1)
        assert sorted(started.seats) == [1, 2]
        assert seat_order((1, 2), 1, "random", started.seed) == started.seats
        orders.add(started.seats)
    assert orders == {(1, 2), (2, 1)}  # seeds 0-19 give both orders
