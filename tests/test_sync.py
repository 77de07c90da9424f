"""Slash commands are uploaded only when the command tree changed (issue 13), counted through the
fake Discord's ``PUT /applications/<app>/.../commands``; ``SYNC_COMMANDS=force`` or
``python bot.py --sync`` uploads them anyway."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import discord
import pytest

import bot
from tests.fakecord import FakeDiscord, start_client, stop_client

pytestmark = pytest.mark.e2e


def puts(fake: FakeDiscord) -> int:
    return sum(
        1
        for line in fake.request_log
        if line.startswith("PUT /applications/") and "/commands ->" in line
    )


async def run_once(
    fake: FakeDiscord,
    settings: bot.Settings,
    extra: discord.app_commands.Command[Any, Any, Any] | None = None,
) -> int:
    """Start the bot, wait until it is ready, stop it: the command uploads it made."""
    before = puts(fake)
    client = bot.create_bot(settings, guild_ready_timeout=0.05)
    if extra is not None:
        client.tree.add_command(extra)
    await start_client(client)
    await stop_client(client)
    return puts(fake) - before


def settings_for(
    fake: FakeDiscord, path: Path, guild_id: int | None, sync: str = "auto"
) -> bot.Settings:
    return bot.Settings.from_env(
        {
            "DISCORD_TOKEN": "fake-token",
            "DATABASE_PATH": str(path),
            "DEV_GUILD_ID": str(guild_id or ""),
            "SYNC_COMMANDS": sync,
        }
    )


async def ping(interaction: discord.Interaction[Any]) -> None:  # pragma: no cover - never invoked
    await interaction.response.send_message("pong")


@pytest.mark.parametrize("in_guild", [True, False], ids=["dev-guild", "global"])
async def test_commands_are_synced_only_when_the_tree_changed(
    fakecord: FakeDiscord, tmp_path: Path, in_guild: bool
) -> None:
    guild = fakecord.add_guild("Sync")
    guild_id = guild.id if in_guild else None
    db = tmp_path / "siege.db"
    settings = settings_for(fakecord, db, guild_id)
    assert await run_once(fakecord, settings) == 1  # the first start uploads them
    commands = guild.commands.all() if in_guild else fakecord.global_commands.all()
    assert {c["name"] for c in commands} >= {"siege"}
    recorded = json.loads(Path(f"{db}.commands.json").read_text())
    assert len(recorded) == 1
    assert await run_once(fakecord, settings) == 0  # unchanged: nothing uploaded
    assert await run_once(fakecord, settings) == 0
    # A changed tree (a new command) is uploaded once, and then it is the known tree again.
    extra: discord.app_commands.Command[Any, Any, Any]
    extra = discord.app_commands.Command(name="ping", description="Ping", callback=ping)
    assert await run_once(fakecord, settings, extra) == 1
    commands = guild.commands.all() if in_guild else fakecord.global_commands.all()
    assert "ping" in {c["name"] for c in commands}
    extra = discord.app_commands.Command(name="ping", description="Ping", callback=ping)
    assert await run_once(fakecord, settings, extra) == 0
    # And removing it again is a change too.
    assert await run_once(fakecord, settings) == 1
    # The owner can force an upload.
    forced = settings_for(fakecord, db, guild_id, sync="force")
    assert await run_once(fakecord, forced) == 1
    assert await run_once(fakecord, forced) == 1


async def test_another_server_or_a_lost_record_syncs_again(
    fakecord: FakeDiscord, tmp_path: Path
) -> None:
    first, second = fakecord.add_guild("One"), fakecord.add_guild("Two")
    db = tmp_path / "siege.db"
    assert await run_once(fakecord, settings_for(fakecord, db, first.id)) == 1
    assert await run_once(fakecord, settings_for(fakecord, db, second.id)) == 1
    assert await run_once(fakecord, settings_for(fakecord, db, first.id)) == 0
    assert second.commands.all()
    Path(f"{db}.commands.json").write_text("not json")
    assert await run_once(fakecord, settings_for(fakecord, db, first.id)) == 1


def test_the_sync_setting_and_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    assert bot.Settings.from_env({}).command_sync == "auto"
    assert bot.Settings.from_env({"SYNC_COMMANDS": " Force "}).command_sync == "force"
    with pytest.raises(bot.SettingsError, match="SYNC_COMMANDS must be auto or force"):
        bot.Settings.from_env({"SYNC_COMMANDS": "always"})
    assert bot.main(["--frobnicate"]) == 2  # an unknown argument: usage, status 2
    seen: list[bot.Settings] = []

    async def fake_amain(settings: bot.Settings, **_: object) -> int:
        seen.append(settings)
        return 0

    monkeypatch.setattr(bot, "amain", fake_amain)
    monkeypatch.setattr(bot, "configure_logging", lambda level: None)
    monkeypatch.setattr(bot.Settings, "from_env", classmethod(lambda cls, env=None: cls(token="t")))
    assert bot.main(["--sync"]) == 0 and bot.main([]) == 0
    assert [s.command_sync for s in seen] == ["force", "auto"]
