"""cogs.pictures: pictures drawn in a worker thread, once per position they show."""

from __future__ import annotations

import asyncio
import threading

import pytest

from cogs.pictures import Pictures


async def test_a_picture_is_drawn_once_per_view_off_the_event_loop() -> None:
    pictures = Pictures(kept=2)
    threads: list[int] = []

    def draw(view: dict[str, int], marks: list[str]) -> bytes:
        threads.append(threading.get_ident())
        return f"{view['ply']}{marks}".encode()

    first = await pictures.render("castles", draw, {"ply": 1}, ["a"])
    again = await pictures.render("castles", draw, {"ply": 1}, ["a"])
    assert first == again == b"1['a']" and pictures.drawn == 1
    assert threads == [threads[0]] and threads[0] != threading.get_ident()
    # Another view, another game, another mark: drawn; the oldest falls out of a cache of two.
    await pictures.render("castles", draw, {"ply": 2}, ["a"])
    await pictures.render("king", draw, {"ply": 2}, ["a"])
    assert pictures.drawn == 3
    await pictures.render("castles", draw, {"ply": 1}, ["a"])
    assert pictures.drawn == 4


async def test_two_flows_asking_at_once_share_one_drawing_and_errors_reach_both() -> None:
    pictures = Pictures()
    started = threading.Event()
    release = threading.Event()

    def slow(view: dict[str, int]) -> bytes:
        started.set()
        release.wait(5)
        return b"png"

    one = asyncio.ensure_future(pictures.render("knights", slow, {"ply": 3}))
    await asyncio.to_thread(started.wait, 5)
    two = asyncio.ensure_future(pictures.render("knights", slow, {"ply": 3}))
    await asyncio.sleep(0)
    release.set()
    assert await one == await two == b"png" and pictures.drawn == 1

    def broken(view: dict[str, int]) -> bytes:
        raise ValueError("no such board")

    with pytest.raises(ValueError, match="no such board"):
        await pictures.render("knights", broken, {"ply": 4})
    assert pictures.drawn == 1
