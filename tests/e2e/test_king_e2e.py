"""Siege the King end to end: the real bot, through the fake Discord, played by clicks and selects.

Alice and Bob play whole games from ``/play`` to the result, choosing among the legal moves
with a seeded policy and acting only through what they see: the table, their DM panels and the
table's "My hand" ephemeral panel. After every step the test compares what each person sees
with what they may know (the stored game is read only as the hidden truth):

* the table shows exactly the public view: each column's value and cards, castle cards face
  down until revealed, and no card of a hand beyond what the game has made public;
* each panel shows its owner's hand exactly, never a card of the other hand beyond the public
  columns, and never the other castle's order;
* action controls appear only for the seat to act, and only for legal moves.

The table's seed is fixed (the store is asked for a given seed) so each game replays the same way
and the game with the special cards is known to reach an Assassin decision.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from engine.king import CARD_ORDER, COLUMN_NAMES, GAME, card_name
from engine.rules import Action, State
from presentation.king import RENDERER
from storage import TableRecord
from tests.e2e.test_castles_e2e import dm_panel
from tests.e2e.world import World
from tests.fakecord import FakeMessage, SchemaMismatch
from tests.fakecord.world import FakeUser

pytestmark = pytest.mark.e2e

# Table seeds (also the policy's seeds), picked for short games with chance by purpose
# (engine/chance.py). With the specials, seed 40 has matches of both kinds, a Judge and a Sorcerer
# taking effect, an Artisan cancelling, a Throne falling to a siege, and an Assassin decision
# closing a Throne column before a siege finds a King (25 moves). Without them, seed 4 has both
# kinds of match, a Warrior and a fallen Throne (22 moves).
SEED_SPECIALS = 40
SEED_PLAIN = 4
STEPS_MAX = 150
SETTLE_AFTER_MOVE = 0.1  # seconds without bot traffic before a move counts as done
NAME_PATTERNS = {
    code: re.compile(rf"(?<!\w){re.escape(card_name(code))}(?!\w)") for code in CARD_ORDER
}
CASTLE_WORDS = re.compile("king|throne|👑|🪑", re.IGNORECASE)
ACT_ID = re.compile(r"^sh:act:(\d+):(\d+):(\d+)$")


# -- what people see -----------------------------------------------------------------------------


def names_in(text: str) -> set[str]:
    """The card codes whose names (``Attacker 5``, ``Judge``) appear in a text."""
    return {code for code, pattern in NAME_PATTERNS.items() if pattern.search(text)}


def codes_in(value: object) -> Iterator[str]:
    """Every card code inside an event (``card``, ``removed``, ...)."""
    if isinstance(value, str) and value in NAME_PATTERNS:
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from codes_in(item)
    elif isinstance(value, dict):
        if value.get("type") == "artisan_cancelled":
            yield "ARTISAN"  # the event is the Artisan's, played from a hand
        for item in value.values():
            yield from codes_in(item)


def token(code: str, role: str) -> str:
    sign = "+" if role == "defender" else "−"
    return f"{sign}{'W' if code.startswith('W') else ''}{code[1:]}"


def check_columns(rows: list[str], columns: list[dict[str, Any]], over: bool, where: str) -> None:
    """Three column lines against the public summary: value, cards, and the castle card shown
    only once revealed (or at the end)."""
    assert len(rows) == 3, f"{where}: expected three column lines, got {rows}"
    for i, (line, column) in enumerate(zip(rows, columns, strict=True)):
        assert line.startswith(f"`{COLUMN_NAMES[i].capitalize():<6}`"), f"{where}: {line}"
        if not column["open"]:
            assert "Throne · closed" in line, f"{where}: {line}"
            continue
        value = column["value"]
        shown = f"−{-value}" if value < 0 else str(value)
        assert f"**{shown}**" in line, f"{where}: {line} should be worth {value}"
        tokens = [token(c, r) for c, r in zip(column["cards"], column["roles"], strict=True)]
        assert line.split("** · ")[1].split() == tokens if tokens else "** · " not in line
        if column["castle"] is None:
            assert "🂠" in line and not CASTLE_WORDS.search(line), f"{where} shows {line}"
        else:
            assert ("👑 King" if column["castle"] == "KING" else "🪑 Throne") in line
    if over:
        assert all("🂠" not in line for line in rows)


def side_lines(text: str, user_id: int) -> list[str]:
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(f"🏰 <@{user_id}> · "))
    return lines[at + 1 : at + 4]


def field(message: FakeMessage, name: str) -> str:
    values = [f["value"] for f in message.embeds[0].get("fields", []) if f["name"] == name]
    assert len(values) == 1, f"no single {name!r} field on {message!r}"
    return str(values[0])


def offered(message: FakeMessage, table: TableRecord) -> tuple[set[int], set[str]]:
    """The action indices (buttons and menus) and the stage keys a message offers for this ply.
    Controls of another ply would be a bug: they are collected with their ply and checked."""
    actions: set[int] = set()
    for button in message.buttons():
        match = ACT_ID.match(button.custom_id or "")
        if match:
            assert (int(match[1]), int(match[2])) == (table.id, table.ply), button
            actions.add(int(match[3]))
    stages: set[str] = set()
    for select in message.selects():
        values = {o.value for o in select.options}
        if select.custom_id.startswith(f"sh:pick:{table.id}:{table.ply}:"):
            actions |= {int(v) for v in values}
        elif select.custom_id.startswith(f"sh:stage:{table.id}:{table.ply}:"):
            stages |= values
        else:
            raise AssertionError(f"unexpected menu {select.custom_id} on {message!r}")
    return actions, stages


def expected_controls(legal: list[Action]) -> tuple[set[int], set[str]]:
    """What the first step of a panel offers: direct actions, and one stage per playable card."""
    plays = {a["card"] for a in legal if a["type"] == "play"}
    direct = {i for i, a in enumerate(legal) if a["type"] != "play"}
    return direct, plays


def hand_of(description: str) -> list[str]:
    """The card names a panel lists under "Your hand" (without their marks)."""
    lines = description.split("\n")
    start = next((i for i, line in enumerate(lines) if line.startswith("**Your hand**")), None)
    if start is None:
        return []
    names = []
    for line in lines[start + 1 :]:
        if not line:
            break
        names.append(line.split(" ", 1)[1].replace(" 🆕 *just drawn*", ""))
    return names


def check_panel(
    w: World,
    table: TableRecord,
    message: FakeMessage,
    seat: int,
    where: str,
    said: frozenset[str] = frozenset(),
) -> None:
    """A seat's panel (DM or ephemeral): its own hand and castle, nothing of the other's.
    ``said``: the cards the table's events made public (the panel retells the latest)."""
    state = table.running_state()
    view = GAME.view(state, seat)
    summary = view["summary"]
    other = 1 - seat
    assert message.embeds, f"{where} has no embed"
    description = message.embeds[0].get("description", "")
    assert hand_of(description) == [card_name(c) for c in view["hand"]], (
        f"{where} hand:\n{description}"
    )
    # Names in the panel: its own cards, the cards on the columns, and nothing else.
    public = {c for side in summary["columns"] for col in side for c in col["cards"]}
    shown = names_in(message.text()) - set(view["hand"]) - public - said
    assert shown <= {"ASSASSIN"}, f"{where} names {shown}:\n{message.text()}"
    over = view["result"] is not None
    theirs = field(message, "Their castle").split("\n")
    assert theirs[0].startswith(f"<@{table.seats[other]}> · ")
    check_columns(theirs[1:], summary["columns"][other], over, f"{where} (their castle)")
    mine = field(message, "Your castle (only you see your King)")
    if view["castle"] is not None:
        king = view["castle"].index("KING")
        rows = mine.split("\n")
        assert [i for i, row in enumerate(rows) if "👑 King" in row] == [king], mine
    # Controls: only for the seat to act, and only the legal ones.
    actions, stages = offered(message, table)
    if GAME.to_act(state) == seat and table.status == "running":
        legal = GAME.legal_actions(state, seat)
        assert (actions, stages) == expected_controls(legal), f"{where}: {message.text()}"
    else:
        assert not actions and not stages, f"{where} offers moves out of turn"


async def check_everything(
    w: World,
    table: TableRecord,
    extra: Sequence[tuple[FakeMessage, int, str]] = (),
) -> None:
    """After each step: the table is the public view, and no one sees what they may not."""
    state = table.running_state()
    summary = GAME.summary(state)
    over = table.status == "over"
    message = w.table_message(table)
    text = message.text()
    # One turn counter: the footer's is the one the board shows.
    number = summary["turn"] if over else summary["turn"] + 1
    assert f"turn {number} ·" in text
    to_act = GAME.to_act(state)
    if to_act is not None:
        assert message.content == f"<@{table.seats[to_act]}>, it's your turn."
    # The table message is exactly the rendering of the spectator view and the recent events.
    parts = await w.running.hall.table_parts(table)
    assert parts.embed is not None
    wanted = parts.embed.to_dict()
    shown = message.embeds[0]
    assert shown.get("description") == wanted.get("description")
    assert [(f["name"], f["value"]) for f in shown.get("fields", [])] == [
        (f["name"], f["value"]) for f in wanted.get("fields", [])
    ]
    description = shown["description"]
    for seat in (0, 1):
        rows = side_lines(description, table.seats[seat])
        check_columns(rows, summary["columns"][seat], over, f"the table ({seat})")
    # No hand card is named in public unless the game made that card public: on a column, in
    # the discard pile, or in an event (a play, a discard, a removal).
    public = w.public_text(since=message.id)
    said: set[str] = set()
    for record in await w.running.store.actions(table.id):
        said |= set(codes_in(record.events))
    seen = {c for side in summary["columns"] for col in side for c in col["cards"]}
    seen |= set(summary["discard"]) | said
    hidden = set(state["hands"][0] + state["hands"][1]) - seen
    leaked = names_in(public) & hidden
    assert not leaked, f"the channel names hidden cards {leaked}:\n{public}"
    if not over:
        # Where a King hides is never said in public while the game runs.
        # The table picture's alt text reads the position too: it must keep the secret as well.
        alt = "\n".join(a.description or "" for a in message.attachments)
        assert alt.startswith("Siege the King table"), "the table picture has no alt text"
        bare = public + "\n" + alt
        for name in ("Siege the King", "/siege rules king", f"king-{table.id}-{table.ply}.png"):
            bare = bare.replace(name, "")
        assert not re.search("king|👑", bare, re.IGNORECASE), f"the channel says:\n{bare}"
    for seat in (0, 1):
        user = user_of(w, table, seat)
        where = f"{user.name}'s DM panel"
        check_panel(w, table, dm_panel(w, user, table), seat, where, frozenset(said))
    for panel, seat, where in extra:
        check_panel(w, table, w.fake.latest(panel), seat, where, frozenset(said))


def user_of(w: World, table: TableRecord, seat: int) -> FakeUser:
    return {w.alice.id: w.alice, w.bob.id: w.bob}[table.seats[seat]]


# -- playing -------------------------------------------------------------------------------------


async def open_game(
    w: World, monkeypatch: pytest.MonkeyPatch, seed: int, **options: Any
) -> TableRecord:
    """Alice opens a table with a fixed seed, Bob joins, Alice starts."""
    store = w.running.store
    monkeypatch.setattr(store, "create_table", functools.partial(store.create_table, seed=seed))
    handle = await w.alice.slash(w.channel, "play siege-the-king", **options)
    lobby = handle.response_message
    assert lobby is not None and not handle.ephemeral
    await w.bob.click(lobby, "Join")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running" and table.seats == (w.alice.id, w.bob.id)
    assert table.options["specials"] is options.get("specials", True)
    return table


def choose(state: State, seat: int, legal: list[Action], rng: random.Random) -> int:
    """A simple policy: often the attack that leaves an enemy column lowest, else any move."""
    if rng.random() < 0.4:
        return rng.randrange(len(legal))
    columns = GAME.summary(state)["columns"]

    def lowered(i: int) -> tuple[int, float]:
        a = legal[i]
        if a["type"] != "play" or a["card"][0] not in "AW" or a["column"][0] == seat:
            return 99, rng.random()
        owner, index = a["column"]
        return columns[owner][index]["value"] - int(a["card"][1:]), rng.random()

    return min(range(len(legal)), key=lowered)


async def panel_for(
    w: World, table: TableRecord, user: FakeUser, via: str
) -> tuple[FakeMessage, list[tuple[FakeMessage, int, str]]]:
    """The user's panel: their DM panel, or a fresh ephemeral one from the table's button."""
    if via == "dm":
        return dm_panel(w, user, table), []
    opened = await user.click(w.table_message(table), "My hand")
    panel = opened.response_message
    assert panel is not None and opened.ephemeral and panel.ephemeral_for == user.id
    seat = table.seats.index(user.id)
    return panel, [(panel, seat, f"{user.name}'s ephemeral panel")]


async def play_move(
    w: World, table: TableRecord, index: int, via: str
) -> list[tuple[FakeMessage, int, str]]:
    """Make the legal move ``index`` of the seat to act through its panel, as a person would."""
    state = table.running_state()
    seat = GAME.to_act(state)
    assert seat is not None
    user = user_of(w, table, seat)
    legal = GAME.legal_actions(state, seat)
    action = legal[index]
    panel, extra = await panel_for(w, table, user, via)
    where = f"{user.name}'s {via} panel"
    said: set[str] = set()
    for record in await w.running.store.actions(table.id):
        said |= set(codes_in(record.events))
    check_panel(w, table, panel, seat, where, frozenset(said))
    assert offered(panel, table) == expected_controls(legal)
    if action["type"] == "arrange":
        # By label, as a person reads it.
        label = ("King on the left", "King in the middle", "King on the right")
        await user.click(panel, label[action["order"].index("KING")])
    elif action["type"] == "play":
        await user.select(panel, action["card"], placeholder="Play a card…")
        panel = w.fake.latest(panel)
        actions, stages = offered(panel, table)
        same_card = {i for i, a in enumerate(legal) if a.get("card") == action["card"]}
        assert actions == same_card and not stages, f"{where} after choosing {action['card']}"
        assert "Back" in [b.label for b in panel.buttons()]
        if action["card"] == "JUDGE":
            (menu,) = [s for s in panel.selects() if str(index) in {o.value for o in s.options}]
            await user.select(panel, str(index), custom_id=menu.custom_id)
        else:
            await user.click(panel, custom_id=f"sh:act:{table.id}:{table.ply}:{index}")
    else:
        if action["type"] == "assassinate":
            # The drawer is pinged, and the strike is offered on the table as well.
            message = w.table_message(table)
            assert message.content == f"<@{user.id}>, it's your turn."
            assert "drew the Assassin" in message.text()
            strikes = [b.label for b in message.buttons() if b.label.startswith("Strike")]
            assert len(strikes) == len(legal)
        await user.click(panel, custom_id=f"sh:act:{table.id}:{table.ply}:{index}")
    # A move edits the table and both DM panels one after the other; a wider quiet window than
    # the default 40 ms keeps a garbage-collection pause between two edits (about 40 ms on this
    # test process's heap) from ending the wait before the last panel is edited.
    await w.fake.settle(quiet=SETTLE_AFTER_MOVE)
    return extra


async def play_whole_game(
    w: World, table: TableRecord, seed: int
) -> tuple[TableRecord, list[str], set[str]]:
    """Play to the end, alternating DM and ephemeral panels. Returns the final table, the moves
    made (a card's code for a play, else the move's type) and every line the table's "Recent"
    field showed."""
    rng = random.Random(seed)
    made: list[str] = []
    recent: set[str] = set()
    await check_everything(w, table)
    for step in range(STEPS_MAX):
        table = await w.table_by_id(table.id)
        if table.status == "over":
            break
        state = table.running_state()
        seat = GAME.to_act(state)
        assert seat is not None
        legal = GAME.legal_actions(state, seat)
        index = choose(state, seat, legal, rng)
        action = legal[index]
        made.append(str(action["card"] if action["type"] == "play" else action["type"]))
        # Alice arranges from the ephemeral panel and Bob from his DMs; later moves alternate.
        if action["type"] == "arrange":
            via = "ephemeral" if seat == 0 else "dm"
        else:
            via = "dm" if step % 2 else "ephemeral"
        extra = await play_move(w, table, index, via)
        table = await w.table_by_id(table.id)
        assert table.ply == step + 1, "the move was not applied exactly once"
        await check_everything(w, table, extra)
        fields = w.table_message(table).embeds[0].get("fields", [])
        recent |= {line for f in fields if f["name"] == "Recent" for line in f["value"].split("\n")}
    assert table.status == "over", "the game did not end"
    return table, made, recent


# -- tests ---------------------------------------------------------------------------------------


async def test_full_game_with_special_cards(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    w = world
    table = await open_game(w, monkeypatch, SEED_SPECIALS, specials=True)
    table, made, recent = await play_whole_game(w, table, SEED_SPECIALS)
    assert made[:2] == ["arrange", "arrange"]
    assert "assassinate" in made, "this seed was chosen to reach an Assassin decision"
    assert "JUDGE" in made
    assert table.result is not None
    final = w.table_message(table)
    line = RENDERER.result_line(table.result, [f"<@{u}>" for u in table.seats])
    assert final.content == line and [b.label for b in final.buttons()] == ["Rematch"]
    # Every castle card is face up at the end.
    assert "🂠" not in final.embeds[0]["description"]
    kinds = {e["type"] for r in await w.running.store.actions(table.id) for e in r.events}
    assert {"assassin_drawn", "artisan_cancelled", "cards_matched", "castle_revealed"} <= kinds
    assert {"card_removed", "column_cleared"} <= kinds, "a Judge and a Sorcerer took effect"
    # The table told each of them in words.
    for words in (
        "drew the Assassin!",
        "🗡️ The Assassin struck",
        "'s Artisan cancelled",
        "'s Judge removed",
        "'s Sorcerer cleared",
        "cards cleared from",
        "only a Throne. The column is closed",
        "King was hiding there!",
    ):
        assert any(words in line for line in recent), f"no {words!r} line in {sorted(recent)}"
    assert (await w.running.store.replay(table.id)) == table.running_state()


async def test_full_game_without_special_cards(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = world
    table = await open_game(w, monkeypatch, SEED_PLAIN, specials=False)
    state = table.running_state()
    assert len(state["pile"]) == 36
    table, made, recent = await play_whole_game(w, table, SEED_PLAIN)
    specials = {"JUDGE", "SORC", "ARTISAN", "ASSASSIN", "assassinate"}
    assert not specials & set(made)
    assert any(" matched " in line for line in recent)
    assert any("both cleared from" in line for line in recent)
    assert any(line.startswith("💥") and "only a Throne" in line for line in recent)
    assert table.result is not None
    assert w.table_message(table).content == RENDERER.result_line(
        table.result, [f"<@{u}>" for u in table.seats]
    )


async def test_specials_option_lobby_refusal_and_rules(world: World) -> None:
    w = world
    handle = await w.carol.slash(w.channel, "siege rules", game="king")
    assert handle.ephemeral and handle.response_message is not None
    rules = handle.response_message.text()
    assert "Siege the King — rules" in rules and "Artisan" in rules and "House rules" in rules
    with pytest.raises(SchemaMismatch):  # another game's option is not even offered
        await w.alice.slash(w.channel, "play castles-besieged", specials=False)
    assert await w.running.store.open_table_in(w.channel.id) is None
    handle = await w.alice.slash(w.channel, "play siege-the-king", specials=False)
    lobby = handle.response_message
    assert lobby is not None and "Specials: **Without special cards**" in lobby.text()
    await w.alice.slash(w.channel, "siege cancel")
    await w.fake.settle()
    handle = await w.alice.slash(w.channel, "play siege-the-king")
    lobby = handle.response_message
    assert lobby is not None and "Specials: **With special cards**" in lobby.text()
    table = await w.table()
    assert table.options == {"specials": True}


async def test_back_and_out_of_turn_panels(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    w = world
    table = await open_game(w, monkeypatch, SEED_PLAIN)
    # Bob cannot arrange before Alice: his panel waits, and has no moves.
    opened = await w.bob.click(w.table_message(table), "My hand")
    panel = opened.response_message
    assert panel is not None and "is to act" in panel.text()
    assert offered(panel, table) == (set(), set())
    for user in (w.alice, w.bob):
        table = await w.table_by_id(table.id)
        await user.click(dm_panel(w, user, table), "King on the right")
        await w.fake.settle(quiet=SETTLE_AFTER_MOVE)
    table = await w.table_by_id(table.id)
    state = table.running_state()
    seat = GAME.to_act(state)
    assert seat is not None
    user = user_of(w, table, seat)
    panel = dm_panel(w, user, table)
    legal = GAME.legal_actions(state, seat)
    card = next(a["card"] for a in legal if a["type"] == "play")
    await user.select(panel, card, placeholder="Play a card…")
    staged = w.fake.latest(panel)
    same_card = {i for i, a in enumerate(legal) if a.get("card") == card}
    assert offered(staged, table) == (same_card, set())
    await user.click(staged, "Back")
    back = w.fake.latest(panel)
    assert offered(back, table) == expected_controls(legal)
    assert (await w.table_by_id(table.id)).ply == table.ply, "choosing a card commits nothing"
    # The other player's panel offers no moves.
    other = user_of(w, table, 1 - seat)
    handle = await other.click(w.table_message(table), "My hand")
    assert handle.response_message is not None and offered(handle.response_message, table) == (
        set(),
        set(),
    )
    await check_everything(w, await w.table_by_id(table.id))
