"""A click's answer that edits its message without asking for the message back
(``cogs.answerless.edit_in_answer``): the real discord.py client against the fake Discord.

It leaves the message exactly as discord.py's own ``edit_message`` does (embed, components,
attachment), Discord answers it 204 (no ``with_response``, nothing to parse), and the response is
done afterwards as after discord.py's. Discord.py still builds that edit the way this copies."""

from __future__ import annotations

import inspect
import io
from typing import Any

import discord
import pytest
from discord.webhook.async_ import AsyncWebhookAdapter

from cogs.answerless import edit_in_answer
from tests.fakecord import FakeMessage, run_client
from tests.fakecord.plugin import fakecord_session

pytestmark = pytest.mark.e2e


def edited_parts(n: int) -> dict[str, Any]:
    embed = discord.Embed(title=f"Move {n}", description="Alice played the 7 of towers.")
    embed.add_field(name="Score", value="12 – 9")
    embed.set_image(url="attachment://board.png")
    view = discord.ui.View(timeout=None)
    view.add_item(discord.ui.Button(label="Next", custom_id=f"next:{n}"))
    return {
        "embed": embed,
        "view": view,
        "attachments": [discord.File(io.BytesIO(b"png bytes"), filename="board.png")],
    }


class Board(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)
        self.done: list[bool] = []
        self.errors: list[BaseException] = []

    @discord.ui.button(label="Ours", custom_id="ours")
    async def ours(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        await edit_in_answer(interaction.response, **edited_parts(1))
        self.done.append(interaction.response.is_done())
        try:
            await edit_in_answer(interaction.response, **edited_parts(2))
        except discord.InteractionResponded as exc:
            self.errors.append(exc)

    @discord.ui.button(label="Theirs", custom_id="theirs")
    async def theirs(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        await interaction.response.edit_message(**edited_parts(1))
        self.done.append(interaction.response.is_done())


def shown(message: FakeMessage, fake: Any) -> tuple[Any, ...]:
    payload = message.payload()
    return (
        payload.get("content"),
        payload.get("embeds"),
        payload.get("components"),
        [(a.filename, fake.attachments[a.id].data) for a in message.attachments],
    )


async def test_the_edit_without_an_answer_leaves_the_message_as_discord_py_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    asked: list[Any] = []
    request = AsyncWebhookAdapter.request

    async def recording(self: Any, route: Any, *args: Any, **kwargs: Any) -> Any:
        answer = await request(self, route, *args, **kwargs)
        if route.path.endswith("/callback"):
            asked.append((kwargs.get("params"), answer))
        return answer

    monkeypatch.setattr(AsyncWebhookAdapter, "request", recording)
    async with fakecord_session() as fake:
        guild = fake.add_guild("Keep")
        hall = guild.add_text_channel("hall")
        alice = fake.add_user("alice")
        guild.add_member(alice)
        board = Board()

        def client() -> discord.Client:
            return discord.Client(intents=discord.Intents.default(), guild_ready_timeout=0.05)

        async with run_client(fake, client) as bot:
            channel = bot.get_channel(hall.id)
            assert isinstance(channel, discord.TextChannel)
            first = await channel.send("board", view=board)
            second = await channel.send("board", view=board)
            await fake.settle()
            theirs = await alice.click(fake.messages[first.id], "Theirs")
            ours = await alice.click(fake.messages[second.id], "Ours")
            await fake.settle()
            assert theirs.responded and ours.responded
            assert shown(fake.messages[second.id], fake) == shown(fake.messages[first.id], fake)
            assert shown(fake.messages[second.id], fake)[1][0]["title"] == "Move 1"
    assert board.done == [True, True]
    assert len(board.errors) == 1  # a second answer is refused, as discord.py refuses it
    (their_params, their_answer), (our_params, our_answer) = asked
    assert their_params == {"with_response": "1"} and their_answer  # a message to parse
    assert our_params is None and not our_answer  # 204: nothing


def test_discord_py_still_edits_a_clicked_message_this_way() -> None:
    """What edit_in_answer copies of discord.py's edit_message: if this fails, read the new
    discord.py's ``InteractionResponse.edit_message`` and follow it (or drop edit_in_answer)."""
    edit = inspect.getsource(discord.InteractionResponse.edit_message)
    for step in (
        "interaction_message_response_params(",
        "type=InteractionResponseType.message_update.value",
        "previous_allowed_mentions=parent._state.allowed_mentions",
        "state.prevent_view_updates_for(message_id)",
        "adapter.create_interaction_response(",
        "self._response_type = InteractionResponseType.message_update",
        "state.store_view(view, message_id or response.message_id)",
    ):
        assert step in edit, step
    callback = inspect.getsource(AsyncWebhookAdapter.create_interaction_response)
    assert "'/interactions/{webhook_id}/{webhook_token}/callback'" in callback
    assert "request_params = {'with_response': '1'}" in callback
