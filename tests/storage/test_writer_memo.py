"""The writer keeps the running tables it wrote last in memory (``Database.memo``); a stale copy
must never decide anything: another process's move, a change that did not bump the version
itself, and a write that rolled back all send the next action back to the file."""

from __future__ import annotations

import gc
import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from engine.castles import GAME
from engine.rules import loads
from storage import StaleAction, Store, TableRecord
from storage.playing import HOT_TABLES
from storage.playing import apply_action as _act
from tests.pg import raw_connect

GUILD, CHANNEL = 77, 500
HOST, GUEST = 1001, 2002


async def running_table(store: Store, channel: int = CHANNEL) -> TableRecord:
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


async def move(store: Store, table: TableRecord, pick: int = 0) -> TableRecord:
    state = table.running_state()
    seat = GAME.to_act(state)
    assert seat is not None
    action = GAME.legal_actions(state, seat)[pick]
    after, _ = await store.act(table.id, table.seats[seat], action, table.ply)
    return after


async def test_a_move_by_another_process_is_seen(store: Store, db_path: Path) -> None:
    table = await move(store, await running_table(store))
    memo = store._db.memo  # None on PostgreSQL, where there is no writer memo
    assert memo is None or ("table", table.id) in memo  # the first store remembers the table
    other = await Store.open(db_path)  # another process on the same file
    try:
        moved = await move(other, table, pick=-1)
    finally:
        await other.close()
    # The first store's copy is one ply behind: the button built on the newer table must work,
    # and the move must be applied to the newer state.
    after = await move(store, moved)
    assert after.ply == moved.ply + 1
    assert after.state == await store.replay(table.id)
    assert (await store.get_table(table.id)) == after


async def test_a_stale_copy_refuses_nothing_it_should_not(store: Store, db_path: Path) -> None:
    table = await move(store, await running_table(store))
    other = await Store.open(db_path)
    try:
        moved = await move(other, table)
    finally:
        await other.close()
    # An old button is still refused, and a current one is accepted.
    with pytest.raises(StaleAction):
        await move(store, table)
    assert (await move(store, moved)).ply == moved.ply + 1


async def test_every_change_to_a_row_bumps_its_version(store: Store, db_path: Path) -> None:
    table = await move(store, await running_table(store))
    await store.set_message(table.id, 123456)
    stored = await store.get_table(table.id)
    assert stored is not None and stored.version == table.version + 1
    conn = raw_connect(db_path)
    try:  # a statement written without thought for versions still bumps one
        conn.execute("UPDATE tables SET deadline = NULL WHERE id = ?", (table.id,))
    finally:
        conn.close()
    again = await store.get_table(table.id)
    assert again is not None and again.version == table.version + 2
    after = await move(store, again)  # the memo's copy predates both changes
    assert after.ply == table.ply + 1 and after.message_id == 123456
    assert after == await store.get_table(table.id)


async def test_a_write_that_rolls_back_empties_the_memo(store: Store) -> None:
    table = await move(store, await running_table(store))
    state = table.running_state()
    seat = GAME.to_act(state)
    assert seat is not None
    action = GAME.legal_actions(state, seat)[0]
    db = store._db

    def act_then_fail(conn: sqlite3.Connection) -> Any:
        _act(conn, table.id, table.seats[seat], action, table.ply, store._moment(), memo=db.memo)
        # remembered (on SQLite): but this transaction rolls back
        assert db.memo is None or ("table", table.id) in db.memo
        raise RuntimeError("something after the move failed")

    with pytest.raises(RuntimeError):
        await db.write(act_then_fail)
    assert db.memo in ({}, None)
    stored = await store.get_table(table.id)
    assert stored == table  # nothing of the failed write stayed
    after = await move(store, table)
    assert after.ply == table.ply + 1 and after.state == await store.replay(table.id)


@pytest.mark.sqlite_only("the SQLite writer's memo; PostgreSQL has none")
async def test_the_memo_is_bounded(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import storage.playing

    monkeypatch.setattr(storage.playing, "HOT_TABLES", 3)
    tables = [await running_table(store, channel=n) for n in range(1, 6)]
    for table in tables:
        await move(store, table)
    assert len(store._db.memo) == 3
    assert set(store._db.memo) == {("table", t.id) for t in tables[-3:]}
    assert HOT_TABLES > 3  # the real bound is larger than the test's


async def test_the_memo_keeps_a_table_s_state_as_its_text(store: Store) -> None:
    """Not decoded: a decoded state's lists and dicts would be walked by every full garbage
    collection of the bot, a dozen or more per table in play; and the record as a plain tuple,
    which the collector lets go after one collection (a record it would walk every time)."""
    table = await move(store, await running_table(store))
    memo = store._db.memo
    if memo is None:  # PostgreSQL: each write is its own transaction, nothing is kept
        assert str(store.path).startswith("postgresql")
        return
    values, text = memo[("table", table.id)]
    record = TableRecord(*values)
    assert record.state is None and record.version == table.version
    assert record == replace(table, state=None, options=json.dumps(table.options))
    assert loads(text, GAME) == table.state
    for _ in range(3):  # a collection lets a tuple go once what it holds was let go (the seats)
        gc.collect()
    assert not gc.is_tracked(memo[("table", table.id)])
    assert (await move(store, table)).ply == table.ply + 1  # and the next move uses it
