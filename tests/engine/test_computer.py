"""The computer players (``engine.ai``, issue 15).

A computer sees only its seat's view: its choices are always legal, whole games between
computers end through the engine, the legal list it rebuilds from a view is the engine's own,
and a choice does not change when the cards hidden from the seat are rearranged. Budgets are
kept small here; strength is the benchmark's business (``benchmarks/computer_strength.py``).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

import engine
from engine import ai
from engine.ai import castles as castles_ai
from engine.ai import knights as knights_ai
from engine.ai.computer import Computer
from engine.rules import Game, State, rng_for
from tests.engine.test_conformance import new_game

KEYS = sorted(engine.GAMES)
MAX_PLIES = 3000

# A short game of each title: few iterations, and low towers for tower poker.
QUICK_OPTIONS: dict[str, dict[str, Any]] = {"towers": {"tower_height": 3}}
QUICK_SEATS = {"castles": 2, "king": 2, "knights": 2, "kurth": 1, "towers": 3}


def random_state(game: Game, seed: int, plies: int, seats: int, options: dict[str, Any]) -> State:
    """A seeded position ``plies`` random moves in (or the end, if sooner)."""
    state = game.setup(seats, options, rng_for(seed, "setup"))
    chooser = random.Random(seed)
    for ply in range(plies):
        seat = game.to_act(state)
        if seat is None:
            break
        legal = [a for a in game.legal_actions(state, seat) if a["type"] != "leave"]
        state, _ = game.apply(state, seat, chooser.choice(legal), rng_for(seed, ply))
    return state


@pytest.mark.parametrize("key", KEYS)
def test_computers_play_a_whole_game_with_legal_moves(key: str) -> None:
    game = engine.GAMES[key]
    options = QUICK_OPTIONS.get(key, {})
    seats = QUICK_SEATS[key]
    levels = ["normal", "easy", "normal"]
    state = game.setup(seats, options, rng_for(11, "setup"))
    rng = random.Random(11)
    ply = 0
    while game.result(state) is None and ply < MAX_PLIES:
        seat = game.to_act(state)
        assert seat is not None
        budget = 2 if key == "knights" else 6
        action = ai.choose(
            key, game.view(state, seat), seat, levels[seat], rng, options=options, budget=budget
        )
        assert action in game.legal_actions(state, seat)
        state, _ = game.apply(state, seat, action, rng_for(11, ply))
        ply += 1
    assert game.result(state) is not None, f"{key} did not end in {MAX_PLIES} plies"


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("level", ai.LEVELS)
def test_every_level_chooses_a_legal_action(key: str, level: str) -> None:
    game = engine.GAMES[key]
    for index in range(3):
        _, seed, seats, options, _ = new_game(game, index)
        for plies in (0, 7, 25):
            state = random_state(game, seed, plies, seats, options)
            seat = game.to_act(state)
            if seat is None:
                continue
            budget = None if level == "easy" else (2 if key == "knights" else 10)
            action = ai.choose(
                key,
                game.view(state, seat),
                seat,
                level,
                random.Random(plies),
                options=options,
                budget=budget,
            )
            assert action in game.legal_actions(state, seat)


@pytest.mark.parametrize("key", KEYS)
def test_legal_list_rebuilt_from_the_view_is_the_engines(key: str) -> None:
    """What a computer searches from is the engine's own legal list, and every legal action
    applies to its sampled states."""
    game = engine.GAMES[key]
    for index in range(6):
        _, seed, _, options, state = new_game(game, index)
        chooser = random.Random(seed)
        ply = 0
        while game.result(state) is None and ply < 400:
            seat = game.to_act(state)
            assert seat is not None
            view = game.view(state, seat)
            legal = game.legal_actions(state, seat)
            assert ai.legal_actions(key, view, seat, options) == legal, f"ply {ply}"
            model = ai.computer_for(key).model
            if model is not None and ply % 9 == 0:
                sampled = model(view, seat, options, "hard")
                if sampled.shortcut(random.Random(ply)) is None:
                    world = sampled.determinize(chooser)
                    for action in game.legal_actions(world, seat):
                        game.apply(world, seat, action, chooser)
            playable = [a for a in legal if a["type"] != "leave"] or legal
            state, _ = game.apply(state, seat, chooser.choice(playable), rng_for(seed, ply))
            ply += 1


def _rearranged_castles(state: State, seat: int, rng: random.Random) -> State:
    other = 1 - seat
    new = engine.rules.clone(state)
    hidden = new["hands"][other] + new["pile"] + new["discard"]
    rng.shuffle(hidden)
    n, d = len(new["hands"][other]), len(new["discard"])
    new["hands"][other], new["discard"], new["pile"] = (
        hidden[:n],
        hidden[n : n + d],
        hidden[n + d :],
    )
    return new


def _rearranged_king(state: State, seat: int, rng: random.Random) -> State:
    other = 1 - seat
    new = engine.rules.clone(state)
    hidden = new["hands"][other] + new["pile"]
    rng.shuffle(hidden)
    if "ASSASSIN" in hidden[: len(new["hands"][other])]:
        hidden.remove("ASSASSIN")
        hidden.append("ASSASSIN")
    n = len(new["hands"][other])
    new["hands"][other], new["pile"] = hidden[:n], hidden[n:]
    order = new["castles"][other]
    face_down = [i for i in range(3) if not new["revealed"][other][i]]
    if order is not None and len(face_down) > 1:
        king = order.index("KING")
        swap = next(i for i in face_down if i != king)
        order[king], order[swap] = order[swap], order[king]
    return new


def _rearranged_towers(state: State, seat: int, rng: random.Random) -> State:
    new = engine.rules.clone(state)
    others = [x for x in range(new["seats"]) if x != seat]
    hidden = [c for x in others for c in new["hands"][x]] + [c for t in new["towers"] for c in t]
    hidden += new["spire"]
    rng.shuffle(hidden)
    for x in others:
        n = len(new["hands"][x])
        new["hands"][x], hidden = hidden[:n], hidden[n:]
    for t, tower in enumerate(new["towers"]):
        new["towers"][t], hidden = hidden[: len(tower)], hidden[len(tower) :]
    new["spire"] = hidden
    return new


def _rearranged_kurth(state: State, seat: int, rng: random.Random) -> State:
    new = engine.rules.clone(state)
    rng.shuffle(new["pile"])
    return new


REARRANGE: dict[str, Callable[[State, int, random.Random], State]] = {
    "castles": _rearranged_castles,
    "king": _rearranged_king,
    "towers": _rearranged_towers,
    "kurth": _rearranged_kurth,
}


@pytest.mark.parametrize("key", sorted(REARRANGE))
def test_choice_does_not_change_when_hidden_cards_are_rearranged(key: str) -> None:
    """Two states that differ only in what the seat cannot see give the same view and, from the
    same generator, the same choice."""
    game = engine.GAMES[key]
    compared = 0
    for index in range(8):
        _, seed, seats, options, _ = new_game(game, index)
        state = random_state(game, seed, 3 + 5 * index, seats, options)
        seat = game.to_act(state)
        if seat is None:
            continue
        other = REARRANGE[key](state, seat, random.Random(index))
        if other == state:
            continue
        view = game.view(state, seat)
        assert game.view(other, seat) == view
        for level in ("easy", "normal"):
            first = ai.choose(key, view, seat, level, random.Random(index), options=options)
            again = ai.choose(
                key, game.view(other, seat), seat, level, random.Random(index), options=options
            )
            assert first == again
        compared += 1
    assert compared >= 4


def test_the_same_view_and_generator_give_the_same_choice() -> None:
    game = engine.GAMES["castles"]
    state = random_state(game, 5, 20, 2, {})
    seat = game.to_act(state)
    assert seat is not None
    view = game.view(state, seat)
    picks = {repr(ai.choose("castles", view, seat, "hard", random.Random(1))) for _ in range(3)}
    assert len(picks) == 1


def test_a_deadline_stops_the_search() -> None:
    """The caller's deadline, asked between iterations, ends a hard search early (the engine
    reads no clock: the caller decides what the deadline means)."""
    game = engine.GAMES["king"]
    state = random_state(game, 3, 6, 2, {})
    seat = game.to_act(state)
    assert seat is not None
    asked: list[int] = []

    def deadline() -> bool:
        asked.append(1)
        return len(asked) >= 5

    action = ai.choose(
        "king", game.view(state, seat), seat, "hard", random.Random(0), deadline=deadline
    )
    assert action in game.legal_actions(state, seat)
    assert len(asked) == 5


def test_a_deadline_stops_the_knights_search() -> None:
    game = engine.GAMES["knights"]
    state = random_state(game, 3, 9, 2, {})
    seat = game.to_act(state)
    assert seat is not None
    view = game.view(state, seat)
    action = ai.choose("knights", view, seat, "hard", random.Random(0), deadline=lambda: True)
    assert action in game.legal_actions(state, seat)


def test_knights_takes_the_commander_when_it_can() -> None:
    game = engine.GAMES["knights"]
    state = game.setup(2, {}, rng_for(1, "setup"))
    state["pieces"] = {"d6": "C", "c4": "N", "g0": "N", "c6": "D", "f6": "D"}
    state["placed"], state["to_act"], state["special_turns_left"] = True, 0, 0
    for level in ai.LEVELS[1:]:
        action = ai.choose("knights", game.view(state, 0), 0, level, random.Random(2))
        assert action == {"type": "move", "from": "c4", "to": "d6"}
    assert knights_ai.evaluate(state["pieces"]) < knights_ai.WIN


def test_castles_attacks_with_an_unblocked_card_on_the_last_hit() -> None:
    """Nine hits taken by the other seat, an unblocked card and nothing in hand: hard attacks
    the castle (with a card in hand, laying it first to have two unblocked cards scores a
    little better in its rollouts)."""
    game = engine.GAMES["castles"]
    state = game.setup(2, {"dealer": 1}, rng_for(2, "setup"))
    rows = [["9S", "KD"], ["4C"]]
    laid = {c for row in rows for c in row}
    state["hands"] = [[c for c in h if c not in laid] for h in state["hands"]]
    state["pile"] = [c for c in state["pile"] if c not in laid]
    state["pile"] += state["hands"][0]
    state["hands"][0] = []
    state["rows"], state["hits"] = rows, [0, 9]
    action = ai.choose("castles", game.view(state, 0), 0, "hard", random.Random(4))
    assert action == {"type": "attack", "pos": 1}


def test_castles_levels_differ_in_their_playouts() -> None:
    """Easy's move follows the rule of thumb (one move in ten at random); normal's search,
    the weaker one, plays its playouts out at random (hard's rollouts:
    ``tests/engine/test_castles_search.py``)."""
    game = engine.GAMES["castles"]
    state = random_state(game, 5, 20, 2, {})
    seat = game.to_act(state)
    assert seat is not None
    view = game.view(state, seat)

    def greedy_share(model: castles_ai.CastlesModel) -> float:
        world = model.determinize(random.Random(0))
        greedy = castles_ai.greedy_action(world, seat, random.Random(0))
        picks = [model.rollout_action(world, seat, random.Random(i)) for i in range(200)]
        return sum(p == greedy for p in picks) / len(picks)

    assert greedy_share(castles_ai.CastlesModel(view, seat, "easy")) > 0.85
    assert greedy_share(castles_ai.CastlesModel(view, seat, "normal")) < 0.5


def test_fast_castles_rules_play_as_the_engine() -> None:
    """The search's quick Castles rules give the engine's legal lists and states (dice
    stacked alike for both)."""
    game = engine.GAMES["castles"]
    for seed in range(25):
        state = game.setup(2, {}, random.Random(seed))
        state["dice"] = [random.Random(seed + 1000 + i).randint(1, 6) for i in range(2000)]
        quick = engine.rules.clone(state)
        chooser = random.Random(seed)
        ply = 0
        while game.result(state) is None:
            seat = game.to_act(state)
            assert seat is not None
            legal = game.legal_actions(state, seat)
            assert castles_ai.legal(quick, seat) == legal
            action = chooser.choice(legal)
            state, _ = game.apply(state, seat, action, random.Random(ply))
            quick = castles_ai.apply(quick, seat, action, random.Random(ply))
            for key in ("hands", "rows", "pile", "hits", "quiet_turns", "to_act", "result"):
                assert quick[key] == state[key], (seed, ply, key)
            ply += 1


def test_kurth_hint_is_legal_with_a_sentence() -> None:
    game = engine.GAMES["kurth"]
    state = random_state(game, 8, 2, 1, {})
    view = game.view(state, 0)
    action, reason = ai.hint("kurth", view, 0, random.Random(3))
    assert action in game.legal_actions(state, 0)
    assert reason.endswith(".") and len(reason.split()) >= 4


def test_towers_computer_never_leaves() -> None:
    game = engine.GAMES["towers"]
    for seed in range(6):
        state = random_state(game, seed, seed * 3, 4, {})
        seat = game.to_act(state)
        if seat is None:
            continue
        for level in ai.LEVELS:
            action = ai.choose(
                "towers", game.view(state, seat), seat, level, random.Random(seed), budget=20
            )
            assert action["type"] != "leave"


def test_choose_refuses_a_seat_out_of_turn_and_an_unknown_level() -> None:
    game = engine.GAMES["castles"]
    state = game.setup(2, {"dealer": 0}, rng_for(1, "setup"))
    with pytest.raises(ValueError):
        ai.choose("castles", game.view(state, 0), 0, "hard", random.Random(0))
    with pytest.raises(ValueError):
        ai.choose("castles", game.view(state, 1), 1, "grandmaster", random.Random(0))


def test_a_game_with_a_model_and_a_search_says_which_levels_search() -> None:
    """Castles Besieged and Siege the King search hard themselves and leave the other levels to
    their model; a computer with both must name its search's levels."""
    for key in ("castles", "king"):
        computer = ai.computer_for(key)
        assert [computer.searches(level) for level in ai.LEVELS] == [False, False, True]
    king = ai.computer_for("king")
    with pytest.raises(ValueError, match="which levels"):
        Computer(budgets={}, model=king.model, search=king.search)
    with pytest.raises(ValueError, match="search levels"):
        Computer(budgets={}, model=king.model, search_levels=frozenset({"hard"}))
