"""A replay labels each hand by its player (issue 25, item 7): ``Renderer.hand_words`` says what a
seat's own view holds in the third person ("**bob's hand**"), never "Your hand"."""

from __future__ import annotations

import random

import pytest

from engine import get_game
from engine.rules import rng_for
from presentation import get_renderer

SEATS = {"kurth": 1, "towers": 3}


@pytest.mark.parametrize("key", ["castles", "king", "kurth", "towers"])
def test_hands_are_labelled_by_player(key: str) -> None:
    game = get_game(key)
    renderer = get_renderer(key)
    state = game.setup(SEATS.get(key, 2), {}, rng_for(3, "setup"))
    chooser = random.Random(3)
    for ply in range(6):  # a few moves in: hands and castles are set
        seat = game.to_act(state)
        assert seat is not None
        legal = game.legal_actions(state, seat)
        action = chooser.choice([a for a in legal if a.get("type") != "leave"] or legal)
        state, _ = game.apply(state, seat, action, rng_for(3, ply))
    for seat in range(SEATS.get(key, 2)):
        view = game.view(state, seat)
        words = renderer.hand_words(view, "bob")
        assert words is not None and words.startswith("**bob's ")
        assert "your" not in words.lower()
        assert view.get("hand"), "a hand to show"


def test_a_game_without_hidden_cards_has_no_hand_words() -> None:
    game = get_game("knights")
    state = game.setup(2, {}, rng_for(1, "setup"))
    assert get_renderer("knights").hand_words(game.view(state, 0), "bob") is None
