"""The bot's logging: discord.py's handler on the root logger, and the loggers that would print
secrets at DEBUG held at INFO whatever ``LOG_LEVEL`` says."""

from __future__ import annotations

import logging

import discord

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
