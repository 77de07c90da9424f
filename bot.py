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

Start-up failures are one line on standard error and exit status 2, never a traceback: no token,
a bad setting, an unusable database (checked before connecting), a token Discord refuses. While
Discord cannot be reached at all, logging in is retried with back-off (1 s, 2 s, 4 s … 60 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import json
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, get_args

import aiohttp
import discord
from discord.ext import commands
from discord.utils import MISSING
from pydantic import Field, PositiveInt, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUseDefault
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from cogs.boards import BOARD_ITEMS, Boards
from cogs.clockwork import Clockwork
from cogs.components import DYNAMIC_ITEMS
from cogs.computer import Computers
from cogs.daily import Daily
from cogs.deadline import Deadline
from cogs.hall import Hall
from cogs.metrics import Metrics
from cogs.offers import OFFER_ITEMS
from storage import DatabaseUnusable, Store
from storage.postgres import SCHEMES as POSTGRES_SCHEMES
from storage.shards import Shards

EXTENSIONS = ("cogs.siege", "cogs.play")
log = logging.getLogger("siege")

NO_TOKEN = """\
Siege Hall needs a bot token: set DISCORD_TOKEN in the environment or in a .env file.
Get one at https://discord.com/developers/applications -> your application -> Bot -> Reset Token.
See README.md, "Create the Discord application"."""

BAD_TOKEN = "Siege Hall: Discord refused the token (DISCORD_TOKEN). Reset it and try again."

# -- settings --------------------------------------------------------------------------------

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]
#: ``auto``: sync the slash commands when the command tree changed; ``force``: on every start.
CommandSync = Literal["auto", "force"]

#: The variable each setting is read from (environment or ``.env``), by field name.
VARIABLES = {
    "token": "DISCORD_TOKEN",
    "database_path": "DATABASE_PATH",
    "database_url": "DATABASE_URL",
    "dev_guild_id": "DEV_GUILD_ID",
    "log_level": "LOG_LEVEL",
    "command_sync": "SYNC_COMMANDS",
    "metrics_port": "METRICS_PORT",
    "metrics_host": "METRICS_HOST",
    "picture_processes": "PICTURE_PROCESSES",
    "answer_budget": "ANSWER_BUDGET",
    "shard_count": "SHARD_COUNT",
    "shard_ids": "SHARD_IDS",
}
_EXPECTED = {
    "DATABASE_URL": "must be a postgresql:// URL, or left empty",
    "DEV_GUILD_ID": "must be a server id (a whole number), or left empty",
    "LOG_LEVEL": "must be DEBUG, INFO, WARNING or ERROR",
    "SYNC_COMMANDS": "must be auto or force",
    "METRICS_PORT": "must be a port number from 1 to 65535, or left empty",
    "PICTURE_PROCESSES": "must be how many processes draw pictures, 0 (threads) to 16",
    "ANSWER_BUDGET": "must be seconds, more than 0 and at most 2.5 (Discord waits 3)",
    "SHARD_COUNT": "must be how many shards there are in all (a whole number, 1 or more)",
    "SHARD_IDS": "must be shard numbers such as 0,1 or 0-3",
}


class SettingsError(ValueError):
    """A setting Siege Hall cannot use; ``str()`` is one line that names the variable."""


class Settings(BaseSettings):
    """Siege Hall's configuration.

    ``Settings.from_env()`` reads the environment, then ``.env`` in the current folder (the
    environment wins; an empty value counts as unset). ``Settings.from_env(mapping)`` reads
    only ``mapping``, keyed by variable name, and ``Settings(token=..., ...)`` takes values by
    field name: neither looks at the environment or ``.env`` (for tests).

    The token is a :class:`~pydantic.SecretStr`: ``repr``/``str`` show ``'**********'``, and
    only :func:`amain` unwraps it, to hand it to discord.py.
    """

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        case_sensitive=True,
        populate_by_name=True,  # Settings(token=...) as well as the variable names
        extra="ignore",
        frozen=True,
        hide_input_in_errors=True,
    )

    reads_environment: ClassVar[bool] = False

    token: SecretStr | None = Field(default=None, validation_alias="DISCORD_TOKEN")
    database_path: str = Field(default="siege.db", validation_alias="DATABASE_PATH")
    #: PostgreSQL instead of the SQLite file when set (a secret: it may hold a password).
    database_url: SecretStr | None = Field(default=None, validation_alias="DATABASE_URL")
    dev_guild_id: PositiveInt | None = Field(default=None, validation_alias="DEV_GUILD_ID")
    log_level: LogLevel = Field(default="INFO", validation_alias="LOG_LEVEL")
    command_sync: CommandSync = Field(default="auto", validation_alias="SYNC_COMMANDS")
    #: Prometheus metrics served on this port (``None``: nothing is served, nor measured).
    metrics_port: int | None = Field(default=None, ge=1, le=65535, validation_alias="METRICS_PORT")
    metrics_host: str = Field(default="127.0.0.1", validation_alias="METRICS_HOST")
    #: Processes that draw the table pictures (0: a thread of the bot's own process).
    picture_processes: int = Field(default=1, ge=0, le=16, validation_alias="PICTURE_PROCESSES")
    #: Seconds after a click or command is made by which it is answered or deferred.
    answer_budget: float = Field(default=1.5, gt=0, le=2.5, validation_alias="ANSWER_BUDGET")
    #: Discord shards in all, and those this process serves (``0,1``, ``0-3``; default: all).
    #: Both unset: one process, one gateway connection, every server.
    shard_count: PositiveInt | None = Field(default=None, validation_alias="SHARD_COUNT")
    shard_ids: Annotated[tuple[int, ...] | None, NoDecode] = Field(
        default=None, validation_alias="SHARD_IDS"
    )

    @property
    def shards(self) -> Shards | None:
        """The shards this process serves, or ``None`` when sharding is off."""
        if self.shard_count is None:
            return None
        return Shards.of(self.shard_count, self.shard_ids)

    @property
    def database(self) -> str:
        """Where the store is: ``DATABASE_URL`` (PostgreSQL) when set, else ``DATABASE_PATH``."""
        if self.database_url is not None:
            return self.database_url.get_secret_value()
        return self.database_path

    @field_validator("*", mode="before")
    @classmethod
    def _blank_means_unset(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, str):
            return value
        value = value.strip()
        if not value:
            raise PydanticUseDefault
        if info.field_name == "dev_guild_id" and not value.isdigit():
            raise ValueError("not a server id")
        if info.field_name == "database_url" and not value.startswith(POSTGRES_SCHEMES):
            raise ValueError("not a PostgreSQL URL")
        if info.field_name == "log_level":
            if value.upper() not in get_args(LogLevel):
                raise ValueError("not a log level")  # here, so the message shows what was set
            return value.upper()
        if info.field_name == "command_sync":
            if value.lower() not in get_args(CommandSync):
                raise ValueError("not a sync mode")
            return value.lower()
        if info.field_name == "shard_ids":
            return shard_list(value)
        return value

    @field_validator("shard_ids")
    @classmethod
    def _shards_exist(cls, value: tuple[int, ...] | None, info: ValidationInfo) -> Any:
        if value is None:
            return value
        if "shard_count" not in info.data:
            raise PydanticUseDefault  # SHARD_COUNT is wrong itself, and says so
        count = info.data["shard_count"]
        if count is None:
            raise ValueError("SHARD_IDS needs SHARD_COUNT, the number of shards in all")
        if any(shard >= count for shard in value):
            shown = ",".join(str(shard) for shard in value)
            raise ValueError(f"SHARD_IDS must each be below SHARD_COUNT ({count}), not {shown}")
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        if cls.reads_environment:
            return _OurVariablesOnly(env_settings), _OurVariablesOnly(dotenv_settings)
        return (init_settings,)  # only what it is given

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``env`` (default: the environment, then ``.env``). Raises
        :class:`SettingsError` for a value that cannot be used."""
        try:
            if env is None:
                return cls.model_validate(dict(_FromEnvironment()))
            return cls.model_validate(
                {name: env[name] for name in VARIABLES.values() if name in env}
            )
        except ValidationError as exc:
            raise SettingsError(_describe(exc)) from None
        except UnicodeDecodeError:
            raise SettingsError("the .env file is not UTF-8 text.") from None
        except OSError as exc:
            raise SettingsError(f"cannot read the .env file ({exc.strerror or exc}).") from None


def shard_list(text: str) -> tuple[int, ...]:
    """``SHARD_IDS``: numbers and ranges separated by commas, in order, without repeats.

    >>> shard_list("0-2, 5"), shard_list("1")
    ((0, 1, 2, 5), (1,))
    """
    shards: set[int] = set()
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.strip().isdigit() or (dash and not last.strip().isdigit()):
            raise ValueError("not shard ids")
        low, high = int(first), int(last) if dash else int(first)
        if high < low:
            raise ValueError("not a range of shards")
        shards.update(range(low, high + 1))
    return tuple(sorted(shards))


class _FromEnvironment(Settings):
    """The environment, then ``.env``, through pydantic-settings' own sources."""

    reads_environment: ClassVar[bool] = True


class _OurVariablesOnly(PydanticBaseSettingsSource):
    """What ``source`` found under the documented variable names only.

    ``populate_by_name`` also makes pydantic-settings look for variables named after the fields;
    a stray ``token`` variable must never become the bot token.
    """

    def __init__(self, source: PydanticBaseSettingsSource) -> None:
        super().__init__(source.settings_cls)
        self.source = source

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # unused: __call__ asks the wrapped source

    def __call__(self) -> dict[str, Any]:
        names = set(VARIABLES.values())
        return {key: value for key, value in self.source().items() if key in names}


def _describe(exc: ValidationError) -> str:
    """One line naming each bad variable (never showing the token)."""
    problems = []
    for error in exc.errors(include_url=False):
        where = str(error["loc"][0]) if error["loc"] else "?"
        variable = VARIABLES.get(where, where)
        expected = _EXPECTED.get(variable, "has a value Siege Hall cannot use")
        reason = error.get("ctx", {}).get("error")
        if isinstance(reason, ValueError) and str(reason).startswith(f"{variable} "):
            problems.append(str(reason))  # a check across settings explains itself
            continue
        secret = variable in ("DISCORD_TOKEN", "DATABASE_URL")
        shown = "" if secret else f", not {_quoted(error.get('input'))}"
        problems.append(f"{variable} {expected}{shown}")
    return "; ".join(problems) + "."


def _quoted(value: object, limit: int = 40) -> str:
    text = str(value)
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


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
            if self.metrics is not None:
                await self.start_metrics(self.metrics)
            for extension in EXTENSIONS:
                await self.load_extension(extension)
            self.add_dynamic_items(*DYNAMIC_ITEMS, *BOARD_ITEMS, *OFFER_ITEMS)
            await self.clockwork.start()
            await self.computers.resume()  # computer turns a restart interrupted
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


def command_tree_hash(tree: discord.app_commands.CommandTree[Any], guild: Any | None) -> str:
    """A hash of what ``tree.sync(guild=guild)`` would upload (the same JSON)."""
    payload = [command.to_dict(tree) for command in tree.get_commands(guild=guild)]
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class CommandSyncRecord:
    """The hash of the command tree last synced, by application and scope, in a small JSON file
    beside the database (``siege.db`` -> ``siege.db.commands.json``). An unreadable or missing
    file means "never synced": the commands are then synced, which is always safe."""

    def __init__(self, database_path: str) -> None:
        self.path = (
            None
            if database_path in ("", ":memory:") or database_path.startswith("file:")
            else Path(f"{database_path}.commands.json")
        )

    def _read(self) -> dict[str, str]:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def get(self, scope: str) -> str | None:
        return self._read().get(scope)

    def put(self, scope: str, digest: str) -> None:
        if self.path is None:
            return
        data = {**self._read(), scope: digest}
        temporary = self.path.with_name(self.path.name + ".tmp")
        try:
            temporary.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError as exc:
            # Not fatal: the next start syncs again.
            log.warning("could not record the command sync in %s (%s)", self.path, exc)


def create_bot(settings: Settings, **options: Any) -> SiegeBot:
    """A :class:`SiegeBot` (a :class:`ShardedSiegeBot` when ``SHARD_COUNT`` is set); ``options``
    are ``store``, ``sleep`` and discord.py's client options."""
    if settings.shard_count is not None:
        return ShardedSiegeBot(settings, **options)
    return SiegeBot(settings, **options)


# At DEBUG, discord.py logs whole request and gateway payloads (private panels, interaction
# tokens), aiosqlite logs every statement with its parameters (game states, hands included) and
# pydantic-settings (with PYDANTIC_SETTINGS_DEBUG set) logs every setting's raw value, the token
# included. Whatever LOG_LEVEL says, these loggers stay at INFO or quieter.
PAYLOAD_LOGGERS = (
    "discord.http",
    "discord.gateway",
    "discord.webhook.async_",
    "aiosqlite",
    "pydantic_settings",
)


def keep_secrets_out_of_logs() -> None:
    for name in PAYLOAD_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level < logging.INFO:  # NOTSET (0) would inherit a DEBUG root
            logger.setLevel(logging.INFO)


def configure_logging(level: str) -> None:
    discord.utils.setup_logging(level=getattr(logging, level, logging.INFO), root=True)
    keep_secrets_out_of_logs()


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


def close_on_terminate(bot: SiegeBot) -> None:
    """SIGTERM (``docker stop``, systemd) closes the bot as Ctrl-C does: queued moves are
    committed and the database closed before the process ends, instead of being cut off."""
    loop = asyncio.get_running_loop()
    closing: set[asyncio.Task[None]] = set()

    def terminate() -> None:
        log.info("SIGTERM: closing")
        task = loop.create_task(bot.close())
        closing.add(task)
        task.add_done_callback(closing.discard)

    with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows; not the main thread
        loop.add_signal_handler(signal.SIGTERM, terminate)


def new_event_loop() -> asyncio.AbstractEventLoop:
    """The bot's event loop: uvloop's where it is installed (Linux and macOS; about a tenth
    less CPU per move, measured by ``benchmarks/table_load.py``), else asyncio's own."""
    try:
        import uvloop
    except ImportError:  # Windows: uvloop is not installed there
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()


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
