"""The bot's settings, read once at start from the environment or a ``.env`` file.

Every value has a default but the token; a value that cannot be used is a :class:`SettingsError`
whose text is one line naming the variable (start-up prints it and exits with status 2). An
empty value counts as unset. The token is a secret: it prints as ``**********``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import Field, PositiveInt, SecretStr, ValidationError, ValidationInfo, field_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUseDefault
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from storage.postgres import SCHEMES as POSTGRES_SCHEMES
from storage.shards import Shards

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
    "server_data_days": "SERVER_DATA_DAYS",
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
    "SERVER_DATA_DAYS": "must be days, a whole number from 1 to 365",
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

    #: Days a server's data is kept after the bot is removed from it (a return before then finds
    #: everything as it was).
    server_data_days: int = Field(default=30, ge=1, le=365, validation_alias="SERVER_DATA_DAYS")

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
