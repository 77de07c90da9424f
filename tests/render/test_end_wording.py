"""End summaries read as a player would say them (issue 25, item 9): one turn is "1 turn", one
card "1 card", never "1 turns" or "1 cards"."""

from __future__ import annotations

import pytest

from engine import get_game
from engine.rules import rng_for
from presentation import get_renderer

NAMES = ["alice", "bob", "carol"]


@pytest.mark.parametrize("key", ["castles", "king", "knights", "towers"])
def test_a_game_resigned_after_one_move_reads_in_the_singular(key: str) -> None:
    game = get_game(key)
    seats = 2
    state = game.setup(seats, {}, rng_for(2, "setup"))
    seat = game.to_act(state)
    assert seat is not None
    legal = game.legal_actions(state, seat)
    # Castles: lay a card, so that row holds exactly one.
    action = next((a for a in legal if a.get("type") == "lay"), legal[0])
    state, _ = game.apply(state, seat, action, rng_for(2, 0))
    loser = game.to_act(state)
    assert loser is not None
    state, _ = game.resign(state, loser)
    result = game.result(state)
    assert result is not None
    summary = get_renderer(key).end_summary(game.view(state, None), NAMES[:seats], result, 1)
    assert "1 turn." in summary or "1 turn" in summary
    assert "1 turns" not in summary and "1 cards" not in summary and "1 hands" not in summary
    if key == "castles":
        assert "1 card in the row" in summary
