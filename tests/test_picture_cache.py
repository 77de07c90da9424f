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


async def test_a_pictures_print_names_its_drawing_and_what_it_was_drawn_from() -> None:
    """What a message's fingerprint takes in place of the picture's bytes: the same for the
    same drawing of the same arguments (drawn or kept), different for anything else."""
    pictures = Pictures()

    def draw(view: dict[str, int]) -> bytes:
        return f"board {view['ply']}".encode()

    def other(view: dict[str, int]) -> bytes:
        return f"panel {view['ply']}".encode()

    first, print_ = await pictures.render_keyed("castles", draw, {"ply": 1})
    kept, again = await pictures.render_keyed("castles", draw, {"ply": 1})
    assert first == kept == b"board 1" and print_ == again and pictures.drawn == 1
    assert "draw" in print_ and print_.startswith(__name__)
    prints = {
        print_,
        (await pictures.render_keyed("castles", draw, {"ply": 2}))[1],
        (await pictures.render_keyed("king", draw, {"ply": 1}))[1],
        (await pictures.render_keyed("castles:panel", other, {"ply": 1}))[1],
    }
    assert len(prints) == 4


def test_a_fingerprint_with_the_pictures_print_does_not_read_its_bytes() -> None:
    from cogs.delivery import fingerprint

    shown = {"content": "Alice, it's your turn."}
    one = fingerprint(shown, ("t.png", b"PNG one"), "draw:castles:aa")
    assert fingerprint(shown, ("t.png", b"PNG two"), "draw:castles:aa") == one
    assert fingerprint(shown, ("t.png", b"PNG one"), "draw:castles:bb") != one
    assert fingerprint(shown, ("u.png", b"PNG one"), "draw:castles:aa") != one
    # Without a print the bytes decide, and a print never passes for bytes.
    bare = fingerprint(shown, ("t.png", b"PNG one"))
    assert bare != fingerprint(shown, ("t.png", b"PNG two")) and bare != one
