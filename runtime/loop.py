"""The bot's event loop (uvloop where installed) and its signals (SIGTERM closes it as Ctrl-C)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal

import discord

log = logging.getLogger("siege")


def close_on_terminate(bot: discord.Client) -> None:
    """SIGTERM (``docker stop``, systemd) closes the bot as Ctrl-C does: queued moves are
    committed and the database closed before the process ends, instead of being cut off."""
    loop = asyncio.get_running_loop()
    closing: set[asyncio.Task[None]] = set()

    def terminate() -> None:
        log.info("SIGTERM: closing")
        task = loop.create_task(bot.close())
        closing.add(task)
        task.add_done_callback(closing.discard)

    with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows; not the main thread
        loop.add_signal_handler(signal.SIGTERM, terminate)


def new_event_loop() -> asyncio.AbstractEventLoop:
    """The bot's event loop: uvloop's where it is installed (Linux and macOS; about a tenth
    less CPU per move, measured by ``benchmarks/table_load.py``), else asyncio's own."""
    try:
        import uvloop
    except ImportError:  # Windows: uvloop is not installed there
        return asyncio.new_event_loop()
    return uvloop.new_event_loop()
