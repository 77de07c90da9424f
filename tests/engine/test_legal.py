"""An action from outside is accepted only when it equals a legal action, JSON types included
(engine/legal.py; ``../shared/spec/README.md`` under ``legal``), and a seat must be a whole
number: junk is refused with a RuleError and changes nothing, in all five games."""

from __future__ import annotations

import copy
import json
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import GAMES
from engine.legal import play
from engine.rules import Action, Game, RuleError, State, rng_for
from engine.script import run_script
from tests.engine.test_towers_rules import BUY, CHECK, deal, joker_towers

SEATS = {"castles": 2, "king": 2, "knights": 2, "kurth": 1, "towers": 3}


def position(key: str, seed: int, plies: int) -> tuple[Game, State]:
    """A game of ``key`` after up to ``plies`` random legal moves (still running)."""
    game = GAMES[key]
    state = game.setup(SEATS[key], {}, rng_for(seed, "setup"))
    choose = random.Random(seed)
    for ply in range(plies):
        seat = game.to_act(state)
        assert seat is not None
        after, _ = game.apply(
            state, seat, choose.choice(game.legal_actions(state, seat)), rng_for(seed, ply)
        )
        if game.result(after) is not None:
            break
        state = after
    return game, state


def spoiled(action: Action, how: str, deep: int = 3000) -> Action:
    """A legal action made into junk that the bare ``apply`` of some game would take."""
    junk: Action = dict(action)
    ints = [k for k, v in action.items() if type(v) is int]
    if how == "extra_key":
        junk["note"] = 1
    elif how == "nan_key":
        junk["x"] = math.nan
    elif how == "deep_key":
        nested: Any = []
        for _ in range(deep):
            nested = [nested]
        junk["x"] = nested
    elif how == "float" and ints:
        junk[ints[0]] = float(action[ints[0]])
    elif how == "bool" and ints and action[ints[0]] in (0, 1):
        junk[ints[0]] = bool(action[ints[0]])
    else:
        junk["note"] = "extra"
    return junk


KINDS = ("extra_key", "nan_key", "deep_key", "float", "bool")


@settings(max_examples=300, deadline=None, database=None)
@given(
    key=st.sampled_from(sorted(GAMES)),
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 60),
    pick=st.integers(0, 1000),
    how=st.sampled_from(KINDS),
)
def test_junk_is_refused_and_changes_nothing(
    key: str, seed: int, plies: int, pick: int, how: str
) -> None:
    game, state = position(key, seed, plies)
    seat = game.to_act(state)
    assert seat is not None
    legal = game.legal_actions(state, seat)
    action = legal[pick % len(legal)]
    junk = spoiled(action, how)
    before = copy.deepcopy(state)
    with pytest.raises(RuleError):
        play(game, state, seat, junk, rng_for(seed, "junk"))
    assert state == before
    # The listed action itself still applies through the same gate.
    play(game, state, seat, action, rng_for(seed, "junk"))


@pytest.mark.parametrize("key", sorted(GAMES))
def test_extra_keys_are_refused_in_every_game(key: str) -> None:
    """Each game's bare apply ignores a field it does not read; the gate refuses it (the issue
    found castles, knights, king and towers taking them)."""
    refused = 0
    for seed in range(20):
        game, state = position(key, seed, seed * 3)
        seat = game.to_act(state)
        assert seat is not None
        for action in game.legal_actions(state, seat):
            with pytest.raises(RuleError, match=r"field.*'note'"):
                play(game, state, seat, {**action, "note": 1}, rng_for(seed, 0))
            refused += 1
    assert refused > 20


@pytest.mark.parametrize("key", sorted(GAMES))
@pytest.mark.parametrize("seat", [True, False, 1.0, 0.0, "0", None, -1])
def test_a_seat_that_is_not_a_whole_number_is_refused(key: str, seat: Any) -> None:
    game, state = position(key, 5, 4)
    to_act = game.to_act(state)
    assert to_act is not None
    action = game.legal_actions(state, to_act)[0]
    before = copy.deepcopy(state)
    with pytest.raises(RuleError, match="not playing at this table"):
        game.apply(state, seat, action, rng_for(5, 9))
    with pytest.raises(RuleError, match="not playing at this table"):
        game.resign(state, seat)
    with pytest.raises(RuleError, match="not playing at this table"):
        play(game, state, seat, action, rng_for(5, 9))
    assert state == before


def test_a_float_for_a_whole_number_is_refused_with_the_games_own_sentence_when_it_has_one() -> (
    None
):
    game, state = position("castles", 1, 0)
    seat = game.to_act(state)
    assert seat is not None
    for action in game.legal_actions(state, seat):
        if "pos" in action:
            with pytest.raises(RuleError):
                play(game, state, seat, {**action, "pos": float(action["pos"])}, rng_for(1, 0))


def test_tower_poker_discards_are_accepted_in_any_order() -> None:
    """The spec's one exception: a discard's ``cards`` list in any order is the listed one (the
    position of test_towers_rules' "second red joker": seat 1 discards up to four)."""
    game = GAMES["towers"]
    state = deal(2, dealer=0, towers=joker_towers("XB", "XR"), hands=[[], ["9C", "9D", "8H", "7S"]])
    for seat, action in [(0, {"type": "discard", "cards": []}), (1, CHECK), (0, CHECK), (1, BUY)]:
        state, _ = play(game, state, seat, action, rng_for(0, 0))
    listed = {"type": "discard", "cards": ["7S", "8H", "9C", "9D"]}
    assert listed in game.legal_actions(state, 1)
    shuffled = {"type": "discard", "cards": ["9D", "7S", "9C", "8H"]}
    got, _ = play(game, state, 1, shuffled, rng_for(0, 1))
    want, _ = play(game, state, 1, listed, rng_for(0, 1))
    assert sorted(got["hands"][1]) == sorted(want["hands"][1]) and got["phase"] == want["phase"]
    assert sorted(got["dungeon"]) == sorted(want["dungeon"])
    for junk in (["9D", "7S", "9C", "8H", 1], ["9D", "7S", "9C", 8.0], ["9D", "9D"]):
        with pytest.raises(RuleError):
            play(game, state, 1, {"type": "discard", "cards": junk}, rng_for(0, 1))


def test_the_script_runner_refuses_an_extra_key_as_a_step() -> None:
    """Through the script runner: ``ok: false`` with the sentence, and the state unchanged (the
    next, proper action still applies)."""
    out = run_script(
        {
            "game": "castles",
            "seats": 2,
            "stack": {"dealer": 0},
            "actions": [
                {"seat": 1, "action": {"type": "draw", "cards": 3}},
                {"seat": 1, "action": {"type": "draw"}},
            ],
        }
    )
    first, second = out["steps"]
    assert first["ok"] is False and "field it does not take: 'cards'" in first["error"]
    assert second["ok"] is True
    json.dumps(out)
