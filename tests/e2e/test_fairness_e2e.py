"""Provably fair chance through the fake Discord (issue 23): a table shows its commitment and
never its seed while it runs (not to a spectator, not to another seat, not in a DM); the end
reveals seed and salt, and the replay verifies the deal. A daily game keeps its seed, replay and
export closed to the server until its UTC day is over; its owner replays what they saw."""

from __future__ import annotations

import json

import pytest

from engine import chance
from engine.verify import verify
from storage import TableError
from tests.e2e.test_boards_e2e import resigned_game
from tests.e2e.test_castles_e2e import DEALER_BOB, open_game, refusal
from tests.e2e.test_daily_e2e import resign, start_daily
from tests.e2e.world import World
from tests.fakeclock import Clock

pytestmark = pytest.mark.e2e


def everything(w: World) -> str:
    """Every message the bot sent anywhere: channels, threads, DMs and ephemeral answers."""
    return "\n".join(m.text() for m in w.fake.messages.values())


async def test_the_table_shows_its_commitment_and_reveals_the_seed_only_at_the_end(
    world: World,
) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    assert table.salt is not None
    seal = chance.commitment(table.seed, table.salt)
    footer = w.table_message(table).text()
    assert f"deal sealed {seal[: chance.SHORT]}" in footer and seal in footer
    await w.alice.click(message, "Draw (38 left)")
    await w.bob.slash(w.channel, "siege table")  # the table posted again at the bottom
    await w.fake.settle()
    running = everything(w)
    assert str(table.seed) not in running and table.salt not in running
    assert seal in w.table_message(await w.table()).text()
    for user in (w.alice, w.bob):  # each seat's DM panel: its hand, never the seed
        assert all(str(table.seed) not in m.text() for m in user.dms())


async def test_a_finished_game_reveals_seed_and_salt_and_verifies(world: World) -> None:
    w = world
    tid = await resigned_game(w)
    table = await w.table_by_id(tid)
    assert table.salt is not None
    seal = chance.commitment(table.seed, table.salt)
    over = w.table_message(table).text()
    assert f"Seed {table.seed} · salt {table.salt} · sha256(seed:salt) = {seal}" in over

    history = await w.carol.slash(w.channel, "siege history", user=w.bob)
    assert history.response_message is not None
    opened = await w.carol.click(history.response_message, f"Replay #{tid}")
    replay = opened.response_message
    assert replay is not None and f"Seed {table.seed}" in replay.text()
    checked = await w.carol.click(replay, "Verify the deal")
    assert checked.ephemeral and checked.response_message is not None
    answer = checked.response_message.text()
    assert "Verified: everything chance dealt matches the seed." in answer and seal in answer
    command = await w.carol.slash(w.channel, "siege verify", table=tid)
    assert command.ephemeral and command.response_message is not None
    assert "Verified: everything chance dealt" in command.response_message.text()
    exported = await w.carol.click(replay, "Export script")
    assert exported.response_message is not None
    (attachment,) = exported.response_message.attachments
    script = json.loads(attachment.data)
    assert script["chance"] == {"scheme": chance.BY_PURPOSE, "salt": table.salt, "commitment": seal}
    assert verify(script).ok


async def test_a_daily_game_stays_closed_until_its_day_is_over(world: World) -> None:
    w = world
    clock = Clock()  # 2026-11-25 09:00 UTC
    w.clock = clock
    await w.restart_bot()
    room = w.fake.create_thread(w.channel, "alice daily", 11)
    table_message, _ = await start_daily(w, w.alice, room)
    table = await w.table(room)
    assert table.salt is not None
    seal = chance.commitment(table.seed, table.salt)
    assert seal[: chance.SHORT] in table_message.text()
    await resign(w, w.alice, room)
    over = w.table_message(await w.table_by_id(table.id)).text()
    assert "revealed in /siege history once the UTC day 2026-11-25 is over" in over
    assert str(table.seed) not in everything(w) and table.salt not in everything(w)

    history = await w.bob.slash(w.channel, "siege history", user=w.alice)
    assert (
        history.response_message is not None and f"#{table.id}" in history.response_message.text()
    )
    closed = await w.bob.click(history.response_message, f"Replay #{table.id}")
    assert "daily challenge game of 2026-11-25" in refusal(closed)
    # The owner replays what they saw: their side only, no seed, no export, no verification.
    own = await w.alice.slash(w.channel, "siege history")
    assert own.response_message is not None
    mine = await w.alice.click(own.response_message, f"Replay #{table.id}")
    assert mine.response_message is not None and mine.ephemeral
    text = mine.response_message.text()
    assert "Your daily game of 2026-11-25" in text and str(table.seed) not in text
    assert "Export script" not in text and "Verify the deal" not in text
    asker = type("Asker", (), {"guild_id": w.guild.id, "user": w.alice})()
    with pytest.raises(TableError, match="daily challenge game of 2026-11-25"):
        await w.running.boards.export(asker, table.id)  # type: ignore[arg-type]
    with pytest.raises(TableError, match="daily challenge game of 2026-11-25"):
        await w.running.boards.verify(asker, table.id)  # type: ignore[arg-type]

    early = await w.bob.slash(w.channel, "siege verify", table=table.id)
    assert "daily challenge game of 2026-11-25" in refusal(early)

    # Boards: a past day is named and empty, a future day is refused.
    past = await w.carol.slash(w.channel, "siege daily board", day="2026-11-24")
    assert past.response_message is not None
    assert "2026-11-24 (a past day)" in past.response_message.text()
    assert "Nobody finished a scored normal game that day" in past.response_message.text()
    future = await w.carol.slash(w.channel, "siege daily board", day="2026-11-26")
    assert "has not come yet" in refusal(future)

    clock.advance(days=1)  # 2026-11-26: the day of the game is over
    opened = await w.bob.click(history.response_message, f"Replay #{table.id}")
    assert opened.response_message is not None
    assert f"Seed {table.seed} · salt {table.salt}" in opened.response_message.text()
    checked = await w.bob.click(opened.response_message, "Verify the deal")
    assert checked.response_message is not None
    assert "Verified" in checked.response_message.text()
