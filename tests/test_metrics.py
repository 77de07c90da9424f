"""The Prometheus metrics (cogs/metrics.py): route labels, 429 scopes, answer latency, moves
counted from the commit hook, the endpoint, and the METRICS_PORT setting."""

from __future__ import annotations

import asyncio
import contextlib
import doctest
import socket
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import aiohttp
import pytest
from aiohttp import web

import bot
import cogs.metrics
from cogs.metrics import Metrics, is_exempt, route_of, sample, snowflake_seconds
from tests.fakecord import FakeDiscord

API = "https://discord.com/api/v10"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def text_of(metrics: Metrics) -> str:
    return (await metrics.scrape()).decode()


# -- route templates ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "url", "route"),
    [
        (
            "POST",
            f"{API}/interactions/1182736450192/aW50ZXJhY3Rpb246MTE4Mjcz/callback",
            "POST /interactions/{id}/{token}/callback",
        ),
        (
            "PATCH",
            f"{API}/webhooks/99/aW50ZXJhY3Rpb246MTE4Mjcz/messages/@original",
            "PATCH /webhooks/{id}/{token}/messages/@original",
        ),
        (
            "DELETE",
            f"{API}/webhooks/99/aW50ZXJh-Y3Rpb_24/messages/123456",
            "DELETE /webhooks/{id}/{token}/messages/{id}",
        ),
        ("POST", f"{API}/channels/5/messages", "POST /channels/{id}/messages"),
        ("PATCH", f"{API}/channels/5/messages/6?x=1", "PATCH /channels/{id}/messages/{id}"),
        ("POST", f"{API}/users/@me/channels", "POST /users/@me/channels"),
        (
            "PUT",
            f"{API}/channels/5/messages/6/reactions/%E2%9C%85/@me",
            "PUT /channels/{id}/messages/{id}/reactions/{emoji}/@me",
        ),
        (
            "PUT",
            f"{API}/applications/7/guilds/8/commands",
            "PUT /applications/{id}/guilds/{id}/commands",
        ),
        ("GET", f"{API}/gateway/bot", "GET /gateway/bot"),
        ("GET", f"{API}/guilds/8/Some%20Name", "GET /guilds/{id}/{value}"),
        ("GET", "https://cdn.discordapp.com/avatars/1/abc.png", "GET other"),
    ],
)
def test_routes_are_templates_without_ids_or_tokens(method: str, url: str, route: str) -> None:
    assert route_of(method, url) == route


def test_the_examples_in_the_module_hold() -> None:
    outcome = doctest.testmod(cogs.metrics, verbose=False)
    assert outcome.attempted >= 4 and outcome.failed == 0


def test_interaction_callbacks_and_webhooks_are_exempt_from_the_global_limit() -> None:
    assert is_exempt("POST /interactions/{id}/{token}/callback")
    assert is_exempt("PATCH /webhooks/{id}/{token}/messages/@original")
    assert not is_exempt("POST /channels/{id}/messages")
    assert not is_exempt("GET other")


def test_a_snowflake_holds_the_discord_time() -> None:
    # 175928847299117063 is the example id of Discord's documentation: 2016-04-30 11:18:25.796.
    assert snowflake_seconds(175928847299117063) == pytest.approx(1462015105.796)


# -- REST requests seen through the trace ---------------------------------------------------


@contextlib.asynccontextmanager
async def scripted(
    handler: Any, path: str = "/api/v10/{tail:.*}"
) -> AsyncIterator[tuple[str, aiohttp.ClientSession, Metrics]]:
    """A tiny HTTP server answering every method on ``path`` with ``handler``, and a session
    traced by a fresh :class:`Metrics` (as discord.py's is): ``(base URL, session, metrics)``."""
    app = web.Application()
    app.router.add_route("*", path, handler)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    metrics = Metrics()
    try:
        async with aiohttp.ClientSession(trace_configs=[metrics.trace_config]) as session:
            yield f"http://127.0.0.1:{port}/api/v10", session, metrics
    finally:
        await runner.cleanup()


async def test_429s_are_counted_by_scope_from_headers_or_body() -> None:
    answers = [
        # Discord's global limit says so in a header, and in the body.
        ({"Via": "1.1 google", "X-RateLimit-Global": "true"}, {"global": True}),
        # A route's bucket: scope user (or shared).
        ({"Via": "1.1 google", "X-RateLimit-Scope": "user"}, {"global": False}),
        ({"Via": "1.1 google", "X-RateLimit-Scope": "shared"}, {"global": False}),
        # No scope header: the body decides.
        ({"Via": "1.1 google"}, {"global": True}),
        ({"Via": "1.1 google"}, {"global": False}),
        # No Via header: Cloudflare's ban (discord.py reads it so too).
        ({}, {"message": "You are being blocked"}),
    ]

    async def handler(request: web.Request) -> web.Response:
        headers, body = answers[int(request.query["n"])]
        return web.json_response({"retry_after": 0.0, **body}, status=429, headers=headers)

    async with scripted(handler) as (base, session, metrics):
        for n in range(len(answers)):
            async with session.get(f"{base}/channels/5/messages", params={"n": n}) as response:
                assert response.status == 429
                assert "retry_after" in await response.json()  # the body is still readable
        text = await text_of(metrics)
    assert sample(text, "siege_rest_429_total", {"scope": "global"}) == 2
    assert sample(text, "siege_rest_429_total", {"scope": "route"}) == 3
    assert sample(text, "siege_rest_429_total", {"scope": "cloudflare"}) == 1
    labels = {"route": "GET /channels/{id}/messages", "status": "429", "budget": "limited"}
    assert sample(text, "siege_rest_requests_total", labels) == len(answers)


async def test_the_fakes_429s_are_counted_as_route_and_global(fakecord: FakeDiscord) -> None:
    fakecord.rate_limit("GET", r"^/gateway$", times=1, retry_after=0.0)
    fakecord.rate_limit("GET", r"^/gateway$", times=1, retry_after=0.0, is_global=True)
    metrics = Metrics()
    headers = {"Authorization": "Bot fake-token"}
    async with aiohttp.ClientSession(headers=headers, trace_configs=[metrics.trace_config]) as s:
        for status in (429, 429, 200):
            async with s.get(f"{fakecord.api_base}/gateway") as response:
                assert response.status == status
    text = await text_of(metrics)
    assert sample(text, "siege_rest_429_total", {"scope": "route"}) == 1
    assert sample(text, "siege_rest_429_total", {"scope": "global"}) == 1
    assert sample(text, "siege_rest_requests_total", {"route": "GET /gateway"}) == 3
    assert sample(text, "siege_rest_requests_total", {"status": "200"}) == 1


async def test_an_answer_is_timed_from_the_interactions_creation() -> None:
    """The snowflake's time to the end of the callback request: 250 ms here."""
    created = 1_700_000_000.0
    interaction = (int(created * 1000) - 1420070400000) << 22
    now = [created + 0.25]

    async def handler(request: web.Request) -> web.Response:
        return web.Response(status=204 if request.method == "POST" else 200)

    async with scripted(handler) as (base, session, metrics):
        metrics.wall_clock = lambda: now[0]
        url = f"{base}/interactions/{interaction}/c2VjcmV0LXRva2Vu/callback"
        async with session.post(url, json={"type": 7}) as response:
            assert response.status == 204
        async with session.get(f"{base}/channels/5/messages/6"):
            pass  # not an answer
        text = await text_of(metrics)
    assert sample(text, "siege_answer_seconds_count") == 1
    assert sample(text, "siege_answer_seconds_sum") == pytest.approx(0.25)
    assert sample(text, "siege_answer_seconds_bucket", {"le": "0.15"}) == 0
    assert sample(text, "siege_answer_seconds_bucket", {"le": "0.25"}) == 1
    exempt = {"route": "POST /interactions/{id}/{token}/callback", "budget": "exempt"}
    assert sample(text, "siege_rest_requests_total", exempt) == 1
    assert "c2VjcmV0LXRva2Vu" not in text and str(interaction) not in text


async def test_a_request_that_fails_is_counted_as_an_error() -> None:
    metrics = Metrics()
    port = free_port()  # nobody listens there
    async with aiohttp.ClientSession(trace_configs=[metrics.trace_config]) as session:
        with pytest.raises(aiohttp.ClientConnectionError):
            await session.get(f"http://127.0.0.1:{port}/api/v10/channels/5/messages")
    text = await text_of(metrics)
    errors = {"route": "GET /channels/{id}/messages", "status": "error"}
    assert sample(text, "siege_rest_requests_total", errors) == 1


# -- moves ------------------------------------------------------------------------------------


def table(table_id: int, ply: int, status: str = "running", game: str = "castles") -> Any:
    return SimpleNamespace(id=table_id, ply=ply, status=status, game=game)


async def test_moves_are_counted_once_from_the_commit_hook() -> None:
    metrics = Metrics()
    hook = metrics.committed
    hook(table(1, 0))  # the game starts: no move
    hook(table(1, 1))
    hook(table(1, 1))  # a second call for the same change (a computer's reminder, say)
    hook(table(1, 3))  # two changes, one call
    hook(table(1, 2))  # a late call for an older change
    hook(table(2, 5, game="king"))  # first seen mid-game (after a restart): one move
    hook(table(1, 4, status="over"))  # the last move ends the game
    hook(table(3, 0, status="cancelled"))  # a lobby nobody started
    text = await text_of(metrics)
    assert sample(text, "siege_moves_total", {"game": "castles"}) == 4
    assert sample(text, "siege_moves_total", {"game": "king"}) == 1
    assert set(metrics._plies) == {2}  # finished tables are forgotten


# -- the endpoint -----------------------------------------------------------------------------


def get(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, response.headers["Content-Type"], response.read().decode()


async def test_the_endpoint_serves_fresh_counts_and_stops() -> None:
    metrics = Metrics()
    counts = {"lobby": 2, "running": 5}

    async def count() -> dict[str, int]:
        return counts

    metrics.count_open_tables = count
    metrics.swept_late("deadline", 12.5)
    metrics.swept(0.02)
    port = free_port()
    await metrics.serve(port)
    try:
        status, kind, text = await asyncio.to_thread(get, f"http://127.0.0.1:{port}/metrics")
        assert status == 200 and kind.startswith("text/plain")
        assert sample(text, "siege_open_tables", {"status": "running"}) == 5
        assert sample(text, "siege_open_tables", {"status": "lobby"}) == 2
        assert sample(text, "siege_sweeper_lag_seconds_count", {"kind": "deadline"}) == 1
        assert sample(text, "siege_sweeper_lag_seconds_bucket", {"le": "10.0"}) == 0
        assert sample(text, "siege_sweeper_lag_seconds_bucket", {"le": "20.0"}) == 1
        assert sample(text, "siege_sweep_seconds") == pytest.approx(0.02)
        assert sample(text, "process_resident_memory_bytes") > 0
        counts["running"] = 4
        _, _, text = await asyncio.to_thread(get, f"http://127.0.0.1:{port}/metrics")
        assert sample(text, "siege_open_tables", {"status": "running"}) == 4
        # A port in use is an error at once, not a silent nothing.
        with pytest.raises(OSError):
            await Metrics().serve(port)
    finally:
        await metrics.close()
    with pytest.raises(urllib.error.URLError):
        await asyncio.to_thread(get, f"http://127.0.0.1:{port}/metrics")
    await metrics.close()  # twice is harmless


async def test_a_failing_count_leaves_the_last_figures() -> None:
    metrics = Metrics()

    async def broken() -> dict[str, int]:
        raise RuntimeError("database gone")

    metrics.open_tables.labels("running").set(3)
    metrics.count_open_tables = broken
    assert sample(await text_of(metrics), "siege_open_tables", {"status": "running"}) == 3


def test_registries_are_separate() -> None:
    first, second = Metrics(), Metrics()
    first.moves.labels("castles").inc()
    assert second.moves.labels("castles")._value.get() == 0


# -- the setting ------------------------------------------------------------------------------


def test_metrics_are_off_unless_a_port_is_set() -> None:
    settings = bot.Settings.from_env({"DISCORD_TOKEN": "x"})
    assert settings.metrics_port is None and settings.metrics_host == "127.0.0.1"
    assert bot.create_bot(settings).metrics is None
    on = bot.Settings.from_env({"METRICS_PORT": " 9108 ", "METRICS_HOST": "0.0.0.0"})
    assert (on.metrics_port, on.metrics_host) == (9108, "0.0.0.0")
    client = bot.create_bot(on)
    assert client.metrics is not None
    assert client.http.http_trace is client.metrics.trace_config


@pytest.mark.parametrize("value", ["0", "65536", "http", "91.08", "-1"])
def test_a_bad_metrics_port_is_one_line(value: str) -> None:
    with pytest.raises(bot.SettingsError) as caught:
        bot.Settings.from_env({"METRICS_PORT": value})
    message = str(caught.value)
    assert message.startswith("METRICS_PORT must be a port number from 1 to 65535")
    assert repr(value) in message and "\n" not in message
