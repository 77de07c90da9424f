"""Table pictures that tell the story (issue 25, item 5): they name the players by the plain names
the front end gives (shortened to fit, emoji left out), a finished game's picture opens with a
banner saying the result, the last move wraps onto more lines instead of being cut, and the last
tower poker picture shows the cards that decided the last show. The alt text follows the
picture."""

from __future__ import annotations

import io
import random
import re
from typing import Any

import pytest
from PIL import Image, ImageChops

from engine import get_game
from engine.rules import Event, rng_for
from presentation import get_renderer
from presentation.knights_board import load_font
from presentation.picture_text import drawable, fit, picture_names, wrap

PLAYERS = ("alice", "bob", "carol")
LONG = "Alexandrina Victoria of Kent and Strathearn"
SEATS = {"towers": 3}
NAMED = ("castles", "king", "knights", "towers")


def play_out(key: str, seed: int) -> list[tuple[dict[str, Any], list[Event]]]:
    """Every spectator view of a seeded random game, with the events that led to it (tower
    poker players never walk out, so its games reach a show)."""
    game = get_game(key)
    chooser = random.Random(seed)
    state = game.setup(SEATS.get(key, 2), {}, rng_for(seed, "setup"))
    seen: list[tuple[dict[str, Any], list[Event]]] = [(game.view(state, None), [])]
    ply = 0
    while (seat := game.to_act(state)) is not None and ply < 3000:
        legal = game.legal_actions(state, seat)
        action = chooser.choice([a for a in legal if a.get("type") != "leave"] or legal)
        state, events = game.apply(state, seat, action, rng_for(seed, ply))
        seen.append((game.view(state, None), events))
        ply += 1
    assert game.to_act(state) is None, "the game did not end"
    return seen


def picture(data: bytes | None) -> Image.Image:
    assert data is not None
    return Image.open(io.BytesIO(data)).convert("RGB")


@pytest.mark.parametrize("key", NAMED)
def test_the_picture_and_its_alt_text_name_the_players(key: str) -> None:
    renderer = get_renderer(key)
    view, events = play_out(key, 5)[6]
    seats = SEATS.get(key, 2)
    names = list(PLAYERS[:seats])
    alt = renderer.image_alt(view, events, names)
    for name in names:
        assert name in alt
    assert "Player 1" not in alt and "Seat 1" not in alt
    others = ["dmitri", "eugenie", "fitzwilliam"][:seats]
    named = picture(renderer.table_image(view, events, names))
    renamed = picture(renderer.table_image(view, events, others))
    assert named.size == renamed.size
    assert ImageChops.difference(named, renamed).getbbox() is not None, "names not drawn"


@pytest.mark.parametrize("key", NAMED)
def test_a_seat_without_a_name_reads_player_n(key: str) -> None:
    renderer = get_renderer(key)
    view, events = play_out(key, 5)[6]
    alt = renderer.image_alt(view, events, ["alice", ""] + [""] * (SEATS.get(key, 2) - 2))
    assert "alice" in alt and "Player 2" in alt


@pytest.mark.parametrize("key", NAMED)
def test_the_final_picture_opens_with_a_result_banner(key: str) -> None:
    renderer = get_renderer(key)
    view, events = play_out(key, 3)[-1]
    assert view["result"] is not None
    names = list(PLAYERS[: SEATS.get(key, 2)])
    final = picture(renderer.table_image(view, events, names))
    running = picture(renderer.table_image({**view, "result": None}, events, names))
    assert final.width == running.width and final.height > running.height
    # The banner is the picture's top: nothing there looks like the running table's top.
    band = (0, 0, final.width, final.height - running.height)
    assert ImageChops.difference(final.crop(band), running.crop(band)).getbbox() is not None
    assert band[3] <= 2 * 12 + 2 * 34  # at most two lines of banner
    alt = renderer.image_alt(view, events, names)
    assert "game over" in alt.lower()
    winners = view["result"]["winners"]
    assert all(names[seat] in alt for seat in winners)


def _long_attack() -> tuple[dict[str, Any], list[Event]]:
    """A Castles Besieged position whose last move (an attack) is a long line."""
    for seed in range(1, 20):
        for view, events in play_out("castles", seed):
            if any(e.get("type") == "attacked" for e in events):
                return view, events
    raise AssertionError("no attack")


def test_a_long_last_move_wraps_instead_of_being_cut() -> None:
    renderer = get_renderer("castles")
    view, events = _long_attack()
    short = picture(renderer.table_image(view, events, ["al", "bo"]))
    long = picture(renderer.table_image(view, events, [LONG, LONG[::-1]]))
    assert long.width == short.width and long.height > short.height  # a second line
    alt = renderer.image_alt(view, events, [LONG, "bo"])
    assert re.search(r"needed \d+\+, (a hit|missed|killed it)\.", alt)  # said whole


def test_a_long_king_move_wraps_too() -> None:
    renderer = get_renderer("king")
    taller = 0
    for view, events in play_out("king", 4)[1:12]:
        short = picture(renderer.table_image(view, events, ["al", "bo"]))
        long = picture(renderer.table_image(view, events, [LONG, LONG + " the Second"]))
        assert long.height >= short.height
        taller += long.height > short.height
    assert taller > 0


def test_names_are_shortened_to_fit_and_emoji_left_out() -> None:
    font = load_font(22, bold=True)
    drawn = picture_names([LONG, "🤖 Computer 1 (hard)", "🐉"], 3, font, 230)
    assert drawn[0].endswith("…") and font.getlength(drawn[0]) <= 230
    assert drawn[1] == "Computer 1 (hard)"
    assert drawn[2] == "Player 3"  # nothing drawable left
    assert drawable(font, "bob 🐉") == "bob"
    assert fit(font, "bob", 200) == "bob"


def test_wrapping_keeps_every_word_within_the_line_count() -> None:
    font = load_font(17)
    text = "the Knight on c3 attacked the castle: rolled 4 + 5 = 9, needed 7+, a hit " * 2
    lines = wrap(font, text, 300, max_lines=9)
    assert len(lines) > 2 and all(font.getlength(line) <= 300 for line in lines)
    assert " ".join(lines).split() == text.split()
    cut = wrap(font, text, 300, max_lines=2)
    assert len(cut) == 2 and cut[-1].endswith("…")


def test_the_last_tower_poker_picture_shows_the_cards_of_the_last_show() -> None:
    renderer = get_renderer("towers")
    for seed in range(1, 30):
        view, events = play_out("towers", seed)[-1]
        if view["shows"]:
            break
    else:
        raise AssertionError("no game ended at a show")
    shown = view["shows"][-1]["face_up"]
    assert shown and not view["summary"]["face_up"]
    alt = renderer.image_alt(view, events, list(PLAYERS))
    assert "Face up at the last show" in alt and "No card face up" not in alt
    # The picture draws them: not the same as the table with the show taken away.
    bare = {**view, "shows": []}
    with_show = picture(renderer.table_image(view, events, list(PLAYERS)))
    without = picture(renderer.table_image(bare, events, list(PLAYERS)))
    assert ImageChops.difference(with_show, without).getbbox() is not None
