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
