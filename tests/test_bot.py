"""Start-up and configuration of ``bot.py``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import bot

ROOT = Path(__file__).resolve().parent.parent


def test_settings_defaults_and_values() -> None:
    settings = bot.Settings.from_env({})
    assert settings == bot.Settings(token=None)
    assert settings.database_path == "siege.db" and settings.log_level == "INFO"
    settings = bot.Settings.from_env(
        {"DISCORD_TOKEN": " abc ", "DATABASE_PATH": "/data/x.db", "DEV_GUILD_ID": "42"}
    )
    assert settings.token == "abc" and settings.database_path == "/data/x.db"
    assert settings.dev_guild_id == 42
    with pytest.raises(ValueError, match="DEV_GUILD_ID"):
        bot.Settings.from_env({"DEV_GUILD_ID": "my server"})


def test_starting_without_a_token_exits_2_with_a_short_message(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DISCORD_TOKEN", "DEV_GUILD_ID"}}
    done = subprocess.run(
        [sys.executable, str(ROOT / "bot.py")],
        cwd=tmp_path,  # no .env here
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "DISCORD_TOKEN" in done.stderr and "discord.com/developers" in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_payload_loggers_stay_at_info_even_when_debugging() -> None:
    import logging

    bot.configure_logging("DEBUG")
    for name in bot.PAYLOAD_LOGGERS:
        assert logging.getLogger(name).getEffectiveLevel() >= logging.INFO
    assert logging.getLogger("siege").getEffectiveLevel() == logging.DEBUG
