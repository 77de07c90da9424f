"""Siege Hall: the Discord bot's entry point.

``python bot.py`` reads its configuration from the environment or a ``.env`` file in the current
folder (``DISCORD_TOKEN``, ``DATABASE_PATH``, ``DEV_GUILD_ID``, ``LOG_LEVEL``, ``SYNC_COMMANDS``),
opens the SQLite database and runs migrations, then connects to Discord, loads the cogs,
registers the restart-proof buttons and syncs the slash commands when they changed since the last
sync (a hash of the command tree is kept beside the database); ``SYNC_COMMANDS=force`` or
``python bot.py --sync`` uploads them whatever the hash says. With ``METRICS_PORT`` it serves
Prometheus metrics on that port (:mod:`cogs.metrics`). With ``SHARD_COUNT`` (and ``SHARD_IDS``)
it serves those Discord shards only (:class:`ShardedSiegeBot`), beside other processes serving
the others on the same database; only the process serving shard 0 syncs the commands.

The settings, logging, event loop and the command-sync record live in :mod:`runtime`; this module
is the bot and its start.

Start-up failures are one line on standard error and exit status 2, never a traceback: no token,
a bad setting, an unusable database (checked before connecting), a token Discord refuses. While
Discord cannot be reached at all, logging in is retried with back-off (1 s, 2 s, 4 s … 60 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
from collections.abc import Awaitable, Callable, Iterator, Sequence
from concurrent.futures import Executor
from datetime import UTC, datetime
from typing import Any

import aiohttp
import discord
from discord.ext import commands
from discord.utils import MISSING

from cogs.boards import BOARD_ITEMS, Boards
from cogs.clockwork import Clockwork
from cogs.closing import CLOSING_ITEMS
from cogs.components import DYNAMIC_ITEMS
from cogs.computer import Computers
from cogs.daily import Daily
from cogs.deadline import Deadline
from cogs.hall import Hall
from cogs.metrics import Metrics
from cogs.offers import OFFER_ITEMS
from cogs.privacy import PRIVACY_ITEMS, PlayerData
from cogs.seeks import SEEK_ITEMS
from cogs.tournaments import TOURNAMENT_ITEMS
from runtime.logs import PAYLOAD_LOGGERS, configure_logging, keep_secrets_out_of_logs
from runtime.loop import close_on_terminate, new_event_loop
from runtime.rate_buckets import BucketPruner, http_buckets, leave_clearing_to_pruner
from runtime.settings import Settings, SettingsError, shard_list
from runtime.sync import CommandSyncRecord, command_tree_hash
from storage import DatabaseUnusable, Store
from storage.shards import Shards

EXTENSIONS = ("cogs.siege", "cogs.play", "cogs.admin", "cogs.tournament_commands")
log = logging.getLogger("siege")

NO_TOKEN = """\
Siege Hall needs a bot token: set DISCORD_TOKEN in the environment or in a .env file.
Get one at https://discord.com/developers/applications -> your application -> Bot -> Reset Token.
See README.md, "Create the Discord application"."""

BAD_TOKEN = "Siege Hall: Discord refused the token (DISCORD_TOKEN). Reset it and try again."

# -- the bot ---------------------------------------------------------------------------------

Sleep = Callable[[float], Awaitable[object]]

#: What a login attempt raises when Discord cannot be reached (as opposed to refusing us).
#: ``aiohttp.ClientConnectorError`` is an ``OSError``; 500/502/504 were already retried by
#: discord.py itself before it raises ``DiscordServerError``.
UNREACHABLE = (OSError, aiohttp.ClientError, asyncio.TimeoutError, discord.DiscordServerError)
FIRST_RETRY_DELAY = 1.0
MAX_RETRY_DELAY = 60.0
#: Seconds a closing bot gives the redraws its last moves queued (the table, the panels).
REDRAWS_AT_CLOSE = 5.0


def retry_delays(first: float = FIRST_RETRY_DELAY, cap: float = MAX_RETRY_DELAY) -> Iterator[float]:
    """1, 2, 4, … seconds, each at most ``cap``; endless."""
    delay = first
    while True:
        yield delay
        delay = min(delay * 2, cap)


def _why_unreachable(exc: BaseException) -> str:
    if isinstance(exc, discord.DiscordServerError):
        return f"Discord answered HTTP {exc.status}"
    if isinstance(exc, asyncio.TimeoutError) and not str(exc):
        return "timed out"
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:199] + "…"


async def open_store(path: str, clock: Callable[[], datetime] | None = None) -> Store:
    """The database at ``path``, migrated to the current schema (closed again if that fails).
    Raises :class:`storage.DatabaseUnusable` when the file cannot be used."""
    store = await Store.open(path, clock=clock or utc_now)
    try:
        version = await store.migrate()
    except BaseException:
        await store.close()
        raise
    log.info("database %s at schema version %s", store.path, version)  # no password in it
    return store


class SiegeBot(commands.Bot):
    """The bot: a store, a hall, the ``/siege`` commands and restart-proof components.

    Give it an open, migrated ``store`` (which stays the caller's to close), or none: then
    ``setup_hook`` opens the one at ``settings.database_path`` and :meth:`close` closes it.
    ``sleep`` is what waits between login attempts (tests pass one that does not wait).
    """

    store: Store
    hall: Hall
    boards: Boards
    daily: Daily
    clockwork: Clockwork
    computers: Computers
    buckets: BucketPruner
    player_data: PlayerData

    def __init__(
        self,
        settings: Settings,
        *,
        store: Store | None = None,
        sleep: Sleep = asyncio.sleep,
        clock: Callable[[], datetime] | None = None,
        thinker: Executor | None = None,
        **client_options: Any,
    ) -> None:
        #: Prometheus metrics (``None`` without ``METRICS_PORT``: nothing is measured).
        self.metrics = Metrics() if settings.metrics_port is not None else None
        if self.metrics is not None:  # every REST request, seen from discord.py's session
            client_options.setdefault("http_trace", self.metrics.trace_config)
        intents = discord.Intents.none()
        intents.guilds = True  # channel and thread cache and deletions; nothing privileged
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=intents,
            help_command=None,
            allowed_mentions=discord.AllowedMentions(users=True, roles=False, everyone=False),
            **client_options,
        )
        self.settings = settings
        self._owns_store = store is None
        if store is not None:
            self.store = store
        self._sleep = sleep
        self.clock = clock or utc_now  # tests pass one they move by hand
        self._thinker = thinker  # where computers think (default: a pool of processes)
        self._retry_wait: asyncio.Future[object] | None = None
        self._preparing = False
        self._prepared = False
        self._frozen_at_ready = False

    async def setup_hook(self) -> None:
        # login() runs this after every successful sign-in, so again after a retried login:
        # the local set-up happens once, the command sync (network) every time.
        keep_secrets_out_of_logs()
        if not self._prepared:
            self._preparing = True
            if self._owns_store:
                self.store = await open_store(self.settings.database, self.clock)
            self.hall = Hall(
                self,
                self.store,
                picture_processes=self.settings.picture_processes,
                deadline=Deadline(self.settings.answer_budget),
            )
            self.hall.pictures.start()
            self.boards = Boards(self.hall, self.store, self.clock)
            self.daily = Daily(self.hall, self.boards, self.store, self.clock)
            self.clockwork = Clockwork(self, self.hall, self.store, self.served_shards)
            self.computers = Computers(self.hall, self.store, self._thinker, self.served_shards)
            self.hall.computers = self.computers
            hall = self.hall
            self.player_data = PlayerData(
                self,
                self.store,
                hall.guard,
                hall.tables,
                hall.panels,
                hall.notices,
                hall.announce_end,
                server_days=self.settings.server_data_days,
            )
            if self.metrics is not None:
                await self.start_metrics(self.metrics)
            for extension in EXTENSIONS:
                await self.load_extension(extension)
            self.add_dynamic_items(
                *DYNAMIC_ITEMS,
                *BOARD_ITEMS,
                *OFFER_ITEMS,
                *SEEK_ITEMS,
                *PRIVACY_ITEMS,
                *CLOSING_ITEMS,
                *TOURNAMENT_ITEMS,
            )
            await self.clockwork.start()
            await self.computers.resume()  # computer turns a restart interrupted
            # discord.py's rate-limit buckets of routes unused for 15 s (runtime/rate_buckets)
            # (and discord.py's own walk over them at each new one turned off: the pruner's job)
            self.buckets = BucketPruner(
                lambda: http_buckets(self),
                asyncio.get_running_loop().time,
                each_pass=lambda: leave_clearing_to_pruner(self),
            )
            self.buckets.prune()
            self.buckets.start()
            self._preparing = False
            self._prepared = True
            # Everything loaded so far (modules, the command tree, fonts, palettes) lives as long
            # as the process: kept out of the collector's sight, a full collection no longer
            # walks it, which took the event loop 15–95 ms at a time under load. (The modules
            # were collected and frozen before the loop started, see main(): collecting here
            # would itself stop the loop for about 50 ms.)
            gc.freeze()
        if self.syncs_commands:
            await self.sync_commands()
        else:
            log.info("slash commands are synced by the process serving shard 0, not this one")

    @property
    def served_shards(self) -> Shards | None:
        """The Discord shards this process serves (``None``: one connection for everything)."""
        return self.settings.shards

    @property
    def syncs_commands(self) -> bool:
        """Commands belong to the application, not to a shard: of several processes, only the
        one serving shard 0 uploads them (the others would upload the same tree again)."""
        return self.served_shards is None or self.served_shards.has_dms

    async def start_metrics(self, metrics: Metrics) -> None:
        """Measure moves, the sweeper and the open tables, and serve them on ``METRICS_PORT``.
        A port that cannot be listened on is a :class:`SettingsError`."""
        self.hall.metrics = metrics
        self.hall.deadline.observer = metrics.first_answer
        self.clockwork.metrics = metrics
        metrics.count_open_tables = self.store.count_open_tables
        port, host = self.settings.metrics_port, self.settings.metrics_host
        assert port is not None
        try:
            await metrics.serve(port, host)
        except OSError as exc:
            raise SettingsError(
                f"METRICS_PORT: cannot serve metrics on {host}:{port} ({exc.strerror or exc})."
            ) from None

    async def sync_commands(self) -> None:
        """Upload the slash commands, unless the same command tree was uploaded to the same
        place before (its hash is kept beside the database): Discord limits command updates,
        and a start-up should not spend them on what it already has. ``SYNC_COMMANDS=force``
        (or ``python bot.py --sync``) uploads them whatever the hash says."""
        guild = None
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
        scope = f"{self.application_id}:{guild.id if guild is not None else 'global'}"
        digest = command_tree_hash(self.tree, guild)
        record = CommandSyncRecord(self.settings.database_path)
        if self.settings.command_sync != "force" and record.get(scope) == digest:
            log.info("slash commands unchanged since the last sync; not syncing them again")
            return
        synced = await self.tree.sync(guild=guild)
        record.put(scope, digest)
        if guild is not None:
            log.info("synced %s commands to server %s", len(synced), guild.id)
        else:
            log.info("synced %s global commands (may take up to an hour to appear)", len(synced))

    async def start(self, token: str, *, reconnect: bool = True) -> None:
        """:meth:`login_when_reachable`, then connect (discord.py reconnects on its own from
        there). Returns at once if the bot was closed while waiting to retry."""
        if await self.login_when_reachable(token):
            await self.connect(reconnect=reconnect)

    async def login_when_reachable(self, token: str) -> bool:
        """Log in, retrying with back-off while Discord cannot be reached (one log line per
        retry). ``discord.LoginFailure`` (a refused token) and anything else go through at
        once. Returns ``False`` if the bot was closed meanwhile."""
        for delay in retry_delays():
            try:
                await self.login(token)
            except UNREACHABLE as exc:
                if self._preparing:
                    raise  # the local set-up in setup_hook failed, not the network
                if self.is_closed():
                    return False
                log.warning(
                    "cannot reach Discord (%s); retrying in %s s",
                    _why_unreachable(exc),
                    f"{delay:g}",
                )
                await self._drop_http_session()
                # Closing the bot cuts the wait short (see close); a cancelled wait is not an
                # error here, while a cancellation of this task itself still goes through.
                self._retry_wait = asyncio.ensure_future(self._sleep(delay))
                await asyncio.wait({self._retry_wait})
                if self.is_closed():
                    return False
            else:
                return True
        raise AssertionError("retry_delays() is endless")

    async def _drop_http_session(self) -> None:
        # Every HTTPClient.static_login() opens a new aiohttp session on the client's connector
        # and drops the previous one without closing it. Close the failed attempt's session
        # (which also closes the connector: the session owns it) and let the next attempt make
        # both afresh, so retries leak nothing.
        await self.http.close()
        self.http.connector = MISSING

    async def close(self) -> None:
        clockwork = getattr(self, "clockwork", None)
        if clockwork is not None:
            clockwork.stop()
        buckets = getattr(self, "buckets", None)
        if buckets is not None:
            buckets.stop()
        computers = getattr(self, "computers", None)
        if computers is not None:
            await computers.close()
        if self.metrics is not None:
            await self.metrics.close()
        hall = getattr(self, "hall", None)
        if hall is not None:
            with contextlib.suppress(TimeoutError):  # what the last moves left to show
                await asyncio.wait_for(hall.redraws.idle(), REDRAWS_AT_CLOSE)
            await hall.redraws.close()
            log.info("closing: %s", hall.summary())
            hall.pictures.close()
        if self._retry_wait is not None and self._retry_wait is not asyncio.current_task():
            self._retry_wait.cancel()
        await super().close()
        store = getattr(self, "store", None)
        if self._owns_store and store is not None:
            await store.close()  # closing twice is harmless

    async def on_ready(self) -> None:
        if not self._frozen_at_ready:
            # The servers, channels and members discord.py cached on connecting live as long
            # as the connection: out of the collector's sight too (see setup_hook).
            self._frozen_at_ready = True
            gc.freeze()
        shards = self.served_shards
        warming = self.hall.pictures.warming_note()
        if shards is None:
            log.info("ready as %s in %s servers%s", self.user, len(self.guilds), warming)
        else:
            log.info(
                "ready as %s in %s servers on shards %s of %s%s",
                self.user,
                len(self.guilds),
                ",".join(str(shard) for shard in shards.ids),
                shards.count,
                warming,
            )


class ShardedSiegeBot(SiegeBot, commands.AutoShardedBot):
    """The bot over some of Discord's shards (``SHARD_COUNT``, ``SHARD_IDS``), one gateway
    connection per shard (discord.py's ``AutoShardedBot``). Other processes may serve the other
    shards on the same database: each one sweeps only its own servers' tables."""

    def __init__(self, settings: Settings, **options: Any) -> None:
        shards = settings.shards
        assert shards is not None, "ShardedSiegeBot needs SHARD_COUNT"
        super().__init__(settings, shard_count=shards.count, shard_ids=list(shards.ids), **options)


def utc_now() -> datetime:
    return datetime.now(UTC)


def create_bot(settings: Settings, **options: Any) -> SiegeBot:
    """A :class:`SiegeBot` (a :class:`ShardedSiegeBot` when ``SHARD_COUNT`` is set); ``options``
    are ``store``, ``sleep`` and discord.py's client options."""
    if settings.shard_count is not None:
        return ShardedSiegeBot(settings, **options)
    return SiegeBot(settings, **options)


# -- running ---------------------------------------------------------------------------------


async def amain(settings: Settings, *, sleep: Sleep = asyncio.sleep, **client_options: Any) -> int:
    """Open and migrate the database, then run the bot until it stops; the exit status.

    The database is checked before anything connects to Discord, and closed on every way out.
    """
    if settings.token is None:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    try:
        store = await open_store(settings.database)
    except DatabaseUnusable as exc:
        print(f"Siege Hall: {' '.join(str(exc).splitlines())}", file=sys.stderr)
        return 2
    try:
        async with create_bot(settings, store=store, sleep=sleep, **client_options) as bot:
            close_on_terminate(bot)
            await bot.start(settings.token.get_secret_value())
    except discord.LoginFailure:
        print(BAD_TOKEN, file=sys.stderr)
        return 2
    except SettingsError as exc:  # a setting found unusable on the way up (METRICS_PORT taken)
        print(f"Siege Hall: {exc}", file=sys.stderr)
        return 2
    finally:
        await store.close()
    return 0


USAGE = "usage: python bot.py [--sync]  (--sync: upload the slash commands even if unchanged)"


def main(args: Sequence[str] = ()) -> int:
    """``python bot.py [--sync]``: the exit status."""
    if any(arg != "--sync" for arg in args):
        print(USAGE, file=sys.stderr)
        return 2
    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        print(f"Siege Hall: {exc}", file=sys.stderr)
        return 2
    if "--sync" in args:
        settings = settings.model_copy(update={"command_sync": "force"})
    if settings.token is None:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    gc.collect()  # the modules' garbage, before the loop runs (see setup_hook)
    gc.freeze()
    try:
        with asyncio.Runner(loop_factory=new_event_loop) as runner:
            return runner.run(amain(settings))
    except KeyboardInterrupt:  # Ctrl-C: amain has closed the bot and the store on its way out
        return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


__all__ = [  # what tests and benchmarks reach through ``bot`` (the settings live in runtime/)
    "PAYLOAD_LOGGERS",
    "Settings",
    "SettingsError",
    "ShardedSiegeBot",
    "SiegeBot",
    "amain",
    "command_tree_hash",
    "configure_logging",
    "create_bot",
    "keep_secrets_out_of_logs",
    "main",
    "new_event_loop",
    "open_store",
    "shard_list",
]
