"""Rule tests for Castles Besieged, one per calculation and edge case of the spec.

The contract is ``/work/shared/spec/castles.md``; section numbers below refer to it. States are
built from ``GAME.setup`` with a stacked deal; :func:`position` then arranges rows, hands and the
pile exactly (every card not named goes to the discard pile, so the 52 cards stay accounted for).
"""

from __future__ import annotations

import doctest
import types
from collections.abc import Sequence
from typing import Any

import pytest

import engine.cards
import engine.castles
import engine.rules
from engine.cards import DECK52, RANKS
from engine.castles import GAME, needed_roll
from engine.rules import Result, RuleError, SetupError, State, dumps, loads, rng_for

SEED = 1234
Action = dict[str, Any]

DRAW: Action = {"type": "draw"}
PASS: Action = {"type": "pass"}


def lay(card: str) -> Action:
    return {"type": "lay", "card": card}


def attack(pos: int) -> Action:
    return {"type": "attack", "pos": pos}


def deal(stack: dict[str, Any] | None = None, *, dealer: int | None = 0, seed: int = SEED) -> State:
    return GAME.setup(2, {"dealer": dealer}, rng_for(seed, "setup"), stack or {})


def position(
    *,
    rows: Sequence[Sequence[str]] = ((), ()),
    hands: Sequence[Sequence[str]] = ((), ()),
    pile: Sequence[str] = (),
    dice: Sequence[int] = (),
    to_act: int = 0,
    hits: tuple[int, int] = (0, 0),
    quiet_turns: int = 0,
) -> State:
    """A mid-game state: exactly these rows, hands and pile (top first), stacked dice."""
    state = GAME.setup(2, {"dealer": 1 - to_act}, rng_for(SEED, "setup"), {"dice": list(dice)})
    named = [*rows[0], *rows[1], *hands[0], *hands[1], *pile]
    assert len(set(named)) == len(named), "a card is named twice in this test position"
    state["rows"] = [list(r) for r in rows]
    state["hands"] = [list(h) for h in hands]
    state["pile"] = list(pile)
    state["discard"] = [c for c in DECK52 if c not in set(named)]
    state["hits"] = list(hits)
    state["quiet_turns"] = quiet_turns
    assert GAME.to_act(state) == to_act
    return state


def play(state: State, seat: int, action: Action, ply: int = 0) -> State:
    """Apply an action that must be accepted; the input state must stay untouched."""
    before = dumps(state)
    new, _events = GAME.apply(state, seat, action, rng_for(SEED, ply))
    assert dumps(state) == before
    return new


def refusal(state: State, seat: int, action: Any) -> str:
    """Apply an action that must be refused; return the message. The state must not change."""
    before = dumps(state)
    with pytest.raises(RuleError) as info:
        GAME.apply(state, seat, action, rng_for(SEED, 0))
    assert dumps(state) == before
    message = str(info.value)
    assert message.strip(), "a refusal needs a message a player can read"
    return message


def last_attack(state: State) -> dict[str, Any]:
    attack_info = GAME.summary(state)["last_attack"]
    assert isinstance(attack_info, dict)
    return attack_info


def result_json(state: State) -> dict[str, Any] | None:
    result = GAME.result(state)
    return None if result is None else result.to_json()


def card_of(value: int, suit: str) -> str:
    return RANKS[value - 1] + suit


# -- 6. Needed rolls ---------------------------------------------------------------------------

# Section 6: difference <= 7 needs 7; then 8 -> 8, 9 -> 9, 10 -> 10, 11 -> 11, 12 -> 12.
SPEC_NEEDED = {8: 8, 9: 9, 10: 10, 11: 11, 12: 12}


@pytest.mark.parametrize("difference", range(-12, 13))
def test_needed_roll_for_every_difference(difference: int) -> None:
    attacker_value = 1 if difference >= 0 else 1 - difference
    target_value = attacker_value + difference
    attacker, target = card_of(attacker_value, "S"), card_of(target_value, "H")
    needed = SPEC_NEEDED.get(difference, 7)
    miss_dice = [max(1, needed - 7), needed - 1 - max(1, needed - 7)]
    hit_dice = [needed - 6, 6]
    state = position(rows=([attacker], [target]), dice=miss_dice, to_act=0)
    missed = play(state, 0, attack(0))
    assert last_attack(missed) == {
        "seat": 0,
        "pos": 0,
        "target": "card",
        "needed": needed,
        "dice": miss_dice,
        "hit": False,
    }
    assert missed["rows"] == [[attacker], [target]]

    state = position(rows=([attacker], [target]), dice=hit_dice, to_act=0)
    killed = play(state, 0, attack(0))
    assert last_attack(killed) == {
        "seat": 0,
        "pos": 0,
        "target": "card",
        "needed": needed,
        "dice": hit_dice,
        "hit": True,
    }
    assert killed["rows"] == [[attacker], []]
    assert killed["discard"][-1] == target


def test_needed_roll_table_over_all_pairs() -> None:
    for attacker in DECK52:
        for target in DECK52:
            difference = engine.cards.value(target) - engine.cards.value(attacker)
            assert needed_roll(attacker, target) == SPEC_NEEDED.get(difference, 7)
        assert needed_roll(attacker, None) == 7
    # 12 is only ever needed by an Ace against a King.
    twelve = {(a[0], t[0]) for a in DECK52 for t in DECK52 if needed_roll(a, t) == 12}
    assert twelve == {("A", "K")}


def test_seed_example_two_attacking_ten_needs_eight() -> None:
    state = position(rows=(["2H"], ["TS"]), dice=[4, 3], to_act=0)
    missed = play(state, 0, attack(0))
    assert last_attack(missed)["needed"] == 8
    assert last_attack(missed)["hit"] is False
    assert missed["rows"] == [["2H"], ["TS"]]


@pytest.mark.parametrize("dice", [(1, 1), (1, 5), (3, 3), (2, 4), (5, 1)])
def test_a_roll_of_six_or_less_never_hits(dice: tuple[int, int]) -> None:
    # A King against an Ace needs 7; so does an unblocked card against the player.
    state = position(rows=(["KS", "QS"], ["AH"]), dice=list(dice), to_act=0)
    after = play(state, 0, attack(0))
    assert last_attack(after)["hit"] is False
    assert last_attack(after)["needed"] == 7
    assert after["rows"] == [["KS", "QS"], ["AH"]]
    after = play(state, 0, attack(1))
    assert last_attack(after) == {
        "seat": 0,
        "pos": 1,
        "target": "player",
        "needed": 7,
        "dice": list(dice),
        "hit": False,
    }
    assert after["hits"] == [0, 0]


# -- 5./6. Targets: blocked and unblocked at the moment of the attack ------------------------


def test_unblocked_card_attacks_the_player() -> None:
    state = position(rows=(["KH"], ["5C", "9D"]), dice=[3, 4], to_act=1)
    after = play(state, 1, attack(1))
    assert after["hits"] == [1, 0]
    assert after["rows"] == [["KH"], ["5C", "9D"]]
    assert last_attack(after)["target"] == "player"
    assert GAME.to_act(after) == 0


def test_blocked_card_never_hits_the_player_and_unblocked_never_hits_a_card() -> None:
    # Equal rows: every card is blocked; a 12 kills the facing card and never scores a hit.
    state = position(rows=(["2S", "3S"], ["KH", "QH"]), dice=[6, 6], to_act=1)
    after = play(state, 1, attack(1))
    assert after["hits"] == [0, 0]
    assert after["rows"] == [["2S"], ["KH", "QH"]]
    assert last_attack(after)["target"] == "card"
    # An unblocked card rolling 12 hits the player; the card next to its lane is untouched.
    state = position(rows=(["2S"], ["KH", "QH"]), dice=[6, 6], to_act=1)
    after = play(state, 1, attack(1))
    assert after["hits"] == [1, 0]
    assert after["rows"] == [["2S"], ["KH", "QH"]]


def test_blocking_is_decided_at_the_moment_of_the_attack() -> None:
    state = position(
        rows=(["KH"], ["5C", "9D"]),
        hands=(["2S"], []),
        pile=["AS", "AH"],
        dice=[3, 4, 6, 6, 3, 4],
        to_act=1,
    )
    state = play(state, 1, attack(1), ply=0)  # 9D unblocked: hits seat 0
    assert state["hits"] == [1, 0]
    state = play(state, 0, lay("2S"), ply=1)  # 2S now faces 9D
    state = play(state, 1, attack(1), ply=2)  # 9D blocked: attacks 2S and kills it
    assert state["hits"] == [1, 0]
    assert state["rows"] == [["KH"], ["5C", "9D"]]
    assert state["discard"][-1] == "2S"
    state = play(state, 0, DRAW, ply=3)
    state = play(state, 1, attack(1), ply=4)  # the gap is open again: 9D hits the player
    assert state["hits"] == [2, 0]


def test_closing_the_gap_spec_example() -> None:
    # Section 6: rows [8H, KS, 2C] and [4C, QD, 9S]; QD is killed -> [4C, 9S];
    # now 9S faces KS and 2C is unblocked.
    state = position(
        rows=(["8H", "KS", "2C"], ["4C", "QD", "9S"]), dice=[3, 4, 6, 6, 3, 4], to_act=0
    )
    state = play(state, 0, attack(1), ply=0)
    assert state["rows"] == [["8H", "KS", "2C"], ["4C", "9S"]]
    assert state["discard"][-1] == "QD"
    assert GAME.summary(state)["discard"] == len(state["discard"])
    assert GAME.to_act(state) == 1  # a kill gives no extra turn

    state = play(state, 1, attack(1), ply=1)  # 9S now attacks KS: max(7, 13 - 9) = 7
    assert last_attack(state) == {
        "seat": 1,
        "pos": 1,
        "target": "card",
        "needed": 7,
        "dice": [6, 6],
        "hit": True,
    }
    assert state["rows"] == [["8H", "2C"], ["4C", "9S"]]
    assert state["discard"][-1] == "KS"
    # 2C moved down to position 1 and faces 9S: blocked again, needing max(7, 9 - 2) = 7.
    state = play(state, 0, attack(1), ply=2)
    assert last_attack(state)["target"] == "card"
    assert state["rows"] == [["8H", "2C"], ["4C"]]


def test_closing_the_gap_unblocks_the_longer_row() -> None:
    state = position(rows=(["8H", "KS", "2C"], ["4C", "QD", "9S"]), dice=[3, 4, 3, 4])
    state = play(state, 0, attack(1), ply=0)  # kills QD
    state = play(state, 1, attack(0), ply=1)  # 4C kills 8H: row 0 -> [KS, 2C]
    assert state["rows"] == [["KS", "2C"], ["4C", "9S"]]
    assert state["hits"] == [0, 0]
    state = play(position(rows=(["8H", "KS", "2C"], ["4C", "9S"]), dice=[3, 4]), 0, attack(2))
    assert last_attack(state)["target"] == "player"
    assert state["hits"] == [0, 1]


def test_kill_at_position_zero_moves_every_later_card_down() -> None:
    state = position(rows=(["KS"], ["QD", "4C", "9S"]), dice=[4, 4], to_act=0)
    state = play(state, 0, attack(0))
    assert state["rows"] == [["KS"], ["4C", "9S"]]
    assert state["discard"][-1] == "QD"


# -- 7. The 10th hit ---------------------------------------------------------------------------


def test_ninth_hit_does_not_end_the_game() -> None:
    state = position(rows=([], ["9D"]), hands=(["2S"], []), dice=[3, 4], to_act=1, hits=(8, 3))
    after = play(state, 1, attack(0))
    assert after["hits"] == [9, 3]
    assert GAME.result(after) is None
    assert GAME.to_act(after) == 0


def test_tenth_hit_ends_the_game_at_once() -> None:
    state = position(
        rows=(["AS"], ["2H", "9D"]),
        hands=(["KS"], ["3H"]),
        pile=["4D"],
        dice=[3, 4],
        to_act=1,
        hits=(9, 4),
    )
    after = play(state, 1, attack(1))
    assert result_json(after) == {"winners": [1], "reason": "castle_stormed", "scores": [10, 4]}
    assert GAME.to_act(after) is None
    assert GAME.legal_actions(after, 0) == []
    assert GAME.legal_actions(after, 1) == []
    assert GAME.summary(after)["hits"] == [10, 4]
    for seat, action in ((0, DRAW), (1, DRAW), (0, lay("KS")), (1, attack(0)), (0, PASS)):
        assert refusal(after, seat, action) == "The game is over."
    with pytest.raises(RuleError, match=r"^The game is over\.$"):
        GAME.resign(after, 0)


def test_hits_count_only_against_the_opposing_seat() -> None:
    state = position(rows=(["KS", "9C"], ["4H"]), dice=[6, 6], to_act=0, hits=(2, 5))
    after = play(state, 0, attack(1))
    assert after["hits"] == [2, 6]


# -- 5. Draw, empty pile, pass -----------------------------------------------------------------


def test_draw_takes_the_top_card_and_has_no_hand_limit() -> None:
    hand = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "TS"]
    state = position(hands=(hand, []), pile=["KD", "QC"], to_act=0)
    after = play(state, 0, DRAW)
    assert after["hands"][0] == [*hand, "KD"]
    assert after["pile"] == ["QC"]
    assert GAME.summary(after)["hand_sizes"] == [11, 0]


def test_draw_from_an_empty_pile_is_refused_and_not_legal() -> None:
    state = position(rows=(["KS"], ["2H"]), hands=(["3C"], ["4D"]), to_act=0)
    assert DRAW not in GAME.legal_actions(state, 0)
    assert refusal(state, 0, DRAW) == "The draw pile is empty."


def test_lay_goes_to_the_end_of_the_row() -> None:
    state = position(rows=(["KS", "2C"], ["2H"]), hands=(["3C", "JD"], []), pile=["4D"])
    after = play(state, 0, lay("JD"))
    assert after["rows"] == [["KS", "2C", "JD"], ["2H"]]
    assert after["hands"][0] == ["3C"]


@pytest.mark.parametrize(
    ("rows0", "hand0", "pile"),
    [(["KS"], [], []), ([], ["KS"], []), ([], [], ["KS"]), (["KS"], ["QS"], ["JS"])],
    ids=["row", "hand", "pile", "all"],
)
def test_pass_refused_while_anything_else_is_legal(
    rows0: list[str], hand0: list[str], pile: list[str]
) -> None:
    state = position(rows=(rows0, ["2H"]), hands=(hand0, ["5D"]), pile=pile, to_act=0)
    assert PASS not in GAME.legal_actions(state, 0)
    assert refusal(state, 0, PASS) == "You can still act; you may not pass."


def test_pass_is_legal_alone_when_hand_row_and_pile_are_empty() -> None:
    state = position(rows=([], ["5H"]), hands=([], ["9C"]), to_act=0)
    assert GAME.legal_actions(state, 0) == [PASS]
    after = play(state, 0, PASS)
    assert GAME.to_act(after) == 1
    assert GAME.result(after) is None
    assert after["quiet_turns"] == 1
    assert after["rows"] == state["rows"]
    assert after["hands"] == state["hands"]


def test_two_passes_in_a_row_are_a_stalemate() -> None:
    state = position(to_act=0, hits=(1, 2))
    state = play(state, 0, PASS, ply=0)
    assert GAME.result(state) is None
    assert GAME.legal_actions(state, 1) == [PASS]
    state = play(state, 1, PASS, ply=1)
    assert result_json(state) == {"winners": [0], "reason": "stalemate", "scores": [1, 2]}
    assert GAME.to_act(state) is None
    assert GAME.legal_actions(state, 0) == []


def test_two_passes_with_equal_hits_and_empty_rows_are_a_draw() -> None:
    state = play(play(position(to_act=1, hits=(3, 3)), 1, PASS, ply=0), 0, PASS, ply=1)
    assert result_json(state) == {"winners": [], "reason": "stalemate", "scores": [3, 3]}


def test_passes_separated_by_another_action_are_no_stalemate() -> None:
    state = position(rows=([], ["5H"]), dice=[1, 1], to_act=0)
    state = play(state, 0, PASS, ply=0)
    state = play(state, 1, attack(0), ply=1)  # a miss against the player
    state = play(state, 0, PASS, ply=2)
    assert GAME.result(state) is None
    assert state["quiet_turns"] == 3
    assert GAME.to_act(state) == 1


# -- 6. quiet_turns and the 30-turn stalemate --------------------------------------------------


def test_quiet_turns_stay_zero_while_the_pile_has_cards() -> None:
    state = position(
        rows=(["KS"], ["5H"]), hands=(["2C", "3C"], ["4D"]), pile=["7S", "8S"], dice=[1, 1]
    )
    state = play(state, 0, lay("2C"), ply=0)
    state = play(state, 1, attack(0), ply=1)  # 5H against KS: a miss
    state = play(state, 0, lay("3C"), ply=2)
    assert state["quiet_turns"] == 0
    assert GAME.summary(state)["quiet_turns"] == 0


def test_quiet_turns_count_exactly_as_the_spec_says() -> None:
    state = position(
        rows=(["KS"], ["5H"]),
        hands=(["4C"], ["6D", "7D"]),
        pile=["AS"],
        dice=[1, 1, 1, 1, 6, 6, 1, 1, 3, 4],
        to_act=0,
    )
    steps: list[tuple[int, Action, int]] = [
        (0, DRAW, 0),  # takes the last card: does not count
        (1, lay("6D"), 1),  # lay: +1 (6D unblocked)
        (0, attack(0), 2),  # KS misses 5H: +1
        (1, attack(1), 3),  # 6D misses the player: +1
        (0, lay("4C"), 4),  # lay: +1 (4C now faces 6D)
        (1, attack(1), 0),  # 6D kills 4C: reset
        (0, lay("AS"), 1),  # lay: +1
        (1, lay("7D"), 2),  # lay: +1 (7D unblocked)
        (0, attack(0), 3),  # miss: +1
        (1, attack(2), 0),  # 7D hits the player: reset
    ]
    for ply, (seat, action, quiet) in enumerate(steps):
        state = play(state, seat, action, ply=ply)
        assert state["quiet_turns"] == quiet, (ply, action)
        assert GAME.summary(state)["quiet_turns"] == quiet
    assert state["hits"] == [1, 0]
    assert state["discard"][-1] == "4C"


def test_thirty_quiet_turns_end_in_a_stalemate() -> None:
    # Fifteen lays each with an empty pile; both rows end up worth 94, no hits: a draw.
    hand0 = [*[r + "S" for r in RANKS], "AH", "2H"]
    hand1 = [*[r + "D" for r in RANKS], "AC", "2C"]
    state = position(hands=(hand0, hand1), to_act=0)
    for ply in range(30):
        seat = ply % 2
        assert GAME.result(state) is None
        card = sorted(state["hands"][seat], key=engine.cards.sort_key)[0]
        state = play(state, seat, lay(card), ply=ply)
        assert state["quiet_turns"] == ply + 1
    assert result_json(state) == {"winners": [], "reason": "stalemate", "scores": [0, 0]}
    assert GAME.to_act(state) is None
    assert GAME.legal_actions(state, 0) == []


def test_twenty_ninth_quiet_turn_does_not_end_and_a_kill_resets() -> None:
    state = position(rows=(["KS"], ["5H"]), hands=(["2C"], ["3D"]), dice=[6, 6], quiet_turns=28)
    after = play(state, 0, lay("2C"))
    assert after["quiet_turns"] == 29
    assert GAME.result(after) is None
    state = position(rows=(["KS"], ["5H"]), hands=([], ["3D"]), dice=[6, 6], quiet_turns=29)
    after = play(state, 0, attack(0))
    assert after["quiet_turns"] == 0
    assert GAME.result(after) is None


@pytest.mark.parametrize(
    ("hits", "rows", "hand1", "winners"),
    [
        ((3, 1), (["KS", "QS"], ["2H"]), [], [1]),  # fewer hits wins over a stronger row
        ((1, 3), (["2S"], ["KH", "QH"]), [], [0]),
        ((2, 2), (["KS"], ["5H", "6H"]), ["KH", "QH"], [0]),  # 13 > 11; hands do not count
        ((0, 0), (["4S"], ["4H", "9H"]), [], [1]),  # 4 < 13
        ((2, 2), (["5S"], ["2H", "3H"]), ["KH"], []),  # 5 = 5: a draw
    ],
)
def test_stalemate_tie_breaks(
    hits: tuple[int, int], rows: tuple[list[str], list[str]], hand1: list[str], winners: list[int]
) -> None:
    state = position(rows=rows, hands=([], hand1), dice=[1, 1], hits=hits, quiet_turns=29)
    after = play(state, 0, attack(0))  # a miss: the 30th quiet turn
    assert result_json(after) == {"winners": winners, "reason": "stalemate", "scores": list(hits)}


# -- 5. Refusals -------------------------------------------------------------------------------


def refusal_position() -> State:
    return position(
        rows=(["KS"], ["7C"]), hands=(["3C", "8D"], ["2S", "9H"]), pile=["AS", "AH"], to_act=0
    )


@pytest.mark.parametrize(
    ("seat", "action", "message"),
    [
        (1, DRAW, "It is not your turn."),
        (1, lay("2S"), "It is not your turn."),
        (1, attack(0), "It is not your turn."),
        (1, PASS, "It is not your turn."),
        (0, lay("2S"), "You do not hold that card."),  # in the other hand
        (0, lay("KS"), "You do not hold that card."),  # in the own row
        (0, lay("7C"), "You do not hold that card."),  # in the other row
        (0, lay("AS"), "You do not hold that card."),  # in the pile
        (0, lay("QD"), "You do not hold that card."),  # in the discard pile
        (0, lay("ZZ"), "You do not hold that card."),  # unknown code
        (0, lay("3c"), "You do not hold that card."),
        (0, lay("10S"), "You do not hold that card."),
        (0, lay("XB"), "You do not hold that card."),
        (0, attack(1), "You have no card at that position."),
        (0, attack(-1), "You have no card at that position."),
        (0, attack(52), "You have no card at that position."),
        (0, PASS, "You can still act; you may not pass."),
    ],
)
def test_refusals_with_their_messages(seat: int, action: Action, message: str) -> None:
    state = refusal_position()
    assert refusal(state, seat, action) == message
    assert GAME.to_act(state) == 0


@pytest.mark.parametrize(
    "action",
    [
        {"type": "fly"},
        {"type": "DRAW"},
        {"type": 3},
        {"type": None},
        {},
        {"card": "3C"},
        {"type": "attack"},
        {"type": "attack", "pos": "0"},
        {"type": "attack", "pos": 0.0},
        {"type": "attack", "pos": True},
        {"type": "attack", "pos": None},
        {"type": "attack", "pos": [0]},
        {"type": "lay"},
        {"type": "lay", "card": 3},
        {"type": "lay", "card": None},
        {"type": "lay", "card": ["3C"]},
        "draw",
        None,
        ["draw"],
    ],
)
def test_unknown_types_and_bad_fields_are_refused(action: Any) -> None:
    state = refusal_position()
    refusal(state, 0, action)
    assert GAME.legal_actions(state, 0)[0] == DRAW


def test_attack_with_an_empty_row_is_refused() -> None:
    state = position(hands=(["3C"], []), pile=["AS"], to_act=0)
    assert refusal(state, 0, attack(0)) == "You have no card at that position."


def test_refusal_does_not_consume_stacked_dice() -> None:
    state = position(rows=(["KS"], ["7C"]), hands=(["3C"], []), dice=[6, 6], to_act=0)
    refusal(state, 0, attack(3))
    after = play(state, 0, attack(0))
    assert last_attack(after)["dice"] == [6, 6]


def test_rule_error_is_a_value_error() -> None:
    assert issubclass(RuleError, ValueError)
    assert issubclass(SetupError, ValueError)


# -- 5. The legal list -------------------------------------------------------------------------


def test_legal_list_order() -> None:
    state = position(
        rows=(["5H", "6H", "7H"], ["8S"]),
        hands=(["KC", "2H", "2S", "TD", "AS", "2C", "2D", "KS"], ["9C"]),
        pile=["4D"],
        to_act=0,
    )
    assert GAME.legal_actions(state, 0) == [
        DRAW,
        lay("AS"),
        lay("2S"),
        lay("2H"),
        lay("2D"),
        lay("2C"),
        lay("TD"),
        lay("KS"),
        lay("KC"),
        attack(0),
        attack(1),
        attack(2),
    ]
    assert GAME.legal_actions(state, 1) == []


def test_legal_list_without_pile_or_hand() -> None:
    state = position(rows=(["5H", "6H"], []), hands=([], ["9C"]), to_act=0)
    assert GAME.legal_actions(state, 0) == [attack(0), attack(1)]
    state = position(rows=([], []), hands=(["9C"], []), to_act=0)
    assert GAME.legal_actions(state, 0) == [lay("9C")]


def test_every_legal_action_is_accepted() -> None:
    state = position(
        rows=(["5H", "6H", "7H"], ["8S"]),
        hands=(["KC", "2H", "AS"], ["9C"]),
        pile=["4D"],
        dice=[1, 1],
        to_act=0,
    )
    for action in GAME.legal_actions(state, 0):
        after = play(state, 0, action)
        assert GAME.to_act(after) == 1


# -- Resign ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("resigner", "to_act"), [(0, 0), (0, 1), (1, 0), (1, 1)])
def test_resign(resigner: int, to_act: int) -> None:
    state = position(rows=(["KS"], ["7C"]), hands=(["3C"], ["2S"]), to_act=to_act, hits=(4, 2))
    before = dumps(state)
    after, events = GAME.resign(state, resigner)
    assert dumps(state) == before
    assert events
    assert result_json(after) == {"winners": [1 - resigner], "reason": "resigned", "scores": [4, 2]}
    assert GAME.to_act(after) is None
    assert GAME.legal_actions(after, 0) == GAME.legal_actions(after, 1) == []
    assert refusal(after, to_act, lay("3C" if to_act == 0 else "2S")) == "The game is over."
    with pytest.raises(RuleError, match=r"^The game is over\.$"):
        GAME.resign(after, 1 - resigner)


# -- 4. Setup ----------------------------------------------------------------------------------


@pytest.mark.parametrize("dealer", [0, 1])
def test_dealer_from_option(dealer: int) -> None:
    state = deal(dealer=dealer)
    assert GAME.summary(state)["dealer"] == dealer
    assert GAME.to_act(state) == 1 - dealer


@pytest.mark.parametrize("dealer", [0, 1])
def test_dealer_from_stack_when_option_is_null(dealer: int) -> None:
    state = deal({"dealer": dealer}, dealer=None)
    assert state["dealer"] == dealer
    assert GAME.to_act(state) == 1 - dealer
    assert deal({"dealer": dealer}, dealer=dealer)["dealer"] == dealer


def test_random_dealer_follows_the_seed() -> None:
    dealers = {seed: deal(dealer=None, seed=seed)["dealer"] for seed in range(40)}
    assert set(dealers.values()) == {0, 1}
    for seed, dealer in dealers.items():
        again = GAME.setup(2, {}, rng_for(seed, "setup"))
        assert again["dealer"] == dealer
        assert GAME.to_act(again) == 1 - dealer


def test_opening_state() -> None:
    state = deal()
    assert [len(h) for h in state["hands"]] == [7, 7]
    assert len(state["pile"]) == 38
    assert sorted([*state["hands"][0], *state["hands"][1], *state["pile"]]) == sorted(DECK52)
    assert GAME.summary(state) == {
        "dealer": 0,
        "hits": [0, 0],
        "rows": [[], []],
        "hand_sizes": [7, 7],
        "pile": 38,
        "discard": 0,
        "quiet_turns": 0,
        "last_attack": None,
    }
    assert GAME.result(state) is None
    assert loads(dumps(state), GAME) == state


def test_same_seed_same_deal_and_different_seed_differs() -> None:
    assert dumps(deal(seed=5)) == dumps(deal(seed=5))
    assert deal(seed=5)["pile"] != deal(seed=6)["pile"]


def test_stacked_hands_and_pile_are_placed() -> None:
    hands = [["2H", "5C", "9S", "JD", "3S", "8H", "KC"], ["TS", "4D"]]
    state = deal({"hands": hands, "pile": ["3D", "8C"]})
    assert state["hands"][0] == hands[0]
    assert state["hands"][1][:2] == ["TS", "4D"]
    assert len(state["hands"][1]) == 7
    assert state["pile"][:2] == ["3D", "8C"]
    assert len(state["pile"]) == 38


def test_hands_completed_from_the_shuffle_seat_0_first() -> None:
    """Section 4 step 3. With the same named cards and seed, the unnamed cards are shuffled
    the same way; reference P shows that order as its pile. Moving named cards from the hands
    to the pile then shows which seat's gaps are filled first."""
    hand0 = ["2H", "5C", "9S", "JD", "3S", "8H", "KC"]
    hand1 = ["TS", "4D", "6H", "QS", "7C", "AD", "9H"]
    reference = deal({"hands": [hand0, hand1]})["pile"]
    assert len(reference) == 38

    moved = [hand0[5], hand0[6], hand1[5], hand1[6]]
    state = deal({"hands": [hand0[:5], hand1[:5]], "pile": moved})
    assert set(state["hands"][0]) == {*hand0[:5], *reference[0:2]}
    assert set(state["hands"][1]) == {*hand1[:5], *reference[2:4]}
    assert state["pile"] == moved + reference[4:]

    moved = [*hand0[1:], hand1[6]]
    state = deal({"hands": [hand0[:1], hand1[:6]], "pile": moved})
    assert set(state["hands"][0]) == {hand0[0], *reference[0:6]}
    assert set(state["hands"][1]) == {*hand1[:6], reference[6]}
    assert state["pile"] == moved + reference[7:]


def test_stacked_dice_are_used_first_then_the_seed() -> None:
    state = position(rows=(["KS"], ["AH"]), dice=[2, 3, 4], to_act=0)
    state = play(state, 0, attack(0), ply=0)
    assert last_attack(state)["dice"] == [2, 3]
    state = play(state, 1, attack(0), ply=1)
    first, second = last_attack(state)["dice"]
    assert first == 4
    assert 1 <= second <= 6
    again = play(
        play(position(rows=(["KS"], ["AH"]), dice=[2, 3, 4]), 0, attack(0)), 1, attack(0), 1
    )
    assert last_attack(again)["dice"] == [4, second]


HAND7 = ["AS", "2S", "3S", "4S", "5S", "6S", "7S"]


@pytest.mark.parametrize(
    ("seats", "options", "stack"),
    [
        # seats is not 2
        (1, {}, {}),
        (3, {}, {}),
        (0, {}, {}),
        ("2", {}, {}),
        (True, {}, {}),
        (None, {}, {}),
        # an option other than dealer, or a bad dealer
        (2, {"foo": 1}, {}),
        (2, {"dealer": 0, "seats": 2}, {}),
        (2, {"dealer": 2}, {}),
        (2, {"dealer": -1}, {}),
        (2, {"dealer": "0"}, {}),
        (2, {"dealer": True}, {}),
        (2, {"dealer": 0.0}, {}),
        # an unknown stack key
        (2, {}, {"deck": []}),
        (2, {}, {"dealer": 0, "first": 1}),
        # a card not in the deck
        (2, {}, {"hands": [["ZZ"], []]}),
        (2, {}, {"hands": [[], ["XB"]]}),
        (2, {}, {"pile": ["10S"]}),
        (2, {}, {"pile": ["as"]}),
        (2, {}, {"pile": [7]}),
        (2, {}, {"pile": [None]}),
        # a card named twice anywhere in the stack
        (2, {}, {"hands": [["AS", "AS"], []]}),
        (2, {}, {"hands": [["AS"], ["AS"]]}),
        (2, {}, {"hands": [["AS"], []], "pile": ["AS"]}),
        (2, {}, {"pile": ["KD", "2C", "KD"]}),
        # hands not a list of exactly 2 lists, or a hand of more than 7
        (2, {}, {"hands": [["AS"]]}),
        (2, {}, {"hands": [[], [], []]}),
        (2, {}, {"hands": []}),
        (2, {}, {"hands": "AS"}),
        (2, {}, {"hands": {"0": ["AS"], "1": []}}),
        (2, {}, {"hands": [["AS"], "KS"]}),
        (2, {}, {"hands": [None, []]}),
        (2, {}, {"hands": None}),
        (2, {}, {"hands": [[*HAND7, "8S"], []]}),
        (2, {}, {"hands": [[], [*HAND7, "8S"]]}),
        # pile more than 38
        (2, {}, {"pile": [c for c in DECK52 if c[1] != "S"][:39]}),
        (2, {}, {"pile": "AS"}),
        (2, {}, {"pile": None}),
        # a die not an integer 1-6
        (2, {}, {"dice": [7]}),
        (2, {}, {"dice": [3, 0]}),
        (2, {}, {"dice": [3.0]}),
        (2, {}, {"dice": ["3"]}),
        (2, {}, {"dice": [True]}),
        (2, {}, {"dice": 3}),
        (2, {}, {"dice": None}),
        (2, {}, {"dice": [None]}),
        # stack dealer not 0 or 1, or contradicting the option
        (2, {}, {"dealer": 2}),
        (2, {}, {"dealer": "1"}),
        (2, {}, {"dealer": True}),
        (2, {}, {"dealer": 1.0}),
        (2, {}, {"dealer": None}),
        (2, {"dealer": 0}, {"dealer": None}),
        (2, {"dealer": 0}, {"dealer": 1}),
        (2, {"dealer": 1}, {"dealer": 0}),
    ],
)
def test_malformed_setup_raises_setup_error(seats: Any, options: Any, stack: Any) -> None:
    with pytest.raises(SetupError) as info:
        GAME.setup(seats, options, rng_for(SEED, "setup"), stack)
    assert str(info.value).strip()


def test_largest_legal_stack_is_accepted() -> None:
    pile = [c for c in DECK52 if c not in HAND7][:38]
    rest = [c for c in DECK52 if c not in HAND7 and c not in pile]
    state = deal({"hands": [HAND7, rest], "pile": pile, "dice": [1, 6], "dealer": 0})
    assert state["hands"] == [HAND7, rest]
    assert state["pile"] == pile


# -- Rematch -----------------------------------------------------------------------------------


@pytest.mark.parametrize("winner", [0, 1])
def test_rematch_winner_deals(winner: int) -> None:
    result = Result((winner,), "castle_stormed", (10, 3))
    options = GAME.rematch_options({"dealer": None}, result)
    assert options == {"dealer": winner}
    assert GAME.to_act(GAME.setup(2, options, rng_for(SEED, "setup"))) == 1 - winner


def test_rematch_after_a_draw_is_random() -> None:
    options = GAME.rematch_options({"dealer": 1}, Result((), "stalemate", (2, 2)))
    assert options == {"dealer": None}
    assert engine.rules.resolve_options(GAME, options) == {"dealer": None}


# -- 8./9. Summary, view and state round trip --------------------------------------------------


def test_last_attack_keeps_its_value_through_draws_lays_and_passes() -> None:
    state = position(rows=(["KS"], ["5H"]), hands=(["2C"], []), pile=["3C"], dice=[1, 2])
    state = play(state, 0, attack(0), ply=0)
    expected = {"seat": 0, "pos": 0, "target": "card", "needed": 7, "dice": [1, 2], "hit": False}
    assert last_attack(state) == expected
    state = play(state, 1, DRAW, ply=1)
    state = play(state, 0, lay("2C"), ply=2)
    state = play(state, 1, lay("3C"), ply=3)
    assert last_attack(state) == expected


def test_private_view_shows_only_the_own_hand_sorted() -> None:
    state = position(
        rows=(["KS"], ["5H"]), hands=(["TD", "2C", "2S"], ["QH", "AC"]), pile=["3C", "9D"]
    )
    mine = GAME.view(state, 0)
    assert mine["hand"] == ["2S", "2C", "TD"]
    assert GAME.view(state, 1)["hand"] == ["AC", "QH"]
    for seat, hidden in ((0, ["QH", "AC", "3C", "9D"]), (1, ["TD", "2C", "2S", "3C", "9D"])):
        text = dumps(GAME.view(state, seat))
        assert not [c for c in hidden if f'"{c}"' in text]
    spectator = dumps(GAME.view(state, None))
    assert not [c for c in ["TD", "2C", "2S", "QH", "AC", "3C", "9D"] if f'"{c}"' in spectator]
    assert '"KS"' in spectator
    assert '"5H"' in spectator


def test_state_version_is_checked_on_load() -> None:
    state = deal()
    state["version"] = GAME.state_version + 1
    with pytest.raises(ValueError, match="version"):
        loads(dumps(state), GAME)


# -- Doctests ----------------------------------------------------------------------------------


@pytest.mark.parametrize("module", [engine.cards, engine.castles, engine.rules])
def test_doctests(module: types.ModuleType) -> None:
    outcome = doctest.testmod(module, verbose=False)
    assert outcome.attempted > 0
    assert outcome.failed == 0
