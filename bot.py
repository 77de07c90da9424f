"""Siege Hall: the Discord bot's entry point.

``python bot.py`` reads its configuration from the environment or a ``.env`` file
(``DISCORD_TOKEN``, ``DATABASE_PATH``, ``DEV_GUILD_ID``, ``LOG_LEVEL``), opens the SQLite
database, runs migrations, loads the cogs, registers the restart-proof buttons, syncs the slash
commands and connects. Without a token it exits with status 2 and says how to get one.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass
from typing import Any

import discord
from discord.ext import commands
from dotenv import load_dotenv

from cogs.components import DYNAMIC_ITEMS
from cogs.hall import Hall
from storage import Store

EXTENSIONS = ("cogs.siege",)
log = logging.getLogger("siege")

NO_TOKEN = """\
Siege Hall needs a bot token: set DISCORD_TOKEN in the environment or in a .env file.
Get one at https://discord.com/developers/applications -> your application -> Bot -> Reset Token.
See README.md, "Create the Discord application"."""


@dataclass(frozen=True)
class Settings:
    token: str | None
    database_path: str = "siege.db"
    dev_guild_id: int | None = None
    log_level: str = "INFO"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        """Settings from ``env`` (default: ``os.environ`` after loading ``.env``)."""
        if env is None:
            load_dotenv()
            env = dict(os.environ)
        guild = env.get("DEV_GUILD_ID", "").strip()
        if guild and not guild.isdigit():
            raise ValueError("DEV_GUILD_ID must be a server id (a number), or left empty.")
        return cls(
            token=env.get("DISCORD_TOKEN", "").strip() or None,
            database_path=env.get("DATABASE_PATH", "").strip() or "siege.db",
            dev_guild_id=int(guild) if guild else None,
            log_level=(env.get("LOG_LEVEL", "").strip() or "INFO").upper(),
        )


class SiegeBot(commands.Bot):
    """The bot: a store, a hall, the ``/siege`` commands and restart-proof components."""

    store: Store
    hall: Hall

    def __init__(self, settings: Settings, **client_options: Any) -> None:
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

    async def setup_hook(self) -> None:
        keep_secrets_out_of_logs()
        self.store = await Store.open(self.settings.database_path)
        version = await self.store.migrate()
        log.info("database %s at schema version %s", self.settings.database_path, version)
        self.hall = Hall(self, self.store)
        for extension in EXTENSIONS:
            await self.load_extension(extension)
        self.add_dynamic_items(*DYNAMIC_ITEMS)
        if self.settings.dev_guild_id is not None:
            guild = discord.Object(self.settings.dev_guild_id)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %s commands to server %s", len(synced), guild.id)
        else:
            synced = await self.tree.sync()
            log.info("synced %s global commands (may take up to an hour to appear)", len(synced))

    async def close(self) -> None:
        await super().close()
        store = getattr(self, "store", None)
        if store is not None:
            await store.close()

    async def on_ready(self) -> None:
        log.info("ready as %s in %s servers", self.user, len(self.guilds))


def create_bot(settings: Settings, **client_options: Any) -> SiegeBot:
    return SiegeBot(settings, **client_options)


# At DEBUG, discord.py logs whole request and gateway payloads (private panels, interaction
# tokens) and aiosqlite logs every statement with its parameters (game states, hands included).
# Whatever LOG_LEVEL says, these loggers stay at INFO or quieter.
PAYLOAD_LOGGERS = ("discord.http", "discord.gateway", "discord.webhook.async_", "aiosqlite")


def keep_secrets_out_of_logs() -> None:
    for name in PAYLOAD_LOGGERS:
        logger = logging.getLogger(name)
        if logger.level < logging.INFO:  # NOTSET (0) would inherit a DEBUG root
            logger.setLevel(logging.INFO)


def configure_logging(level: str) -> None:
    discord.utils.setup_logging(level=getattr(logging, level, logging.INFO), root=True)
    keep_secrets_out_of_logs()


def main() -> int:
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        print(f"Siege Hall: {exc}", file=sys.stderr)
        return 2
    if settings.token is None:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    bot = create_bot(settings)
    try:
        bot.run(settings.token, log_handler=None)
    except discord.LoginFailure:
        print(
            "Siege Hall: Discord refused the token (DISCORD_TOKEN). Reset it and try again.",
            file=sys.stderr,
        )
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
