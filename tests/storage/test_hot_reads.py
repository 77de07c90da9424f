"""The reads of a move's hot path: the kept history tail, the version check and the delivery
targets (one read each where the hall used to make several)."""

from __future__ import annotations

import gc
import random
from dataclasses import replace
from pathlib import Path

import pytest

import storage.tails as tails_module
from storage import Store
from tests.counting import count_calls
from tests.storage.test_store import GUEST, HOST, play_randomly, running_table


class Reads:
    """Counts the store's reads of table rows (each is one trip to the database)."""

    def __init__(self, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        # on the reader's thread, or on the loop's
        self.calls = [count_calls(monkeypatch, store, name) for name in ("_read", "_read_near")]

    @property
    def count(self) -> int:
        return sum(len(calls) for calls in self.calls)

    def reset(self) -> None:
        for calls in self.calls:
            calls.clear()


async def test_log_tail_is_the_history_before_the_position(store: Store) -> None:
    start = await running_table(store)
    table = start
    chooser = random.Random(5)
    seen = [start]
    for _ in range(12):
        table = await play_randomly(store, table, chooser, 1)
        seen.append(table)
    everything = await store.actions(table.id)
    # Oldest position first, then newest: each tail ends just before its own ply.
    for position in [*seen, *reversed(seen)]:
        for limit in (0, 1, 3, 5, 40):
            tail = await store.log_tail(position, limit)
            before = [r for r in everything if r.ply < position.ply]
            assert tail == (before[-limit:] if limit else [])


async def test_log_tail_reads_only_what_was_logged_since(
    store: Store, db_path: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await play_randomly(store, await running_table(store), random.Random(6), 4)
    reads = Reads(store, monkeypatch)
    first = await store.log_tail(table, 40)
    assert reads.count == 1
    # The table message and each panel of the same position: no further read.
    assert await store.log_tail(table, 5) == first[-5:]
    assert await store.log_tail(table, 1) == first[-1:]
    assert reads.count == 1
    # Moves written by this store grow the tail it keeps: the next position reads nothing.
    later = await play_randomly(store, table, random.Random(7), 2)
    tail = await store.log_tail(later, 40)
    assert reads.count == 1
    assert [r.ply for r in tail] == list(range(later.ply))
    assert tail == await store.recent_actions(later.id, 40)
    # A move written by another process on the same database: read from the file.
    other = await Store.open(db_path)
    try:
        latest = await play_randomly(other, later, random.Random(8), 1)
    finally:
        await other.close()
    reads.reset()
    tail = await store.log_tail(latest, 40)
    assert reads.count == 1
    assert tail == await store.recent_actions(latest.id, 40)
    assert [r.ply for r in tail] == list(range(latest.ply))


async def test_log_tail_is_bounded(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tails_module, "TAIL_KEPT", 3)
    monkeypatch.setattr(tails_module, "TAIL_TABLES", 2)
    tables = [await running_table(store, channel=channel) for channel in (11, 12, 13)]
    tables = [await play_randomly(store, t, random.Random(8), 5) for t in tables]
    for table in tables:
        assert [r.ply for r in await store.log_tail(table, 3)] == [2, 3, 4]
    assert list(store._tails) == [tables[1].id, tables[2].id]  # the least recent went
    assert all(len(store._tails.rows(t.id)) == 3 for t in tables[1:])
    # Longer than what is kept: read in full, not kept.
    assert [r.ply for r in await store.log_tail(tables[2], 10)] == [0, 1, 2, 3, 4]
    # More moves than the kept tail since: read afresh, still right.
    later = await play_randomly(store, tables[2], random.Random(9), 5)
    tail = await store.log_tail(later, 3)
    assert [r.ply for r in tail] == [later.ply - 3, later.ply - 2, later.ply - 1]


async def test_every_table_in_play_keeps_its_tail_out_of_the_collectors_walk(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More tables than are kept decoded: each still renders without a read, and what is kept
    for them is nothing the garbage collector walks."""
    monkeypatch.setattr(tails_module, "DECODED_TABLES", 2)
    tables = [await running_table(store, channel=channel) for channel in (31, 32, 33, 34)]
    tables = [await play_randomly(store, t, random.Random(4), 6) for t in tables]
    for table in tables:
        await store.log_tail(table, 40)
    reads = Reads(store, monkeypatch)
    decoded = []
    real = tails_module.action_record
    monkeypatch.setattr(
        tails_module, "action_record", lambda row: decoded.append(row["ply"]) or real(row)
    )
    # The first tables are no longer kept decoded: decoded again, but not read again.
    for table in reversed(tables):
        assert await store.log_tail(table, 40) == await store.recent_actions(table.id, 40)
    assert reads.count == len(tables)  # only recent_actions read
    assert len(decoded) == 6 * 2  # the two tables that were not kept decoded, six moves each
    # A move grows the tail as written, and the next render decodes only that move's row.
    decoded.clear()
    later = await play_randomly(store, tables[0], random.Random(5), 1)
    reads.reset()
    assert [r.ply for r in await store.log_tail(later, 40)] == list(range(later.ply))
    assert reads.count == 0
    assert decoded == [later.ply - 1]
    gc.collect()
    gc.collect()  # the collector lets a tuple go once it has let go of what the tuple holds
    for table in tables:
        rows = store._tails.rows(table.id)
        assert rows and not any(gc.is_tracked(row) for row in rows)
        assert not gc.is_tracked(rows)


async def test_newest_returns_the_same_record_until_it_changes(store: Store) -> None:
    table = await running_table(store)
    assert await store.newest(table) is table
    moved = await play_randomly(store, table, random.Random(3), 1)
    fresh = await store.newest(table)
    assert fresh is not None and fresh.ply == moved.ply == table.ply + 1
    assert fresh.state == moved.state
    await store.set_message(table.id, 555)
    renamed = await store.newest(moved)
    assert renamed is not None and renamed.message_id == 555
    assert await store.newest(replace(table, id=table.id + 1000)) is None


async def test_delivery_targets_in_one_read(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    table = await running_table(store)
    await store.set_dm_mode(GUEST, "off")
    await store.set_dm_panel(table.id, HOST, 77, 88)
    reads = Reads(store, monkeypatch)
    newest, targets = await store.delivery_targets(table)
    assert reads.count == 1
    assert newest is table  # unchanged: not decoded again
    await store.set_ping(table.id, 99)
    newest, targets = await store.delivery_targets(table)
    assert reads.count == 2
    assert newest is not None and newest.version > table.version
    assert newest.ping_message_id == 99
    assert targets[HOST].mode == "on" and targets[HOST].panel == (77, 88)
    assert targets[GUEST].mode == "off" and targets[GUEST].panel is None
    assert list(targets) == [HOST, GUEST]  # seat order
    missing, none = await store.delivery_targets(replace(table, id=table.id + 1000))
    assert missing is None and none == {}


async def test_delivery_targets_leave_computers_out(store: Store) -> None:
    table = await store.create_table(guild_id=1, channel_id=21, game="castles", host_id=HOST)
    table = await store.add_computer(table.id, HOST, "easy")
    started = await store.start(table.id, HOST)
    newest, targets = await store.delivery_targets(started)
    assert newest is not None and len(newest.seats) == 2
    assert list(targets) == [HOST]
