"""The panel memo (:mod:`cogs.parts_memo`), end to end: a move made from a DM panel draws its
player's panel once (the answer to the click and the redraw after it share it), and the memo
never hands back a panel drawn from other inputs: a later position, a claim that opened since,
another place, another player or step."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from cogs.flow import Parts
from cogs.parts_memo import PartsMemo, panel_key
from tests.e2e.test_castles_e2e import DEALER_BOB, dm_panel, open_game
from tests.e2e.test_clock_e2e import with_clock
from tests.e2e.test_endings_e2e import draw
from tests.e2e.world import World

pytestmark = pytest.mark.e2e


def labels(parts: Parts) -> list[str]:
    """The labels of a panel's buttons."""
    assert parts.view is not None
    found: list[str] = []

    def walk(components: list[dict[str, Any]]) -> None:
        for component in components:
            if "label" in component:
                found.append(str(component["label"]))
            walk(component.get("components", []))

    walk(parts.view.to_components())
    return found


def count_draws(w: World) -> list[int]:
    """The players whose panel the bot draws from now on (one entry a drawing)."""
    panels = w.running.hall.panels
    drawn: list[int] = []
    real = panels._draw_panel

    async def counted(table: Any, user_id: int, *args: Any) -> Any:
        drawn.append(user_id)
        return await real(table, user_id, *args)

    panels._draw_panel = counted  # type: ignore[method-assign]
    return drawn


async def test_a_move_from_a_dm_panel_draws_that_panel_once(world: World) -> None:
    w = world
    table, _ = await open_game(w, dealer=DEALER_BOB)  # Alice moves first
    drawn = count_draws(w)
    await w.alice.click(dm_panel(w, w.alice, table), draw(38))
    await w.fake.settle()
    after = await w.table_by_id(table.id)
    assert after.ply == table.ply + 1
    # Alice's panel: the click's answer and the redraw share one drawing; Bob's is drawn once.
    assert sorted(drawn) == sorted([w.alice.id, w.bob.id])
    assert w.running.hall.delivery.counts["unchanged"] >= 1  # the redraw sent nothing for it
    # What she sees is the new position: her turn is over, so no move is offered.
    shown = dm_panel(w, w.alice, after)
    assert f"turn {after.ply + 1}" in shown.text()
    assert not any(b.label.startswith("Draw") for b in shown.buttons())


async def test_the_memo_never_serves_a_panel_drawn_from_other_inputs(world: World) -> None:
    w = world
    clock = await with_clock(w)
    table, message = await open_game(w, dealer=DEALER_BOB)
    panels = w.running.hall.panels
    first = await panels.panel_parts(table, w.alice.id, for_dm=True)
    assert await panels.panel_parts(table, w.alice.id, for_dm=True) is first  # same inputs
    # Another player, the ephemeral panel (no place, no link), another step: drawn anew.
    others = [
        await panels.panel_parts(table, w.bob.id, for_dm=True),
        await panels.panel_parts(table, w.alice.id, for_dm=False),
        await panels.panel_parts(table, w.alice.id, for_dm=True, stage="lay"),
    ]
    assert all(other is not first for other in others)
    assert len({id(other) for other in others}) == 3

    # A move: the stored table has a new version, and its panel shows the new position.
    await w.alice.click(message, draw(38))
    await w.fake.settle()
    moved = await w.table_by_id(table.id)
    after = await panels.panel_parts(moved, w.alice.id, for_dm=True)
    assert after is not first
    assert after.fingerprint() != first.fingerprint()
    assert draw(38) in labels(first) and draw(38) not in labels(after)

    # Bob goes away: once a claim is open, Alice's panel (same version) offers it.
    before_claim = await panels.panel_parts(moved, w.alice.id, for_dm=True)
    assert before_claim is after
    clock.advance(days=3, seconds=1)
    claimable = await panels.panel_parts(moved, w.alice.id, for_dm=True)
    assert claimable is not after
    assert "Claim the win" in labels(claimable) and "Claim the win" not in labels(after)


async def test_every_input_of_a_panel_is_in_its_key(world: World) -> None:
    w = world
    table, _ = await open_game(w, dealer=DEALER_BOB)
    base: dict[str, Any] = {"for_dm": True, "stage": None, "place": "#games", "claim_open": False}
    key = panel_key(table, w.alice.id, **base)
    assert panel_key(table, w.alice.id, **base) == key
    changed_tables = [
        replace(table, version=table.version + 1),
        replace(table, ply=table.ply + 1),
        replace(table, status="cancelled"),
        replace(table, updated_at=table.updated_at + "1"),
        replace(table, message_id=(table.message_id or 0) + 1),
        replace(table, deadline="2030-01-01T00:00:00+00:00"),
        replace(table, ending="resigned"),
        replace(table, ended_by=w.bob.id),
        replace(table, id=table.id + 1),
    ]
    for changed in changed_tables:
        assert panel_key(changed, w.alice.id, **base) != key
    assert panel_key(table, w.bob.id, **base) != key
    for field, value in [
        ("for_dm", False),
        ("stage", "lay"),
        ("place", "#games in Renamed"),
        ("claim_open", True),
    ]:
        assert panel_key(table, w.alice.id, **{**base, field: value}) != key


def test_the_memo_keeps_the_latest_few() -> None:
    memo = PartsMemo(kept=2)
    parts = [object(), object(), object()]
    for n, part in enumerate(parts):
        memo.put((n,), part)  # type: ignore[arg-type]
    assert len(memo) == 2
    assert memo.get((0,)) is None  # the oldest went
    assert memo.get((2,)) is parts[2] and memo.hits == 1
