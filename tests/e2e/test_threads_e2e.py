"""Game threads (issue 25, item 12) through the fake Discord: ``/play`` opens each game in a
public thread of its own with a one-line pointer in the channel; everything that follows the
table happens in the thread, across a restart; the game thread archives an hour after the end;
without Create Public Threads (or inside a thread) the table opens where the command was run."""

from __future__ import annotations

import discord
import pytest

from cogs.threads import ARCHIVE_ENDED, ARCHIVE_RUNNING
from tests.e2e.test_castles_e2e import DEALER_BOB, dm_panel, refusal
from tests.e2e.world import World
from tests.fakeclock import Clock
from tests.fakecord import FakeMessage, InteractionHandle
from tests.fakecord.threads import archive
from tests.fakecord.world import PUBLIC_THREAD, FakeChannel

pytestmark = pytest.mark.e2e

PLAY = "play castles-besieged"


async def threads_on(w: World) -> None:
    handle = await w.mod.slash(w.channel, "siege-admin defaults", threads=True)
    assert handle.ephemeral and "Game threads" in (handle.response_message.content or "")


def threads_of(w: World, channel: FakeChannel) -> list[FakeChannel]:
    return [c for c in w.guild.channels if c.is_thread and c.parent_id == channel.id]


async def open_in_thread(w: World) -> tuple[FakeChannel, FakeMessage]:
    """Alice opens a table from the channel: the thread made for it and its table message."""
    before = {c.id for c in threads_of(w, w.channel)}
    handle = await w.alice.slash(w.channel, PLAY, dealer=DEALER_BOB)
    await w.fake.settle()
    (thread,) = [c for c in threads_of(w, w.channel) if c.id not in before]
    pointer = handle.response_message
    assert pointer is not None and not handle.ephemeral
    assert thread.mention in (pointer.content or "") and "\n" not in (pointer.content or "")
    (table_message,) = w.fake.channel_messages(thread)
    return thread, table_message


async def start_in_thread(w: World) -> tuple[FakeChannel, FakeMessage]:
    thread, lobby = await open_in_thread(w)
    await w.bob.click(lobby, "Join")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    return thread, lobby


async def test_play_opens_each_game_in_a_thread_of_its_own(world: World) -> None:
    w = world
    await threads_on(w)
    thread, lobby = await open_in_thread(w)
    assert thread.type == PUBLIC_THREAD and thread.auto_archive_duration == ARCHIVE_RUNNING
    assert thread.name is not None and thread.name.endswith("— alice")
    table = await w.table(thread)
    assert table.channel_id == thread.id and table.message_id == lobby.id
    assert "a table is open" in lobby.text()
    # The channel keeps only the pointer: the table lives in the thread.
    assert "a table is open" not in w.public_text()
    # A second game opens beside it, in a thread of its own.
    await w.carol.slash(w.channel, PLAY)
    await w.fake.settle()
    assert len(threads_of(w, w.channel)) == 2
    # Joining, starting and moving happen in the thread; it is renamed after its players.
    await w.bob.click(lobby, "Join")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    assert thread.name.endswith("— alice vs bob")
    table = await w.table(thread)
    await w.alice.click(dm_panel(w, w.alice, table), "Draw (38 left)")
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.ply == 1 and "turn 2 ·" in w.fake.latest(lobby).text()
    # The end: resigned, the thread archives an hour after its last message.
    await w.bob.click(w.fake.latest(lobby), "Resign")
    resign = [m for m in w.bob.view(thread) if m.ephemeral and "Resign this game?" in m.text()]
    await w.bob.click(resign[-1], "Yes, resign")
    await w.fake.settle()
    over = await w.table_by_id(table.id)
    assert over.status == "over" and "Result" in w.fake.latest(lobby).text()
    assert thread.auto_archive_duration == ARCHIVE_ENDED


async def test_threads_off_opens_the_table_in_the_channel(world: World) -> None:
    w = world
    await threads_on(w)
    handle = await w.mod.slash(w.channel, "siege-admin defaults", threads=False)
    assert "each game in a thread of its own → in the channel" in (
        handle.response_message.content or ""
    )
    handle = await w.alice.slash(w.channel, PLAY)
    assert (
        handle.response_message is not None and "a table is open" in handle.response_message.text()
    )
    assert threads_of(w, w.channel) == []
    assert (await w.table()).channel_id == w.channel.id


async def test_without_create_public_threads_the_table_opens_in_the_channel(
    world: World,
) -> None:
    w = world
    await threads_on(w)
    (bot_role,) = [r for r in w.guild.roles.values() if r.bot_id is not None]
    for role in (bot_role, w.guild.everyone):
        role.permissions &= ~discord.Permissions(create_public_threads=True).value
    handle = await w.alice.slash(w.channel, PLAY)
    await w.fake.settle()
    assert threads_of(w, w.channel) == []
    assert (
        handle.response_message is not None and "a table is open" in handle.response_message.text()
    )
    (note,) = handle.followups
    assert note.ephemeral and "Create Public Threads" in (note.content or "")
    assert (await w.table()).channel_id == w.channel.id


async def test_play_inside_a_thread_opens_the_table_right_there(world: World) -> None:
    w = world
    await threads_on(w)
    side = w.fake.create_thread(w.channel, "side games", PUBLIC_THREAD)
    handle = await w.alice.slash(side, PLAY)
    await w.fake.settle()
    assert (
        handle.response_message is not None and "a table is open" in handle.response_message.text()
    )
    assert handle.followups == []
    assert threads_of(w, w.channel) == [side]
    assert (await w.table(side)).channel_id == side.id


async def test_a_restart_resumes_the_table_in_its_thread(world: World) -> None:
    w = world
    await threads_on(w)
    thread, message = await start_in_thread(w)
    table = await w.table(thread)
    await w.restart_bot()
    await w.alice.click(dm_panel(w, w.alice, table), "Draw (38 left)")
    await w.fake.settle()
    assert (await w.table_by_id(table.id)).ply == 1
    assert "turn 2 ·" in w.fake.latest(message).text()
    # An archived thread (a week without a message) opens again for the next move.
    archive(w.fake, thread)
    await w.bob.click(dm_panel(w, w.bob, table), "Draw (37 left)")
    await w.fake.settle()
    assert (await w.table_by_id(table.id)).ply == 2
    assert not thread.archived and "turn 3 ·" in w.fake.latest(message).text()


async def test_a_deleted_thread_closes_its_table(world: World) -> None:
    w = world
    await threads_on(w)
    thread, _ = await start_in_thread(w)
    table = await w.table(thread)
    panel = dm_panel(w, w.alice, table)
    w.fake.delete_channel(thread)
    await w.fake.settle()
    assert (await w.table_by_id(table.id)).status == "cancelled"
    handle = await w.alice.click(panel, "Draw (38 left)")  # the panel from before
    assert refusal(handle) == "This table is closed."


async def test_deleting_the_channel_closes_the_tables_in_its_threads(world: World) -> None:
    w = world
    await threads_on(w)
    thread, _ = await start_in_thread(w)
    table = await w.table(thread)
    w.fake.delete_channel(w.channel)
    await w.fake.settle()
    assert (await w.table_by_id(table.id)).status == "cancelled"
    assert "cancelled" in dm_panel(w, w.bob, table).text()


async def test_clocks_and_a_rematch_follow_the_table_into_its_thread(world: World) -> None:
    w = world
    clock = Clock()
    w.clock = clock
    await w.restart_bot()
    await threads_on(w)
    handle = await w.mod.slash(w.channel, "siege-admin defaults", time_control="daily:1")
    assert "Default clock" in answer_text(handle)
    thread, message = await start_in_thread(w)
    table = await w.table(thread)
    assert table.time_control == "daily:1"  # the server's default clock
    clock.advance(days=1, seconds=1)  # Alice misses her move: the automatic move, told there
    assert await w.running.clockwork.sweep() == 1
    await w.fake.settle()
    told = [m.text() for m in w.fake.channel_messages(thread) if "ran out of time" in m.text()]
    assert len(told) == 1 and "automatic move" in told[0]
    assert "ran out of time" not in w.public_text()  # the channel keeps its pointer only
    table = await w.table_by_id(table.id)
    assert table.ply == 1
    # Bob resigns; Alice's Rematch is offered, accepted and played in the same thread.
    await w.bob.click(w.fake.latest(message), "Resign")
    resign = [m for m in w.bob.view(thread) if m.ephemeral and "Resign this game?" in m.text()]
    await w.bob.click(resign[-1], "Yes, resign")
    await w.fake.settle()
    assert thread.auto_archive_duration == ARCHIVE_ENDED
    asked = await w.alice.click(w.fake.latest(message), "Rematch")
    assert asked.response_message is not None and asked.response_message.channel_id == thread.id
    await w.bob.click(asked.response_message, "Accept")
    await w.fake.settle()
    rematch = await w.table(thread)
    assert rematch.rematch_of == table.id and rematch.status == "running"
    assert w.fake.messages[rematch.message_id or 0].channel_id == thread.id
    assert thread.auto_archive_duration == ARCHIVE_RUNNING  # a game runs there again
    # A moderator cancels it in the thread: a running game asks them to confirm (issue 25).
    asked = await w.mod.slash(thread, "siege cancel")
    assert asked.ephemeral and asked.response_message is not None
    await w.mod.click(asked.response_message, "Yes, cancel the game")
    await w.fake.settle()
    assert (await w.table_by_id(rematch.id)).status == "cancelled"
    assert [m for m in w.fake.channel_messages(thread) if "a moderator, cancelled" in m.text()]


def answer_text(handle: InteractionHandle) -> str:
    assert handle.ephemeral and handle.response_message is not None
    return handle.response_message.text()


@pytest.mark.sqlite_only("the fake Discord's threads: no storage involved")
async def test_the_fake_edits_archives_and_deletes_threads_as_discord_does(world: World) -> None:
    w = world
    bot = w.running
    thread = w.fake.create_thread(w.channel, "talk", PUBLIC_THREAD)
    await bot.http.edit_channel(thread.id, name="renamed", auto_archive_duration=60)
    assert (thread.name, thread.auto_archive_duration) == ("renamed", 60)
    with pytest.raises(discord.HTTPException) as refused:
        await bot.http.edit_channel(thread.id, auto_archive_duration=61)
    assert refused.value.code == 50035
    channel = bot.get_partial_messageable(thread.id, guild_id=w.guild.id)
    sent = await channel.send("first")
    archive(w.fake, thread)
    with pytest.raises(discord.HTTPException) as refused:
        await sent.edit(content="edited while archived")
    assert refused.value.code == 50083
    await channel.send("second")  # a message opens an archived thread again
    assert not thread.archived
    await sent.edit(content="edited")
    thread.locked = True
    archive(w.fake, thread)
    with pytest.raises(discord.HTTPException) as refused:
        await channel.send("locked")
    assert refused.value.code == 50083
    await bot.http.delete_channel(thread.id)
    await w.fake.settle()
    with pytest.raises(discord.NotFound):
        await channel.send("gone")
    text = bot.get_channel(w.channel.id)
    assert isinstance(text, discord.TextChannel)
    (bot_role,) = [r for r in w.guild.roles.values() if r.bot_id is not None]
    for role in (bot_role, w.guild.everyone):
        role.permissions &= ~discord.Permissions(create_public_threads=True).value
    with pytest.raises(discord.Forbidden):
        await text.create_thread(name="not allowed", type=discord.ChannelType.public_thread)
