"""The benchmarks' rule-based players of the two-player games (``benchmarks/rule_players.py``):
each plays whole games with legal moves from its seat's view alone, and each of the players
written last does what its rule says in a position that shows it. How strong they are is the
benchmarks' business (``benchmarks/computer_strength.py``), never asserted here.
"""

from __future__ import annotations

import random

import pytest

import engine
from benchmarks.rule_players import RULE_PLAYERS
from engine.king import ATTACKER, DEFENDER, KING, THRONE
from engine.knights_moves import side_moves
from engine.rules import Action, State, rng_for
from tests.engine.test_computer import random_state
from tests.engine.test_computer_models import _castles

TWO_PLAYER = sorted(name for name, (game, _) in RULE_PLAYERS.items() if game != "towers")


@pytest.mark.parametrize("name", TWO_PLAYER)
def test_a_rule_player_plays_whole_games_with_legal_moves(name: str) -> None:
    key, rule = RULE_PLAYERS[name]
    game = engine.GAMES[key]
    for seed in range(3):
        state = game.setup(2, {}, rng_for(seed, "setup"))
        chooser = random.Random(seed)
        ply = 0
        while game.result(state) is None and ply < 3000:
            seat = game.to_act(state)
            assert seat is not None
            legal = game.legal_actions(state, seat)
            if seat == seed % 2:
                action = rule(game.view(state, seat), seat, legal, chooser)
                assert action in legal, (name, ply, action)
            else:
                action = chooser.choice(legal)
            state, _ = game.apply(state, seat, action, rng_for(seed, ply))
            ply += 1
        assert game.result(state) is not None, name


def _wall(rows: list[list[str]], hand: list[str]) -> dict[str, object]:
    castles = engine.GAMES["castles"]
    state = _castles(rows, hand)
    action = RULE_PLAYERS["wall"][1](
        castles.view(state, 0), 0, castles.legal_actions(state, 0), random.Random(0)
    )
    return dict(action)


def test_the_thrifty_castles_player_blocks_low_and_keeps_a_hand() -> None:
    # Their unblocked card, and no kill on 9 or less (an Ace against a Queen needs 11):
    # block it with the lowest card.
    assert _wall([["AS"], ["QD", "5C"]], ["KD", "3S"]) == {"type": "lay", "card": "3S"}
    # The same with a kill on 7 in reach: kill rather than spend a card.
    assert _wall([["9S"], ["QD", "5C"]], ["KD", "3S"]) == {"type": "attack", "pos": 0}
    # Level rows, nothing to kill on a 7, one card in hand: draw.
    assert _wall([["AS"], ["QD"]], ["KD"]) == {"type": "draw"}
    # Level rows and two cards: lay the lower.
    assert _wall([["AS"], ["QD"]], ["KD", "3S"]) == {"type": "lay", "card": "3S"}
    # An unblocked card of its own: hit the castle.
    assert _wall([["AS", "2H"], ["QD"]], ["KD"]) == {"type": "attack", "pos": 1}


def _king_position() -> tuple[State, int]:
    """A position in play with seat 1's castle face down: THRONE, KING, THRONE."""
    king = engine.GAMES["king"]
    state = king.setup(2, {}, rng_for(5, "setup"))
    state, _ = king.apply(
        state, 0, {"type": "arrange", "order": [KING, THRONE, THRONE]}, rng_for(5, 0)
    )
    state, _ = king.apply(
        state, 1, {"type": "arrange", "order": [THRONE, KING, THRONE]}, rng_for(5, 1)
    )
    return state, state["to_act"]


def test_the_king_hunter_strikes_the_most_reinforced_column() -> None:
    king = engine.GAMES["king"]
    state, seat = _king_position()
    other = 1 - seat
    state["columns"][other][2] = {"cards": ["D6"], "roles": [DEFENDER]}
    state["columns"][seat][0] = {"cards": [], "roles": []}
    state["hands"][seat] = ["A7", "A2", "D3", "D4", "A1"]
    action = RULE_PLAYERS["sleuth"][1](
        king.view(state, seat), seat, king.legal_actions(state, seat), random.Random(0)
    )
    assert action == {"type": "play", "card": "A7", "column": [other, 2]}
    # Its own King's column low (under 6): it shores it up first.
    own = state["castles"][seat].index(KING)
    state["columns"][seat][own] = {"cards": ["A5"], "roles": [ATTACKER]}
    action = RULE_PLAYERS["sleuth"][1](
        king.view(state, seat), seat, king.legal_actions(state, seat), random.Random(0)
    )
    assert action == {"type": "play", "card": "D4", "column": [seat, own]}


def _captured(state: State, action: Action) -> bool:
    """Whether the piece this move lands can be taken on the other side's next move."""
    after = dict(state["pieces"])
    after[action["to"]] = after.pop(action["from"])
    return any(to == action["to"] for _, to in side_moves(after, 1 - state["to_act"]))


def test_the_careful_knights_player_does_not_step_into_a_capture() -> None:
    """In positions where some quiet move can be captured at once and some cannot, it picks
    one that cannot."""
    knights = engine.GAMES["knights"]
    careful = RULE_PLAYERS["careful"][1]
    checked = 0
    for seed in range(60):
        state = random_state(knights, seed, 6 + seed % 20, 2, {})
        seat = state["to_act"]
        if seat is None:
            continue
        legal = knights.legal_actions(state, seat)
        if any(a.get("to") in state["pieces"] for a in legal):
            continue  # a capture on offer: the rule weighs it, which is another matter

        moves = [a for a in legal if a["type"] == "move"]
        if all(_captured(state, a) for a in moves) or not any(_captured(state, a) for a in moves):
            continue
        action = careful(knights.view(state, seat), seat, legal, random.Random(seed))
        assert not _captured(state, action), (seed, action)
        checked += 1
    assert checked >= 5
