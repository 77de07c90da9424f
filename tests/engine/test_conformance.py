"""The conformance test over the registry ``engine.GAMES``: every registered game is played many
times with seeded random legal choices, and the contract of ``engine/rules.py`` is checked at
every step (legal actions, no mutation, JSON round trip, no leaks, conservation, termination),
then replayed, and its views are checked against the information-state property.

A new game needs an entry in ``CHECKERS`` (what its cards are, what each seat may not see, and
how to rearrange what a seat cannot see); the test fails for a registered game without one.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import string
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import chance
from engine.cards import DECK52
from engine.king import deck as king_deck
from engine.rules import Game, RuleError, SetupError, State, dumps, loads, rng_for
from tests.engine.test_kurth_rules import kurth_checker_fields
from tests.engine.test_towers_rules import towers_checker_fields

GAMES_PER_KEY = 500
REPLAYS_PER_KEY = 60
MAX_PLIES = 5000
WORKERS = 2  # processes sharing out the games of the conformance test
ALL_LEGAL_EVERY = 10  # at every 10th step, check that every legal action applies
RESIGN_CHANCE = 0.05  # a few games end (or go on) with a resignation at a random ply

Log = list[tuple[int, dict[str, Any] | None]]  # (seat, action); None is a resignation


@dataclass(frozen=True)
class Checker:
    """What the conformance test must know about one game."""

    # Fails (assert) unless every physical component is accounted for exactly once.
    conserve: Callable[[State], None]
    # For each seat, the codes that seat holds in secret (no other seat may see them).
    secret: Callable[[State], list[set[str]]]
    # Codes nobody may see (face-down cards).
    face_down: Callable[[State], set[str]]
    # A state that differs from the given one only in what ``seat`` (None: a spectator) cannot
    # see, rearranged with ``rng``.
    rearrange_unseen: Callable[[State, int | None, random.Random], State]


DECK52_SET = frozenset(DECK52)


def _castles_conserve(state: State) -> None:
    zones = [*state["hands"], state["pile"], *state["rows"], state["discard"]]
    everything = [card for zone in zones for card in zone]
    assert len(everything) == len(DECK52), f"{len(everything)} cards in the zones, not 52"
    assert set(everything) == DECK52_SET, "a card is duplicated or missing"


def _redeal_unseen(key: str, state: State, seat: int | None, rng: random.Random) -> State:
    """A copy with the cards ``seat`` cannot see (other hands and the pile) dealt again at the
    same sizes."""
    new = loads(dumps(state), engine.GAMES[key])
    zones = [h for s, h in enumerate(new["hands"]) if s != seat] + [new["pile"]]
    pool = [card for zone in zones for card in zone]
    rng.shuffle(pool)
    for zone in zones:
        size = len(zone)
        zone[:] = pool[:size]
        del pool[:size]
    return new


def _castles_rearrange(state: State, seat: int | None, rng: random.Random) -> State:
    return _redeal_unseen("castles", state, seat, rng)


CHECKERS: dict[str, Checker] = {
    "castles": Checker(
        conserve=_castles_conserve,
        secret=lambda state: [set(hand) for hand in state["hands"]],
        face_down=lambda state: set(state["pile"]),
        rearrange_unseen=_castles_rearrange,
    ),
}


def _king_public(state: State) -> set[str]:
    on_table = {c for row in state["columns"] for col in row for c in col["cards"]}
    return on_table | set(state["discard"])


def _king_conserve(state: State) -> None:
    """Deck cards in pile, hands, columns, discard, out of play or pending; castle cards under
    their columns (open or not) or out of play once a revealed Throne closed its column."""
    found = [*state["pile"], *state["hands"][0], *state["hands"][1], *state["discard"]]
    found += state["out_of_play"]
    for s in (0, 1):
        order = state["castles"][s] or ["KING", "THRONE", "THRONE"]
        for i in range(3):
            found += state["columns"][s][i]["cards"]
            if state["open"][s][i]:
                found.append(order[i])
    if state["pending"] is not None:
        found.append(state["pending"]["card"])
    expected = Counter(king_deck(state["specials"])) + Counter({"KING": 2, "THRONE": 4})
    assert Counter(found) == expected, "king cards are not conserved"


def _king_secret(state: State) -> list[set[str]]:
    """A seat's hand codes that the other seat cannot tell apart from what it sees itself
    (two A5s exist: one in my hand and one on the table is not a secret)."""
    public = _king_public(state)
    hands = [set(h) for h in state["hands"]]
    return [hands[s] - hands[1 - s] - public for s in (0, 1)]


def _king_face_down(state: State) -> set[str]:
    hands = set(state["hands"][0]) | set(state["hands"][1])
    return set(state["pile"]) - _king_public(state) - hands


def _king_rearrange(state: State, seat: int | None, rng: random.Random) -> State:
    """Re-deal the other hands and the pile; shuffle the other seats' unrevealed castles."""
    new = _redeal_unseen("king", state, seat, rng)
    if new["phase"] != "over":
        for s in (0, 1):
            order = new["castles"][s]
            if s == seat or order is None:
                continue
            hidden = [i for i in range(3) if not new["revealed"][s][i]]
            shuffled = [order[i] for i in hidden]
            rng.shuffle(shuffled)
            for i, card in zip(hidden, shuffled, strict=True):
                order[i] = card
    return new


def _knights_conserve(state: State) -> None:
    pieces = list(state["pieces"].values())
    assert pieces.count("N") + state["captured"]["knights"] == 4, "knights not conserved"
    assert pieces.count("D") + state["captured"]["defenders"] == 4, "defenders not conserved"
    commanders = pieces.count("C")
    result = state["result"]
    if result is not None and result["reason"] == "commander_captured":
        assert commanders == 0
    else:
        assert commanders == (1 if state["placed"] else 0), "the Commander is lost or doubled"


CHECKERS["king"] = Checker(
    conserve=_king_conserve,
    secret=_king_secret,
    face_down=_king_face_down,
    rearrange_unseen=_king_rearrange,
)
# A perfect-information game: nothing is secret, so views must simply not depend on anything.
CHECKERS["knights"] = Checker(
    conserve=_knights_conserve,
    secret=lambda state: [set(), set()],
    face_down=lambda state: set(),
    rearrange_unseen=lambda state, seat, rng: loads(dumps(state), engine.GAMES["knights"]),
)

# The solo game: its draw pile is face down to everyone.
CHECKERS["kurth"] = Checker(**kurth_checker_fields())
CHECKERS["towers"] = Checker(**towers_checker_fields())

ENCODER = json.JSONEncoder(check_circular=False)  # ASCII output: a code is plain letters/digits
# Every other character becomes a space, so the words of the JSON text are its whole tokens.
SEPARATORS = str.maketrans(
    {chr(i): " " for i in range(128) if chr(i) not in string.ascii_letters + string.digits}
)


def leaked(data: Any, hidden: set[str]) -> set[str]:
    """The codes of ``hidden`` that occur as a whole token in the JSON text of ``data``."""
    return hidden.intersection(ENCODER.encode(data).translate(SEPARATORS).split())


def checker_for(key: str) -> Checker:
    checker = CHECKERS.get(key)
    if checker is None:
        pytest.fail(f"Game {key!r} is registered but has no conformance checker: add one.")
    return checker


def new_game(game: Game, index: int) -> tuple[random.Random, int, int, dict[str, Any], State]:
    """A seeded table: the chooser's generator, the game's seed, seats, options, state."""
    chooser = random.Random(f"{game.key}:{index}")
    seed = chooser.randrange(2**62)
    seats = chooser.randint(game.min_seats, game.max_seats)
    while True:  # options drawn alone may clash (tower poker: a big bet below the small one)
        options = {opt.name: chooser.choice(opt.choices) for opt in game.options}
        try:
            state = game.setup(seats, options, rng_for(seed, "setup"))
        except SetupError:
            continue
        return chooser, seed, seats, options, state


def chooser_policy(chooser: random.Random) -> Callable[[list[dict[str, Any]]], dict[str, Any]]:
    """A random legal choice; some games lean on the first legal action (for castles: draw
    first, so the pile empties and the quiet-turn stalemates come up), all seeded."""
    lean = chooser.choice((0.0, 0.0, 0.0, 0.85))

    def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
        return legal[0] if chooser.random() < lean else chooser.choice(legal)

    return choose


def all_hidden(checker: Checker, state: State) -> set[str]:
    """Every code some seat may not see in ``state``."""
    return set().union(*checker.secret(state)) | checker.face_down(state)


def check_state(
    game: Game,
    checker: Checker,
    state: State,
    seats: int,
    events: list[Any],
    hidden_before: set[str] | None = None,
    action: dict[str, Any] | None = None,
) -> tuple[State, list[dict[str, Any]]]:
    """The invariants every reachable state must meet; ``events`` are those of the action that
    led to it, taken when ``hidden_before`` was hidden. Returns the state read back from its
    JSON text (an independent copy, to check later that nothing mutated ``state``) and the
    legal actions of the seat to act."""
    copy = loads(dumps(state), game)
    assert copy == state, "the state does not round-trip through JSON"
    checker.conserve(state)

    secret = checker.secret(state)
    face_down = checker.face_down(state)
    for seat in range(seats):
        others = set().union(*(cards for s, cards in enumerate(secret) if s != seat)) | face_down
        seen = leaked(game.view(state, seat), others)
        assert not seen, f"seat {seat} sees {sorted(seen)}"
    hidden = set().union(*secret) | face_down
    seen = leaked({"spectator": game.view(state, None), "summary": game.summary(state)}, hidden)
    assert not seen, f"the spectator view or the summary shows {sorted(seen)}"
    # A card hidden both before and after the action, and not named by the action itself,
    # must not be named by its events. (A card played in the open and reshuffled from the
    # discard into the pile in the same action was public in between.)
    named = set(leaked(action, hidden)) if action is not None else set()
    still_hidden = (hidden if hidden_before is None else hidden & hidden_before) - named
    seen = leaked(events, still_hidden)
    assert not seen, f"the events name hidden cards {sorted(seen)}"

    to_act = game.to_act(state)
    legal: list[dict[str, Any]] = []
    if to_act is None:
        assert game.result(state) is not None
    else:
        assert game.result(state) is None
        assert 0 <= to_act < seats
        legal = game.legal_actions(state, to_act)
        assert legal, "the seat to act has no legal action"
    for seat in range(seats):
        if seat != to_act:
            assert game.legal_actions(state, seat) == [], f"seat {seat} may act out of turn"
    return copy, legal


def check_end(game: Game, state: State, seats: int, last: dict[str, Any] | None) -> None:
    result = game.result(state)
    assert result is not None
    assert game.to_act(state) is None
    assert len(set(result.winners)) == len(result.winners)
    assert all(0 <= w < seats for w in result.winners)
    assert isinstance(result.reason, str)
    assert result.reason
    assert result.scores is None or len(result.scores) == seats
    for seat in range(seats):
        assert game.legal_actions(state, seat) == []
        if last is not None:
            with pytest.raises(RuleError):
                game.apply(state, seat, last, rng_for(0, 0))


@pytest.mark.parametrize("key", sorted(engine.GAMES))
def test_every_game_has_a_checker(key: str) -> None:
    checker = checker_for(key)
    game = engine.GAMES[key]
    _, _, seats, _, state = new_game(game, 0)
    check_state(game, checker, state, seats, [])


def play_checked_games(key: str, indices: range) -> int:
    """Play the random games ``indices`` of ``key``, checking every step; returns how many
    ended. Runs in a worker process (see the test below)."""
    game = engine.GAMES[key]
    checker = checker_for(key)
    ended = 0
    for index in indices:
        chooser, seed, seats, _options, state = new_game(game, index)
        dice = random.Random(seed)  # chance inside actions; the replay test uses rng_for
        choose = chooser_policy(chooser)
        copy, legal = check_state(game, checker, state, seats, [])
        resign_at = chooser.randrange(200) if chooser.random() < RESIGN_CHANCE else None
        last: dict[str, Any] | None = None
        for ply in range(MAX_PLIES):
            to_act = game.to_act(state)
            if to_act is None:
                break
            if ply == resign_at:
                resigner = chooser.randrange(seats)
                before = all_hidden(checker, state)
                new, events = game.resign(state, resigner)
                assert state == copy, "resign mutated its input state"
                result = game.result(new)
                assert result is None or resigner not in result.winners
                state = new
                copy, legal = check_state(game, checker, state, seats, events, before)
                continue
            if ply % ALL_LEGAL_EVERY == 0:
                for action in legal:
                    game.apply(state, to_act, action, dice)  # accepted: no RuleError
                    assert state == copy, f"apply mutated its input state ({action})"
                for seat in range(seats):
                    if seat != to_act:
                        with pytest.raises(RuleError):
                            game.apply(state, seat, legal[0], dice)
                        assert state == copy, "a refused action mutated the state"
            last = choose(legal)
            before = all_hidden(checker, state)
            new, events = game.apply(state, to_act, last, dice)
            assert state == copy, f"apply mutated its input state ({last})"
            state = new
            copy, legal = check_state(game, checker, state, seats, events, before, last)
        assert game.to_act(state) is None, f"{key} game {index} went on for {MAX_PLIES} plies"
        check_end(game, state, seats, last)
        ended += 1
    return ended


@pytest.mark.parametrize("key", sorted(engine.GAMES))
def test_conformance_random_games(key: str) -> None:
    """GAMES_PER_KEY seeded random games, split over WORKERS processes (the games are
    independent; this only shares out the time)."""
    checker_for(key)
    shares = [range(w, GAMES_PER_KEY, WORKERS) for w in range(WORKERS)]
    context = multiprocessing.get_context("spawn")  # no fork of a process with threads
    with ProcessPoolExecutor(max_workers=WORKERS, mp_context=context) as pool:
        ended = sum(pool.map(play_checked_games, [key] * WORKERS, shares))
    assert ended == GAMES_PER_KEY


def play_logged(
    game: Game, index: int, scheme: int = chance.CURRENT
) -> tuple[int, int, dict[str, Any], Log, State]:
    """A random game with its log, as the store keeps it (a resignation is logged too), dealt
    with the chance ``scheme`` (engine/chance.py)."""
    chooser, seed, seats, options, _ = new_game(game, index)
    state = chance.deal(game, seats, options, seed, scheme=scheme)
    resign_at = chooser.randrange(300) if chooser.random() < 0.2 else None
    choose = chooser_policy(chooser)
    log: Log = []
    while (to_act := game.to_act(state)) is not None and len(log) < MAX_PLIES:
        if len(log) == resign_at:
            seat = chooser.randrange(seats)
            resigned, _ = game.resign(state, seat)
            state = chance.keep(state, resigned)
            log.append((seat, None))
            continue
        action = choose(game.legal_actions(state, to_act))
        state, _ = chance.advance(game, state, to_act, action, seed, len(log))
        log.append((to_act, action))
    return seed, seats, options, log, state


@pytest.mark.parametrize("scheme", [chance.BY_PLY, chance.BY_PURPOSE])
@pytest.mark.parametrize("key", sorted(engine.GAMES))
def test_replay_gives_the_identical_state(key: str, scheme: int) -> None:
    """Under either chance scheme (old stored games keep theirs) a log replays exactly."""
    game = engine.GAMES[key]
    for index in range(REPLAYS_PER_KEY // 2):
        seed, seats, options, log, final = play_logged(game, index, scheme)
        assert game.result(final) is not None
        assert chance.scheme_of(final) == scheme
        state = chance.deal(game, seats, options, seed, scheme=scheme)
        for ply, (seat, action) in enumerate(log):
            if action is None:
                state = chance.keep(state, game.resign(state, seat)[0])
            else:
                state, _ = chance.advance(game, state, seat, action, seed, ply)
        assert dumps(state) == dumps(final)


@pytest.mark.parametrize("key", sorted(engine.GAMES))
@settings(max_examples=40, deadline=None, database=None)
@given(
    index=st.integers(min_value=0, max_value=10_000),
    plies=st.integers(min_value=0, max_value=250),
    viewer=st.integers(min_value=-1, max_value=6),
    rng=st.randoms(use_true_random=False),
)
def test_views_depend_only_on_what_the_seat_can_see(
    key: str, index: int, plies: int, viewer: int, rng: random.Random
) -> None:
    """Two states that differ only in what a seat cannot see give that seat the same view."""
    game = engine.GAMES[key]
    checker = checker_for(key)
    chooser, seed, seats, _options, state = new_game(game, index)
    for ply in range(plies):
        to_act = game.to_act(state)
        if to_act is None:
            break
        state, _ = game.apply(
            state, to_act, chooser.choice(game.legal_actions(state, to_act)), rng_for(seed, ply)
        )
    seat = None if viewer < 0 else viewer % seats
    other = checker.rearrange_unseen(state, seat, rng)
    checker.conserve(other)
    assert game.view(other, seat) == game.view(state, seat)
    assert game.summary(other) == game.summary(state)
    if seat is not None:
        assert game.legal_actions(other, seat) == game.legal_actions(state, seat)
