"""The Prometheus metrics end to end: the bot started with ``METRICS_PORT`` against the fake
Discord, players making moves by clicks, forced 429s, a clock the test moves, and the figures
read as Prometheus would, over HTTP from ``/metrics`` (urllib, in a thread)."""

from __future__ import annotations

import asyncio
import random
import re
import socket
import urllib.request

import pytest

import bot as siege_bot
from cogs.metrics import sample
from tests.e2e.moves import open_game, play_move
from tests.e2e.test_castles_e2e import DEALER_BOB
from tests.e2e.world import World
from tests.fakeclock import Clock
from tests.fakecord import start_client, stop_client

pytestmark = pytest.mark.e2e

CALLBACK = "POST /interactions/{id}/{token}/callback"
SETTLE = 0.1
HOUR = 3600.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def settings(w: World, port: int) -> siege_bot.Settings:
    return siege_bot.Settings(
        token="fake-token",
        database_path=str(w.db_path),
        database_url=w.database_url,
        dev_guild_id=w.guild.id,
        metrics_port=port,
        picture_processes=0,
    )


async def start_with_metrics(w: World, port: int) -> siege_bot.SiegeBot:
    """Replace the world's bot by one started with ``METRICS_PORT=port``."""
    await w.fake.settle()
    await stop_client(w.running)
    client = siege_bot.create_bot(settings(w, port), guild_ready_timeout=0.05, clock=w.clock)
    w.bots.append(client)
    await start_client(client)
    w.fake.busy_while(lambda: client.hall.redraws.busy)
    w.bot = client
    return client


def fetch(port: int) -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        assert response.status == 200
        text: str = response.read().decode()
        return text


async def scrape(port: int) -> str:
    return await asyncio.to_thread(fetch, port)


async def test_moves_requests_429s_answers_and_tables_are_measured(world: World) -> None:
    w = world
    port = free_port()
    await w.fake.settle()
    exempt_before, limited_before = w.fake.exempt_count, w.fake.limited_count
    await start_with_metrics(w, port)
    table = await open_game(w, "castles")

    # Discord answers 429 a few times: once on the click's callback (a route limit), and the
    # global limit once. An hour passes before each move, so no interaction webhook is valid
    # any more and the table edits go through the ordinary (rate-limited) routes.
    callback_limit = w.fake.rate_limit("POST", r"^/interactions/\d+/[^/]+/callback$", times=1)
    global_limit = w.fake.rate_limit(times=1, is_global=True)
    # The delivery clock goes on from its own time now (monotonic: the machine's uptime), so
    # the webhooks kept while the game was opened expire with the first hour too.
    now = [w.running.hall.delivery.clock()]
    w.running.hall.delivery.clock = lambda: now[0]
    rng = random.Random(11)
    for _ in range(6):
        now[0] += HOUR
        table = await w.table_by_id(table.id)
        if table.status != "running":
            break
        await play_move(w, table, rng)
        await w.fake.settle(quiet=SETTLE)
    table = await w.table_by_id(table.id)
    assert table.ply >= 3 and table.status == "running"
    assert (callback_limit.hits, global_limit.hits) == (1, 1)

    text = await scrape(port)
    # Every move played (all by clicks, on this bot) counted once.
    assert sample(text, "siege_moves_total", {"game": "castles"}) == table.ply
    # Every request the fake received from this bot counted, split as Discord's limit sees it.
    exempt = sample(text, "siege_rest_requests_total", {"budget": "exempt"})
    limited = sample(text, "siege_rest_requests_total", {"budget": "limited"})
    assert exempt == w.fake.exempt_count - exempt_before > 0
    assert limited == w.fake.limited_count - limited_before > 0
    routes = set(re.findall(r'siege_rest_requests_total\{[^}]*route="([^"]+)"', text))
    assert CALLBACK in routes and "PATCH /channels/{id}/messages/{id}" in routes
    assert all(not re.search(r"\d{5}", route) for route in routes), routes
    # The forced 429s, by scope.
    assert sample(text, "siege_rest_429_total", {"scope": "route"}) == callback_limit.answered
    assert sample(text, "siege_rest_429_total", {"scope": "global"}) == global_limit.answered
    assert sample(text, "siege_rest_429_total") == w.fake.rate_limited_answers
    # One answer timed per successful callback (joins, the start, menus and moves), each in
    # Discord's 3 seconds.
    answered = sample(text, "siege_rest_requests_total", {"route": CALLBACK}) - sample(
        text, "siege_rest_requests_total", {"route": CALLBACK, "status": "429"}
    )
    count = sample(text, "siege_answer_seconds_count")
    assert count == answered >= table.ply
    assert sample(text, "siege_answer_seconds_bucket", {"le": "3.0"}) == count
    # The deadline guard's count of first answers: all by their flows here, none deferred.
    assert sample(text, "siege_first_answers_total", {"how": "answered"}) == answered
    assert sample(text, "siege_first_answers_total", {"how": "deferred"}) == 0
    # The open tables, counted when scraped.
    assert sample(text, "siege_open_tables", {"status": "running"}) == 1
    assert sample(text, "siege_open_tables", {"status": "lobby"}) == 0
    await w.alice.slash(w.guild.add_text_channel("more-games"), "play castles-besieged")
    await w.fake.settle()
    text = await scrape(port)
    assert sample(text, "siege_open_tables", {"status": "lobby"}) == 1

    # Closing the bot stops the server.
    await stop_client(w.running)
    with pytest.raises(OSError):
        await scrape(port)


async def test_the_sweepers_lateness_is_measured(world: World) -> None:
    w = world
    clock = Clock()
    w.clock = clock
    port = free_port()
    await start_with_metrics(w, port)
    handle = await w.alice.slash(
        w.channel, "play castles-besieged", dealer=DEALER_BOB, time_control="daily:1"
    )
    lobby = handle.response_message
    assert lobby is not None
    await w.bob.click(lobby, "Join")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()

    clock.advance(hours=19, minutes=12, seconds=20)  # the reminder was due 20 s ago
    assert await w.running.clockwork.sweep() == 1
    await w.fake.settle()
    clock.advance(hours=4, minutes=48, seconds=40)  # 1 minute past the deadline: auto move
    assert await w.running.clockwork.sweep() == 1
    await w.fake.settle()

    text = await scrape(port)
    reminder, deadline = {"kind": "reminder"}, {"kind": "deadline"}
    assert sample(text, "siege_sweeper_lag_seconds_count", reminder) == 1
    assert sample(text, "siege_sweeper_lag_seconds_sum", reminder) == pytest.approx(20, abs=0.01)
    assert sample(text, "siege_sweeper_lag_seconds_count", deadline) == 1
    assert sample(text, "siege_sweeper_lag_seconds_sum", deadline) == pytest.approx(60, abs=0.01)
    assert sample(text, "siege_sweep_seconds") > 0
    assert sample(text, "siege_moves_total") == 1  # the clock's move counts too


async def test_a_metrics_port_in_use_stops_the_start_with_one_line(
    world: World, capsys: pytest.CaptureFixture[str]
) -> None:
    w = world
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        await w.fake.settle()
        await stop_client(w.running)
        code = await siege_bot.amain(settings(w, port), guild_ready_timeout=0.05)
    assert code == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("Siege Hall: METRICS_PORT: ")
    assert f"127.0.0.1:{port}" in err and "Traceback" not in err
