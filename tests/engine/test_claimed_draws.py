"""A claimed draw (issue 25): a game whose rules have drawn results (``About.draws``) ends drawn
when its player to move abandoned it and the other claimed a draw (``Game.claim_draw``); the
other games refuse. The result has no winners and the reason ``abandoned``, the renderers tell
it, and a verified script plays it again."""

from __future__ import annotations

import copy

import pytest

from engine import GAMES, chance, get_game
from engine.rules import ABANDONED, NO_DRAWS, Result, RuleError, State
from engine.verify import verify
from presentation import get_renderer

DRAWN = sorted(key for key, game in GAMES.items() if game.about.draws)


def dealt(key: str, seed: int = 3) -> State:
    game = get_game(key)
    return chance.deal(game, max(game.min_seats, 2) if game.max_seats > 1 else 1, {}, seed)


def test_the_games_with_drawn_results_are_the_two_player_ones_whose_spec_has_draws() -> None:
    # castles: a stalemate with equal rows; king: the "draw" reason; knights: no moves,
    # repetition, no capture. Kurth is solo (no winners is a loss); tower poker has none.
    assert DRAWN == ["castles", "king", "knights"]
    assert all(GAMES[key].min_seats == GAMES[key].max_seats == 2 for key in DRAWN)


@pytest.mark.parametrize("key", DRAWN)
def test_a_claimed_draw_ends_the_game_drawn(key: str) -> None:
    game = get_game(key)
    state = dealt(key)
    before = copy.deepcopy(state)
    absent = game.to_act(state)
    assert absent is not None
    after, events = game.claim_draw(state, absent)
    assert state == before  # pure: the old state is untouched
    result = game.result(after)
    assert result is not None and result.winners == () and result.reason == ABANDONED
    assert game.to_act(after) is None and game.legal_actions(after, 1 - absent) == []
    assert events[0] == {"type": ABANDONED, "seat": absent}
    assert events[-1]["type"] == "game_ended" and events[-1]["winners"] == []
    with pytest.raises(RuleError, match="over"):
        game.claim_draw(after, absent)


@pytest.mark.parametrize("key", DRAWN)
def test_only_the_seat_to_move_can_be_the_one_that_abandoned_it(key: str) -> None:
    game = get_game(key)
    state = dealt(key)
    absent = game.to_act(state)
    assert absent is not None
    with pytest.raises(RuleError, match="player to move"):
        game.claim_draw(state, 1 - absent)
    with pytest.raises(RuleError):
        game.claim_draw(state, 5)


@pytest.mark.parametrize("key", sorted(set(GAMES) - set(DRAWN)))
def test_a_game_without_drawn_results_refuses_a_claimed_draw(key: str) -> None:
    game = get_game(key)
    state = dealt(key)
    seat = game.to_act(state)
    assert seat is not None
    with pytest.raises(RuleError) as refused:
        game.claim_draw(state, seat)
    assert str(refused.value) == NO_DRAWS


@pytest.mark.parametrize("key", DRAWN)
def test_the_renderers_tell_a_claimed_draw(key: str) -> None:
    game = get_game(key)
    renderer = get_renderer(key)
    state = dealt(key)
    absent = game.to_act(state)
    assert absent is not None
    after, events = game.claim_draw(state, absent)
    names = ["ann", "bo"]
    result = game.result(after)
    assert result is not None
    line = renderer.result_line(result, names)
    assert "Drawn" in line and "abandoned" in line and "claimed a draw" in line
    told = [renderer.event_line(e, names) for e in events]
    assert f"{names[absent]} abandoned the game, and the other claimed a draw." in told
    summary = renderer.end_summary(game.view(after, None), names, result, 1)
    assert "Decided by: a claimed draw" in summary and "resign" not in summary


@pytest.mark.parametrize("key", DRAWN)
def test_verify_plays_a_claimed_draw_again(key: str) -> None:
    game = get_game(key)
    state = dealt(key, seed=11)
    absent = game.to_act(state)
    assert absent is not None
    final = chance.keep(state, game.claim_draw(state, absent)[0])
    script = {
        "game": key,
        "seats": 2,
        "options": {},
        "seed": 11,
        "actions": [],
        "dealt": {"resignations": [{"after": 0, "seat": absent, "draw": True}], "final": final},
    }
    verdict = verify(script)
    assert verdict.ok, verdict.text()
    # Read as a resignation instead, the same file fails: the final state differs.
    script["dealt"] = {"resignations": [{"after": 0, "seat": absent}], "final": final}
    assert not verify(script).ok
    assert Result.from_json(final["result"]).winners == ()
