"""Answers to Discord that discord.py would parse and nothing here reads.

discord.py makes a full message object (embeds, components, author...) of every answer Discord
sends back, and the bot uses none of it for the requests of a move: it knows what it sent. The
parsing was a large part of the bot's CPU per move, beyond what the requests themselves cost
(``benchmarks/request_floor.py``). Two places skip it, each through the one hook discord.py has
for it, each checked by a test that discord.py still goes that way
(``tests/test_delivery_handles.py``, ``tests/test_answerless.py``):

- :class:`AnswerlessWebhook`: an interaction webhook whose answers come back as ids;
- :func:`edit_in_answer`: the answer to a click that edits the clicked message, sent without
  ``with_response`` (Discord then answers 204, with nothing to parse).
"""

from __future__ import annotations

from typing import Any

import discord
from discord.http import Route
from discord.utils import MISSING
from discord.webhook.async_ import async_context, interaction_message_response_params

#: What :func:`edit_in_answer` sends; anything else goes through discord.py's own edit_message.
EDIT_KEYWORDS = frozenset({"content", "embed", "embeds", "attachments", "view", "allowed_mentions"})


class AnswerlessWebhook(discord.Webhook):
    """An interaction webhook whose answers are not made into discord.py messages.

    The delivery uses nothing of an edited message and only the id of a sent one, while
    discord.py parses every answer into a ``WebhookMessage`` with its embeds and components
    (over a tenth of the bot's CPU per move went to parsing answers). discord.py makes that
    message in one method, ``_create_message``; here it gives back the message's id alone (a
    ``discord.Object``). Should a later discord.py stop calling it, answers are parsed again,
    nothing else changes (``tests/test_delivery_handles.py`` checks the method is still there).
    """

    __slots__ = ()

    def _create_message(self, data: Any, *, thread: Any) -> Any:
        return discord.Object(int(data["id"]))


def can_edit_in_answer(kwargs: dict[str, Any]) -> bool:
    """Whether :func:`edit_in_answer` sends these keywords as discord.py would."""
    return EDIT_KEYWORDS.issuperset(kwargs)


async def edit_in_answer(response: discord.InteractionResponse[Any], **kwargs: Any) -> None:
    """``response.edit_message(**kwargs)`` as discord.py sends it (the same request body), but
    without asking Discord for the edited message back, so there is no answer to parse: the
    callback's answer is 204. Afterwards the response is done (``is_done()``), its type the
    message update, exactly as after discord.py's. Only the keywords of
    :data:`EDIT_KEYWORDS` (:func:`can_edit_in_answer`).

    Like discord.py's, it raises :class:`discord.InteractionResponded` if the interaction was
    answered, and does nothing for an interaction that has no message to edit (a command)."""
    if not can_edit_in_answer(kwargs):
        raise TypeError(f"edit_in_answer cannot send {sorted(set(kwargs) - EDIT_KEYWORDS)}")
    if response._response_type:
        raise discord.InteractionResponded(response._parent)
    parent = response._parent
    if parent.type not in (discord.InteractionType.component, discord.InteractionType.modal_submit):
        return
    state = parent._state
    message_id = None if parent.message is None else parent.message.id
    view = kwargs.get("view", MISSING)
    if view is not MISSING and message_id is not None:
        state.prevent_view_updates_for(message_id)
    params = interaction_message_response_params(
        type=discord.InteractionResponseType.message_update.value,
        previous_allowed_mentions=state.allowed_mentions,
        **kwargs,
    )
    route = Route(
        "POST",
        "/interactions/{webhook_id}/{webhook_token}/callback",
        webhook_id=parent.id,
        webhook_token=parent.token,
    )
    http = state.http
    adapter = async_context.get()
    body: dict[str, Any] = (
        {"files": params.files, "multipart": params.multipart}
        if params.files
        else {"payload": params.payload}
    )
    await adapter.request(
        route, session=parent._session, proxy=http.proxy, proxy_auth=http.proxy_auth, **body
    )
    response._response_type = discord.InteractionResponseType.message_update
    if view and not view.is_finished() and view.is_dispatchable():
        state.store_view(view, message_id)


__all__ = ["EDIT_KEYWORDS", "AnswerlessWebhook", "can_edit_in_answer", "edit_in_answer"]
