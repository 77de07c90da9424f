"""What a move costs in requests, for a whole game of each title (issue 13).

Discord gives a bot about 50 requests per second across every server; interaction callbacks and
interaction webhooks are exempt. Before issue 13 every move cost one exempt and three
rate-limited requests (the table or panel edit, a fresh DM panel for the next player, the old
panel's deletion). Now the clicked message is the answer, an unchanged message is not edited,
and edits, deletions and new DMs go through the webhook of a recent click when there is one.
The player whose turn begins is still notified by a new message, every time.
"""

from __future__ import annotations

import random
from typing import cast

import discord
import pytest

from cogs.dm_channels import DmChannels
from tests.e2e.moves import (
    GAMES,
    Counter,
    offered,
    open_game,
    panel_of,
    play_counting,
    play_move,
)
from tests.e2e.world import World

pytestmark = pytest.mark.e2e

#: The issue's target: on average at most 1.2 rate-limited requests per move.
TARGET = 1.2
HOUR = 3600.0


@pytest.mark.sqlite_only(
    "counts Discord requests, which the backend does not change; a whole game of each title is "
    "the suite's longest e2e run, and the full games in each game's own e2e file run on both"
)
@pytest.mark.parametrize("game", GAMES)
async def test_a_whole_game_within_the_rate_limit_budget(world: World, game: str) -> None:
    cost = await play_counting(world, game)
    print(cost)
    assert cost.limited_per_move <= TARGET, cost
    # Every move is answered through its interaction (the exempt callback at least).
    assert all(move.exempt >= 1 for move in cost.moves), cost
    # Whoever's turn begins gets a new message (their fresh DM panel): Discord notifies on new
    # messages only, never on edits.
    passed = [m for m in cost.moves if m.turn_passed_to is not None]
    assert all(m.notified for m in passed), [m for m in passed if not m.notified]
    if game != "kurth":
        assert passed, "a game of two or more players passes the turn"


async def test_a_redraw_that_changes_nothing_sends_nothing(world: World) -> None:
    """Bringing every panel and the table up to date when nothing changed costs no request."""
    w = world
    table = await open_game(w, "castles")
    counter = Counter(w)
    hall = w.running.hall
    assert await hall.refresh_table(table)
    await hall.refresh_panels(table)
    await w.fake.settle()
    assert counter.take() == (0, 0)
    assert hall.delivery.counts["unchanged"] >= 3  # the table and two panels


async def test_after_the_tokens_expire_moves_still_update_and_notify(world: World) -> None:
    """Interaction webhooks live 15 minutes: in a slow game the bot falls back to the ordinary
    routes (rate-limited), and still edits, replaces and notifies exactly as before."""
    w = world
    table = await open_game(w, "castles")
    delivery = w.running.hall.delivery
    now = [delivery.clock()]  # from its own time now: what was kept before expires too
    delivery.clock = lambda: now[0]
    rng = random.Random(7)
    counter = Counter(w)
    limited = 0
    for _ in range(6):
        now[0] += HOUR  # every token the bot holds is long expired
        table = await w.table_by_id(table.id)
        ply = table.ply
        seat = table.engine.to_act(table.running_state())
        assert seat is not None
        actor = table.seats[seat]
        await play_move(w, table, rng)
        await w.fake.settle(quiet=0.1)
        limited += counter.take()[1]
        table = await w.table_by_id(table.id)
        assert table.ply == ply + 1
        seat = table.engine.to_act(table.running_state())
        assert seat is not None and table.seats[seat] != actor  # castles passes every move
        user = w.alice if table.seats[seat] == w.alice.id else w.bob
        panel = panel_of(w, user, table)
        assert panel is not None, f"{user.name} has no DM panel"
        assert offered(panel, table), f"{user.name}'s fresh panel offers no move"
    # With no webhook to lean on, a move costs what it used to (new panel, old one deleted, the
    # other panel or the table edited): the fallback really is used.
    assert limited >= 2 * 6


def dm_channels_asked(w: World) -> int:
    """How many times the bot asked Discord for a DM channel (``POST /users/@me/channels``)."""
    return sum(line.startswith("POST /users/@me/channels") for line in w.fake.request_log)


async def test_fresh_panels_go_to_the_known_dm_channel_without_asking_discord(world: World) -> None:
    """discord.py keeps the 128 DM channels it saw last: with more players than that, every fresh
    panel not sent as a click's follow-up began by asking Discord for the player's DM channel (a
    rate-limited request; 3 of the first 6 moves of each table at 1,000 tables). The channel of
    a player's stored panel is that channel. After a restart nothing is in memory (no click's
    webhook, no DM channel in discord.py): moves made from the table message still send each
    player their fresh panel without asking."""
    w = world
    table = await open_game(w, "castles")
    await w.restart_bot()
    asked = dm_channels_asked(w)
    rng = random.Random(11)
    for _ in range(4):
        table = await w.table_by_id(table.id)
        seat = table.engine.to_act(table.running_state())
        assert seat is not None
        actor = table.seats[seat]
        await play_move(w, table, rng, prefer_table=True)
        await w.fake.settle(quiet=0.1)
        table = await w.table_by_id(table.id)
        seat = table.engine.to_act(table.running_state())
        assert seat is not None and table.seats[seat] != actor
        user = w.alice if table.seats[seat] == w.alice.id else w.bob
        panel = panel_of(w, user, table)  # one panel each: the old one was deleted
        assert panel is not None and offered(panel, table), f"{user.name}: no fresh panel"
        assert panel.channel_id == w.fake.dm_channel_for(user).id
    assert dm_channels_asked(w) == asked


async def test_a_kept_dm_channel_discord_no_longer_knows_is_asked_for_again(world: World) -> None:
    """A kept DM channel that Discord answers as unknown is dropped and asked for once; the DM
    goes out."""
    w = world
    dms = w.running.hall.dms
    dms.note(w.alice.id, 4_000_000_000_000_000_000)  # no such channel
    asked = dm_channels_asked(w)
    message = await dms.send(w.alice.id, content="Your move at table #1.")
    real = w.fake.dm_channel_for(w.alice).id
    assert message.channel.id == real and dms.known(w.alice.id) == real
    assert [m.content for m in w.alice.dms()] == ["Your move at table #1."]
    assert dm_channels_asked(w) == asked + 1
    await dms.send(w.alice.id, content="Again.")  # known now: not asked again
    assert dm_channels_asked(w) == asked + 1


def test_dm_channels_keep_at_most_their_limit_the_oldest_let_go() -> None:
    dms = DmChannels(cast(discord.Client, None), limit=2)
    for user in (1, 2, 3):
        dms.note(user, user * 10)
    assert [dms.known(u) for u in (1, 2, 3)] == [None, 20, 30]
    dms.note(2, 20)  # known already: changes nothing
    dms.note(4, 40)
    assert [dms.known(u) for u in (2, 3, 4)] == [None, 30, 40]
