"""Writes that wait for the writer's next trip (storage.group_commit): a DM panel's id.

The store answers them back at once, writes them with the next trip (or one of their own within
a second), commits them at close, and never reads an older value than the one it was given; a
later write that fails is tried once more and then dropped. On both backends where a store is
involved; the queue's own edges on a stand-in trip.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from storage import Store, group_commit
from storage.group_commit import GroupCommit
from storage.records import dm_panel_key
from tests.pg import raw_rows
from tests.storage.test_store import GUEST, HOST, running_table

#: On PostgreSQL a DM panel is written at once (storage.group_commit.GroupCommit.writes_later).
LATER = pytest.mark.sqlite_only("PostgreSQL writes a DM panel at once (writes_later is False)")
PANELS = "SELECT user_id, channel_id, message_id FROM dm_panels WHERE table_id = ? ORDER BY user_id"


def counted_trips(store: Store) -> list[int]:
    """The sizes of the writer's trips from now on (each one transaction and commit)."""
    sizes: list[int] = []
    db: Any = store._db
    trip = db._trip

    async def counting(batch: list[Callable[[Any], Any]]) -> Any:
        sizes.append(len(batch))
        return await trip(batch)

    db._trip = counting
    return sizes


@LATER
async def test_a_dm_panel_reads_back_at_once_and_rides_the_next_write(
    store: Store, db_path: Path | str
) -> None:
    table = await running_table(store)
    trips = counted_trips(store)
    await store.set_dm_panel(table.id, HOST, 555, 777)
    await store.set_dm_panel(table.id, GUEST, 556, 778)
    assert trips == []  # no trip of their own
    assert raw_rows(db_path, PANELS, (table.id,)) == []  # not on disk yet...
    assert await store.dm_panel(table.id, HOST) == (555, 777)  # ...but read back at once
    _, targets = await store.delivery_targets(table)
    assert targets[HOST].panel == (555, 777)
    assert targets[GUEST].panel == (556, 778)

    await store.set_dm_mode(GUEST, "on")  # any write: the panels go with it, one commit
    assert trips == [3]
    assert raw_rows(db_path, PANELS, (table.id,)) == [(HOST, 555, 777), (GUEST, 556, 778)]
    assert not store._db.has_unwritten(dm_panel_key(table.id, HOST))
    assert await store.dm_panel(table.id, HOST) == (555, 777)  # now from the file


@LATER
async def test_the_newest_panel_of_a_seat_is_the_one_written(
    store: Store, db_path: Path | str
) -> None:
    table = await running_table(store)
    await store.set_dm_panel(table.id, HOST, 555, 777)
    await store.set_dm_panel(table.id, HOST, 555, 779)
    trips = counted_trips(store)
    await store.set_dm_mode(HOST, "on")
    assert trips == [2]  # the replaced one is not written at all
    assert raw_rows(db_path, PANELS, (table.id,)) == [(HOST, 555, 779)]
    await store.forget_dm_panel(table.id, HOST)
    assert await store.dm_panel(table.id, HOST) is None  # forgotten at once, too
    await store.set_dm_mode(HOST, "on")
    assert raw_rows(db_path, PANELS, (table.id,)) == []


@LATER
async def test_a_panel_alone_takes_a_trip_of_its_own(
    store: Store, db_path: Path | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await running_table(store)
    monkeypatch.setattr(group_commit, "LATER_SECONDS", 0)  # no waiting in a test
    trips = counted_trips(store)
    await store.set_dm_panel(table.id, HOST, 555, 777)
    db: Any = store._db
    for _ in range(5):  # the timer fires on the loop's next pass
        await asyncio.sleep(0)
        if db._later_trip is not None:
            break
    assert db._later_trip is not None
    await db._later_trip
    assert trips == [2]  # the panel and an empty write
    assert raw_rows(db_path, PANELS, (table.id,)) == [(HOST, 555, 777)]


async def test_closing_the_store_writes_the_panels(db_path: Path | str) -> None:
    store = await Store.open(db_path)
    await store.migrate()
    table = await running_table(store)
    await store.set_dm_panel(table.id, GUEST, 556, 778)
    await store.close()
    assert raw_rows(db_path, PANELS, (table.id,)) == [(GUEST, 556, 778)]
    again = await Store.open(db_path)
    try:
        assert await again.dm_panel(table.id, GUEST) == (556, 778)
    finally:
        await again.close()


async def test_an_export_holds_a_panel_sent_a_moment_ago(store: Store) -> None:
    table = await running_table(store)
    await store.set_dm_panel(table.id, GUEST, 556, 778)
    exported = await store.export_player(GUEST)
    assert [(row["channel_id"], row["message_id"]) for row in exported["dm_panels"]] == [(556, 778)]


async def test_forgetting_a_player_takes_their_unwritten_panel_too(
    store: Store, db_path: Path | str
) -> None:
    table = await running_table(store)
    await store.set_dm_panel(table.id, GUEST, 556, 778)
    await store.forget_player(GUEST)  # the panel's write goes first, in the same transaction
    assert raw_rows(db_path, "SELECT * FROM dm_panels WHERE user_id = ?", (GUEST,)) == []
    assert await store.dm_panel(table.id, GUEST) is None


async def test_sqlite_writes_a_panel_later_and_postgresql_at_once(
    store: Store, db_path: Path | str
) -> None:
    table = await running_table(store)
    await store.set_dm_panel(table.id, HOST, 555, 777)
    on_disk = raw_rows(db_path, PANELS, (table.id,))
    if isinstance(db_path, Path):
        assert store._db.writes_later and on_disk == []
    else:
        assert not store._db.writes_later and on_disk == [(HOST, 555, 777)]
    assert await store.dm_panel(table.id, HOST) == (555, 777)


# -- The queue's edges, on a stand-in trip -------------------------------------------------------


class Stand(GroupCommit):
    """A writer whose trips run each write on a list (``fn(rows)``); a write that raises fails
    alone, as in a savepoint. ``hold`` keeps the next trip waiting."""

    def __init__(self) -> None:
        super().__init__("stand-in")
        self.rows: list[str] = []
        self.batches: list[int] = []
        self.hold: asyncio.Event | None = None

    async def _trip(self, batch: list[Callable[[Any], Any]]) -> list[tuple[bool, Any]]:
        self.batches.append(len(batch))
        if self.hold is not None:
            await self.hold.wait()
        outcomes: list[tuple[bool, Any]] = []
        for fn in batch:
            try:
                outcomes.append((True, fn(self.rows)))
            except Exception as exc:
                outcomes.append((False, exc))
        return outcomes


def put(row: str) -> Callable[[list[str]], None]:
    return lambda rows: rows.append(row)


def broken(rows: list[str]) -> None:
    raise ValueError("no such table")


async def test_a_failing_later_write_is_tried_once_more_then_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stand = Stand()
    stand.write_later("k", broken, "value")
    await stand.write(put("a"))
    assert stand.batches == [2]
    assert stand.unwritten("k") == "value"  # still what this process knows
    with caplog.at_level(logging.WARNING, logger="siege.storage"):
        await stand.write(put("b"))
    assert stand.batches == [2, 2]  # tried once more
    assert not stand.has_unwritten("k")
    assert "dropped" in caplog.text
    await stand.write(put("c"))
    assert stand.batches == [2, 2, 1]
    assert stand.rows == ["a", "b", "c"]
    stand.close_later()


async def test_a_newer_value_is_not_undone_by_an_older_failure() -> None:
    stand = Stand()
    stand.write_later("k", broken, "old")
    stand.hold = asyncio.Event()
    first = asyncio.ensure_future(stand.write(put("a")))
    await asyncio.sleep(0)  # the trip took "old" and waits
    assert stand.batches == [2]
    stand.write_later("k", put("new"), "new")
    stand.hold.set()
    await first
    assert stand.unwritten("k") == "new"  # "old" failed, but "new" is not in doubt
    await stand.write(put("b"))
    assert stand.batches == [2, 2]  # "new" went with the next trip, "old" not again
    assert stand.rows == ["a", "new", "b"]
    assert not stand.has_unwritten("k")


async def test_a_cancelled_trip_leaves_its_later_writes_for_the_next() -> None:
    stand = Stand()
    stand.write_later("k", put("panel"), "value")
    stand.hold = asyncio.Event()
    waiting = asyncio.ensure_future(stand.write(put("a")))
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert stand.unwritten("k") == "value"
    stand.hold = None
    await stand.write(put("b"))
    assert stand.batches == [2, 2]
    assert stand.rows == ["panel", "b"]
    assert not stand.has_unwritten("k")


async def test_writes_queued_behind_a_trip_carry_the_later_ones() -> None:
    stand = Stand()
    stand.hold = asyncio.Event()
    first = asyncio.ensure_future(stand.write(put("a")))
    await asyncio.sleep(0)
    stand.write_later("k", put("panel"), "value")
    second = asyncio.ensure_future(stand.write(put("b")))
    third = asyncio.ensure_future(stand.write(put("c")))
    await asyncio.sleep(0)
    stand.hold.set()
    await asyncio.gather(first, second, third)
    assert stand.batches == [1, 3]  # the queued two and the panel, in one trip
    assert stand.rows == ["a", "panel", "b", "c"]
    assert not stand.has_unwritten("k")
    assert stand._later_timer is None
