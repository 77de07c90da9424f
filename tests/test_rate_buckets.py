"""discord.py's rate-limit buckets unused for IDLE_SECONDS are dropped, the others kept
(:mod:`runtime.rate_buckets`). The clock is injected: the buckets' last use is set by hand."""

from __future__ import annotations

import asyncio

import discord.http

from runtime.rate_buckets import (
    IDLE_SECONDS,
    BucketPruner,
    http_buckets,
    leave_clearing_to_pruner,
    prune_idle_buckets,
)

NOW = 10_000.0  # the event loop's clock, as the test has it


def bucket(last_used: float) -> discord.http.Ratelimit:
    made = discord.http.Ratelimit(None)
    made._last_request = last_used
    return made


async def test_buckets_unused_for_the_idle_time_are_dropped_and_used_ones_kept() -> None:
    buckets = {
        "idle": bucket(NOW - IDLE_SECONDS - 1),
        "just idle": bucket(NOW - IDLE_SECONDS),
        "used a second ago": bucket(NOW - 1),
        "used just under the idle time ago": bucket(NOW - IDLE_SECONDS + 1),
    }
    assert prune_idle_buckets(buckets, NOW) == 2
    assert sorted(buckets) == ["used a second ago", "used just under the idle time ago"]


async def test_an_idle_bucket_that_still_holds_requests_back_is_kept() -> None:
    out = bucket(NOW - 600)
    out.outgoing = 1  # a request sent, not answered yet
    waiting = bucket(NOW - 600)
    waiting._pending_requests.append(asyncio.get_running_loop().create_future())
    window = bucket(NOW - 600)
    window.remaining, window.expires = 0, NOW + 5  # Discord's window still runs
    over = bucket(NOW - 600)
    over.remaining, over.expires = 0, NOW - 5  # the window is over: nothing to remember
    buckets = {"out": out, "waiting": waiting, "window": window, "over": over}
    assert prune_idle_buckets(buckets, NOW) == 1
    assert sorted(buckets) == ["out", "waiting", "window"]


async def test_a_bucket_under_two_keys_goes_from_both() -> None:
    shared = bucket(NOW - 120)
    buckets = {"POST /channels/{channel_id}/messages:1": shared, "abc123:1": shared}
    assert prune_idle_buckets(buckets, NOW) == 2
    assert buckets == {}


async def test_the_pruner_prunes_discord_py_s_own_buckets_by_its_clock() -> None:
    http = discord.http.HTTPClient(asyncio.get_running_loop())
    first = http.get_ratelimit("POST /channels/{channel_id}/messages:1")
    http.get_ratelimit("POST /channels/{channel_id}/messages:2")
    first._last_request -= 2 * IDLE_SECONDS
    now = [asyncio.get_running_loop().time()]
    client = type("Client", (), {"http": http})()
    pruner = BucketPruner(lambda: http_buckets(client), lambda: now[0])
    assert pruner.prune() == 1
    assert list(http._buckets) == ["POST /channels/{channel_id}/messages:2"]
    now[0] += IDLE_SECONDS
    assert pruner.prune() == 1
    assert http._buckets == {} and pruner.pruned == 2


async def test_no_buckets_to_prune() -> None:
    pruner = BucketPruner(lambda: http_buckets(object()), lambda: NOW)
    assert pruner.prune() == 0


async def test_discord_py_s_walk_at_each_new_bucket_is_left_to_the_pruner() -> None:
    """discord.py walks every bucket at each new one once it holds 256, dropping those unused
    for five minutes; on the bot's HTTP client the pruner does that instead."""

    def held(http: discord.http.HTTPClient) -> discord.http.Ratelimit:
        old = http.get_ratelimit("old")
        for n in range(300):
            http.get_ratelimit(f"POST /channels/{{channel_id}}/messages:{n}")
        old._last_request -= 400  # unused for discord.py's five minutes
        return old

    mine = discord.http.HTTPClient(asyncio.get_running_loop())
    client = type("Client", (), {"http": mine})()
    assert leave_clearing_to_pruner(client)
    old = held(mine)
    mine.get_ratelimit("a new one")
    assert mine._buckets["old"] is old  # no walk: still there

    stock = discord.http.HTTPClient(asyncio.get_running_loop())
    held(stock)
    stock.get_ratelimit("a new one")
    assert "old" not in stock._buckets  # discord.py's walk, as it is

    # The pruner's pass turns the walk off on a client made anew (a new login).
    client.http = renewed = discord.http.HTTPClient(asyncio.get_running_loop())
    pruner = BucketPruner(
        lambda: http_buckets(client),
        asyncio.get_running_loop().time,
        each_pass=lambda: leave_clearing_to_pruner(client),
    )
    pruner.prune()
    old = held(renewed)
    renewed.get_ratelimit("a new one")
    assert renewed._buckets["old"] is old
    assert pruner.prune() >= 1  # and the pruner drops it (idle 15 s and more)
    assert "old" not in renewed._buckets


async def test_nothing_to_turn_off_without_an_http_client() -> None:
    assert not leave_clearing_to_pruner(object())
