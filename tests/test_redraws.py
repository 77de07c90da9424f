"""The redraw queue (:mod:`cogs.redraws`): one merged redraw per table, a bounded number at
once, a table redrawn by one worker at a time and in order. Work is held by events the test
sets, never by time."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from cogs.redraws import Redraw, Redraws

ALICE, BOB = 1, 2


def table(table_id: int, ply: int, to_act: int | None = 0) -> Any:
    """A stand-in for a TableRecord: what a redraw reads of it."""
    engine = SimpleNamespace(to_act=lambda state: state["to_act"])
    state = None if to_act is None else {"to_act": to_act}
    return SimpleNamespace(id=table_id, ply=ply, state=state, engine=engine, seats=(ALICE, BOB))


async def test_a_tables_pending_redraws_merge_and_run_after_the_one_under_way() -> None:
    started: list[tuple[int, int, list[int]]] = []
    release = asyncio.Event()

    async def run(redraw: Redraw) -> None:
        started.append((redraw.table.id, redraw.table.ply, [t.ply for t in redraw.changes]))
        await release.wait()

    redraws = Redraws(run, workers=4)
    redraws.push(Redraw(table(1, 1), notify=BOB))
    await asyncio.sleep(0)  # the first redraw of table 1 starts
    assert started == [(1, 1, [1])]
    redraws.push(Redraw(table(1, 2), notify=ALICE))
    redraws.push(Redraw(table(1, 3), notify=BOB))
    await asyncio.sleep(0)
    assert started == [(1, 1, [1])] and redraws.waiting == 1 and redraws.merged == 1
    release.set()
    await redraws.idle()
    assert started == [(1, 1, [1]), (1, 3, [2, 3])]
    assert not redraws.busy
    await redraws.close()


async def test_no_more_redraws_run_at_once_than_there_are_workers() -> None:
    running = 0
    most = 0
    release = asyncio.Event()

    async def run(redraw: Redraw) -> None:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await release.wait()
        running -= 1

    redraws = Redraws(run, workers=2)
    for table_id in range(5):
        redraws.push(Redraw(table(table_id, 1), notify=None))
    for _ in range(5):
        await asyncio.sleep(0)
    assert running == 2 and redraws.waiting == 3
    release.set()
    await redraws.idle()
    assert most == 2 and not redraws.busy
    await redraws.close()


async def test_a_push_wakes_one_idle_worker_and_the_others_sleep_on() -> None:
    """Idle workers are not all woken for every redraw (with one shared event each push woke
    all eight, and seven went back to sleep): one takes it; a queue longer than the workers
    awake wakes more, until every redraw that can go has a worker."""
    looked = 0
    release = asyncio.Event()
    done: list[int] = []

    async def run(redraw: Redraw) -> None:
        await release.wait()
        done.append(redraw.table.id)

    redraws = Redraws(run, workers=8)
    next_redraw = redraws._next

    def counted() -> Redraw | None:
        nonlocal looked
        looked += 1
        return next_redraw()

    redraws._next = counted  # type: ignore[method-assign]
    redraws.push(Redraw(table(1, 1), notify=None))  # starts the eight workers
    await asyncio.sleep(0)
    await asyncio.sleep(0)
    looked = 0
    release.set()
    await redraws.idle()
    release.clear()
    for ply in range(2, 12):  # a redraw at a time, each done before the next comes
        looked = 0
        redraws.push(Redraw(table(1, ply), notify=None))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert looked == 1  # one worker woke and took it; seven slept on
        release.set()
        await redraws.idle()
        release.clear()
    # Five at once, each of its own table: five workers run them together.
    for table_id in range(2, 7):
        redraws.push(Redraw(table(table_id, 1), notify=None))
    for _ in range(10):
        await asyncio.sleep(0)
    assert len(redraws._busy) == 5 and redraws.waiting == 0
    release.set()
    await redraws.idle()
    assert sorted(done[-5:]) == [2, 3, 4, 5, 6]
    assert not redraws.busy
    await redraws.close()


async def test_a_redraw_that_fails_is_logged_and_the_queue_goes_on() -> None:
    done: list[int] = []

    async def run(redraw: Redraw) -> None:
        if redraw.table.id == 1:
            raise RuntimeError("a redraw failed")
        done.append(redraw.table.id)

    redraws = Redraws(run, workers=1)
    redraws.push(Redraw(table(1, 1), notify=None))
    redraws.push(Redraw(table(2, 1), notify=None))
    await redraws.idle()
    assert done == [2]
    await redraws.close()


def test_merging_keeps_the_fresh_panel_owed_to_the_player_still_to_act() -> None:
    # Alice moved (Bob's turn: he is owed a fresh panel), then a change that passed no turn.
    first = Redraw(table(1, 1, to_act=1), notify=BOB)
    merged = first.merge(Redraw(table(1, 2, to_act=1), notify=None))
    assert merged.notify == BOB and merged.table.ply == 2
    # Bob moved meanwhile and it is Alice's turn: the later notify counts.
    merged = first.merge(Redraw(table(1, 2, to_act=0), notify=ALICE))
    assert merged.notify == ALICE
    # The game ended: nobody is to act, nobody is owed a turn.
    merged = first.merge(Redraw(table(1, 2, to_act=None), notify=None))
    assert merged.notify is None
