"""The AFK ladder's automatic move, ``Game.safe_action`` (issue 11, ``docs/afk.md``).

Over many seeded random games of every registered game: whenever ``safe_action`` gives an
action, it is one of the seat's legal actions and applies without a RuleError, and it is never
one of the moves that give up the game or spend something scarce. Then named cases per game.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import engine
from engine.castles import GAME as CASTLES
from engine.king import GAME as KING
from engine.knights import GAME as KNIGHTS
from engine.kurth import GAME as KURTH
from engine.rules import Action, Game, State, rng_for
from engine.towers import GAME as TOWERS
from tests.engine import test_king_rules as king_t
from tests.engine import test_knights_rules as knights_t
from tests.engine import test_kurth_rules as kurth_t
from tests.engine import test_towers_rules as towers_t
from tests.engine.test_conformance import chooser_policy, new_game

GAMES_PER_KEY = 100
MAX_PLIES = 5000

# Action types an automatic move may never be: they give up the game, or spend chips, mana,
# spirit or a card the player would choose.
NEVER = {
    "castles": {"lay", "attack"},
    "king": {"play", "discard"},
    "knights": {"place_commander", "move"},
    "kurth": {"move", "attack", "special", "cast"},
    "towers": {"bet", "call", "raise", "buy_flip", "reveal_joker", "leave"},
}


def check_safe(game: Game, state: State, seat: int, dice: random.Random) -> Action | None:
    """The contract: None, or a legal action of ``seat`` that applies (no RuleError)."""
    before = engine.rules.dumps(state)
    safe = game.safe_action(state, seat)
    assert engine.rules.dumps(state) == before, "safe_action mutated the state"
    if safe is None:
        return None
    assert safe in game.legal_actions(state, seat), f"{safe} is not legal"
    assert safe["type"] not in NEVER[game.key], f"{safe} is not a safe move"
    game.apply(state, seat, safe, dice)  # accepted: no RuleError
    return safe


def test_every_game_has_its_never_list() -> None:
    assert set(NEVER) == set(engine.GAMES)


@pytest.mark.parametrize("key", sorted(engine.GAMES))
def test_safe_action_is_always_legal_and_applies(key: str) -> None:
    """Seeded random games; at every step the safe action of the seat to act (and of every
    other seat, which must be None) is checked, and some games are played by safe actions
    whenever there is one, as a seat that is always away would."""
    game = engine.GAMES[key]
    offered = 0
    for index in range(GAMES_PER_KEY):
        chooser, seed, seats, _options, state = new_game(game, index)
        dice = random.Random(seed)
        choose = chooser_policy(chooser)
        afk = chooser.randrange(seats) if index % 2 else None  # this seat plays safe moves only
        for _ply in range(MAX_PLIES):
            to_act = game.to_act(state)
            for seat in range(seats):
                if seat != to_act:
                    assert game.safe_action(state, seat) is None, "a safe move out of turn"
            if to_act is None:
                break
            safe = check_safe(game, state, to_act, dice)
            offered += safe is not None
            legal = game.legal_actions(state, to_act)
            action = safe if to_act == afk and safe is not None else choose(legal)
            state, _ = game.apply(state, to_act, action, dice)
        assert game.to_act(state) is None
    # Siege (1966): a side with no move never comes up in real play (test_knights_rules), so its
    # only safe move, the forced pass, is tested by hand below.
    assert offered or key == "knights", f"{key}: no safe action came up in {GAMES_PER_KEY} games"


def test_a_finished_game_has_no_safe_action() -> None:
    for game in engine.GAMES.values():
        _, _, seats, _, state = new_game(game, 0)
        state, _ = game.resign(state, 0)
        if game.result(state) is None:  # tower poker: the others play on
            continue
        assert all(game.safe_action(state, seat) is None for seat in range(seats))


# -- castles -------------------------------------------------------------------------------


def test_castles_draws_while_the_pile_has_cards() -> None:
    state = CASTLES.setup(2, {"dealer": 0}, rng_for(1, "setup"))
    assert CASTLES.safe_action(state, 1) == {"type": "draw"}
    assert CASTLES.safe_action(state, 0) is None  # not its turn


def test_castles_with_an_empty_pile_lays_nothing_and_passes_only_when_forced() -> None:
    state = CASTLES.setup(2, {"dealer": 0}, rng_for(1, "setup"))
    state["pile"] = []
    assert CASTLES.safe_action(state, 1) is None  # lays and attacks are the player's choice
    state["hands"][1], state["rows"][1] = [], []
    assert CASTLES.legal_actions(state, 1) == [{"type": "pass"}]
    assert CASTLES.safe_action(state, 1) == {"type": "pass"}


# -- Siege the King ------------------------------------------------------------------------


def test_king_never_hides_the_king_for_an_absent_player() -> None:
    """A fixed automatic arrangement would tell the opponent where the King is."""
    state = KING.setup(2, {}, rng_for(1, "setup"))
    assert KING.legal_actions(state, 0)[0]["type"] == "arrange"
    assert KING.safe_action(state, 0) is None


def test_king_plays_no_card_for_an_absent_player() -> None:
    state = king_t.start(hands=(["A5", "D1", "D2", "W3", "ARTISAN"], []))
    assert state["phase"] == "play" and KING.to_act(state) == 0
    assert KING.safe_action(state, 0) is None  # not even the Artisan's free discard


def test_king_the_drawn_assassin_strikes_the_first_open_column() -> None:
    state = king_t.start(hands=(["A5", "D1", "D2", "D3", "D4"], []), pile=["ASSASSIN", "A6"])
    state, _ = king_t.act(state, 0, king_t.play("A5", 1, 0))
    assert KING.summary(state)["phase"] == "assassinate"
    assert KING.safe_action(state, 0) == {"type": "assassinate", "column": 0}


# -- Siege (1966) --------------------------------------------------------------------------


def test_knights_has_no_safe_move_while_real_moves_exist() -> None:
    state = knights_t.fresh()
    assert KNIGHTS.safe_action(state, 1) is None  # the Commander's placement is a choice
    state = knights_t.placed()
    assert KNIGHTS.legal_actions(state, 0)[0]["type"] == "move"
    assert KNIGHTS.safe_action(state, 0) is None


def test_knights_passes_when_it_must() -> None:
    state = knights_t.position({}, 0, special_turns_left=2, plies=5)
    assert KNIGHTS.safe_action(state, 0) == {"type": "pass"}


# -- Siege at Kurth ------------------------------------------------------------------------


def test_kurth_ends_the_turn_once_nothing_is_owed() -> None:
    state = kurth_t.position(markers={"armory": 3})
    assert KURTH.safe_action(state, 0) is None  # the move is the player's choice
    state = kurth_t.play(state, kurth_t.move("armory"))
    assert KURTH.summary(state)["phase"] == "attack"
    assert KURTH.safe_action(state, 0) is None  # so is the attack
    state = kurth_t.play(kurth_t.position(), kurth_t.move("wardens_hall"))
    assert KURTH.summary(state)["phase"] == "done"
    assert KURTH.safe_action(state, 0) == {"type": "end_turn"}


# -- tower poker ---------------------------------------------------------------------------


def towers_to_call(state: State) -> Any:
    return TOWERS.summary(state)["to_call"]


def test_towers_checks_when_it_can_and_folds_when_it_must() -> None:
    state = towers_t.deal(3, dealer=2)
    assert TOWERS.safe_action(state, 0) == {"type": "check"}
    state = towers_t.play(state, 0, towers_t.BET)
    assert towers_to_call(state) > 0
    assert TOWERS.safe_action(state, 1) == {"type": "fold"}  # never a call


def test_towers_declines_a_flip_it_could_buy() -> None:
    state = towers_t.deal(2, dealer=0)
    while state["phase"] == "betting":
        state = towers_t.play(state, state["to_act"], towers_t.CHECK)
    assert state["phase"] == "flip_offer"
    seat = state["to_act"]
    assert {"type": "buy_flip"} in TOWERS.legal_actions(state, seat)
    assert TOWERS.safe_action(state, seat) == {"type": "decline_flip"}


def test_towers_never_reveals_a_joker() -> None:
    state = towers_t.deal(2, dealer=1, hands=[["XR", "7S", "7C", "3D"], []])
    assert state["to_act"] == 0
    assert any(a["type"] == "reveal_joker" for a in TOWERS.legal_actions(state, 0))
    assert TOWERS.safe_action(state, 0) == {"type": "check"}


def test_towers_keeps_every_card_at_an_up_to_discard() -> None:
    hands = [["AS", "AH", "KC", "QD"], []]
    state = towers_t.deal(2, dealer=0, towers=towers_t.joker_towers("XB"), hands=hands)
    assert state["phase"] == "discard" and state["to_act"] == 0
    assert TOWERS.safe_action(state, 0) == {"type": "discard", "cards": []}


def test_towers_jackpot_discard_keeps_the_best_hand() -> None:
    towers = [["XB", "2S"], ["XR", "3S"], ["XB"], ["XR", "5S"]]
    state = towers_t.deal(
        2, dealer=0, towers=towers, hands=[["2C", "7D", "AS", "AH"], []], tower_height=3
    )
    state["dungeon"] += state["towers"][2][1:]
    state["towers"][2] = state["towers"][2][:1]
    keep: Action = {"type": "discard", "cards": []}
    play_all = towers_t.play_all
    state = play_all(state, [(0, keep), (1, towers_t.CHECK), (0, towers_t.CHECK)])
    state = play_all(state, [(1, towers_t.BUY), (1, keep)])
    state = play_all(state, [(1, towers_t.CHECK), (0, towers_t.CHECK), (1, towers_t.BUY)])
    state = play_all(state, [(1, keep), (0, keep)])
    state = play_all(state, [(1, towers_t.CHECK), (0, towers_t.CHECK), (1, towers_t.DECLINE)])
    state = towers_t.play(state, 0, towers_t.BUY)
    assert state["jackpot"] and state["discard"]["mode"] == "exactly_2" and state["to_act"] == 0
    assert sorted(state["hands"][0]) == ["2C", "7D", "AH", "AS"]
    # Three jokers face up: the pair of aces makes five aces, the best hand there is.
    assert TOWERS.safe_action(state, 0) == {"type": "discard", "cards": ["2C", "7D"]}
