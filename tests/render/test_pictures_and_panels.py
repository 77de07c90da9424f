"""Issue 14 on engine views: the card tables as pictures (Castles Besieged, Siege the King), alt
text for every picture, the panels' "since your last turn" opening, new cards, reasons a card
cannot be played, the grouped lay menu, the end-of-game summary, one turn counter and the one red
button. Positions come from seeded random games and stacked deals."""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from typing import Any

import discord
from PIL import Image

from cogs.components import SELECT_MAX_OPTIONS, TableButton, layout
from cogs.flow import Parts
from engine import cards, get_game
from engine.castles import GAME as CASTLES
from engine.king import GAME as KING
from engine.king import card_name, unplayable_reasons
from engine.knights import GAME as KNIGHTS
from engine.knights import destinations, movable_squares
from engine.rules import Event, Result, State, rng_for
from presentation import RENDERERS, get_renderer
from presentation.base import ActionButton, ActionSelect, Control, Style
from presentation.castles_table import WIDTH as CASTLES_WIDTH
from presentation.king_table import WIDTH as KING_WIDTH

NAMES = ["<@101>", "<@202>"]
# Discord: at most 10 files of 25 MiB a message; alt text at most 1024 characters.
FILE_MAX_BYTES = 25 * 1024 * 1024
ALT_MAX = 1024
SIDE_MAX_PX = 2000


def random_game(key: str, seed: int, plies: int = 400) -> Iterator[tuple[State, list[Event]]]:
    """Every position of a seeded random game, with the events that led to it."""
    game = get_game(key)
    rng = random.Random(seed)
    state = game.setup(2 if key != "kurth" else 1, {}, rng_for(seed, "setup"))
    yield state, []
    for ply in range(plies):
        seat = game.to_act(state)
        if seat is None:
            return
        legal = game.legal_actions(state, seat)
        state, events = game.apply(state, seat, rng.choice(legal), rng_for(seed, ply))
        yield state, events


def castles_game(seed: int) -> Iterator[tuple[State, list[Event]]]:
    """A random Castles game that lays and attacks more than it draws (so rows grow)."""
    rng = random.Random(seed)
    state = CASTLES.setup(2, {}, rng_for(seed, "setup"))
    yield state, []
    ply = 0
    while CASTLES.result(state) is None and ply < 600:
        seat = CASTLES.to_act(state)
        assert seat is not None
        legal = CASTLES.legal_actions(state, seat)
        weights = [{"draw": 2, "lay": 3, "attack": 2, "pass": 1}[a["type"]] for a in legal]
        action = rng.choices(legal, weights)[0]
        state, events = CASTLES.apply(state, seat, action, rng_for(seed, ply))
        ply += 1
        yield state, events


def check_png(data: bytes, width: int) -> Image.Image:
    assert len(data) < FILE_MAX_BYTES
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    assert image.width == width and 200 <= image.height <= SIDE_MAX_PX
    image.load()
    return image


def check_alt(text: str) -> None:
    assert text and len(text) <= ALT_MAX
    assert "<@" not in text  # alt text reads sides, never raw mentions


# -- Castles Besieged: the table picture -----------------------------------------------------


def test_castles_table_picture_and_alt_text_read_the_rows() -> None:
    renderer = get_renderer("castles")
    longest = 0
    heights = set()
    for seed in range(3):
        for n, (state, events) in enumerate(castles_game(seed)):
            if n % 7:
                continue
            view = CASTLES.view(state, None)
            assert "hand" not in view  # the picture only ever sees the spectator view
            image = check_png(renderer.table_image(view, events) or b"", CASTLES_WIDTH)
            heights.add(image.height)
            alt = renderer.image_alt(view, events)
            check_alt(alt)
            rows = state["rows"]
            longest = max(longest, *map(len, rows))
            for seat in (0, 1):
                assert f"castle {state['hits'][seat]} of 10 hits" in alt
            if sum(map(len, rows)) <= 20:  # short rows are all read out, position by position
                for pos, card in enumerate(rows[0]):
                    assert f"{pos + 1}: {cards.pretty(card)} against" in alt
            for card in state["hands"][0] + state["hands"][1]:
                assert cards.pretty(card) not in alt, f"hidden {card} in {alt}"
    assert heights


def test_castles_long_rows_wrap_into_bands_that_stay_readable() -> None:
    renderer = get_renderer("castles")
    state = CASTLES.setup(2, {}, rng_for(9, "setup"))
    for ply in range(30):  # both draw, then lay everything: rows of up to 22 cards
        state, _ = CASTLES.apply(state, ply % 2 if ply else CASTLES.to_act(state) or 0,
                                 {"type": "draw"}, rng_for(9, ply))  # fmt: skip
    events: list[Event] = []
    for ply in range(30, 70):
        seat = CASTLES.to_act(state)
        assert seat is not None
        card = min(state["hands"][seat], key=cards.sort_key)
        state, events = CASTLES.apply(state, seat, {"type": "lay", "card": card}, rng_for(9, ply))
    view = CASTLES.view(state, None)
    assert max(map(len, state["rows"])) >= 20
    short = check_png(renderer.table_image(CASTLES.view(CASTLES.setup(2, {}, rng_for(9, "x")),
                                                       None)) or b"", CASTLES_WIDTH)  # fmt: skip
    long = check_png(renderer.table_image(view, events) or b"", CASTLES_WIDTH)
    assert long.height > short.height  # two bands of ten positions instead of one
    alt = renderer.image_alt(view, events)
    check_alt(alt)


def test_castles_last_move_is_said_on_the_picture_and_in_the_alt_text() -> None:
    renderer = get_renderer("castles")
    stack = {"dealer": 1, "hands": [["KS", "2H"], ["7C"]], "dice": [6, 5]}
    state = CASTLES.setup(2, {}, rng_for(1, "setup"), stack)
    state, events = CASTLES.apply(state, 0, {"type": "lay", "card": "KS"}, rng_for(1, 0))
    view = CASTLES.view(state, None)
    assert "Last move: Player 1 laid K♠ at position 1." in renderer.image_alt(view, events)
    state, _ = CASTLES.apply(state, 1, {"type": "draw"}, rng_for(1, 1))
    state, events = CASTLES.apply(state, 0, {"type": "attack", "pos": 0}, rng_for(1, 2))
    alt = renderer.image_alt(CASTLES.view(state, None), events)
    assert "attacked Player 2's castle: rolled 6 + 5 = 11, needed 7+, a hit." in alt
    marked = renderer.table_image(CASTLES.view(state, None), events)
    plain = renderer.table_image(CASTLES.view(state, None), [])
    assert marked != plain  # the last move is drawn (a gold frame and its line)


# -- Siege the King: the table picture -------------------------------------------------------


def test_king_table_picture_and_alt_text_keep_the_castles_secret() -> None:
    renderer = get_renderer("king")
    revealed_seen = False
    for seed in range(4):
        for n, (state, events) in enumerate(random_game("king", seed)):
            if n % 5 and KING.result(state) is None:
                continue
            view = KING.view(state, None)
            check_png(renderer.table_image(view, events) or b"", KING_WIDTH)
            alt = renderer.image_alt(view, events)
            check_alt(alt)
            body = alt.removeprefix("Siege the King table")
            summary = view["summary"]
            for seat in (0, 1):
                for i, column in enumerate(summary["columns"][seat]):
                    name = ("left", "middle", "right")[i]
                    if not column["open"]:
                        assert f"{name} closed (a Throne)" in body
                    elif column["castle"] is None:
                        assert f"{name} face down, value {column['value']}" in body
                    else:
                        revealed_seen = True
            hidden = any(
                c["castle"] is None and c["open"] for side in summary["columns"] for c in side
            )
            if hidden and KING.result(state) is None:
                # Where an unrevealed King hides is never in the picture's words.
                kings = [
                    (s, i)
                    for s in (0, 1)
                    for i in range(3)
                    if state["castles"][s] and state["castles"][s][i] == "KING"
                ]
                for s, i in kings:
                    if summary["columns"][s][i]["castle"] is None:
                        name = ("left", "middle", "right")[i]
                        assert f"{name} the King" not in body.split("Player")[s + 1]
    assert revealed_seen


# -- every picture: alt text reaches Discord -------------------------------------------------


def test_every_game_with_a_table_picture_gives_alt_text_that_reads_the_position() -> None:
    for key, renderer in RENDERERS.items():
        state, events = list(random_game(key, 3, plies=25))[-1]
        view = get_game(key).view(state, None)
        png = renderer.table_image(view, events)
        assert png is not None, f"{key} has no table picture"
        alt = renderer.image_alt(view, events)
        check_alt(alt)
    knights = KNIGHTS.view(list(random_game("knights", 1, plies=12))[-1][0], None)
    alt = get_renderer("knights").image_alt(knights, [])
    for square, piece in knights["summary"]["pieces"].items():
        assert square in alt, f"{piece} on {square} missing from {alt}"


def test_parts_hand_the_alt_text_to_discord_as_the_file_description() -> None:
    parts = Parts(image=("t.png", b"\x89PNG"), alt="Castles Besieged table. Player 1 to act.")
    (sent,) = parts.send_kwargs()["files"]
    (edited,) = parts.edit_kwargs()["attachments"]
    assert sent.description == edited.description == "Castles Besieged table. Player 1 to act."
    assert sent.to_dict(0)["description"] == "Castles Besieged table. Player 1 to act."


# -- Siege (1966): the panel picture ---------------------------------------------------------


def test_knights_panel_picture_turns_to_the_mover_and_rings_destinations() -> None:
    renderer = get_renderer("knights")
    positions = list(random_game("knights", 5, plies=9))
    checked = 0
    for state, _ in positions:
        seat = KNIGHTS.to_act(state)
        view = KNIGHTS.view(state, seat) if seat is not None else {}
        if seat is None or view["phase"] != "play":
            continue
        legal = KNIGHTS.legal_actions(state, seat)
        picture = renderer.panel_image(view, legal, None)
        assert picture is not None
        png, alt = picture
        check_png(png, Image.open(io.BytesIO(png)).width)
        check_alt(alt)
        end = "the castle's (defender's) end" if seat == 1 else "the attacker's end"
        assert f"seen from {end}" in alt and "Marked" not in alt
        square = movable_squares(legal)[0]
        staged_png, staged_alt = renderer.panel_image(view, legal, square) or (b"", "")
        assert staged_png != png  # the destinations are marked on the picture
        targets = [t["to"] for t in destinations(view["summary"]["pieces"], legal, square)]
        assert f"on {square} can go: {', '.join(targets)}." in staged_alt
        checked += 1
    assert checked >= 4
    # The two sides see the same position from opposite ends.
    state = positions[-1][0]
    ends = [renderer.panel_image(KNIGHTS.view(state, s), [], None) for s in (0, 1)]
    assert ends[0] is not None and ends[1] is not None and ends[0][0] != ends[1][0]


def test_other_games_have_no_panel_picture() -> None:
    for key in ("castles", "king", "towers", "kurth"):
        state, _ = list(random_game(key, 2, plies=6))[-1]
        view = get_game(key).view(state, 0)
        assert get_renderer(key).panel_image(view, [], None) is None


# -- panels: since your last turn, new cards ----------------------------------------------


def test_every_panel_opens_with_what_happened_since_the_last_turn() -> None:
    since = ["<@202> laid **7♣** (Footmen) at position 1.", "<@202> drew a card."]
    for key, renderer in RENDERERS.items():
        state, _ = list(random_game(key, 4, plies=8))[-1]
        seat = get_game(key).to_act(state) or 0
        embed = renderer.panel_embed(get_game(key).view(state, seat), NAMES, since)
        description = embed.description or ""
        assert description.startswith("**Since your last turn**\n> <@202> laid"), key
        assert "> <@202> drew a card." in description
        plain = renderer.panel_embed(get_game(key).view(state, seat), NAMES)
        assert "Since your last turn" not in (plain.description or "")


def test_castles_panel_shows_both_rows_and_marks_the_card_just_drawn() -> None:
    renderer = get_renderer("castles")
    stack = {"dealer": 1, "hands": [["KS", "2H"], ["7C", "9D"]], "pile": ["AS", "5D"]}
    state = CASTLES.setup(2, {}, rng_for(1, "setup"), stack)
    state, _ = CASTLES.apply(state, 0, {"type": "lay", "card": "KS"}, rng_for(1, 0))
    state, _ = CASTLES.apply(state, 1, {"type": "lay", "card": "7C"}, rng_for(1, 1))
    state, _ = CASTLES.apply(state, 0, {"type": "draw"}, rng_for(1, 2))  # draws A♠
    state, _ = CASTLES.apply(state, 1, {"type": "draw"}, rng_for(1, 3))
    embed = renderer.panel_embed(CASTLES.view(state, 0), NAMES, ["<@202> drew a card."], ["AS"])
    description = embed.description or ""
    assert "**A♠** Children 🆕 *just drawn*" in description
    assert "**2♥** Aristocrats\n" in description + "\n"  # not marked
    rows = next(f.value for f in embed.fields if (f.name or "").startswith("Battle lines"))
    assert rows == "` 1` K♠ ⚔️ 7♣"
    bob = renderer.panel_embed(CASTLES.view(state, 1), NAMES)
    rows = next(f.value for f in bob.fields if (f.name or "").startswith("Battle lines"))
    assert rows == "` 1` 7♣ ⚔️ K♠"  # each panel puts its own row on the left


# -- Castles: the lay menu groups cards by value ---------------------------------------------


def test_castles_lay_menu_has_one_entry_per_value_and_fits_one_menu() -> None:
    renderer = get_renderer("castles")
    stack = {"dealer": 1, "hands": [["KS", "KH", "KD", "2H", "2C", "9D", "9S"], []]}
    state = CASTLES.setup(2, {}, rng_for(1, "setup"), stack)
    for _ in range(30):  # seat 0 draws and seat 1 draws: hands of 22
        seat = CASTLES.to_act(state)
        assert seat is not None
        state, _ = CASTLES.apply(state, seat, {"type": "draw"}, rng_for(1, 0))
    view = CASTLES.view(state, 0)
    legal = CASTLES.legal_actions(state, 0)
    assert len(view["hand"]) > SELECT_MAX_OPTIONS - 5
    controls = renderer.panel_controls(view, legal)
    (menu,) = [c for c in controls if isinstance(c, ActionSelect)]
    values = {cards.value(c) for c in view["hand"]}
    assert len(menu.choices) == len(values) <= 13
    for choice in menu.choices:
        action = legal[choice.index]
        assert action["type"] == "lay"
        same = [c for c in view["hand"] if cards.value(c) == cards.value(action["card"])]
        assert (" ×" in choice.label) == (len(same) > 1)
        assert choice.description is not None
        assert all(cards.pretty(c) in choice.description for c in same)
    layout(1, 0, controls)  # builds within Discord's limits


# -- Siege the King: why a card cannot be played -----------------------------------------------


def test_king_panel_says_why_a_held_card_cannot_be_played() -> None:
    renderer = get_renderer("king")
    hands = [["SORC", "JUDGE", "A4", "D1", "D2"], ["A1", "A1", "A2", "A2", "A3"]]
    stack = {"first": 0, "hands": hands, "pile": ["D3", "D4"]}
    state = KING.setup(2, {"specials": True}, rng_for(1, "setup"), stack)
    for seat in (0, 1):
        order = ["KING", "THRONE", "THRONE"]
        state, _ = KING.apply(state, seat, {"type": "arrange", "order": order}, rng_for(1, seat))
    view = KING.view(state, 0)
    assert view["to_act"] == 0
    assert "JUDGE" in view["hand"] and "SORC" in view["hand"]
    reasons = unplayable_reasons(view)
    assert reasons == {
        "JUDGE": "Judge: no column has a card to remove",
        "SORC": "Sorcerer: no column has cards to clear",
    }
    text = renderer.panel_embed(view, NAMES).description or ""
    assert "**Not playable now**\n🚫 Judge: no column has a card to remove\n" in text
    assert "🚫 Sorcerer: no column has cards to clear" in text
    # The menu offers the playable cards only; the reasons stand where it is.
    legal = KING.legal_actions(state, 0)
    offered = {card_name(a["card"]) for a in legal if a["type"] == "play"}
    assert {"Attacker 4", "Defender 1", "Defender 2"} <= offered
    assert not offered & {"Judge", "Sorcerer"}


# -- the end of a game ------------------------------------------------------------------------


def test_castles_stalemate_summary_compares_the_row_totals() -> None:
    renderer = get_renderer("castles")
    view: dict[str, Any] = {
        "summary": {
            "hits": [3, 3],
            "rows": [["KS", "9D"], ["7C", "2H", "3S"]],
            "hand_sizes": [0, 1],
            "quiet_turns": 30,
        },
        "result": {"winners": [0], "reason": "stalemate", "scores": [3, 3]},
    }
    result = Result((0,), "stalemate", (3, 3))
    text = renderer.end_summary(view, NAMES, result, 151)
    assert "hits level at 3, so the row totals: <@101> 22 against <@202> 12" in text
    assert "30 turns without a kill or a hit" in text
    assert "Length: 151 turns." in text
    assert "<@101>: 3/10 hits taken · 2 cards in the row (total 22) · 0 in hand" in text


def test_every_game_ends_with_a_summary_of_result_reason_length_and_figures() -> None:
    for key, renderer in RENDERERS.items():
        game = get_game(key)
        state, _ = list(random_game(key, 6, plies=1500))[-1]
        if game.result(state) is None:  # a long game: end it the table's way
            state, _ = game.resign(state, 0)
        result = game.result(state)
        assert result is not None
        view = game.view(state, None)
        turns = renderer.turn_number(view, 77)
        text = renderer.end_summary(view, NAMES, result, turns)
        assert text.startswith(renderer.result_line(result, NAMES)), key
        assert "Decided by:" in text and "Length: " in text and f"{turns} " in text, key
        assert len(text) <= 1024, key  # it is an embed field


# -- one turn counter; one red button ------------------------------------------------------------


def test_king_table_turn_is_the_one_counter() -> None:
    renderer = get_renderer("king")
    state = next(s for s, _ in random_game("king", 2) if s["turn"] >= 3)
    view = KING.view(state, None)
    assert view["result"] is None
    turn = renderer.turn_number(view, 30)
    assert turn == state["turn"] + 1
    assert f"**Turn {turn}**" in (renderer.table_embed(view, NAMES, []).description or "")


def test_resign_is_the_one_red_button() -> None:
    table_buttons = [TableButton(1, op) for op in ("hand", "resign", "rematch")]
    red = [b.item.label for b in table_buttons if b.item.style is discord.ButtonStyle.danger]
    assert red == ["Resign"]
    for key, renderer in RENDERERS.items():
        for seed in range(3):
            for state, _ in list(random_game(key, seed, plies=120))[::3]:
                seat = get_game(key).to_act(state)
                if seat is None:
                    continue
                legal = get_game(key).legal_actions(state, seat)
                view = get_game(key).view(state, seat)
                controls: list[Control] = [
                    *renderer.table_controls(get_game(key).view(state, None), legal),
                    *renderer.panel_controls(view, legal),
                ]
                for control in controls:
                    if isinstance(control, ActionButton):
                        assert control.style is not Style.DANGER, (key, control)
