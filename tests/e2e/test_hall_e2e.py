"""The hall's defined answers to what goes wrong: deleted channels, corrupt rows, unexpected
errors, huge hands, and logs that must not learn secrets — through the real bot and the fake."""

from __future__ import annotations

import contextlib
import logging

import pytest

from engine import cards
from tests.e2e.test_castles_e2e import DEALER_BOB, dm_panel, lay_label, open_game, refusal
from tests.e2e.world import World, assert_hidden
from tests.pg import raw_connect

pytestmark = pytest.mark.e2e


def draw_label(pile: int) -> str:
    return f"Draw ({pile} left)"


async def test_deleted_channel_closes_its_table(world: World) -> None:
    w = world
    table, _ = await open_game(w, dealer=DEALER_BOB)
    panel = dm_panel(w, w.alice, table)
    w.fake.delete_channel(w.channel)
    await w.fake.settle()
    closed = await w.table_by_id(table.id)
    assert closed.status == "cancelled"
    latest = dm_panel(w, w.alice, closed)
    assert "cancelled" in latest.text() and not [b for b in latest.buttons() if "Draw" in b.label]
    handle = await w.alice.click(panel, draw_label(38))  # the DM panel from before the deletion
    assert refusal(handle) == "This table is closed."
    assert (await w.table_by_id(table.id)).ply == 0


async def test_channel_deleted_while_offline_closes_the_table_on_next_move(world: World) -> None:
    w = world
    table, _ = await open_game(w, dealer=DEALER_BOB)
    w.fake.delete_channel(w.channel, notify=False)
    await w.alice.click(dm_panel(w, w.alice, table), draw_label(38))
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.status == "cancelled"
    assert "cancelled" in dm_panel(w, w.bob, table).text()


async def test_corrupt_row_is_refused_politely_and_can_be_closed(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    with contextlib.closing(raw_connect(w.database)) as conn:
        conn.execute("UPDATE tables SET state = '{not json' WHERE id = ?", (table.id,))
    handle = await w.alice.click(message, draw_label(38))
    assert "could not be read" in refusal(handle)
    handle = await w.alice.slash(w.channel, "siege cancel")
    assert "could not be read" in refusal(handle)  # only a server manager may force it
    handle = await w.mod.slash(w.channel, "siege cancel")
    assert "unreadable table here was closed" in (handle.response_message.content or "")
    handle = await w.alice.slash(w.channel, "play castles-besieged")
    assert not handle.ephemeral


async def test_unexpected_error_gets_an_apology_and_a_logged_traceback(
    world: World, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(w.running.store, "act", broken)
    with caplog.at_level(logging.ERROR, logger="siege.hall"):
        handle = await w.alice.click(message, draw_label(38))
    assert refusal(handle).startswith("Sorry, something went wrong")
    assert "disk on fire" not in refusal(handle)
    errors = [r for r in caplog.records if r.name == "siege.hall"]
    assert errors and errors[0].exc_info is not None
    assert "disk on fire" in str(errors[0].exc_info[1])
    assert (await w.table_by_id(table.id)).ply == 0


async def test_big_hands_and_long_rows_stay_within_discord_limits(world: World) -> None:
    """38 draws give hands of 26 cards, still one lay menu (one entry per value: suits never
    matter there); long rows turn attacks into a menu."""
    w = world
    table, _ = await open_game(w, dealer=DEALER_BOB)
    users = [w.alice, w.bob]
    for _ in range(38):
        await w.fake.settle()
        table = await w.table_by_id(table.id)
        state = table.running_state()
        mover = users[state["to_act"]]
        await mover.click(w.table_message(table), draw_label(len(state["pile"])))
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    state = table.running_state()
    assert [len(h) for h in state["hands"]] == [26, 26]
    panel = dm_panel(w, w.alice, table)
    menus = [s.placeholder or "" for s in panel.selects()]
    assert len(menus) == 1 and "Lay a card" in menus[0]
    values = {cards.value(c) for c in state["hands"][0]}
    assert len(panel.selects()[0].options) == len(values) <= 13
    # Both lay six cards each (no draws left); then attacks come as a menu, not buttons.
    for _ in range(12):
        await w.fake.settle()
        table = await w.table_by_id(table.id)
        state = table.running_state()
        seat = state["to_act"]
        card = min(state["hands"][seat], key=cards.sort_key)
        panel = dm_panel(w, users[seat], table)
        label = lay_label(state["hands"][seat], card)
        select = next(s for s in panel.selects() if any(o.label == label for o in s.options))
        await users[seat].select(panel, label, custom_id=select.custom_id)
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    message = w.table_message(table)
    assert not [b for b in message.buttons() if b.label.startswith("Attack")]
    attack_menu = [s for s in message.selects() if "Attack" in (s.placeholder or "")]
    assert len(attack_menu) == 1 and len(attack_menu[0].options) == 6
    hands = table.running_state()["hands"]
    assert_hidden(w.public_text(), hands[0] + hands[1], "the channel")


async def test_logs_never_hold_a_hand_card_or_the_token(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    w = world
    caplog.set_level(logging.DEBUG)
    table, _ = await open_game(w, dealer=DEALER_BOB)
    seen: set[str] = set()
    for _ in range(10):
        table = await w.table_by_id(table.id)
        state = table.running_state()
        seen.update(state["hands"][0] + state["hands"][1])
        seat = state["to_act"]
        panel = dm_panel(w, [w.alice, w.bob][seat], table)
        if seat == 0:
            await w.alice.click(panel, draw_label(len(state["pile"])))
        else:
            card = state["hands"][1][0]
            await w.bob.select(panel, lay_label(state["hands"][1], card))
        await w.fake.settle()
    table = await w.table_by_id(table.id)
    state = table.running_state()
    still_hidden = [c for c in seen if c in state["hands"][0] + state["hands"][1]]
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert len(caplog.records) > 20  # the bot and discord.py did log, at DEBUG
    assert "fake-token" not in text
    assert_hidden(text, still_hidden, "the log")


async def test_gateway_drop_mid_game_resumes_and_play_goes_on(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    resumes = w.fake.gateway.resume_count
    await w.fake.drop_gateway()
    await w.alice.click(message, draw_label(38))
    await w.fake.settle()
    assert w.fake.gateway.resume_count == resumes + 1
    assert (await w.table_by_id(table.id)).ply == 1


async def test_a_deleted_table_message_is_posted_again_on_the_next_move(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    w.fake.delete_message(message)  # a moderator tidied the channel
    await w.alice.click(dm_panel(w, w.alice, table), draw_label(38))
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.ply == 1 and table.message_id != message.id
    reposted = w.table_message(table)
    assert not reposted.deleted and "turn 2 ·" in reposted.text()
    assert reposted.content == f"<@{w.bob.id}>, it's your turn."


async def test_a_damaged_log_row_never_reports_a_committed_move_as_failed(world: World) -> None:
    """A corrupt action-log row used to make every redraw raise: the move was committed, the
    player was told it failed, and the table froze."""
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    await w.alice.click(message, draw_label(38))
    await w.fake.settle()
    with contextlib.closing(raw_connect(w.database)) as conn:
        conn.execute("UPDATE actions SET events = '[{' WHERE table_id = ?", (table.id,))
    # The store keeps the history it already read (logged rows never change); a process that
    # reads it afresh (after a restart, or another shard's) meets the damage.
    w.running.store._tails.clear()
    users = {w.alice.id: w.alice, w.bob.id: w.bob}
    for expected_ply in (1, 2):
        table = await w.table_by_id(table.id)
        mover = users[table.seats[table.running_state()["to_act"]]]
        pile = len(table.running_state()["pile"])
        handle = await mover.click(w.table_message(table), draw_label(pile))
        await w.fake.settle()
        assert not handle.ephemeral, "a committed move was answered with a refusal"
        table = await w.table_by_id(table.id)
        assert table.ply == expected_ply + 1
        shown = w.table_message(table).text()
        assert f"turn {table.ply + 1} ·" in shown and "could not be read" in shown


async def test_a_forged_select_value_gets_a_polite_answer(world: World) -> None:
    """ "²" passes str.isdigit() but not int(): the click used to go unanswered."""
    w = world
    table, _ = await open_game(w, dealer=DEALER_BOB)
    panel = dm_panel(w, w.alice, table)
    menu = next(s for s in panel.selects() if s.custom_id.startswith("sh:pick:"))
    for forged in ("²", "-1", "99999", "1 "):
        handle = await w.alice.select(panel, forged, custom_id=menu.custom_id, forged=True)
        assert "out of date" in refusal(handle)
    assert (await w.table_by_id(table.id)).ply == 0
