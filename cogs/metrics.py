"""Optional Prometheus metrics, served on a local port when ``METRICS_PORT`` is set.

What is measured, and where:

- ``siege_moves_total{game}``: moves committed (clicks, computers, the clock), counted from the
  hall's commit hook by how far each table's ply moved on; ``rate()`` of it is moves per second.
- ``siege_answer_seconds``: from an interaction's creation (the time in its snowflake id, which
  Discord stamps) to the end of our callback request answering it. Discord drops answers later
  than 3 s, so the buckets reach that far.
- ``siege_rest_requests_total{route,status,budget}`` and ``siege_rest_429_total{scope}``: every
  request discord.py sends, seen through an aiohttp ``TraceConfig`` on its session. ``route`` is
  a template (``PATCH /channels/{id}/messages/{id}``), ``budget`` says whether the request counts
  against the bot's ~50/s global limit (``limited``) or not (``exempt``: interaction callbacks
  and interaction webhooks).
- ``siege_storage_unavailable_total``: requests answered "the game database is unavailable,
  nothing changed, try again" (a full disk, a PostgreSQL server down); the log says when each
  outage began and ended.
- ``siege_first_answers_total{how}``: interactions by their first answer, ``answered`` by their
  flow or ``deferred`` by the deadline guard (:mod:`cogs.deadline`) when the flow was slower
  than ``ANSWER_BUDGET``.
- ``siege_open_tables{status}``: lobbies and running games in the database, counted when scraped.
- ``siege_sweeper_lag_seconds{kind}``: how late the clock sweeper acted on a due deadline,
  reminder or offer expiry; ``siege_sweep_seconds``: how long the last sweep took.

Each :class:`Metrics` owns its registry (never prometheus_client's global one), so tests make
as many as they like. Without ``METRICS_PORT`` the bot makes none, and every hook is a ``None``
check.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from types import SimpleNamespace
from typing import TYPE_CHECKING

import aiohttp
from aiohttp import web
from discord.utils import snowflake_time
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.parser import text_string_to_metric_families
from yarl import URL

from storage.outage import StorageUnavailable

if TYPE_CHECKING:
    from storage import TableRecord

log = logging.getLogger("siege.metrics")

#: Seconds from click to answer: interactions must be answered within 3 s.
ANSWER_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.4, 0.6, 1.0, 1.5, 2.0, 3.0)
#: Seconds late: the sweeper runs every 30 s, so up to ~30 s is normal; beyond, it lags.
LAG_BUCKETS = (1.0, 5.0, 10.0, 20.0, 30.0, 45.0, 60.0, 120.0, 300.0, 900.0, 3600.0)

_API_PATH = re.compile(r"^/api/v\d+(/.*)$")
_WORD = re.compile(r"^[a-z@][a-z0-9@_-]*$")
#: Path segments whose next segment is a secret token (never a label value).
_TOKEN_AFTER = frozenset({"interactions", "webhooks"})
_CALLBACK = "POST /interactions/{id}/{token}/callback"

OpenTables = Callable[[], Awaitable[Mapping[str, int]]]


def route_of(method: str, url: URL | str) -> str:
    """A request's route as a low-cardinality label: the method and the API path with ids as
    ``{id}``, tokens as ``{token}`` and emoji as ``{emoji}``; anything outside the API is
    ``other``.

    >>> route_of("POST", "https://discord.com/api/v10/interactions/123/aW50ZXJh/callback")
    'POST /interactions/{id}/{token}/callback'
    >>> route_of("PATCH", "https://discord.com/api/v10/channels/1/messages/2?x=1")
    'PATCH /channels/{id}/messages/{id}'
    >>> route_of("GET", "https://cdn.discordapp.com/avatars/1/abc.png")
    'GET other'
    """
    match = _API_PATH.match(URL(url).path)
    if match is None:
        return f"{method} other"
    parts = match.group(1).strip("/").split("/")
    shown = []
    for i, part in enumerate(parts):
        before = parts[i - 1] if i else ""
        if part.isdigit():
            shown.append("{id}")
        elif i >= 2 and parts[i - 2] in _TOKEN_AFTER and before.isdigit():
            shown.append("{token}")
        elif before == "reactions":
            shown.append("{emoji}")
        elif _WORD.match(part):
            shown.append(part)
        else:
            shown.append("{value}")
    return f"{method} /{'/'.join(shown)}"


def is_exempt(route: str) -> bool:
    """Whether Discord leaves a route out of the bot's global rate limit (interaction callbacks
    and interaction webhooks, which carry a token instead of the bot's authorisation)."""
    return "{token}" in route


def answered_interaction(url: URL) -> int | None:
    """The interaction id of a callback request (``/interactions/{id}/{token}/callback``)."""
    match = _API_PATH.match(url.path)
    if match is None:
        return None
    parts = match.group(1).strip("/").split("/")
    if len(parts) == 4 and parts[0] == "interactions" and parts[3] == "callback":
        return int(parts[1]) if parts[1].isdigit() else None
    return None


def snowflake_seconds(snowflake: int) -> float:
    """The Unix time (seconds) Discord stamped into a snowflake id."""
    return snowflake_time(snowflake).timestamp()


async def limit_scope(response: aiohttp.ClientResponse) -> str:
    """Which limit a 429 is: ``global`` (the bot's ~50/s), ``route`` (a per-route or shared
    bucket) or ``cloudflare`` (no ``Via`` header: Cloudflare's ban on too many invalid
    requests, as discord.py reads it)."""
    headers = response.headers
    if headers.get("X-RateLimit-Global", "").lower() == "true":
        return "global"
    scope = headers.get("X-RateLimit-Scope", "").lower()
    if scope == "global":
        return "global"
    if "Via" not in headers:
        return "cloudflare"
    if not scope and response.content_type == "application/json":
        # No scope header: the body says it. discord.py reads the same body afterwards, from
        # aiohttp's cache of it.
        try:
            body = json.loads(await response.read())
        except (ValueError, aiohttp.ClientError):
            return "route"
        if isinstance(body, dict) and body.get("global") is True:
            return "global"
    return "route"


class Metrics:
    """The bot's Prometheus metrics, their registry and the server that exposes them."""

    def __init__(self, *, wall_clock: Callable[[], float] = time.time) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.wall_clock = wall_clock
        registry = self.registry
        self.moves = Counter(
            "siege_moves", "Moves committed, by game.", ["game"], registry=registry
        )
        self.answers = Histogram(
            "siege_answer_seconds",
            "From an interaction's creation to the end of our callback request answering it.",
            buckets=ANSWER_BUCKETS,
            registry=registry,
        )
        self.requests = Counter(
            "siege_rest_requests",
            "REST requests sent to Discord, by route template, HTTP status and whether they "
            "count against the global rate limit (limited) or not (exempt).",
            ["route", "status", "budget"],
            registry=registry,
        )
        self.first_answers = Counter(
            "siege_first_answers",
            "Interactions by their first answer: answered by their flow, or deferred because "
            "the answer was not ready within ANSWER_BUDGET.",
            ["how"],
            registry=registry,
        )
        self.rate_limited = Counter(
            "siege_rest_429",
            "429 Too Many Requests answers, by limit: global, route or cloudflare.",
            ["scope"],
            registry=registry,
        )
        self.open_tables = Gauge(
            "siege_open_tables",
            "Open tables in the database (every process's), by status.",
            ["status"],
            registry=registry,
        )
        self.sweeper_lag = Histogram(
            "siege_sweeper_lag_seconds",
            "How late the clock sweeper acted on a due item, by kind.",
            ["kind"],
            buckets=LAG_BUCKETS,
            registry=registry,
        )
        self.unavailable = Counter(
            "siege_storage_unavailable",
            "Requests answered 'the game database is unavailable, nothing changed, try again'.",
            registry=registry,
        )
        self.sweep_seconds = Gauge(
            "siege_sweep_seconds", "How long the last clock sweep took.", registry=registry
        )
        for status in ("lobby", "running"):
            self.open_tables.labels(status).set(0)
        for how in ("answered", "deferred"):
            self.first_answers.labels(how)  # shown at 0 before the first
        for scope in ("global", "route", "cloudflare"):
            self.rate_limited.labels(scope)  # shown at 0 before the first 429
        ProcessCollector(registry=registry)  # CPU, memory, open files of this process
        #: What counts the open tables at each scrape (the store's count, set by the bot).
        self.count_open_tables: OpenTables | None = None
        self._plies: dict[int, int] = {}
        self._runner: web.AppRunner | None = None
        self.trace_config = self._tracer()

    # -- moves -------------------------------------------------------------------------------

    def committed(self, table: TableRecord) -> None:
        """After any committed change to ``table`` (the hall's hook): count the moves it made.

        The hook also runs for changes that are not moves (a game starting, a computer's
        reminder), and calls may arrive out of order, so moves are counted by how far the ply
        moved past the highest one seen. A running table seen for the first time at a ply above
        0 (after a restart, or a game that began without a lobby) made one move."""
        last = self._plies.get(table.id)
        moves = min(table.ply, 1) if last is None else table.ply - last
        if moves > 0:
            self.moves.labels(table.game).inc(moves)
        if table.status == "running":
            self._plies[table.id] = max(table.ply, last or 0)
        else:
            self._plies.pop(table.id, None)

    def storage_unavailable(self) -> None:
        """A request was answered "unavailable, nothing changed, try again"."""
        self.unavailable.inc()

    # -- the clock sweeper -------------------------------------------------------------------

    def swept_late(self, kind: str, seconds: float) -> None:
        """The sweeper acted on a ``kind`` item ``seconds`` after it was due."""
        self.sweeper_lag.labels(kind).observe(max(seconds, 0.0))

    def swept(self, seconds: float) -> None:
        self.sweep_seconds.set(seconds)

    # -- REST requests, through aiohttp's tracing ---------------------------------------------

    def _tracer(self) -> aiohttp.TraceConfig:
        trace = aiohttp.TraceConfig()
        trace.on_request_end.append(self._on_request_end)
        trace.on_request_exception.append(self._on_request_exception)
        return trace

    async def _on_request_end(
        self,
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestEndParams,
    ) -> None:
        url = params.url
        if url.scheme in ("ws", "wss") or params.response.status == 101:
            return  # the gateway's websocket, not a REST request
        status = params.response.status
        route = route_of(params.method, url)
        budget = "exempt" if is_exempt(route) else "limited"
        self.requests.labels(route, str(status), budget).inc()
        if status == 429:
            self.rate_limited.labels(await limit_scope(params.response)).inc()
        elif route == _CALLBACK and status < 300:
            interaction = answered_interaction(url)
            if interaction is not None:
                self.answers.observe(max(self.wall_clock() - snowflake_seconds(interaction), 0.0))

    async def _on_request_exception(
        self,
        session: aiohttp.ClientSession,
        context: SimpleNamespace,
        params: aiohttp.TraceRequestExceptionParams,
    ) -> None:
        if params.url.scheme in ("ws", "wss"):
            return
        route = route_of(params.method, params.url)
        budget = "exempt" if is_exempt(route) else "limited"
        self.requests.labels(route, "error", budget).inc()

    def first_answer(self, how: str) -> None:
        """An interaction had its first answer (the deadline guard's observer)."""
        self.first_answers.labels(how).inc()

    # -- the endpoint --------------------------------------------------------------------------

    async def scrape(self) -> bytes:
        """The metrics in Prometheus' text format, the open tables counted afresh."""
        if self.count_open_tables is not None:
            try:
                counts = await self.count_open_tables()
            except StorageUnavailable:  # the store logs the outage, once
                pass
            except Exception:
                log.exception("could not count the open tables for the metrics")
            else:
                for status in ("lobby", "running"):
                    self.open_tables.labels(status).set(counts.get(status, 0))
        return generate_latest(self.registry)

    async def _handle(self, request: web.Request) -> web.Response:
        response = web.Response(body=await self.scrape())
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response

    async def serve(self, port: int, host: str = "127.0.0.1") -> None:
        """Serve ``/metrics`` on ``host:port`` in this event loop until :meth:`close`. Raises
        ``OSError`` when the port cannot be listened on."""
        app = web.Application()
        app.router.add_get("/metrics", self._handle)
        app.router.add_get("/", self._handle)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        try:
            await web.TCPSite(runner, host, port).start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        log.info("metrics on http://%s:%s/metrics", host, port)

    async def close(self) -> None:
        """Stop serving (harmless when not serving)."""
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()

    def __repr__(self) -> str:
        return f"<Metrics serving={self._runner is not None}>"


def sample(text: str, name: str, labels: Mapping[str, str] | None = None) -> float:
    """The sum of the samples of ``name`` in a scrape's text whose labels include ``labels``
    (0.0 when none): for tests and scripts.

    >>> sample('a_total{game="x"} 3.0\\n', "a_total", {"game": "x"})
    3.0
    """
    wanted = labels or {}
    return sum(
        found.value
        for family in text_string_to_metric_families(text)
        for found in family.samples
        if found.name == name and all(found.labels.get(k) == v for k, v in wanted.items())
    )


__all__ = [
    "ANSWER_BUCKETS",
    "LAG_BUCKETS",
    "Metrics",
    "answered_interaction",
    "is_exempt",
    "limit_scope",
    "route_of",
    "sample",
    "snowflake_seconds",
]
