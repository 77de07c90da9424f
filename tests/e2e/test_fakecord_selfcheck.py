"""Self-check of the fake Discord: a tiny discord.py bot, defined here, driven end to end.

The bot has an app-command group with options and choices, a DynamicItem button, a select, an
ephemeral reply, a DM (with the Forbidden/50007 path), an attachment, a modal, and commands that
misbehave on purpose so the fake's enforcement can be checked.
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import re
from collections.abc import AsyncIterator
from typing import Any, cast

import discord
import pytest
import pytest_asyncio
from discord import app_commands
from discord.ext import commands
from discord.http import Route

from tests.fakecord import (
    MANAGE_GUILD,
    ActionRefused,
    CommandUnavailable,
    FakeChannel,
    FakeDiscord,
    FakeGuild,
    FakeUser,
    SchemaMismatch,
    run_client,
    start_client,
    stop_client,
)
from tests.fakecord.plugin import fakecord_session

pytestmark = pytest.mark.e2e


# ----------------------------------------------------------------------------------------------
# The tiny bot


@dataclasses.dataclass
class BotLog:
    """What the bot's callbacks saw, shared across bot restarts."""

    events: list[tuple[Any, ...]] = dataclasses.field(default_factory=list)

    def record(self, *event: Any) -> None:
        self.events.append(event)

    def of(self, kind: str) -> list[tuple[Any, ...]]:
        return [e[1:] for e in self.events if e[0] == kind]


def log_of(interaction: discord.Interaction) -> BotLog:
    return cast(SelfCheckBot, interaction.client).log


class CounterButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"t:(?P<n>\d+)"):
    def __init__(self, n: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=f"Count {n}", style=discord.ButtonStyle.primary, custom_id=f"t:{n}"
            )
        )
        self.n = n

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Button[Any],
        match: re.Match[str],
    ) -> CounterButton:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        log_of(interaction).record("count", self.n, interaction.user.id, interaction.guild_id)
        await interaction.response.edit_message(
            content=f"count is {self.n + 1}", view=counter_view(self.n + 1)
        )


class ColourSelect(discord.ui.Select[Any]):
    def __init__(self) -> None:
        super().__init__(
            custom_id="colour",
            placeholder="Pick colours",
            min_values=1,
            max_values=2,
            options=[
                discord.SelectOption(label="Red", value="r", description="warm"),
                discord.SelectOption(label="Blue", value="b"),
                discord.SelectOption(label="Green", value="g"),
            ],
        )

    async def callback(self, interaction: discord.Interaction) -> None:
        log_of(interaction).record("colour", tuple(self.values))
        await interaction.response.defer()


def counter_view(n: int, *, with_select: bool = True) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(CounterButton(n))
    if with_select:
        view.add_item(ColourSelect())
    return view


class FeedbackModal(discord.ui.Modal, title="Feedback"):
    text: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Your feedback", custom_id="text")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"thanks: {self.text.value}", ephemeral=True)


BAD_KINDS = [
    app_commands.Choice(name=kind, value=kind)
    for kind in ("embed", "content", "custom_id", "emoji", "rows", "ephemeral_channel")
]


class FcGroup(app_commands.Group):
    def __init__(self) -> None:
        super().__init__(name="fc", description="fakecord self-check")

    @app_commands.command(description="Start a counter")
    @app_commands.describe(mode="The mode", rounds="How many rounds")
    @app_commands.choices(
        mode=[
            app_commands.Choice(name="Alpha", value="a"),
            app_commands.Choice(name="Beta", value="b"),
        ]
    )
    async def play(
        self,
        interaction: discord.Interaction,
        mode: app_commands.Choice[str],
        rounds: int | None = None,
    ) -> None:
        log_of(interaction).record("play", mode.value, rounds)
        await interaction.response.send_message(
            f"mode {mode.value} rounds {rounds}",
            embed=discord.Embed(title="Counter", description="Click to count").add_field(
                name="Mode", value=mode.name
            ),
            view=counter_view(0),
            file=discord.File(io.BytesIO(b"rules of the game"), filename="rules.txt"),
        )

    @app_commands.command(description="An ephemeral counter")
    async def secret(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(
            "only you can see this", ephemeral=True, view=counter_view(50, with_select=False)
        )

    @app_commands.command(description="DM someone")
    async def dm(self, interaction: discord.Interaction, target: discord.User) -> None:
        try:
            await target.send("hello from the bot", view=counter_view(100, with_select=False))
        except discord.Forbidden as exc:
            log_of(interaction).record("dm_forbidden", exc.status, exc.code)
            await interaction.response.send_message("their DMs are closed", ephemeral=True)
            return
        await interaction.response.send_message("sent", ephemeral=True)

    @app_commands.command(description="Admins only (checked by the bot)")
    async def admin(self, interaction: discord.Interaction) -> None:
        assert isinstance(interaction.user, discord.Member)
        allowed = interaction.user.guild_permissions.manage_guild
        log_of(interaction).record("admin", allowed, interaction.permissions.manage_guild)
        await interaction.response.send_message(
            "welcome, admin" if allowed else "not allowed", ephemeral=not allowed
        )

    @app_commands.command(description="Never answers")
    async def silent(self, interaction: discord.Interaction) -> None:
        log_of(interaction).record("silent")

    @app_commands.command(description="Answers only once the test releases it")
    async def slow(self, interaction: discord.Interaction) -> None:
        await cast(SelfCheckBot, interaction.client).release.wait()
        try:
            await interaction.response.send_message("finally")
        except discord.NotFound as exc:
            log_of(interaction).record("slow", exc.code)

    @app_commands.command(description="Answers twice")
    async def twice(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message("one")
        try:
            # A fresh InteractionResponse bypasses discord.py's own "already responded" guard.
            await type(interaction.response)(interaction).send_message("two")
        except discord.HTTPException as exc:
            log_of(interaction).record("twice", exc.status, exc.code)

    @app_commands.command(description="Thinks, then answers")
    async def think(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.followup.send("thought about it")
        await interaction.followup.send("one more thing", ephemeral=True)

    @app_commands.command(description="Sends, edits, threads, deletes, reads history")
    async def lifecycle(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)
        first = await channel.send("first", file=discord.File(io.BytesIO(b"abc"), filename="a.bin"))
        await first.edit(content="first (edited)")
        data = await first.attachments[0].read()
        fetched = await channel.fetch_message(first.id)
        thread = await first.create_thread(name="talk")
        await thread.send("in thread")
        second = await channel.send("second")
        await second.delete()
        history = [m.content async for m in channel.history(limit=10)]
        log_of(interaction).record(
            "lifecycle", data, fetched.content, thread.id == first.id, history
        )
        await interaction.followup.send("ok")

    @app_commands.command(description="Opens a modal")
    async def feedback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(FeedbackModal())

    @app_commands.command(description="Sends something Discord rejects")
    @app_commands.choices(kind=BAD_KINDS)
    async def bad(self, interaction: discord.Interaction, kind: app_commands.Choice[str]) -> None:
        await interaction.response.defer(ephemeral=True)
        channel = interaction.channel
        assert isinstance(channel, discord.TextChannel)
        try:
            if kind.value == "embed":
                await channel.send(embed=discord.Embed(description="x" * 4097))
            elif kind.value == "content":
                await channel.send("x" * 2001)
            elif kind.value == "custom_id":
                view = discord.ui.View()
                view.add_item(discord.ui.Button(label="long", custom_id="c" * 101))
                await channel.send("long custom id", view=view)
            elif kind.value == "emoji":
                view = discord.ui.View()
                view.add_item(discord.ui.Button(label="card", emoji="🂠", custom_id="card"))
                await channel.send("a playing-card glyph is not a Discord emoji", view=view)
            else:
                rows = [
                    {
                        "type": 1,
                        "components": [
                            {"type": 2, "style": 1, "label": f"b{i}", "custom_id": f"b{i}"}
                        ],
                    }
                    for i in range(6)
                ]
                payload: dict[str, Any] = {"content": "raw", "components": rows}
                if kind.value == "ephemeral_channel":
                    payload = {"content": "ephemeral?", "flags": 64}
                route = Route("POST", "/channels/{channel_id}/messages", channel_id=channel.id)
                await interaction.client.http.request(route, json=payload)
        except discord.HTTPException as exc:
            log_of(interaction).record("bad", kind.value, exc.status, exc.code)
        await interaction.followup.send("done", ephemeral=True)


@app_commands.command(name="lock", description="Managers only (Discord hides it from others)")
@app_commands.default_permissions(manage_guild=True)
async def lock_command(interaction: discord.Interaction) -> None:
    await interaction.response.send_message("locked", ephemeral=True)


class SelfCheckBot(commands.Bot):
    def __init__(self, log: BotLog) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            help_command=None,
            guild_ready_timeout=0.05,
        )
        self.log = log
        self.release = asyncio.Event()

    async def setup_hook(self) -> None:
        self.tree.add_command(FcGroup())
        self.tree.add_command(lock_command)
        self.add_dynamic_items(CounterButton)
        await self.tree.sync()


# ----------------------------------------------------------------------------------------------
# Fixtures


@dataclasses.dataclass
class World:
    guild: FakeGuild
    hall: FakeChannel
    alice: FakeUser
    bob: FakeUser


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with fakecord_session() as fake:
        yield fake


@pytest.fixture
def world(fake: FakeDiscord) -> World:
    guild = fake.add_guild("Castle")
    hall = guild.add_text_channel("siege-hall")
    alice = fake.add_user("alice")
    bob = fake.add_user("bob")
    guild.add_member(alice, permissions=MANAGE_GUILD)
    guild.add_member(bob)
    return World(guild, hall, alice, bob)


@pytest_asyncio.fixture
async def bot(fake: FakeDiscord, world: World) -> AsyncIterator[SelfCheckBot]:
    client = SelfCheckBot(BotLog())
    await start_client(client)
    yield client
    await stop_client(client)


# ----------------------------------------------------------------------------------------------
# Tests


async def test_login_ready_and_sync(fake: FakeDiscord, world: World, bot: SelfCheckBot) -> None:
    assert bot.is_ready()
    assert bot.user is not None and bot.user.id == fake.bot_user.id
    guild = bot.get_guild(world.guild.id)
    assert guild is not None and guild.name == "Castle"
    assert guild.get_channel(world.hall.id) is not None
    synced = fake.global_commands.chat_input("fc")
    assert synced is not None
    assert {o["name"] for o in synced["options"]} >= {"play", "secret", "dm", "bad"}
    assert fake.connected


async def test_slash_options_reach_the_callback(
    fake: FakeDiscord, world: World, bot: SelfCheckBot
) -> None:
    handle = await world.alice.slash(world.hall, "fc play", mode="b", rounds=3)
    await world.bob.slash(world.hall, "fc play", mode="a")
    await fake.settle()
    assert bot.log.of("play") == [("b", 3), ("a", None)]
    message = handle.response_message
    assert message is not None and not handle.ephemeral
    assert message.content == "mode b rounds 3"
    assert [b.label for b in message.buttons()] == ["Count 0"]
    assert message.selects()[0].placeholder == "Pick colours"
    assert "Beta" in message.text() and "Click to count" in message.text()
    assert "rules.txt" in message.text()
    assert message.attachments[0].data == b"rules of the game"
    assert len(fake.channel_messages(world.hall)) == 2


async def test_schema_mismatch_raises(world: World, bot: SelfCheckBot) -> None:
    hall, alice = world.hall, world.alice
    with pytest.raises(SchemaMismatch, match="must be one of"):
        await alice.slash(hall, "fc play", mode="c")
    with pytest.raises(SchemaMismatch, match="unknown option"):
        await alice.slash(hall, "fc play", mode="a", turns=2)
    with pytest.raises(SchemaMismatch, match="required"):
        await alice.slash(hall, "fc play", rounds=2)
    with pytest.raises(SchemaMismatch, match="INTEGER"):
        await alice.slash(hall, "fc play", mode="a", rounds="two")
    with pytest.raises(SchemaMismatch, match="no subcommand"):
        await alice.slash(hall, "fc fly")
    with pytest.raises(SchemaMismatch, match="needs a subcommand"):
        await alice.slash(hall, "fc")
    with pytest.raises(SchemaMismatch, match="no synced slash command"):
        await alice.slash(hall, "nope")


async def test_dynamic_item_survives_restart_and_stale_clicks(
    fake: FakeDiscord, world: World
) -> None:
    log = BotLog()
    first = SelfCheckBot(log)
    await start_client(first)
    handle = await world.alice.slash(world.hall, "fc play", mode="a")
    original = handle.response_message
    assert original is not None
    await stop_client(first)
    assert not fake.connected

    second = SelfCheckBot(log)
    await start_client(second)
    await world.bob.click(original, "Count 0")
    await fake.settle()
    assert log.of("count") == [(0, world.bob.id, world.guild.id)]
    latest = fake.latest(original)
    assert latest.content == "count is 1" and latest.version == original.version + 1
    assert [b.custom_id for b in latest.buttons()] == ["t:1"]

    # Clicking the stale snapshot sends the stale components (custom_id t:0 again).
    await world.alice.click(original, custom_id="t:0")
    await world.alice.click(fake.latest(original), "Count 1")
    await fake.settle()
    assert [event[0] for event in log.of("count")] == [0, 0, 1]
    with pytest.raises(ActionRefused):
        await world.alice.click(original, "Count 7")
    await stop_client(second)


async def test_select_and_deferred_update(
    fake: FakeDiscord, world: World, bot: SelfCheckBot
) -> None:
    handle = await world.alice.slash(world.hall, "fc play", mode="a")
    assert handle.response_message is not None
    picked = await world.bob.select(handle.response_message, ["Red", "g"])
    await fake.settle()
    assert bot.log.of("colour") == [(("r", "g"),)]
    assert picked.response_type == 6
    with pytest.raises(ActionRefused, match="no option"):
        await world.bob.select(handle.response_message, "Purple")


async def test_ephemeral_messages_are_private(
    fake: FakeDiscord, world: World, bot: SelfCheckBot
) -> None:
    handle = await world.alice.slash(world.hall, "fc secret")
    secret = handle.response_message
    assert secret is not None and handle.ephemeral and secret.ephemeral_for == world.alice.id
    assert secret in world.alice.view(world.hall)
    assert all(m.id != secret.id for m in world.bob.view(world.hall))
    assert all(m.id != secret.id for m in fake.channel_messages(world.hall))
    with pytest.raises(ActionRefused, match="ephemeral"):
        await world.bob.click(secret, "Count 50")
    await world.alice.click(secret, "Count 50")
    await fake.settle()
    assert fake.latest(secret).content == "count is 51"
    assert bot.log.of("count") == [(50, world.alice.id, world.guild.id)]


async def test_dms_open_and_closed(fake: FakeDiscord, world: World, bot: SelfCheckBot) -> None:
    await world.alice.slash(world.hall, "fc dm", target=world.bob)
    await fake.settle()
    [dm] = world.bob.dms()
    assert dm.content == "hello from the bot"
    await world.bob.click(dm, "Count 100")
    await fake.settle()
    assert bot.log.of("count") == [(100, world.bob.id, None)]
    assert world.bob.dms()[0].content == "count is 101"

    world.bob.dms_closed = True
    handle = await world.alice.slash(world.hall, "fc dm", target=world.bob)
    await fake.settle()
    assert bot.log.of("dm_forbidden") == [(403, 50007)]
    assert handle.response_message is not None
    assert handle.response_message.content == "their DMs are closed"
    assert len(world.bob.dms()) == 1


async def test_permissions_reach_the_bot(
    fake: FakeDiscord, world: World, bot: SelfCheckBot
) -> None:
    await world.alice.slash(world.hall, "fc admin")
    await world.bob.slash(world.hall, "fc admin")
    await fake.settle()
    assert bot.log.of("admin") == [(True, True), (False, False)]


async def test_limits_are_enforced(fake: FakeDiscord, world: World, bot: SelfCheckBot) -> None:
    expected = {
        "embed": "embeds[0].description",
        "content": "content",
        "custom_id": "custom_id",
        "emoji": "Invalid emoji",
        "rows": "5 or fewer",
        "ephemeral_channel": "ephemeral flag",
    }
    for kind, needle in expected.items():
        handle = await world.alice.slash(world.hall, "fc bad", kind=kind)
        await fake.settle()
        [violation] = fake.pop_violations()
        assert needle in violation, violation
        assert handle.response_message is not None
        assert handle.response_message.content == "done"
    assert [e[0] for e in bot.log.of("bad")] == list(expected)
    assert {e[1:] for e in bot.log.of("bad")} == {(400, 50035)}
    assert fake.channel_messages(world.hall) == []


async def test_missing_and_late_responses_are_violations(
    fake: FakeDiscord, world: World, bot: SelfCheckBot
) -> None:
    fake.response_deadline = 0.3
    silent, slow = await asyncio.gather(
        world.alice.slash(world.hall, "fc silent"), world.bob.slash(world.hall, "fc slow")
    )
    assert not silent.responded and not slow.responded
    assert bot.log.of("silent") == [()]
    assert len(fake.pop_violations("no initial response within 0.3s")) == 2
    bot.release.set()
    await fake.settle()
    assert bot.log.of("slow") == [(10062,)]
    [late] = fake.pop_violations()
    assert "fc slow" in late and "past the 0.3s deadline" in late


async def test_double_response_is_a_violation(
    fake: FakeDiscord, world: World, bot: SelfCheckBot
) -> None:
    await world.alice.slash(world.hall, "fc twice")
    await fake.settle()
    assert bot.log.of("twice") == [(400, 40060)]
    [violation] = fake.pop_violations()
    assert "second initial response" in violation


async def test_deferred_followups_and_modal(
    fake: FakeDiscord, world: World, bot: SelfCheckBot
) -> None:
    handle = await world.alice.slash(world.hall, "fc think")
    assert handle.response_type == 5
    await fake.settle()
    response = handle.response_message
    assert response is not None and not response.loading
    assert response.content == "thought about it"
    [extra] = handle.followups
    assert extra.ephemeral_for == world.alice.id and extra.content == "one more thing"

    opened = await world.alice.slash(world.hall, "fc feedback")
    assert opened.modal is not None and opened.modal["title"] == "Feedback"
    submitted = await world.alice.submit_modal(opened, {"Your feedback": "great fixture"})
    assert submitted.response_message is not None
    assert submitted.response_message.content == "thanks: great fixture"


async def test_command_permissions_are_checked(
    fake: FakeDiscord, world: World, bot: SelfCheckBot
) -> None:
    synced = fake.global_commands.chat_input("lock")
    assert synced is not None and synced["default_member_permissions"] == str(MANAGE_GUILD)
    with pytest.raises(CommandUnavailable, match="default_member_permissions"):
        await world.bob.slash(world.hall, "lock")
    handle = await world.alice.slash(world.hall, "lock")
    assert handle.response_message is not None and handle.response_message.content == "locked"


async def test_gateway_drop_resume_and_replay(
    fake: FakeDiscord, world: World, bot: SelfCheckBot
) -> None:
    resumes = fake.gateway.resume_count
    await fake.drop_gateway()
    assert fake.gateway.resume_count == resumes + 1
    handle = await world.alice.slash(world.hall, "fc play", mode="a", rounds=1)
    assert handle.responded

    # An interaction dispatched while the socket is down is replayed on RESUME.
    await fake.drop_gateway(wait=False)
    assert not fake.connected
    late = await world.bob.slash(world.hall, "fc play", mode="b", rounds=2)
    assert late.responded
    await fake.settle()
    assert bot.log.of("play") == [("a", 1), ("b", 2)]
    assert fake.gateway.resume_count == resumes + 2


async def test_channel_message_lifecycle(fake: FakeDiscord, world: World) -> None:
    log = BotLog()
    async with run_client(fake, lambda: SelfCheckBot(log)):
        handle = await world.alice.slash(world.hall, "fc lifecycle")
        await fake.settle()
    [(data, fetched, same_id, history)] = log.of("lifecycle")
    assert (data, fetched, same_id, history) == (b"abc", "first (edited)", True, ["first (edited)"])
    [first] = fake.channel_messages(world.hall)
    assert first.thread is not None and first.attachments[0].filename == "a.bin"
    thread = fake.channels[first.id]
    assert [m.content for m in world.bob.view(thread)] == ["in thread"]
    assert handle.ephemeral and handle.response_message is not None
    assert handle.response_message.content == "ok"
    assert handle.response_message not in world.bob.view(world.hall)


async def test_slash_in_dm(fake: FakeDiscord, world: World, bot: SelfCheckBot) -> None:
    handle = await world.bob.slash(world.bob.dm_channel, "fc secret")
    assert handle.ephemeral and handle.response_message is not None
    await world.bob.click(handle.response_message, "Count 50")
    await fake.settle()
    assert bot.log.of("count") == [(50, world.bob.id, None)]
    assert world.bob.dms()[0].content == "count is 51"
