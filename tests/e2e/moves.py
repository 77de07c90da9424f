"""Playing whole games through the fake Discord while counting what each move costs in requests.

Discord gives a bot about 50 requests per second across all its servers; interaction callbacks
and interaction webhooks (the answer to a click, its follow-ups) are exempt. A move's cost is
counted from the fake's split counters between the click (or the first-step menu of a two-step
move) and the moment the bot is quiet again. Used by ``test_requests_per_move_e2e.py`` and
``test_ratelimits_e2e.py``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from cogs.guide import command_name
from engine.rules import Action, State
from storage import TableRecord
from tests.e2e.world import World
from tests.fakecord import FakeMessage
from tests.fakecord.world import FakeUser

SETTLE_AFTER_MOVE = 0.1  # a GC pause between two requests of one move must not end the wait
STEPS_MAX = 400
ACT_ID = re.compile(r"^sh:act:(\d+):(\d+):(\d+)$")

#: Options that keep each game short, by game.
OPTIONS: dict[str, dict[str, str | int]] = {
    "castles": {"dealer": "1"},
    "king": {},
    "knights": {"side": "host_first"},
    "towers": {"start_chips": 6, "tower_height": 3},
    "kurth": {"difficulty": "easy"},
}
GAMES = tuple(OPTIONS)

Policy = Callable[[State, list[Action]], set[int]]


def _knights(state: State, legal: list[Action]) -> set[int]:
    pieces = state["pieces"]
    captures = {i for i, a in enumerate(legal) if a["type"] == "move" and a["to"] in pieces}
    commander = {i for i in captures if pieces[legal[i]["to"]] == "C"}
    return commander or captures


def _towers(state: State, legal: list[Action]) -> set[int]:
    # Calls and bets bring the shows (and the end) on; folding now and then keeps hands short.
    wanted = {"call", "bet", "raise", "check", "buy_flip", "decline_flip", "fold"}
    return {i for i, a in enumerate(legal) if a["type"] in wanted}


def _kurth(state: State, legal: list[Action]) -> set[int]:
    return {i for i, a in enumerate(legal) if a["type"] in ("attack", "move", "end_turn")}


#: Which legal actions a game's scripted players prefer (empty or no policy: any offered one).
POLICIES: dict[str, Policy] = {"knights": _knights, "towers": _towers, "kurth": _kurth}


@dataclass
class MoveCost:
    ply: int
    exempt: int
    limited: int
    turn_passed_to: int | None
    notified: bool  # the player whose turn began got a new message (DM or channel mention)


@dataclass
class GameCost:
    game: str
    moves: list[MoveCost] = field(default_factory=list)

    @property
    def exempt_per_move(self) -> float:
        return sum(m.exempt for m in self.moves) / len(self.moves)

    @property
    def limited_per_move(self) -> float:
        return sum(m.limited for m in self.moves) / len(self.moves)

    def __str__(self) -> str:
        return (
            f"{self.game}: {len(self.moves)} moves, {self.exempt_per_move:.2f} exempt and "
            f"{self.limited_per_move:.2f} rate-limited requests per move"
        )


def players(w: World, game: str) -> list[FakeUser]:
    if game == "kurth":
        return [w.alice]
    if game == "towers":
        return [w.alice, w.bob, w.carol]
    return [w.alice, w.bob]


async def open_game(w: World, game: str) -> TableRecord:
    """The first player opens the game, the others join, the host starts it."""
    seated = players(w, game)
    handle = await seated[0].slash(w.channel, f"play {command_name(game)}", **OPTIONS[game])
    lobby = handle.response_message
    assert lobby is not None and not handle.ephemeral
    if len(seated) > 1:
        for user in seated[1:]:
            await user.click(w.fake.latest(lobby), "Join")
        await seated[0].click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running"
    return table


def panel_of(w: World, user: FakeUser, table: TableRecord) -> FakeMessage | None:
    panels = [m for m in user.dms() if f"Table #{table.id}" in m.text()]
    assert len(panels) <= 1, f"{user.name} has {len(panels)} DM panels for table {table.id}"
    return panels[0] if panels else None


def offered(message: FakeMessage, table: TableRecord) -> dict[int, tuple[str, str]]:
    """Legal-list index -> ("button", custom_id) or ("select", custom_id) on ``message``."""
    found: dict[int, tuple[str, str]] = {}
    prefix = f"sh:act:{table.id}:{table.ply}:"
    for button in message.buttons():
        if button.custom_id and button.custom_id.startswith(prefix) and not button.disabled:
            found[int(button.custom_id[len(prefix) :])] = ("button", button.custom_id)
    for select in message.selects():
        if select.custom_id.startswith(f"sh:pick:{table.id}:{table.ply}:"):
            for option in select.options:
                found.setdefault(int(option.value), ("select", select.custom_id))
    return found


def stage_menus(message: FakeMessage, table: TableRecord) -> list[tuple[str, list[str]]]:
    return [
        (s.custom_id, [o.value for o in s.options])
        for s in message.selects()
        if s.custom_id.startswith(f"sh:stage:{table.id}:{table.ply}:")
    ]


class Counter:
    """The fake's exempt and rate-limited request counts since the last ``take``."""

    def __init__(self, w: World) -> None:
        self.fake = w.fake
        self.exempt, self.limited = self.fake.exempt_count, self.fake.limited_count

    def take(self) -> tuple[int, int]:
        exempt = self.fake.exempt_count - self.exempt
        limited = self.fake.limited_count - self.limited
        self.exempt, self.limited = self.fake.exempt_count, self.fake.limited_count
        return exempt, limited


async def play_move(
    w: World, table: TableRecord, rng: random.Random, *, prefer_table: bool | None = None
) -> None:
    """The seat to act makes one legal move from what it sees: the table message or its DM
    panel, taking a first-step menu first when the move needs one."""
    state = table.running_state()
    seat = table.engine.to_act(state)
    assert seat is not None
    user = {u.id: u for u in w.fake.users.values()}[table.seats[seat]]
    legal = table.engine.legal_actions(state, seat)
    policy = POLICIES.get(table.game)
    wanted = policy(state, legal) if policy else set()
    for _ in range(3):
        sources = [w.table_message(table)]
        panel = panel_of(w, user, table)
        if panel is not None:
            sources.append(panel)
        if prefer_table is False:
            sources.reverse()
        choices = [(m, i, how) for m in sources for i, how in offered(m, table).items()]
        if choices:
            best = [c for c in choices if c[1] in wanted] or choices
            if prefer_table is None:
                message, index, (kind, custom_id) = rng.choice(best)
            else:
                message, index, (kind, custom_id) = best[0]
            if kind == "button":
                await user.click(message, custom_id=custom_id)
            else:
                await user.select(message, str(index), custom_id=custom_id)
            return
        staged = [(m, menu) for m in sources for menu in stage_menus(m, table)]
        assert staged, f"{user.name} sees no way to move at ply {table.ply}"
        message, (custom_id, values) = staged[0]
        await user.select(message, rng.choice(values), custom_id=custom_id)
        await w.fake.settle(quiet=SETTLE_AFTER_MOVE)
    raise AssertionError("no move offered after three first-step menus")


async def play_counting(w: World, game: str, seed: int = 1) -> GameCost:
    """Play a whole game of ``game`` by clicks, counting each move's requests."""
    table = await open_game(w, game)
    rng = random.Random(f"{game}:{seed}")
    cost = GameCost(game)
    counter = Counter(w)
    for _ in range(STEPS_MAX):
        table = await w.table_by_id(table.id)
        if table.status != "running":
            break
        ply, actor = table.ply, to_act(table)
        seen = set(w.fake.messages)
        counter.take()
        await play_move(w, table, rng)
        await w.fake.settle(quiet=SETTLE_AFTER_MOVE)
        exempt, limited = counter.take()
        table = await w.table_by_id(table.id)
        assert table.ply == ply + 1, f"{game}: ply {ply} was not applied exactly once"
        now = to_act(table)
        passed = now if now != actor else None
        notified = passed is not None and any(
            m.id not in seen and not m.deleted and _reaches(w, m, passed)
            for m in w.fake.messages.values()
        )
        cost.moves.append(MoveCost(ply, exempt, limited, passed, notified))
    assert table.status == "over", f"{game}: the game did not end in {STEPS_MAX} moves"
    return cost


def to_act(table: TableRecord) -> int | None:
    """The user to act, or ``None`` when the game is over."""
    if table.status != "running":
        return None
    state = table.running_state()
    seat = table.engine.to_act(state)
    if seat is None:
        return None
    return table.seats[seat]


def _reaches(w: World, message: FakeMessage, user_id: int) -> bool:
    """Does a new ``message`` notify ``user_id``: in their DMs, or mentioning them."""
    if message.ephemeral_for is not None:
        return False
    channel = w.fake.dm_channels.get(user_id)
    if channel is not None and message.channel_id == channel.id:
        return True
    return f"<@{user_id}>" in message.content


def describe(costs: list[GameCost]) -> str:
    return "\n".join(str(c) for c in costs)


__all__ = ["GAMES", "GameCost", "MoveCost", "describe", "open_game", "play_counting", "play_move"]
