"""The interactions Delivery keeps (to edit messages through their webhooks) are kept as plain
tuples of numbers and text, which the garbage collector stops walking, and the webhook is made
when it is used."""

from __future__ import annotations

import gc
import inspect
from types import SimpleNamespace
from typing import Any

import discord

from cogs.answerless import AnswerlessWebhook
from cogs.delivery import ORIGINAL, Delivery


def an_interaction(state: Any) -> Any:
    return SimpleNamespace(
        id=discord.utils.time_snowflake(discord.utils.utcnow()),
        created_at=discord.utils.utcnow(),
        application_id=42,
        token="tok-en",
        channel_id=7,
        _state=state,
    )


def test_a_kept_interaction_is_a_plain_tuple_the_collector_lets_go_of() -> None:
    delivery = Delivery(clock=lambda: 100.0)
    delivery.reach(555, an_interaction(state=object()))
    gc.collect()
    kept = delivery._handles[555]
    assert type(kept) is tuple
    assert not gc.is_tracked(kept)  # no object of discord.py's, nothing the collector walks


def test_the_webhook_is_made_from_the_kept_id_and_token() -> None:
    http = SimpleNamespace(_HTTPClient__session=None, proxy_auth=None, proxy=None, token="bot")
    state = SimpleNamespace(http=http)
    delivery = Delivery(clock=lambda: 100.0)
    delivery.reach(555, an_interaction(state))
    handle = delivery._handle(555)
    assert handle is not None and handle.target == ORIGINAL and handle.channel_id == 7
    webhook = delivery.webhook(handle)
    assert (webhook.id, webhook.token, webhook.type) == (
        42,
        "tok-en",
        discord.WebhookType.application,
    )


def test_an_expired_handle_is_dropped() -> None:
    now = [100.0]
    delivery = Delivery(clock=lambda: now[0])
    delivery.reach(555, an_interaction(state=object()))
    now[0] += 15 * 60
    assert delivery._handle(555) is None and 555 not in delivery._handles


def test_the_webhook_leaves_its_answers_unparsed() -> None:
    http = SimpleNamespace(_HTTPClient__session=None, proxy_auth=None, proxy=None, token="bot")
    delivery = Delivery(clock=lambda: 100.0)
    delivery.reach(555, an_interaction(SimpleNamespace(http=http)))
    handle = delivery._handle(555)
    assert handle is not None
    webhook = delivery.webhook(handle)
    assert isinstance(webhook, AnswerlessWebhook)
    answer = {"id": "1234", "channel_id": "7", "content": "x", "components": [{"type": 1}]}
    made = webhook._create_message(answer, thread=discord.utils.MISSING)
    assert type(made) is discord.Object and made.id == 1234
    # discord.py still makes its answers in that one method (else they are parsed again).
    for sends in (discord.Webhook.send, discord.Webhook.edit_message):
        assert "self._create_message(data" in inspect.getsource(sends)
