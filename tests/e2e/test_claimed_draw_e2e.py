"""A claimed draw through the fake Discord (issue 25): in a game whose rules have drawn results,
once the player to move has not moved for three days in a game without a clock, the others may
claim a draw instead of the win (the table's and the panel's Claim a draw, or ``/siege claim
draw:True``). The game ends drawn, is rated as a draw, and the table, the history, the replay
and the export tell it. A draw is refused in a game without draws, and early."""

from __future__ import annotations

import json

import pytest

from engine.verify import verify
from tests.e2e.test_castles_e2e import DEALER_BOB, dm_panel, open_game, refusal
from tests.e2e.test_clock_e2e import sweep, with_clock
from tests.e2e.test_endings_e2e import draw, said, stored
from tests.e2e.test_towers_e2e import add_players
from tests.e2e.test_towers_e2e import open_game as open_towers
from tests.e2e.world import World

pytestmark = pytest.mark.e2e


def labels(message: object) -> list[str]:
    return [b.label for b in message.buttons()]  # type: ignore[attr-defined]


async def test_an_abandoned_game_is_claimed_drawn(world: World) -> None:
    w = world
    clock = await with_clock(w)
    table, message = await open_game(w, dealer=DEALER_BOB)
    await w.alice.click(message, draw(38))  # now Bob is to move, and goes away
    await w.fake.settle()

    text = refusal(await w.alice.slash(w.channel, "siege claim", draw=True))
    assert text.startswith("Not yet") and "<t:" in text
    assert "Claim a draw" not in labels(w.table_message(table))
    clock.advance(days=3)
    assert await sweep(w) == 1
    (notice,) = said(w, "You may claim the game")
    assert "Or claim a draw" in notice and "/siege claim draw:True" in notice
    table = await w.table_by_id(table.id)
    assert {"Claim the win", "Claim a draw"} <= set(labels(w.table_message(table)))
    assert labels(dm_panel(w, w.alice, table)).count("Claim a draw") == 1
    assert "Claim a draw" not in labels(dm_panel(w, w.bob, table))
    assert "It is your move" in refusal(await w.bob.click(w.table_message(table), "Claim a draw"))

    await w.alice.click(w.table_message(table), "Claim a draw")
    await w.fake.settle()
    over = await w.table_by_id(table.id)
    assert over.status == "over" and over.result is not None
    assert over.result.winners == () and over.result.reason == "abandoned"
    assert (over.ending, over.ended_by) == ("claim", w.alice.id)
    (announced,) = said(w, "claimed a draw at table")
    assert f"<@{w.alice.id}>" in announced and "ends drawn" in announced
    assert "forfeits" not in announced
    shown = w.table_message(over).text()
    assert "Drawn: the player to move abandoned the game, and the other claimed a draw" in shown
    assert "resigned" not in shown and "wins" not in shown
    assert "Claim a draw" not in labels(w.table_message(over))
    # Rated, as a draw.
    assert stored(
        w, "SELECT rated, reason, ending FROM results WHERE table_id = ?", (over.id,)
    ) == [(1, "abandoned", "claim")]
    assert stored(
        w, "SELECT outcome FROM result_seats WHERE table_id = ? ORDER BY seat", (over.id,)
    ) == [("draw",), ("draw",)]
    history = (await w.bob.slash(w.channel, "siege history")).response_message
    assert history is not None and "a claimed draw: abandoned" in history.text()

    opened = await w.bob.click(history, f"Replay #{over.id}")
    replay = opened.response_message
    assert replay is not None
    await w.bob.click(replay, "⏭")
    await w.fake.settle()
    last = w.fake.latest(replay)
    assert "abandoned the game, and the other claimed a draw" in last.text()
    exported = await w.bob.click(last, "Export script")
    assert exported.response_message is not None
    (attachment,) = exported.response_message.attachments
    script = json.loads(attachment.data)
    assert script["dealt"]["resignations"][-1]["draw"] is True
    assert verify(script).ok


async def test_a_draw_is_refused_in_a_game_without_draws(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    dave, _ = await add_players(w)
    users = [w.alice, w.bob, w.carol, dave]
    table = await open_towers(w, monkeypatch, 3, users)
    to_act = table.engine.to_act(table.running_state())
    assert to_act is not None
    claimant = users[(to_act + 1) % len(users)]
    text = refusal(await claimant.slash(w.channel, "siege claim", draw=True))
    assert text == (
        "Siege tower poker has no drawn result, so a draw cannot be claimed: claim the win instead."
    )
    assert (await w.table_by_id(table.id)).version == table.version
