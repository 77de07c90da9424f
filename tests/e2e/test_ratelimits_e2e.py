"""429 Too Many Requests, survived: the fake Discord answers 429 (on one route, on every route
that counts against the global limit, on the interaction callback) with tiny ``retry_after``
values, and discord.py waits and retries. The players see no error, no update is lost (the table
and every panel show the newest position, the next player still gets a fresh panel), and no move
is applied twice.
"""

from __future__ import annotations

import random

import pytest

from storage import TableRecord
from tests.e2e.moves import open_game, panel_of, play_move, to_act
from tests.e2e.world import World
from tests.fakecord import FakeDiscord

pytestmark = pytest.mark.e2e

RETRY_AFTER = 0.01  # seconds discord.py really waits: tiny, so the test stays fast
SETTLE = 0.1
HOUR = 3600.0


def apologies(w: World) -> list[str]:
    """Ephemeral answers and channel notices that tell a player something went wrong."""
    words = ("Sorry", "could not be redrawn", "went wrong")
    return [
        m.text()
        for m in w.fake.messages.values()
        if not m.deleted and any(word in m.text() for word in words)
    ]


async def play(
    w: World, table: TableRecord, moves: int, seed: int, *, slow: bool = False
) -> TableRecord:
    """Play ``moves`` moves; after each: applied exactly once, and what everyone sees is the
    newest position (the table's footer and every DM panel of the table). ``slow``: an hour
    passes before each move, so no interaction webhook is still valid and every edit, deletion
    and new DM goes through the ordinary (rate-limited) routes."""
    rng = random.Random(seed)
    delivery = w.running.hall.delivery
    now = [delivery.clock()]  # from its own time now: what was kept before expires too
    if slow:
        delivery.clock = lambda: now[0]
    for _ in range(moves):
        now[0] += HOUR
        table = await w.table_by_id(table.id)
        if table.status != "running":
            break
        ply = table.ply
        await play_move(w, table, rng)
        await w.fake.settle(quiet=SETTLE)
        table = await w.table_by_id(table.id)
        assert table.ply == ply + 1, "a move was lost or applied twice"
        shown = w.table_message(table)
        assert f"Table #{table.id}" in shown.text()
        assert shown.buttons() == w.fake.latest(shown).buttons()
        passed = to_act(table)
        for user in (w.alice, w.bob):
            panel = panel_of(w, user, table)
            assert panel is not None, f"{user.name} lost their DM panel"
            mine = f"sh:act:{table.id}:{table.ply}:"
            offers = any(b.custom_id and b.custom_id.startswith(mine) for b in panel.buttons())
            offers |= any(
                s.custom_id.startswith(
                    (f"sh:pick:{table.id}:{table.ply}:", f"sh:stage:{table.id}:")
                )
                for s in panel.selects()
            )
            assert offers == (user.id == passed), f"{user.name}'s panel is out of date"
    records = await w.running.store.recent_actions(table.id, 1000)
    assert [r.ply for r in records] == list(range(len(records))), "one log row per move"
    return table


def answered(fake: FakeDiscord) -> int:
    return fake.rate_limited_answers


async def test_a_route_limit_is_waited_out(world: World) -> None:
    w = world
    table = await open_game(w, "castles")
    new_messages = w.fake.rate_limit("POST", r"^/channels/\d+/messages$", times=3)
    edits = w.fake.rate_limit("PATCH", r"^/channels/\d+/messages/\d+$", times=2)
    deletes = w.fake.rate_limit("DELETE", r"^/channels/\d+/messages/\d+$", times=2)
    table = await play(w, table, 12, seed=3, slow=True)
    # Every limit was met (so the retries were exercised), and nothing went wrong for anyone.
    assert (new_messages.hits, edits.hits, deletes.hits) == (3, 2, 2)
    assert not apologies(w)


async def test_a_global_limit_is_waited_out(world: World) -> None:
    w = world
    table = await open_game(w, "castles")
    limit = w.fake.rate_limit(times=6, retry_after=RETRY_AFTER, is_global=True)
    table = await play(w, table, 10, seed=4, slow=True)
    assert limit.hits == 6
    assert not apologies(w)


async def test_a_limited_interaction_callback_is_retried_once(world: World) -> None:
    w = world
    table = await open_game(w, "castles")
    callbacks = w.fake.rate_limit("POST", r"^/interactions/\d+/[^/]+/callback$", times=2)
    hooks = w.fake.rate_limit("*", r"^/webhooks/", times=2)
    table = await play(w, table, 8, seed=5)
    assert (callbacks.hits, hooks.hits) == (2, 2)
    assert not apologies(w)


async def test_the_fake_answers_429_the_way_discord_does(world: World) -> None:
    """The 429 carries what discord.py reads: a ``Via`` header (without it a 429 is taken for
    a Cloudflare ban), ``X-RateLimit-*`` headers, and ``retry_after``/``global`` in the body."""
    import aiohttp

    w = world
    route = w.fake.rate_limit("GET", r"^/gateway$", times=1, retry_after=0.0)
    w.fake.rate_limit("GET", r"^/gateway$", times=1, retry_after=0.0, is_global=True)
    async with aiohttp.ClientSession(headers={"Authorization": "Bot fake-token"}) as session:
        for is_global, wait in ((False, 0.0), (True, 0.0)):
            async with session.get(f"{w.fake.api_base}/gateway") as response:
                assert response.status == 429
                body = await response.json()
                assert body["retry_after"] == wait and body["global"] is is_global
                assert response.headers["Via"]
                assert response.headers["X-RateLimit-Remaining"] == "0"
                assert float(response.headers["X-RateLimit-Reset-After"]) == wait
                assert ("X-RateLimit-Global" in response.headers) is is_global
                assert response.headers["X-RateLimit-Scope"] == ("global" if is_global else "user")
        async with session.get(f"{w.fake.api_base}/gateway") as response:
            assert response.status == 200
    assert answered(w.fake) == 2 and route.hits == route.answered == 1
