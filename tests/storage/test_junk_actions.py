"""Junk inside a move, through ``Store.act`` on both databases: an action that equals no legal
action (an extra key, NaN, a deeply nested value, ``1.0`` for ``1``) is refused with the rule
error before any JSON is written, and the table and its log are unchanged."""

from __future__ import annotations

import math
from typing import Any

import pytest

from engine.rules import RuleError
from storage import Store
from tests.storage.test_hardening import GUEST, running_table


def nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth):
        value = [value]
    return value


JUNK: dict[str, dict[str, Any]] = {
    "extra_key": {"type": "draw", "note": "hi"},
    "nan_extra": {"type": "draw", "x": math.nan},
    "deep_extra": {"type": "draw", "x": nested(100_000)},
    "float_pos": {"type": "attack", "pos": 0.0},
    "bool_pos": {"type": "attack", "pos": False},
}


@pytest.mark.parametrize("kind", sorted(JUNK))
async def test_junk_actions_are_refused_before_anything_is_written(store: Store, kind: str) -> None:
    table = await running_table(store)
    before = await store.get_table(table.id)
    with pytest.raises(RuleError):
        await store.act(table.id, GUEST, JUNK[kind], table.ply)
    assert await store.get_table(table.id) == before
    assert await store.actions(table.id) == []
    # The plain move still goes through at the same ply.
    after, _ = await store.act(table.id, GUEST, {"type": "draw"}, table.ply)
    assert after.ply == table.ply + 1
    assert [a.action for a in await store.actions(table.id)] == [{"type": "draw"}]
