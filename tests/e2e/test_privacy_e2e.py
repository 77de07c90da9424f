"""Players' data end to end (issue 28), on both backends: ``/siege privacy info``, ``export`` and
``delete`` as a player uses them, a deletion in the middle of a running game (resigned with the
usual notices), the boards and their recompute afterwards, and a server the bot is removed from
and added back to, within its 30 days and after them (the clock moved by hand, nothing sleeps)."""

from __future__ import annotations

import json

import pytest

from storage.kept import KEPT
from tests.e2e.test_boards_e2e import resigned_game
from tests.e2e.test_castles_e2e import DEALER_BOB, dm_panel, open_game
from tests.e2e.test_clock_e2e import sweep, with_clock
from tests.e2e.world import World
from tests.fakecord import FakeMessage, stop_client

pytestmark = pytest.mark.e2e


async def export_of(w: World, user: object) -> dict[str, object]:
    handle = await user.slash(w.channel, "siege privacy export")  # type: ignore[attr-defined]
    assert handle.ephemeral and handle.response_message is not None
    (attachment,) = handle.response_message.attachments
    assert attachment.filename == "siege-hall-my-data.json"
    document: dict[str, object] = json.loads(attachment.data)
    return document


def board_lines(message: FakeMessage | None) -> list[str]:
    assert message is not None
    return [line for line in message.text().splitlines() if line.startswith("**")]


async def test_privacy_info_export_and_delete(world: World) -> None:
    w = world
    finished = await resigned_game(w)  # Bob resigns: Alice wins
    await resigned_game(w, loser_is_bob=False)  # Alice resigns: Bob wins
    board = await w.carol.slash(w.channel, "siege leaderboard", game="castles", season="all")
    before = board_lines(board.response_message)
    assert len(before) == 2 and any("alice" in line for line in before)

    posted = await w.alice.slash(w.channel, "siege seek", game="king")  # an open challenge
    seek = posted.response_message
    assert seek is not None and [b.label for b in seek.buttons()] == ["Accept", "Withdraw"]
    await w.fake.settle()  # its message id is stored after the answer

    # What is kept, in plain words, privately.
    info = await w.alice.slash(w.channel, "siege privacy info")
    assert info.ephemeral and info.response_message is not None
    text = info.response_message.text()
    for kept in KEPT.values():
        if kept.names_players:
            assert kept.what[1:] in text.replace("\n", " "), kept.what
    assert "30 days" in text and "/siege privacy delete" in text

    # The export: every row naming Alice, with no game's secrets in it.
    document = await export_of(w, w.alice)
    assert document["user_id"] == w.alice.id
    rows = document["rows"]
    assert isinstance(rows, dict)
    assert finished in {row["id"] for row in rows["tables"]}
    assert all("state" not in row and "seed" not in row for row in rows["tables"])
    assert {row["user_id"] for row in rows["seats"]} == {w.alice.id}
    assert len(rows["result_seats"]) == 2 and len(rows["ratings"]) == 2
    assert [row["status"] for row in rows["seeks"]] == ["open"]

    # Delete: asked first (nothing is deleted until the click).
    asked = await w.alice.slash(w.channel, "siege privacy delete")
    assert asked.ephemeral and asked.response_message is not None
    assert "cannot be undone" in asked.response_message.text()
    assert (await export_of(w, w.alice))["rows"] == rows
    done = await w.alice.click(asked.response_message, "Delete my data")
    await w.fake.settle()
    assert done.ephemeral
    assert "Your data is deleted" in w.fake.latest(asked.response_message).text()
    assert all(found == [] for found in (await export_of(w, w.alice))["rows"].values())  # type: ignore[union-attr]
    closed = w.fake.latest(seek)
    assert "withdrawn" in closed.text() and closed.buttons() == []

    # Bob's history and the boards name a former player; the recompute changes no one's line.
    history = await w.bob.slash(w.channel, "siege history")
    assert history.response_message is not None
    shown = history.response_message.text()
    assert "former player" in shown and "alice" not in shown and str(w.alice.id) not in shown
    board = await w.carol.slash(w.channel, "siege leaderboard", game="castles", season="all")
    after = board_lines(board.response_message)
    assert [line.replace("former player", "alice") for line in after] == before
    recomputed = await w.mod.slash(w.channel, "siege recompute")
    assert recomputed.response_message is not None and "2 rated games" in (
        recomputed.response_message.text()
    )
    board = await w.carol.slash(w.channel, "siege leaderboard", game="castles", season="all")
    assert board_lines(board.response_message) == after

    # Deleted stays deleted after a restart.
    await w.restart_bot()
    assert all(found == [] for found in (await export_of(w, w.alice))["rows"].values())  # type: ignore[union-attr]


async def test_delete_in_the_middle_of_a_running_game(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    await w.alice.click(message, "Draw (38 left)")
    await w.fake.settle()
    panel = dm_panel(w, w.alice, table)
    bob_dms = len(w.bob.dms())
    elsewhere = w.guild.add_text_channel("elsewhere")
    await w.fake.settle()
    await w.carol.slash(elsewhere, "siege challenge", user=w.alice, game="king")
    await w.fake.settle()
    (invite,) = [m for m in w.alice.dms() if "challenges you" in m.text()]

    asked = await w.alice.slash(w.channel, "siege privacy delete")
    assert asked.response_message is not None
    await w.alice.click(asked.response_message, "Delete my data")
    await w.fake.settle()
    assert "1 running game resigned" in w.fake.latest(asked.response_message).text()

    over = await w.table_by_id(table.id)
    assert over.status == "over" and over.result is not None
    assert [over.seats[s] for s in over.result.winners] == [w.bob.id]
    assert w.alice.id not in over.seats
    # The usual notices: Bob is told the result, the table shows it with a former player.
    told = [m.text() for m in w.bob.dms()[bob_dms:] if m.text().startswith("🏁")]
    assert len(told) == 1 and "former player" in told[0]
    shown = w.table_message(over).text()
    assert "Result" in shown and "former player" in shown and w.alice.mention not in shown
    assert w.fake.messages[panel.id].deleted  # her DM panel is gone
    assert w.running.hall.dms.known(w.alice.id) is None  # and the bot's note of her DM channel
    withdrawn = w.fake.latest(invite)  # and Carol's challenge with it
    assert "withdrawn" in withdrawn.text() and withdrawn.buttons() == []
    # The channel is free for a new game, and Alice can play again afresh.
    again = await w.alice.slash(w.channel, "play castles-besieged")
    assert again.response_message is not None and not again.ephemeral


async def test_a_server_removed_and_added_back(world: World) -> None:
    w = world
    clock = await with_clock(w)
    await resigned_game(w)
    table, _ = await open_game(w, dealer=DEALER_BOB)  # running when the bot is removed

    w.fake.remove_bot(w.guild)
    await w.fake.settle()
    closed = await w.table_by_id(table.id)
    assert closed.status == "cancelled"
    store = w.running.store
    assert await store.departure(w.guild.id) is not None

    # Back within the window: nothing is deleted, then or later.
    clock.advance(days=29)
    await sweep(w)
    w.fake.add_bot_back(w.guild)
    await w.fake.settle()
    assert await store.departure(w.guild.id) is None
    clock.advance(days=5)
    await sweep(w)
    history = await w.bob.slash(w.channel, "siege history")
    assert history.response_message is not None
    assert "alice" in history.response_message.text()

    # Removed again and not back within 30 days: the sweeper deletes everything of the server.
    w.fake.remove_bot(w.guild)
    await w.fake.settle()
    clock.advance(days=29, hours=23)
    await sweep(w)
    assert await store.get_table(table.id) is not None
    clock.advance(hours=1)
    await sweep(w)
    assert await store.get_table(table.id) is None
    await w.restart_bot()
    w.fake.add_bot_back(w.guild)
    await w.fake.settle()
    history = await w.bob.slash(w.channel, "siege history")
    assert history.response_message is not None
    assert "alice" not in history.response_message.text()
    document = await export_of(w, w.alice)
    assert all(found == [] for name, found in document["rows"].items() if name != "players")  # type: ignore[union-attr]


async def test_added_back_while_the_bot_was_down(world: World) -> None:
    """Discord tells a bot that was offline of a server it is in again only by the server's
    GUILD_CREATE at start-up: that too cancels the deletion."""
    w = world
    await with_clock(w)
    await resigned_game(w)
    w.fake.remove_bot(w.guild)
    await w.fake.settle()
    assert await w.running.store.departure(w.guild.id) is not None
    await w.fake.settle()
    await stop_client(w.running)
    w.fake.add_bot_back(w.guild)  # nobody connected hears it
    await w.start_bot()
    await w.fake.settle()
    assert await w.running.store.departure(w.guild.id) is None
