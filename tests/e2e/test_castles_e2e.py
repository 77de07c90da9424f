"""Castles Besieged end to end: the real bot, through the fake Discord, played by clicks only.

Every test here drives ``bot.py`` exactly as people would — slash commands, buttons, selects, in
the channel, in DMs and in ephemeral panels — and checks what each person sees. The fake fails
any test in which the bot breaks a Discord limit or misses the 3-second response deadline.
"""

from __future__ import annotations

import asyncio

import pytest

from engine import cards
from storage import TableRecord
from tests.e2e.world import World, assert_hidden
from tests.fakecord import ActionRefused, FakeMessage
from tests.fakecord.world import FakeUser

pytestmark = pytest.mark.e2e

DEALER_BOB = "1"  # seat 2 (Bob) deals, so Alice (seat 1) moves first


async def open_game(w: World, **options: str) -> tuple[TableRecord, FakeMessage]:
    """Alice opens a table, Bob joins, Alice starts: the running table and its message."""
    handle = await w.alice.slash(w.channel, "play castles-besieged", **options)
    lobby = handle.response_message
    assert lobby is not None and not handle.ephemeral
    await w.bob.click(lobby, "Join")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running"
    return table, w.table_message(table)


def user_of(w: World, table: TableRecord, seat: int) -> FakeUser:
    return {w.alice.id: w.alice, w.bob.id: w.bob}[table.seats[seat]]


def dm_panel(w: World, user: FakeUser, table: TableRecord) -> FakeMessage:
    panels = [m for m in user.dms() if f"Table #{table.id}" in m.text()]
    assert len(panels) == 1, f"expected one DM panel for table {table.id}, got {len(panels)}"
    return panels[0]


def refusal(handle: object) -> str:
    """The text of an ephemeral refusal the bot answered a click with."""
    message = handle.response_message  # type: ignore[attr-defined]
    assert handle.ephemeral, "a refusal must be ephemeral"  # type: ignore[attr-defined]
    assert message is not None
    return str(message.content)


async def check_everything(w: World, table: TableRecord) -> None:
    """After each step: the public message matches the stored game, no hand card is public,
    and each player's DM panel shows only their own hand."""
    game = table.engine
    state = table.running_state()
    message = w.table_message(table)
    hands = state["hands"]
    turn = table.ply + (table.status != "over")  # one action is one turn
    assert f"turn {turn} ·" in message.text()
    to_act = game.to_act(state)
    if to_act is not None:
        assert message.content == f"<@{table.seats[to_act]}>, it's your turn."
    for seat in (0, 1):
        assert f"hits taken **{state['hits'][seat]}**/10" in message.text()
    # Earlier games' messages (a rematch's predecessor) legitimately show their own cards.
    assert_hidden(w.public_text(since=message.id), hands[0] + hands[1], "the channel")
    for seat in (0, 1):
        user = user_of(w, table, seat)
        panel = dm_panel(w, user, table)
        text = panel.text()
        assert_hidden(text, hands[1 - seat], f"{user.name}'s DM panel")
        for card in hands[seat]:
            assert cards.pretty(card) in text, f"{user.name}'s panel misses their own {card}"
        has_actions = any(not b.disabled for b in panel.buttons() if b.label == "Draw (")
        assert not has_actions or to_act == seat


async def test_full_game_by_clicks_and_selects(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    assert table.seats == (w.alice.id, w.bob.id)
    await check_everything(w, table)
    bob_from_dm = False
    for _ in range(200):
        table = await w.table_by_id(table.id)
        if table.status == "over":
            break
        state = table.running_state()
        message = w.table_message(table)
        if state["to_act"] == 0:
            if not state["rows"][0]:
                # Alice lays her strongest card from the select in her DM panel.
                panel = dm_panel(w, w.alice, table)
                card = max(state["hands"][0], key=cards.value)
                await w.alice.select(panel, lay_label(state["hands"][0], card))
            else:
                attack = [b.label for b in message.buttons() if b.label.startswith("Attack")]
                assert attack == [attack[0]] and "castle" in attack[0] and "needs 7+" in attack[0]
                await w.alice.click(message, attack[0])
        else:
            # Bob only draws, taking turns between the table and his DM panel.
            if bob_from_dm:
                await w.bob.click(dm_panel(w, w.bob, table), label=_draw_label(state))
            else:
                await w.bob.click(message, label=_draw_label(state))
            bob_from_dm = not bob_from_dm
        await w.fake.settle()
        table = await w.table_by_id(table.id)
        await check_everything(w, table)
    assert table.status == "over", "the game did not end"
    assert table.result is not None
    assert table.result.winners == (0,) and table.result.reason == "castle_stormed"
    final = w.table_message(table)
    assert "stormed" in final.text()
    assert [b.label for b in final.buttons()] == ["Rematch"]
    # Rematch is an offer: Bob asks, Alice accepts; then a new running table with the same
    # players, where the winner (Alice) deals.
    offer = (await w.bob.click(final, "Rematch")).response_message
    assert offer is not None
    await w.alice.click(offer, "Accept")
    await w.fake.settle()
    rematch = await w.table()
    assert rematch.id != table.id and rematch.status == "running"
    assert rematch.seats == table.seats and rematch.rematch_of == table.id
    assert rematch.options["dealer"] == 0
    assert rematch.running_state()["to_act"] == 1
    await check_everything(w, rematch)


def _draw_label(state: dict[str, object]) -> str:
    return f"Draw ({len(state['pile'])} left)"  # type: ignore[arg-type]


def _flavour(card: str) -> str:
    from engine.castles import FLAVOUR

    return FLAVOUR[cards.value(card)]


def lay_label(hand: list[str], card: str) -> str:
    """The lay menu's entry for ``card``: one per value, suits never matter there."""
    rank = cards.pretty(card)[:-1]
    same = sum(cards.value(c) == cards.value(card) for c in hand)
    return f"{rank} {_flavour(card)}" + (f" ×{same}" if same > 1 else "")


async def test_refusals_wrong_user_outsider_stale_and_double_click(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    draw = _draw_label(table.running_state())
    # Not your turn: Bob clicks Alice's Draw.
    handle = await w.bob.click(message, draw)
    assert refusal(handle) == "It is not your turn."
    # Not at the table: Carol clicks Draw and My hand.
    handle = await w.carol.click(message, draw)
    assert refusal(handle) == "You are not playing at this table."
    handle = await w.carol.click(message, "My hand")
    assert "not playing at this table" in refusal(handle)
    assert (await w.table_by_id(table.id)).ply == 0
    # Alice draws; the same (now stale) button clicked again is refused.
    await w.alice.click(message, draw)
    await w.fake.settle()
    assert (await w.table_by_id(table.id)).ply == 1
    handle = await w.alice.click(message, draw)
    assert "out of date" in refusal(handle)
    assert (await w.table_by_id(table.id)).ply == 1
    # Bob double-clicks Draw: both clicks arrive at the same instant; exactly one applies.
    table = await w.table_by_id(table.id)
    current = w.table_message(table)
    label = _draw_label(table.running_state())
    first, second = await asyncio.gather(
        w.bob.click(current, label, settle_first=False),
        w.bob.click(current, label, settle_first=False),
    )
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.ply == 2
    log = await w.running.store.actions(table.id)
    assert [a.ply for a in log] == [0, 1]
    refused = [h for h in (first, second) if h.ephemeral]
    assert len(refused) == 1 and "out of date" in refusal(refused[0])
    await check_everything(w, table)


async def test_restart_resumes_the_table_with_working_buttons(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    await w.alice.click(message, _draw_label(table.running_state()))
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    before = w.table_message(table)
    bob_panel = dm_panel(w, w.bob, table)
    await w.restart_bot()
    # The old table message's button works on the new process...
    await w.bob.click(before, _draw_label(table.running_state()))
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.ply == 2
    await check_everything(w, table)
    # ...and so does a DM panel button sent before the restart.
    handle = await w.bob.click(bob_panel, "Resign")
    assert "Resign this game?" in (handle.response_message.content or "")
    assert (await w.running.store.replay(table.id)) == table.running_state()


async def test_closed_dms_fall_back_to_the_ephemeral_panel(world: World) -> None:
    w = world
    w.bob.dms_closed = True
    table, _ = await open_game(w, dealer=DEALER_BOB)
    notices = [m for m in w.fake.channel_messages(w.channel) if "direct messages" in m.content]
    assert len(notices) == 1 and f"<@{w.bob.id}>" in notices[0].content
    assert w.bob.dms() == []
    for _ in range(3):  # Alice draws, Bob lays from his ephemeral panel.
        table = await w.table_by_id(table.id)
        await w.alice.click(w.table_message(table), _draw_label(table.running_state()))
        await w.fake.settle()
        table = await w.table_by_id(table.id)
        opened = await w.bob.click(w.table_message(table), "My hand")
        panel = opened.response_message
        assert panel is not None and panel.ephemeral_for == w.bob.id
        hand = table.running_state()["hands"][1]
        assert_hidden(panel.text(), table.running_state()["hands"][0], "Bob's panel")
        card = min(hand, key=cards.sort_key)
        await w.bob.select(panel, lay_label(hand, card))
        await w.fake.settle()
        table = await w.table_by_id(table.id)
        assert card in table.running_state()["rows"][1]
        hands = table.running_state()["hands"]
        assert_hidden(w.public_text(), hands[0] + hands[1], "the channel")
    notices = [m for m in w.fake.channel_messages(w.channel) if "direct messages" in m.content]
    assert len(notices) == 1, "the closed-DM notice must be said once"
    assert await w.running.store.dm_mode(w.bob.id) == "closed"


async def test_lobby_rules(world: World) -> None:
    w = world
    handle = await w.alice.slash(w.channel, "play castles-besieged")
    lobby = handle.response_message
    assert lobby is not None
    with pytest.raises(ActionRefused):  # Start is disabled with one seat taken
        await w.alice.click(lobby, "Start (needs 2 players)")
    handle = await w.bob.click(lobby, "Leave")
    assert refusal(handle) == "You do not have a seat at this table."
    handle = await w.alice.click(lobby, "Leave")
    assert "cancel it instead" in refusal(handle)
    # A second table in the same channel is refused with a link to the first.
    handle = await w.bob.slash(w.channel, "play castles-besieged")
    text = refusal(handle)
    assert "already has an open Castles Besieged table" in text and "thread" in text
    assert f"/{lobby.id}" in text
    await w.bob.click(lobby, "Join")
    lobby = w.fake.latest(lobby)
    assert "Seats (2/2)" in lobby.text()
    with pytest.raises(ActionRefused):  # Join is disabled when the table is full
        await w.carol.click(lobby, "Join")
    handle = await w.bob.click(lobby, "Start")
    assert refusal(handle) == "Only the host can start the game."
    await w.bob.click(lobby, "Leave")
    assert "Seats (1/2)" in w.fake.latest(lobby).text()
    handle = await w.carol.click(w.fake.latest(lobby), "Cancel")
    assert "Only the host, a server manager or a moderator" in refusal(handle)
    # Another channel runs its own table at the same time.
    other = w.guild.add_text_channel("games-2")
    handle = await w.bob.slash(other, "play castles-besieged")
    assert not handle.ephemeral
    # A server manager cancels the first table.
    handle = await w.mod.slash(w.channel, "siege cancel")
    assert "cancelled table" in (handle.response_message.content or "")
    await w.fake.settle()
    closed = w.fake.latest(lobby)
    assert "table closed" in closed.text() and closed.buttons() == []
    assert await w.running.store.open_table_in(w.channel.id) is None
    handle = await w.carol.slash(w.channel, "play castles-besieged")
    assert not handle.ephemeral


async def test_resign_with_confirmation(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    handle = await w.carol.click(message, "Resign")
    assert refusal(handle) == "You are not playing at this table."
    handle = await w.bob.click(message, "Resign")
    confirm = handle.response_message
    assert confirm is not None and handle.ephemeral
    assert (await w.table_by_id(table.id)).status == "running"
    await w.bob.click(confirm, "Yes, resign")
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.status == "over" and table.result is not None
    assert table.result.winners == (0,) and table.result.reason == "resigned"
    final = w.table_message(table)
    assert "resigned" in final.text() and [b.label for b in final.buttons()] == ["Rematch"]
    assert "resigned" in w.fake.latest(confirm).content
    handle = await w.alice.click(message, _draw_label(table.running_state()))
    assert refusal(handle) == "This game is over."


async def test_rules_and_table_repost(world: World) -> None:
    w = world
    handle = await w.carol.slash(w.channel, "siege rules", game="castles")
    assert handle.ephemeral
    text = handle.response_message.text()
    assert "House rules" in text and "needs 8" in text
    handle = await w.carol.slash(w.channel, "siege table")
    assert "no open table" in refusal(handle)
    table, message = await open_game(w, dealer=DEALER_BOB)
    handle = await w.alice.slash(w.channel, "siege table")
    assert not handle.ephemeral
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.message_id == handle.response_message.id != message.id
    assert "moved" in w.fake.latest(message).content
    assert w.fake.latest(message).buttons() == []
    await w.alice.click(w.table_message(table), _draw_label(table.running_state()))
    await w.fake.settle()
    await check_everything(w, await w.table_by_id(table.id))


async def test_dm_opt_out_and_back_in(world: World) -> None:
    w = world
    handle = await w.bob.slash(w.channel, "siege dm off")
    assert handle.ephemeral and "no more DMs" in handle.response_message.content
    table, _ = await open_game(w, dealer=DEALER_BOB)
    assert w.bob.dms() == [] and len(w.alice.dms()) == 1
    handle = await w.bob.slash(w.channel, "siege dm on")
    await w.fake.settle()
    assert handle.ephemeral
    await check_everything(w, await w.table_by_id(table.id))


async def test_the_player_whose_turn_comes_gets_a_fresh_dm_panel(world: World) -> None:
    """Discord notifies on new messages, never on edits: when the turn passes to a player, their
    DM panel is re-sent (the old one deleted, still one panel per table); the mover's own panel
    is edited in place."""
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    alice_before, bob_before = dm_panel(w, w.alice, table), dm_panel(w, w.bob, table)
    await w.alice.click(message, _draw_label(table.running_state()))
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    alice_after, bob_after = dm_panel(w, w.alice, table), dm_panel(w, w.bob, table)
    assert alice_after.id == alice_before.id  # edited: no notification for the mover
    assert bob_after.id != bob_before.id and w.fake.latest(bob_before).deleted
    assert len(w.bob.dms()) == 1
    # Bob plays from his new DM panel: it is edited in place; Alice's is re-sent.
    await w.bob.click(bob_after, _draw_label(table.running_state()))
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert dm_panel(w, w.bob, table).id == bob_after.id
    assert dm_panel(w, w.alice, table).id != alice_after.id
    assert len(w.alice.dms()) == 1
    await check_everything(w, table)


def pings(w: World) -> list[FakeMessage]:
    return [m for m in w.fake.channel_messages(w.channel) if "it's your turn at table" in m.content]


async def test_players_without_dm_panels_are_pinged_in_the_channel(world: World) -> None:
    """Bob turned DMs off, so nothing would notify him: when his turn comes, one short channel
    message pings him; it goes away when he has played and when the game ends."""
    w = world
    await w.bob.slash(w.channel, "siege dm off")
    table, message = await open_game(w, dealer=DEALER_BOB)
    assert pings(w) == []  # Alice moves first and has her DM panel
    await w.alice.click(message, _draw_label(table.running_state()))
    await w.fake.settle()
    [ping] = pings(w)
    assert ping.content.startswith(f"<@{w.bob.id}>, it's your turn at table #{table.id}")
    table = await w.table_by_id(table.id)
    await w.bob.click(w.table_message(table), _draw_label(table.running_state()))
    await w.fake.settle()
    assert pings(w) == [] and w.fake.latest(ping).deleted
    table = await w.table_by_id(table.id)
    await w.alice.click(w.table_message(table), _draw_label(table.running_state()))
    await w.fake.settle()
    assert len(pings(w)) == 1
    confirm = (await w.alice.click(w.table_message(table), "Resign")).response_message
    assert confirm is not None
    await w.alice.click(confirm, "Yes, resign")
    await w.fake.settle()
    assert pings(w) == []
