"""The strength benchmark's head-to-head finishing score for tower poker
(``benchmarks/computer_strength.py``): pairwise, by final chips, beside the win share."""

from __future__ import annotations

from benchmarks.computer_strength import Match, head_to_head, play


def test_head_to_head_scores_each_other_seat_by_final_chips() -> None:
    assert head_to_head([120, 90, 120, 70], 0) == (0.5 + 1 + 1) / 3
    assert head_to_head([120, 90, 130, 70], 0) == 2 / 3  # second of four beats two
    assert head_to_head([60, 90, 130, 120], 0) == 0.0
    assert head_to_head([100, 100], 1) == 0.5


def test_a_sole_winner_scores_one_head_to_head_and_a_loser_less() -> None:
    seen = set()
    for seed in range(6):
        match = Match("towers", ("random",) * 4, seed % 4, seed, (("tower_height", 3),))
        outcome = play(match)
        if outcome.score == 1.0:
            assert outcome.pairwise == 1.0
        if outcome.score == 0.0:
            assert outcome.pairwise < 1.0
        assert outcome.pairwise * 3 in (0, 0.5, 1, 1.5, 2, 2.5, 3)
        seen.add(outcome.score)
    assert 0.0 in seen
