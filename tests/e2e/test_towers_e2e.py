"""Siege tower poker end to end: the real bot, through the fake Discord, four players by clicks.

Alice, Bob, Carol and Dave play from ``/play`` on, choosing among the legal moves with a
seeded policy and acting only through what they see: the table's buttons, their DM panels and the
table's "My hand" ephemeral panel. The stored game is read only as the hidden truth. After every
step the secrets check runs: no channel message (what a spectator sees), no DM and no ephemeral
panel shows a card of another seat's hand that the game has not made public (face up, burned,
or shown at a show; two decks mean a code may be both hidden and public, and such a code cannot be
told apart, so it is not counted as hidden).

The table's seed is fixed (the store is asked for it), and so is the policy, so each game replays
the same way: with 6 chips each and towers of 3, seed 16 plays 27 moves to the end of the game
through three shows, one of them with a side pot.
"""

from __future__ import annotations

import functools
import random
import re
from typing import Any

import pytest

from engine.rules import Action, Event
from engine.towers import GAME
from presentation.towers import pretty
from storage import TableRecord
from tests.e2e.test_castles_e2e import dm_panel
from tests.e2e.world import World, card_mentions
from tests.fakecord import FakeMessage, SchemaMismatch
from tests.fakecord.world import FakeUser

pytestmark = pytest.mark.e2e

SEED_SIDE_POT = 16
SEED_LEAVE = 4
OPTIONS = {"start_chips": 6, "tower_height": 3}
SETTLE_AFTER_MOVE = 0.1
WEIGHTS = {
    "call": 4,
    "raise": 2,
    "bet": 3,
    "check": 2,
    "fold": 1,
    "buy_flip": 2,
    "decline_flip": 2,
    "reveal_joker": 1,
    "discard": 1,
}
ACT_ID = re.compile(r"^sh:act:(\d+):(\d+):(\d+)$")
TABLE_KINDS = {"check", "bet", "call", "raise", "fold", "buy_flip", "decline_flip"}


def choose(seed: int, ply: int, legal: list[Action]) -> int:
    """The seeded policy: any legal move but leaving, calls and bets more often than folds."""
    rng = random.Random(f"{seed}:{ply}:policy")
    pool = [i for i, a in enumerate(legal) for _ in range(WEIGHTS.get(a["type"], 0))]
    return rng.choice(pool)


async def add_players(w: World) -> tuple[FakeUser, FakeUser]:
    """Dave plays as the fourth seat; Erin only watches the channel."""
    added = []
    for name in ("dave", "erin"):
        user = w.fake.add_user(name)
        w.guild.add_member(user)
        added.append(user)
    return added[0], added[1]


async def open_game(
    w: World, monkeypatch: pytest.MonkeyPatch, seed: int, players: list[FakeUser]
) -> TableRecord:
    store = w.running.store
    monkeypatch.setattr(store, "create_table", functools.partial(store.create_table, seed=seed))
    handle = await players[0].slash(w.channel, "play siege-tower-poker", **OPTIONS)
    lobby = handle.response_message
    assert lobby is not None and not handle.ephemeral
    text = w.fake.latest(lobby).text()
    assert "Start chips: **6** (1–10000)" in text and "Tower height: **3** (3–10)" in text
    for user in players[1:]:
        await user.click(w.fake.latest(lobby), "Join")
    assert "Seats (4/7)" in w.fake.latest(lobby).text()
    await players[0].click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running" and table.seats == tuple(u.id for u in players)
    assert table.options["start_chips"] == 6 and table.options["tower_height"] == 3
    return table


def shows(text: str, code: str) -> bool:
    if code in ("XB", "XR"):
        return pretty(code).split(" ", 1)[1] in text
    return card_mentions(text, code)


async def said_publicly(w: World, table: TableRecord) -> set[str]:
    """Every card code an event of the game has made public (flips, burns, shows, jackpots)."""
    said: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str) and value in GAME_CODES:
            said.add(value)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)

    for record in await w.running.store.actions(table.id):
        walk(record.events)
    return said


GAME_CODES = frozenset([r + s for r in "A23456789TJQK" for s in "SHDC"] + ["XB", "XR"])


def hidden_for(table: TableRecord, seat: int | None, said: set[str]) -> list[str]:
    state = table.running_state()
    others = {c for x, hand in enumerate(state["hands"]) if x != seat for c in hand}
    public = said | set(state["face_up"])
    if state["burned"]:
        public.add(state["burned"])
    own = set(state["hands"][seat]) if seat is not None else set()
    return sorted(others - public - own)


def assert_secret(text: str, hidden: list[str], where: str) -> None:
    shown = [c for c in hidden if shows(text, c)]
    assert not shown, f"{where} shows hidden cards {shown}:\n{text}"


def offered(message: FakeMessage, table: TableRecord) -> set[int]:
    actions: set[int] = set()
    for button in message.buttons():
        match = ACT_ID.match(button.custom_id or "")
        if match:
            assert (int(match[1]), int(match[2])) == (table.id, table.ply), button
            actions.add(int(match[3]))
    for select in message.selects():
        if select.custom_id.startswith(f"sh:pick:{table.id}:{table.ply}:"):
            actions |= {int(o.value) for o in select.options}
    return actions


async def check_everything(
    w: World, table: TableRecord, users: list[FakeUser], extra: list[tuple[FakeMessage, int]]
) -> None:
    """The table, every DM panel and the given ephemeral panels against the hidden truth."""
    state = table.running_state()
    said = await said_publicly(w, table)
    message = w.table_message(table)
    assert f"turn {table.ply + (table.status != 'over')} ·" in message.text()
    to_act = GAME.to_act(state)
    if to_act is not None:
        assert message.content == f"<@{table.seats[to_act]}>, it's your turn."
        legal = GAME.legal_actions(state, to_act)
        on_table = {i for i, a in enumerate(legal) if a["type"] in TABLE_KINDS}
        assert offered(message, table) == on_table
    summary = GAME.summary(state)
    players = players_field(message)
    for seat, user in enumerate(users):
        assert f"<@{user.id}> — **{summary['chips'][seat]}** chips" in players
    assert message.attachments, "the table has no picture"
    # Everything in the channel (what a spectator reads) hides every seat's cards.
    assert_secret(w.public_text(), hidden_for(table, None, said), "the channel")
    for seat, user in enumerate(users):
        if user.dms_closed:
            assert user.dms() == []
            continue
        panel = dm_panel(w, user, table)
        check_panel(table, panel, seat, said, f"{user.name}'s DM panel")
    for panel, seat in extra:
        check_panel(table, w.fake.latest(panel), seat, said, "an ephemeral panel")


def players_field(message: FakeMessage) -> str:
    (value,) = [f["value"] for f in message.embeds[0]["fields"] if f["name"] == "Players"]
    return str(value)


def check_panel(
    table: TableRecord, panel: FakeMessage, seat: int, said: set[str], where: str
) -> None:
    state = table.running_state()
    text = panel.text()
    assert_secret(text, hidden_for(table, seat, said), where)
    for card in state["hands"][seat]:
        assert shows(text, card), f"{where} misses its own {card}"
    to_act = GAME.to_act(state)
    if to_act == seat and table.status == "running":
        legal = GAME.legal_actions(state, seat)
        direct = {i for i, a in enumerate(legal) if a["type"] != "leave"}
        assert offered(panel, table) == direct, where
    else:
        assert offered(panel, table) == set(), f"{where} offers moves out of turn"


async def play_step(
    w: World, table: TableRecord, users: list[FakeUser], seed: int, step: int
) -> tuple[TableRecord, list[tuple[FakeMessage, int]]]:
    """The seat to act makes the policy's move: from the table, its DM panel or its ephemeral
    panel in turn (always the ephemeral one without DMs)."""
    state = table.running_state()
    seat = GAME.to_act(state)
    assert seat is not None
    user = users[seat]
    legal = GAME.legal_actions(state, seat)
    index = choose(seed, table.ply, legal)
    action = legal[index]
    custom_id = f"sh:act:{table.id}:{table.ply}:{index}"
    extra: list[tuple[FakeMessage, int]] = []
    via = ("table", "dm", "hand")[step % 3]
    if user.dms_closed and via == "dm":
        via = "hand"
    if action["type"] not in TABLE_KINDS and via == "table":
        via = "hand" if user.dms_closed else "dm"
    if via == "table":
        message = w.table_message(table)
    elif via == "dm":
        message = dm_panel(w, user, table)
    else:
        opened = await user.click(w.table_message(table), "My hand")
        ephemeral = opened.response_message
        assert ephemeral is not None and opened.ephemeral and ephemeral.ephemeral_for == user.id
        message = ephemeral
        extra.append((message, seat))
    if action["type"] in ("reveal_joker", "discard"):
        (menu,) = [s for s in message.selects() if str(index) in {o.value for o in s.options}]
        await user.select(message, str(index), custom_id=menu.custom_id)
    else:
        label = next(b.label for b in message.buttons() if b.custom_id == custom_id)
        if action["type"] == "call":
            assert label.startswith("Call ")
        elif action["type"] == "raise":
            assert label.startswith("Raise to ")
        elif action["type"] == "buy_flip":
            assert label == f"Buy flip — {GAME.summary(state)['next_flip_cost']}"
        await user.click(message, custom_id=custom_id)
    await w.fake.settle(quiet=SETTLE_AFTER_MOVE)
    after = await w.table_by_id(table.id)
    assert after.ply == table.ply + 1, f"{user.name}'s {action} did not count"
    return after, extra


def events_of(records: list[Any]) -> list[Event]:
    return [e for record in records for e in record.events]


async def test_four_players_play_to_the_end_with_a_side_pot(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    dave, erin = await add_players(w)
    users = [w.alice, w.bob, w.carol, dave]
    table = await open_game(w, monkeypatch, SEED_SIDE_POT, users)
    await check_everything(w, table, users, [])
    step = 0
    side_pot_said = False
    while table.status == "running":
        table, extra = await play_step(w, table, users, SEED_SIDE_POT, step)
        await check_everything(w, table, users, extra)
        step += 1
        assert step < 200
        # A show puts exactly the shown hands on the table, for everyone to read.
        (record,) = await w.running.store.recent_actions(table.id, 1)
        for event in record.events:
            if event["type"] != "shown":
                continue
            text = w.table_message(table).text()
            for seat, hand in enumerate(event["hands"]):
                if hand is not None:
                    assert f"<@{users[seat].id}>: " in text
                    assert all(shows(text, c) for c in hand), (hand, text)
            side_pot_said |= len(event["pots"]) > 1 and "side pot 1 (" in text
    assert side_pot_said, "the table never named a side pot"
    events = events_of(await w.running.store.actions(table.id))
    shown = [e for e in events if e["type"] == "shown"]
    assert len(shown) >= 2
    assert any(len(e["pots"]) > 1 for e in shown), "no side pot in this game"
    message = w.table_message(table)
    assert table.result is not None
    assert "Result" in message.text() and "Rematch" in [b.label for b in message.buttons()]
    assert sum(table.result.scores or ()) == 4 * OPTIONS["start_chips"]
    # Erin, who only watches, never got a panel.
    assert erin.dms() == []
    # The finished game is in the history, and its replay steps to the end with the four sides.
    handle = await w.bob.slash(w.channel, "siege history")
    assert handle.response_message is not None
    opened = await w.bob.click(handle.response_message, f"Replay #{table.id}")
    replay = opened.response_message
    assert replay is not None and opened.ephemeral
    assert f"Replay of table #{table.id} — move 0 of {table.ply}" in replay.text()
    await w.bob.click(replay, "⏭")
    await w.fake.settle()
    end = w.fake.latest(replay).text()
    assert f"the end, after {table.ply} moves" in end  # the last move ended the game
    # Each of the four players' hands, labelled by player (issue 25, item 7).
    assert all(f"{name}'s cards" in end for name in ("alice", "bob", "carol"))


async def test_leave_mid_hand_closed_dms_and_a_restart_mid_round(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    dave, _ = await add_players(w)
    w.carol.dms_closed = True
    users = [w.alice, w.bob, w.carol, dave]
    table = await open_game(w, monkeypatch, SEED_LEAVE, users)
    notices = [m for m in w.fake.channel_messages(w.channel) if "direct messages" in m.content]
    assert len(notices) == 1 and f"<@{w.carol.id}>" in notices[0].content
    await check_everything(w, table, users, [])
    step = 0
    restarted = False
    # Play until a betting round has a bet in it, then restart the bot in the middle of it.
    while not restarted:
        state = table.running_state()
        if state["phase"] == "betting" and state["bet_level"] > 0:
            old_table = w.table_message(table)
            await w.restart_bot()
            restarted = True
            table = await w.table_by_id(table.id)
            # The table message from before the restart still takes the next move.
            assert w.table_message(table).id == old_table.id
        table, extra = await play_step(w, table, users, SEED_LEAVE, step)
        await check_everything(w, table, users, extra)
        step += 1
        assert step < 100
    # Someone who is not to act leaves in the middle of a hand (Resign = leave).
    state = table.running_state()
    to_act = GAME.to_act(state)
    leaver = next(
        s for s in range(4) if s != to_act and state["in_hand"][s] and not state["left"][s]
    )
    user = users[leaver]
    handle = await user.click(w.table_message(table), "Resign")
    confirm = handle.response_message
    assert confirm is not None and "Resign this game?" in (confirm.content or "")
    await user.click(confirm, "Yes, resign")
    await w.fake.settle(quiet=SETTLE_AFTER_MOVE)
    table = await w.table_by_id(table.id)
    state = table.running_state()
    assert state["left"][leaver] and state["hands"][leaver] == []
    assert table.status == "running"
    players = players_field(w.table_message(table))
    assert f"<@{user.id}> — **{state['chips'][leaver]}** chips" in players
    line = next(x for x in players.split("\n") if f"<@{user.id}>" in x)
    assert line.endswith("· **left**")
    # A seat that has left has nothing more to resign (issue 25, item 6).
    again = await user.click(w.table_message(table), "Resign")
    assert again.ephemeral and again.response_message is not None
    assert again.response_message.content == (
        "You are out of this game already: there is nothing to resign."
    )
    if not user.dms_closed:
        assert all(b.label != "Resign" for b in dm_panel(w, user, table).buttons())
    await check_everything(w, table, users, [])
    # The others play on, Carol from her ephemeral panel.
    for _ in range(8):
        if table.status != "running":
            break
        table, extra = await play_step(w, table, users, SEED_LEAVE, step)
        await check_everything(w, table, users, extra)
        step += 1
    notices = [m for m in w.fake.channel_messages(w.channel) if "direct messages" in m.content]
    assert len(notices) == 1, "the closed-DM notice must be said once"


async def test_the_table_options_are_this_games_own(world: World) -> None:
    w = world
    # Discord itself keeps each number in the engine's range.
    command = w.guild.commands.chat_input("play")
    assert command is not None
    (towers,) = [o for o in command["options"] if o["name"] == "siege-tower-poker"]
    ranges = {o["name"]: (o.get("min_value"), o.get("max_value")) for o in towers["options"]}
    for option in GAME.options:
        assert ranges[option.name] == (option.choices[0], option.choices[-1])
    with pytest.raises(SchemaMismatch):  # another game's option is not even offered
        await w.alice.slash(w.channel, "play castles-besieged", start_chips=50)
    with pytest.raises(SchemaMismatch):
        await w.alice.slash(w.channel, "play siege-tower-poker", difficulty="easy")
    handle = await w.alice.slash(w.channel, "play siege-tower-poker", small_bet=5, big_bet=2)
    assert handle.ephemeral and handle.response_message is not None
    assert "'big_bet' (2) must be at least 'small_bet' (5)" in (
        handle.response_message.content or ""
    )
