"""The views of a move are freed as soon as they are done with, not by a full garbage collection
(whose pauses stopped the event loop for tens of milliseconds under load)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from cogs.components import TableButton
from cogs.flow import Parts


@pytest.fixture
def no_collector() -> Iterator[None]:
    """Only reference counting frees anything while the test runs."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def a_view() -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(TableButton(7, "hand", label="My hand"))
    view.add_item(TableButton(7, "resign"))
    view.to_components()
    return view


async def test_a_view_alone_waits_for_the_collector(no_collector: None) -> None:
    """What the two tests below guard against: a View and its items keep each other alive."""
    gone = weakref.ref(a_view())
    assert gone() is not None
    gc.collect()
    assert gone() is None


async def test_parts_free_their_view_when_let_go(no_collector: None) -> None:
    parts = Parts(content="turn 3", view=a_view())
    parts.fingerprint()
    gone = weakref.ref(parts.view)
    del parts
    assert gone() is None


async def test_a_click_lets_go_of_its_view_and_message(
    no_collector: None,
) -> None:
    seen: list[int] = []
    clicked = [TableButton(7, "resign")]

    async def on_resign(interaction: Any, tid: int) -> None:
        view = clicked[0].view
        assert view is not None
        seen.append(len(view.children))  # the callback sees the whole view

    hall = SimpleNamespace(
        on_hand=None,
        on_resign=on_resign,
        on_resign_confirmed=None,
        on_rematch=None,
        on_hint=None,
        on_claim=None,
        on_claim_draw=None,
        on_cancel_confirmed=None,
    )
    message = discord.Object(1)  # as the clicked message, parsed
    interaction = SimpleNamespace(client=SimpleNamespace(hall=hall), message=message)
    message_gone = weakref.ref(message)
    del message
    view = discord.ui.View(timeout=None)  # as discord.py's View.from_message(message)
    view.add_item(clicked[0])
    view.add_item(TableButton(7, "hand", label="My hand"))
    gone = weakref.ref(view)
    del view
    await clicked[0].callback(interaction)  # type: ignore[arg-type]
    assert seen == [2]
    assert message_gone() is None  # let go with the click
    clicked.clear()
    assert gone() is None
