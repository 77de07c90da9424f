"""A table's draw lock exists only while a flow holds or waits for it (:mod:`cogs.held_locks`),
and flows on one table still go one at a time, in the order they came."""

from __future__ import annotations

import asyncio
import contextlib

from cogs.held_locks import HeldLocks


async def test_flows_on_one_key_go_in_turn_and_the_lock_goes_with_the_last() -> None:
    locks = HeldLocks()
    order: list[str] = []
    first_in = asyncio.Event()
    let_first_go = asyncio.Event()

    async def first() -> None:
        async with locks.hold(7):
            order.append("first in")
            first_in.set()
            await let_first_go.wait()
            order.append("first out")

    async def second() -> None:
        async with locks.hold(7):
            order.append("second in")

    one = asyncio.create_task(first())
    await first_in.wait()
    two = asyncio.create_task(second())
    async with locks.hold(8):  # another table is not held up
        order.append("other table")
    assert len(locks) == 1  # table 8's lock went when its flow was done; table 7's is held
    let_first_go.set()
    await asyncio.gather(one, two)
    assert order == ["first in", "other table", "first out", "second in"]
    assert len(locks) == 0


async def test_a_waiter_cancelled_leaves_no_lock_behind() -> None:
    locks = HeldLocks()
    holding = asyncio.Event()
    release = asyncio.Event()

    async def holder() -> None:
        async with locks.hold(1):
            holding.set()
            await release.wait()

    async def waiter() -> None:
        async with locks.hold(1):
            raise AssertionError("a cancelled waiter never gets the lock")

    held = asyncio.create_task(holder())
    await holding.wait()
    waiting = asyncio.create_task(waiter())
    await asyncio.sleep(0)  # the waiter is now queued on the lock
    waiting.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await waiting
    assert len(locks) == 1
    release.set()
    await held
    assert len(locks) == 0


async def test_a_failing_flow_gives_the_lock_up() -> None:
    locks = HeldLocks()
    with contextlib.suppress(RuntimeError):
        async with locks.hold(3):
            raise RuntimeError("the flow failed")
    assert len(locks) == 0
    async with locks.hold(3):
        assert len(locks) == 1
