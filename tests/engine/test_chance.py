"""Chance by purpose (engine/chance.py): one seed deals the same dice and cards whatever the
player chose (issue 23), games dealt before keep their per-ply generator, and the commitment."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine import chance, get_game
from engine.kurth import GAME as KURTH
from engine.rules import rng_for
from engine.script import run_script

ATTACK_AT_ARMORY = [{"type": "move", "to": "armory"}, {"type": "attack"}]
WARD_FIRST = [{"type": "cast", "spell": "ward_of_stone", "location": "citadel"}, *ATTACK_AT_ARMORY]


def dice_of(actions: list[dict[str, Any]], scheme: int | None = None) -> list[list[int]]:
    script: dict[str, Any] = {"game": "kurth", "seats": 1, "options": {}, "seed": 1}
    script["actions"] = [{"seat": 0, "action": a} for a in actions]
    if scheme is not None:
        script["chance"] = {"scheme": scheme}
    out = run_script(script)
    assert all(step["ok"] for step in out["steps"])
    return [e["dice"] for s in out["steps"] for e in s["events"] if e["type"] == "attack_rolled"]


def test_a_spell_cast_first_no_longer_changes_the_dice() -> None:
    """The issue's example: under the old scheme a Ward of Stone changed the attack's dice."""
    assert dice_of(ATTACK_AT_ARMORY, chance.BY_PLY) == [[6, 4]]
    assert dice_of(WARD_FIRST, chance.BY_PLY) == [[1, 3]]
    assert dice_of(ATTACK_AT_ARMORY) == dice_of(WARD_FIRST) == dice_of(WARD_FIRST, 2)


def kurth_game(seed: int, policy: random.Random, scheme: int) -> tuple[list[int], dict[int, Any]]:
    """Every die rolled, in order, and every turn's three cards, of one random game."""
    state = chance.deal(KURTH, 1, {"difficulty": "advanced"}, seed, scheme=scheme)
    dice: list[int] = []
    cards: dict[int, Any] = {1: state["cards"]}
    ply = 0
    while state["to_act"] is not None:
        action = policy.choice(KURTH.legal_actions(state, 0))
        state, events = chance.advance(KURTH, state, 0, action, seed, ply)
        ply += 1
        for event in events:
            if event["type"] == "attack_rolled":
                dice += event["dice"]
            elif event["type"] == "attack_rerolled":
                dice.append(event["dice"][event["die"]])
            elif event["type"] == "upkeep_done":
                cards[event["turn"]] = event["cards"]
    return dice, cards


def compare(scheme: int, seeds: range) -> tuple[int, int, int, int]:
    """Dice and turns compared between two policies on each seed: (same dice, dice compared,
    same turns, turns compared)."""
    same_dice = dice = same_turns = turns = 0
    for seed in seeds:
        a_dice, a_cards = kurth_game(seed, random.Random(f"a{seed}"), scheme)
        b_dice, b_cards = kurth_game(seed, random.Random(f"b{seed}"), scheme)
        for x, y in zip(a_dice, b_dice, strict=False):
            dice += 1
            same_dice += x == y
        for turn in set(a_cards) & set(b_cards):
            turns += 1
            same_turns += a_cards[turn] == b_cards[turn]
    return same_dice, dice, same_turns, turns


def test_two_policies_on_one_daily_seed_get_every_die_and_card_alike() -> None:
    same_dice, dice, same_turns, turns = compare(chance.BY_PURPOSE, range(40))
    assert dice > 200 and turns > 300
    assert (same_dice, same_turns) == (dice, turns)


def test_the_old_scheme_let_the_policy_move_the_dice() -> None:
    """The defect the new scheme fixes, measured on the scheme old games keep."""
    same_dice, dice, same_turns, turns = compare(chance.BY_PLY, range(40))
    assert same_dice < dice * 0.5 and same_turns < turns


@pytest.mark.parametrize("key", ["castles", "king", "towers", "kurth", "knights"])
def test_every_game_deals_by_purpose_and_counts_in_the_state(key: str) -> None:
    game = get_game(key)
    chooser = random.Random(key)
    seats = game.min_seats
    state = chance.deal(game, seats, {}, 5)
    assert state[chance.KEY] == {"scheme": chance.BY_PURPOSE, "drawn": {}}
    for ply in range(40):
        seat = game.to_act(state)
        if seat is None:
            break
        before = json.dumps(state, sort_keys=True)
        state, _ = chance.advance(
            game, state, seat, chooser.choice(game.legal_actions(state, seat)), 5, ply
        )
        assert json.dumps(state, sort_keys=True) != before
        assert chance.scheme_of(state) == chance.BY_PURPOSE
    assert game.view(state, None).get(chance.KEY) is None


def test_an_old_state_keeps_the_per_ply_generator() -> None:
    old = chance.deal(KURTH, 1, {}, 3, scheme=chance.BY_PLY)
    assert chance.scheme_of(old) == chance.BY_PLY and chance.KEY not in old
    action = {"type": "move", "to": "armory"}
    expected, _ = KURTH.apply(old, 0, action, rng_for(3, 0))
    after, _ = chance.advance(KURTH, old, 0, {"type": "move", "to": "armory"}, 3, 0)
    assert after == expected
    assert chance.KEY not in after


def test_a_draw_without_a_purpose_is_refused() -> None:
    with pytest.raises(chance.ChanceError):
        chance.Chance(1, {}).random()


def test_the_commitment_binds_seed_and_salt() -> None:
    digest = chance.commitment(42, "ab" * 16)
    assert len(digest) == 64 and digest == chance.commitment(42, "ab" * 16)
    assert digest != chance.commitment(43, "ab" * 16)
    assert digest != chance.commitment(42, "cd" * 16)


def test_tower_poker_deals_each_hand_by_its_number_not_by_what_was_played() -> None:
    """The shuffle before hand n+1 is the stream ``shuffle:hand-<n+1>`` of the gathered cards,
    sorted: whatever order they were gathered in, and however many shuffles came before it
    (a spire that ran out mid-hand), the next hand is dealt alike."""
    from engine import towers

    state = chance.deal(towers.GAME, 3, {}, 11)
    gathered = state["spire"] + state["dungeon"] + state["face_up"]
    gathered += [c for hand in state["hands"] for c in hand]

    def next_hand(order: list[str], rng: random.Random) -> tuple[list[str], list[list[str]]]:
        s = towers.copy_state(state)
        s["spire"], s["dungeon"], s["face_up"] = list(order), [], []
        s["hands"] = [[] for _ in s["hands"]]
        towers._end_hand(s, rng, [])
        return s["spire"], s["hands"]

    once = next_hand(sorted(gathered), chance.Chance(11, {}))
    again = next_hand(sorted(gathered, reverse=True), chance.Chance(11, {"shuffle": 3, "die": 2}))
    assert once == again
    # A per-ply generator (games dealt before) shuffles the cards in the order gathered.
    assert next_hand(sorted(gathered), random.Random(1)) != next_hand(
        sorted(gathered, reverse=True), random.Random(1)
    )
