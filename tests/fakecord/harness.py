"""Running a real discord.py client against the fake.

The bot's constructor is not fixed, so these helpers take any ``discord.Client``: build it with a
small ``guild_ready_timeout`` (e.g. 0.05; discord.py's default of 2 s delays ``on_ready`` by that
much after the last GUILD_CREATE), install the fake, then ``await start_client(client)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

import discord

if TYPE_CHECKING:
    from .server import FakeDiscord

ClientT = TypeVar("ClientT", bound=discord.Client)

_running: weakref.WeakKeyDictionary[discord.Client, asyncio.Task[None]] = (
    weakref.WeakKeyDictionary()
)


async def start_client(
    client: discord.Client, *, token: str = "fake-token", timeout: float = 10.0
) -> asyncio.Task[None]:
    """Runs ``client.start(token)`` in a task and returns once the client is ready
    (READY and every GUILD_CREATE processed, ``on_ready`` dispatched)."""
    task = asyncio.create_task(client.start(token), name=f"fakecord-client-{id(client):x}")
    _running[client] = task
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not client.is_ready():
        if task.done():
            _running.pop(client, None)
            error = None if task.cancelled() else task.exception()
            raise RuntimeError(f"client.start() ended before the client was ready: {error!r}")
        if loop.time() >= deadline:
            await stop_client(client)
            ready_timeout = getattr(client._connection, "guild_ready_timeout", "?")
            raise TimeoutError(
                f"client not ready after {timeout}s (guild_ready_timeout={ready_timeout}; is the "
                "fake installed, and was the client created with a small guild_ready_timeout?)"
            )
        await asyncio.sleep(0.005)
    return task


async def stop_client(client: discord.Client, *, timeout: float = 5.0) -> None:
    """Closes ``client`` and waits for its ``start()`` task to end."""
    task = _running.pop(client, None)
    await client.close()
    if task is None:
        return
    try:
        await asyncio.wait_for(task, timeout=timeout)
    except TimeoutError:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    except (discord.ConnectionClosed, asyncio.CancelledError):
        pass


async def stop_all_clients() -> None:
    """Stops every client started with :func:`start_client` that is still running."""
    for client in list(_running):
        await stop_client(client)


@contextlib.asynccontextmanager
async def run_client(
    fake: FakeDiscord,
    client_factory: Callable[[], ClientT | Awaitable[ClientT]],
    *,
    token: str = "fake-token",
    timeout: float = 10.0,
) -> AsyncIterator[ClientT]:
    """``async with run_client(fake, factory) as client:`` — a ready client, closed afterwards."""
    if fake.api_base != discord.http.Route.BASE:
        raise RuntimeError("the fake is not installed; call fake.install() (or use the fixture)")
    made = client_factory()
    client: ClientT = await made if inspect.isawaitable(made) else made
    await start_client(client, token=token, timeout=timeout)
    try:
        yield client
    finally:
        await stop_client(client)
