"""Server settings through the fake Discord (issue 28): ``/siege-admin …`` for members with
Manage Server — where games open, a moderator role, the defaults of new tables, the games
offered, the leaderboards — each change logged with who made it and kept across a restart."""

from __future__ import annotations

from datetime import UTC, datetime

import discord
import pytest

from cogs.boards import season_name
from storage.seasons import season_of
from tests.e2e.test_boards_e2e import resigned_game
from tests.e2e.test_castles_e2e import refusal
from tests.e2e.world import World
from tests.fakecord import CommandUnavailable, InteractionHandle
from tests.fakecord.world import PUBLIC_THREAD

pytestmark = pytest.mark.e2e

PLAY = "play castles-besieged"


def answer(handle: InteractionHandle) -> str:
    assert handle.ephemeral and handle.response_message is not None
    return handle.response_message.text()


async def test_only_a_server_manager_changes_or_sees_the_settings(world: World) -> None:
    w = world
    commands = (("siege-admin show", {}), ("siege-admin defaults", {"threads": True}))
    for command, options in commands:  # Discord offers the command to managers only
        with pytest.raises(CommandUnavailable, match="default_member_permissions"):
            await w.alice.slash(w.channel, command, **options)
    # A server may grant the command to others (Integrations); the settings stay a manager's.
    w.guild.command_grants["siege-admin"] = {w.alice.id}
    for command, options in commands:
        handle = await w.alice.slash(w.channel, command, **options)
        assert "Only a server manager (Manage Server)" in refusal(handle)
    handle = await w.mod.slash(w.channel, "siege-admin show")
    text = answer(handle)
    assert "Channels\nevery channel" in text and "Moderator role\nnone" in text
    assert "Game threads\nin the channel" in text  # as the test world set it
    nothing = await w.mod.slash(w.channel, "siege-admin leaderboards")
    assert "Give at least one option" in refusal(nothing)


async def test_games_open_only_in_the_channels_named_and_their_threads(world: World) -> None:
    w = world
    lounge = w.guild.add_text_channel("lounge")
    handle = await w.mod.slash(w.channel, "siege-admin channels", add=lounge)
    assert "every channel →" in answer(handle)
    refused = await w.alice.slash(w.channel, PLAY)
    assert refusal(refused) == (
        f"Games open in <#{lounge.id}> (or a thread in one of them) on this server."
    )
    challenge = await w.alice.slash(w.channel, "siege challenge", user=w.bob, game="castles")
    assert "Games open in" in refusal(challenge)
    seek = await w.alice.slash(w.channel, "siege seek", game="castles")
    assert "Games open in" in refusal(seek)
    assert await w.running.store.open_table_in(w.channel.id) is None
    opened = await w.alice.slash(lounge, PLAY)
    assert not opened.ephemeral
    side = w.fake.create_thread(lounge, "side", PUBLIC_THREAD)
    assert not (await w.bob.slash(side, PLAY)).ephemeral
    await w.mod.slash(w.channel, "siege-admin channels", everywhere=True)
    assert not (await w.alice.slash(w.channel, PLAY)).ephemeral


async def test_the_moderator_role_may_cancel_and_repost_tables(world: World) -> None:
    w = world
    referees = w.guild.add_role("Referees")
    w.guild.member(w.carol).roles.append(referees)  # type: ignore[union-attr]
    await w.alice.slash(w.channel, PLAY)
    refused = await w.carol.slash(w.channel, "siege cancel")
    assert "a moderator can cancel" in refusal(refused)
    refused = await w.carol.slash(w.channel, "siege table")
    assert "or a moderator" in refusal(refused)
    handle = await w.mod.slash(w.channel, "siege-admin moderator", role=referees)
    assert f"<@&{referees.id}>" in answer(handle)
    assert await w.running.store.moderator_role(w.guild.id) == referees.id
    moved = await w.carol.slash(w.channel, "siege table")
    assert not moved.ephemeral
    cancelled = await w.carol.slash(w.channel, "siege cancel")
    assert not cancelled.ephemeral and "cancelled table" in (
        cancelled.response_message.content or ""  # type: ignore[union-attr]
    )
    await w.mod.slash(w.channel, "siege-admin moderator", none=True)
    await w.alice.slash(w.channel, PLAY)
    assert "a moderator can cancel" in refusal(await w.carol.slash(w.channel, "siege cancel"))


async def test_defaults_of_new_tables_apply_when_the_host_names_none(world: World) -> None:
    w = world
    handle = await w.mod.slash(
        w.channel, "siege-admin defaults", time_control="live:10", forfeit_after=3
    )
    assert "Default clock" in answer(handle) and "Default forfeit" in answer(handle)
    opened = await w.alice.slash(w.channel, PLAY)
    assert not opened.ephemeral, opened.response_message
    table = await w.table()
    assert (table.time_control, table.forfeit_after) == ("live:10", 3)
    assert "forfeits after 3 missed moves" in opened.response_message.text()  # type: ignore[union-attr]
    await w.alice.slash(w.channel, "siege cancel")
    again = await w.alice.slash(w.channel, PLAY, time_control="daily:1", forfeit_after=1)
    assert not again.ephemeral, again.response_message
    table = await w.table()
    assert (table.time_control, table.forfeit_after) == ("daily:1", 1)  # the host's choice
    bad = await w.mod.slash(w.channel, "siege-admin defaults", time_control="soon")
    assert "Pick a time control" in refusal(bad)


async def test_a_game_turned_off_is_not_offered(world: World) -> None:
    w = world
    handle = await w.mod.slash(w.channel, "siege-admin games", game="castles", offered=False)
    assert "Castles Besieged" in answer(handle)
    refused = await w.alice.slash(w.channel, PLAY)
    assert refusal(refused) == "Castles Besieged is not offered on this server."
    challenge = await w.alice.slash(w.channel, "siege challenge", user=w.bob, game="castles")
    assert refusal(challenge) == "Castles Besieged is not offered on this server."
    seek = await w.alice.slash(w.channel, "siege seek", game="castles")
    assert refusal(seek) == "Castles Besieged is not offered on this server."
    assert "Games offered\nall but Castles Besieged" in answer(
        await w.mod.slash(w.channel, "siege-admin show")
    )
    await w.mod.slash(w.channel, "siege-admin games", game="castles", offered=True)
    assert not (await w.alice.slash(w.channel, PLAY)).ephemeral


async def test_leaderboards_off_a_longer_season_and_repeats(world: World) -> None:
    w = world
    await resigned_game(w)
    handle = await w.mod.slash(w.channel, "siege-admin leaderboards", shown=False)
    assert "shown → off" in answer(handle)
    off = await w.carol.slash(w.channel, "siege leaderboard", game="castles")
    assert "Leaderboards are off in this server" in refusal(off)
    await w.mod.slash(
        w.channel,
        "siege-admin leaderboards",
        shown=True,
        season="quarterly",
        repeats_count_less=False,
    )
    await resigned_game(w)
    board = await w.carol.slash(w.channel, "siege leaderboard", game="castles")
    assert board.response_message is not None
    text = board.response_message.text()
    quarter = season_of(datetime.now(UTC).isoformat(), "quarterly")
    assert season_name(quarter) in text and "count less" not in text
    assert "1 game" in text  # the game before the change went on the month's board
    typed = await w.carol.slash(w.channel, "siege leaderboard", game="castles", season=quarter)
    assert (
        typed.response_message is not None and season_name(quarter) in typed.response_message.text()
    )


async def test_changes_are_logged_with_who_made_them_and_survive_a_restart(
    world: World,
) -> None:
    w = world
    await w.mod.slash(w.channel, "siege-admin defaults", threads=True, forfeit_after=4)
    owner = w.fake.add_user("owner")
    w.guild.add_member(owner, permissions=discord.Permissions(manage_guild=True))
    await owner.slash(w.channel, "siege-admin leaderboards", season="yearly")
    await w.restart_bot()
    text = answer(await w.mod.slash(w.channel, "siege-admin show"))
    assert "Default forfeit\nafter 4 missed moves" in text and "Season length\nyearly" in text
    assert f"**Season length**: monthly → yearly — <@{owner.id}>" in text
    assert (
        f"**Default forfeit**: after 2 missed moves → after 4 missed moves — <@{w.mod.id}>" in text
    )
    assert (
        f"**Game threads**: in the channel → each game in a thread of its own — <@{w.mod.id}>"
        in text
    )
