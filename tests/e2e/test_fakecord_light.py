"""The fake Discord's light mode (``FakeDiscord(light=True)``, what ``table_load.py`` runs): it
forgets what it never reads again, and everything the bot may still do keeps working.

The same steps run on the default fake, which keeps everything (tests read it)."""

from __future__ import annotations

import io
from typing import Any

import discord
import pytest

from tests.fakecord import FakeDiscord, FakeMessage, run_client
from tests.fakecord.light import KEPT_PAYLOAD
from tests.fakecord.plugin import fakecord_session

pytestmark = pytest.mark.e2e


class Question(discord.ui.Modal, title="Question"):
    answer: discord.ui.TextInput[Any] = discord.ui.TextInput(label="Answer", custom_id="answer")

    async def on_submit(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_message(f"answered {self.answer.value}")


class Board(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.pressed: list[discord.Interaction] = []

    @discord.ui.button(label="Press", custom_id="press")
    async def press(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        self.pressed.append(interaction)
        await interaction.response.send_message("pressed")

    @discord.ui.button(label="Ask", custom_id="ask")
    async def ask(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        await interaction.response.send_modal(Question())


def client() -> discord.Client:
    return discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.05)


def file(data: bytes, name: str) -> discord.File:
    return discord.File(io.BytesIO(data), filename=name)


@pytest.mark.parametrize("light", [True, False], ids=["light", "default"])
async def test_light_mode_forgets_only_what_is_never_read_again(light: bool) -> None:
    async with fakecord_session(light=light) as fake:
        guild = fake.add_guild("Keep")
        hall = guild.add_text_channel("hall")
        alice = fake.add_user("alice")
        guild.add_member(alice)
        board = Board()
        async with run_client(fake, client) as bot:
            channel = bot.get_channel(hall.id)
            assert isinstance(channel, discord.TextChannel)
            sent = await channel.send("board", view=board, file=file(b"first", "a.png"))
            await fake.settle()
            first = fake.messages[sent.id].attachments[0].id

            # An answered click keeps only what the fake reads later; its webhook still works.
            pressed = await alice.click(fake.messages[sent.id], "Press")
            assert pressed.responded
            later = await board.pressed[0].followup.send("later", wait=True)
            assert fake.messages[later.id].content == "later"
            if light:
                assert set(pressed.record.payload) <= set(KEPT_PAYLOAD)
            else:
                assert "message" in pressed.record.payload

            # A modal opened by a click can still be submitted (its payload is kept whole).
            opened = await alice.click(fake.messages[sent.id], "Ask")
            assert "message" in opened.record.payload
            submitted = await alice.submit_modal(opened, {"answer": "yes"})
            assert submitted.response_message is not None
            assert submitted.response_message.content == "answered yes"

            # A replaced attachment is forgotten; the shown one is served.
            await sent.edit(attachments=[file(b"second", "b.png")])
            await fake.settle()
            second = fake.messages[sent.id].attachments[0]
            assert fake.attachments[second.id].data == b"second"
            assert (first in fake.attachments) is not light

            # A deleted message is kept bare, and is gone for every route as before.
            await sent.delete()
            await fake.settle()
            gone: FakeMessage = fake.messages[sent.id]
            assert gone.deleted
            assert (gone.content, gone.components, gone.attachments) == (
                ("", [], ()) if light else ("board", gone.components, (second,))
            )
            assert bool(gone.components) is not light
            assert (second.id in fake.attachments) is not light
            assert fake.channel_messages(hall) == [
                fake.messages[i]
                for i in (pressed.record.original_message_id, later.id)
                if i is not None
            ] + [submitted.response_message]
            with pytest.raises(discord.NotFound):
                await channel.fetch_message(sent.id)


def test_the_default_fake_keeps_everything() -> None:
    assert FakeDiscord().light is False
