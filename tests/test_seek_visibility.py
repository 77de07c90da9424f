"""``/siege seeks`` shows a seek only where its viewer may look (cogs.seeks.visible_to): the
edges the end-to-end test (tests/e2e/test_seeks_e2e.py) does not reach."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import discord

from cogs.seeks import visible_to

HERE, ELSEWHERE = 10, 20


def asked(guild: Any, user: Any) -> Any:
    return SimpleNamespace(channel_id=HERE, guild=guild, user=user)


def test_the_channel_asked_in_is_always_visible_and_others_need_the_cache() -> None:
    # No guild in the bot's cache, or a user that is not a member: only where they asked.
    lone = asked(guild=None, user=SimpleNamespace())
    assert visible_to(lone, HERE)
    assert not visible_to(lone, ELSEWHERE)


def test_a_channel_the_bot_cannot_find_is_not_shown() -> None:
    class Member(discord.Member):  # a member, without a gateway behind it
        def __init__(self) -> None:
            pass

    guild = SimpleNamespace(get_channel_or_thread=lambda channel_id: None)
    assert not visible_to(asked(guild=guild, user=Member()), ELSEWHERE)

    seen = SimpleNamespace(view_channel=True)
    channel = SimpleNamespace(permissions_for=lambda member: seen)
    guild = SimpleNamespace(get_channel_or_thread=lambda channel_id: channel)
    assert visible_to(asked(guild=guild, user=Member()), ELSEWHERE)
    seen.view_channel = False
    assert not visible_to(asked(guild=guild, user=Member()), ELSEWHERE)
