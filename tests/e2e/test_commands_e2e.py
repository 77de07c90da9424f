"""The commands a newcomer meets (issue 14): one ``/play`` subcommand per game with only its
own options, ``/siege help``, the welcome when the bot joins a server, ``/siege rules`` in its
order (on Discord, the rules, our readings) and ``/siege table`` for players and moderators."""

from __future__ import annotations

import re
from typing import Any

import pytest

from cogs.guide import command_name
from engine import get_game
from presentation import playable_games
from tests.e2e.test_castles_e2e import DEALER_BOB, open_game, refusal
from tests.e2e.world import World
from tests.fakecord import SchemaMismatch

pytestmark = pytest.mark.e2e

#: What every game with a clock offers besides its own options.
CLOCK_OPTIONS = {"time_control", "forfeit_after"}
#: Options that are table settings rather than engine options.
SEATING_OPTIONS = {"knights": {"side"}}


def play_subcommands(w: World) -> dict[str, dict[str, Any]]:
    command = w.guild.commands.chat_input("play")
    assert command is not None
    return {o["name"]: o for o in command["options"]}


async def test_each_game_has_its_own_play_command_with_only_its_options(world: World) -> None:
    subcommands = play_subcommands(world)
    assert set(subcommands) == {command_name(key) for key in playable_games()}
    for key in playable_games():
        engine = get_game(key)
        sub = subcommands[command_name(key)]
        assert sub["description"].startswith(engine.title)  # the same name as everywhere else
        offered = {o["name"] for o in sub.get("options", [])}
        own = {o.name for o in engine.options} | SEATING_OPTIONS.get(key, set())
        extra = CLOCK_OPTIONS if engine.max_seats > 1 else set()
        assert offered == own | extra, key
    # The game names read the same in the command, the lobby, the table and the rules.
    assert command_name("castles") == "castles-besieged"
    assert command_name("knights") == "siege-1966"
    # Options come from the engine's declaration: choices with their labels, ranges as bounds.
    towers = {o["name"]: o for o in subcommands[command_name("towers")]["options"]}
    assert (towers["start_chips"]["min_value"], towers["start_chips"]["max_value"]) == (1, 10000)
    assert towers["start_chips"]["description"].endswith("(default: 100)")
    castles = {o["name"]: o for o in subcommands[command_name("castles")]["options"]}
    assert [c["value"] for c in castles["dealer"]["choices"]] == ["random", "0", "1"]
    king = {o["name"]: o for o in subcommands[command_name("king")]["options"]}
    assert king["specials"]["type"] == 5  # a yes/no option is a boolean


async def test_game_parameters_offer_the_registry_and_refuse_anything_else(world: World) -> None:
    w = world
    handle = await w.carol.slash(w.channel, "siege rules", game="chess")
    assert refusal(handle).startswith("Pick a game from the list: Castles Besieged")
    handle = await w.alice.slash(w.channel, "siege challenge", user=w.bob, game="kurth")
    assert refusal(handle).startswith("Pick a two-player game from the list")
    assert await w.running.store.open_table_in(w.channel.id) is None
    # A game may be typed as its title or its /play name, too.
    handle = await w.carol.slash(w.channel, "siege rules", game="Siege (1966)")
    assert handle.response_message is not None and "Siege (1966) — rules" in (
        handle.response_message.text()
    )


async def test_new_opens_the_game_named_and_refuses_a_made_up_clock(world: World) -> None:
    w = world
    handle = await w.alice.slash(w.channel, "play siege-1966", time_control="warp speed")
    assert "Pick a time control from the list" in refusal(handle)
    assert await w.running.store.open_table_in(w.channel.id) is None
    handle = await w.alice.slash(w.channel, "play siege-1966", time_control="daily:2")
    assert not handle.ephemeral and handle.response_message is not None
    assert "Siege (1966)" in handle.response_message.text()
    table = await w.table()
    assert table.game == "knights" and table.time_control == "daily:2"
    with pytest.raises(SchemaMismatch):
        await w.alice.slash(w.channel, "play siege-1966", dealer="0")


async def test_help_is_a_private_friendly_guide(world: World) -> None:
    w = world
    handle = await w.carol.slash(w.channel, "siege help")
    assert handle.ephemeral and handle.response_message is not None
    text = handle.response_message.text()
    for key in playable_games():
        assert f"/play {command_name(key)}" in text and get_game(key).title in text
    assert "DM" in text and "/siege rules" in text and "My hand" in text
    assert "/siege verify" in text and "today's Siege at Kurth challenge" in text


async def test_the_bot_welcomes_a_new_server_in_its_system_channel(world: World) -> None:
    w = world
    joined = w.fake.add_guild("Fresh Keep", system_channel="welcome")
    await w.fake.settle()
    (channel,) = [c for c in joined.channels if c.name == "welcome"]
    (message,) = w.fake.channel_messages(channel)
    assert "Thanks for inviting Siege Hall" in message.text()
    assert "/play castles-besieged" in message.text()
    quiet = w.fake.add_guild("No System Channel")  # nowhere to post: nothing is posted
    await w.fake.settle()
    assert all(not w.fake.channel_messages(c) for c in quiet.channels)


def paragraphs(text: str) -> list[str]:
    return [p for p in re.split(r"\n\s*\n", text) if p.strip()]


async def test_rules_read_discord_first_and_our_readings_last(world: World) -> None:
    w = world
    for key in playable_games():
        handle = await w.carol.slash(w.channel, "siege rules", game=key)
        assert handle.ephemeral and handle.response_message is not None
        text = "\n\n".join(e.get("description", "") for e in handle.response_message.embeds)
        parts = paragraphs(text)
        assert parts[1].startswith("**On Discord.**"), key
        readings = [n for n, p in enumerate(parts) if p.startswith("**Our readings")]
        assert readings in ([], [len(parts) - 1]), key
    handle = await w.carol.slash(w.channel, "siege rules", game="castles", show=True)
    assert not handle.ephemeral  # shown to the channel
    assert handle.response_message is not None
    assert "Castles Besieged — rules" in handle.response_message.text()


async def test_table_can_be_moved_by_its_players_and_moderators_only(world: World) -> None:
    w = world
    table, message = await open_game(w, dealer=DEALER_BOB)
    handle = await w.carol.slash(w.channel, "siege table")
    assert refusal(handle) == (
        "Only the players at this table, or a moderator, can move it down the channel."
    )
    assert (await w.table_by_id(table.id)).message_id == message.id
    handle = await w.alice.slash(w.channel, "siege table")
    await w.fake.settle()
    moved = await w.table_by_id(table.id)
    assert moved.message_id not in (None, message.id)
    old = w.fake.messages[message.id]
    assert old.embeds == [] and str(moved.message_id) in (old.content or "")
    handle = await w.mod.slash(w.channel, "siege table")  # a moderator who is not playing
    await w.fake.settle()
    assert (await w.table_by_id(table.id)).message_id != moved.message_id
