"""Tournament pairings and standings (engine/tournament), against published examples and as
properties.

Sources:
- Berger tables: FIDE Handbook C.05 Annex 1, as printed by Chris Fox
  (http://c.w.fox.tripod.com/chess/berger.html) and chesspairings.org's guide.
- Swiss: FIDE (Dutch) System C.04.3 (https://spp.fide.com/c-04-3-fide-dutch-system/ and
  https://handbook.fide.com/chapter/C0403): round 1 pairs the top half against the bottom half,
  the higher-ranked player of board 1 gets the drawn colour and the boards alternate (E.5);
  later rounds pair within score groups, a downfloater meets the next group, the colour goes
  to the player with the stronger preference, and at equal strength to the higher-ranked.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tournament import Entrant, Match, crosstable, plan, robin, standings, swiss, tables
from engine.tournament.swiss import MAX_SEAT_DIFFERENCE, histories


def field(n: int) -> list[Entrant]:
    """``n`` entrants numbered 1..n, strongest first."""
    return [Entrant(i, 2000 - 10 * i) for i in range(1, n + 1)]


def won(match: Match, winner: int | None) -> Match:
    """``match`` decided: ``winner`` takes the point (None: a draw)."""
    if winner is None:
        return Match(match.round, match.players, (0.5, 0.5))
    return Match(match.round, match.players, tuple(float(p == winner) for p in match.players))


# -- round robin: the Berger tables as FIDE prints them -----------------------------------------

BERGER_6 = """1-6 2-5 3-4 / 6-4 5-3 1-2 / 2-6 3-1 4-5 / 6-5 1-4 2-3 / 3-6 4-2 5-1"""
BERGER_8 = (
    "1-8 2-7 3-6 4-5 / 8-5 6-4 7-3 1-2 / 2-8 3-1 4-7 5-6 / 8-6 7-5 1-4 2-3 / "
    "3-8 4-2 5-1 6-7 / 8-7 1-6 2-5 3-4 / 4-8 5-3 6-2 7-1"
)
BERGER_10 = (
    "1-10 2-9 3-8 4-7 5-6 / 10-6 7-5 8-4 9-3 1-2 / 2-10 3-1 4-9 5-8 6-7 / "
    "10-7 8-6 9-5 1-4 2-3 / 3-10 4-2 5-1 6-9 7-8 / 10-8 9-7 1-6 2-5 3-4 / "
    "4-10 5-3 6-2 7-1 8-9 / 10-9 1-8 2-7 3-6 4-5 / 5-10 6-4 7-3 8-2 9-1"
)


def parse(table: str) -> list[set[tuple[int, int]]]:
    return [
        {(int(a), int(b)) for a, b in (pair.split("-") for pair in rnd.split())}
        for rnd in table.split("/")
    ]


def test_berger_tables_match_fides() -> None:
    for n, printed in ((6, BERGER_6), (8, BERGER_8), (10, BERGER_10)):
        assert [set(r) for r in robin.berger(n)] == parse(printed)
    assert robin.berger(4) == [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]


def test_an_odd_round_robin_gives_whoever_meets_the_dummy_a_bye() -> None:
    # "If there is an odd number of players, the highest number counts as a bye."
    entrants = field(5)
    first = robin.pair(entrants, 1)
    assert first[-1] == Match(1, (1,))  # 1-6 in the table of six: 1 sits out
    assert {m.players for m in first[:-1]} == {(2, 5), (3, 4)}


def test_a_double_round_robin_meets_every_pair_twice_with_seats_swapped() -> None:
    entrants = field(4)
    rounds = robin.rounds_of(4, double=True)
    assert rounds == 6
    games = [m.players for r in range(1, rounds + 1) for m in robin.pair(entrants, r, True)]
    assert sorted(games) == sorted(
        [p for a, b in itertools.combinations(range(1, 5), 2) for p in ((a, b), (b, a))]
    )


# -- Swiss: worked examples by the Dutch rules --------------------------------------------------


def test_round_one_pairs_the_top_half_against_the_bottom_half_alternating_seats() -> None:
    # C.04.3: S1 = 1..5 meets S2 = 6..10; board 1's top player has the drawn first seat, and the
    # seats alternate by board: 1-6, 7-2, 3-8, 9-4, 5-10.
    made = swiss.pair(field(10), [], 1)
    assert [m.players for m in made] == [(1, 6), (7, 2), (3, 8), (9, 4), (5, 10)]


def test_round_one_of_an_odd_field_gives_the_last_player_the_bye() -> None:
    made = swiss.pair(field(7), [], 1)
    assert [m.players for m in made] == [(1, 4), (5, 2), (3, 6), (7,)]


def test_round_two_pairs_score_groups_and_floats_down() -> None:
    # Round 1 (six players): 1-4, 5-2, 3-6, the first seats all win. The 1-point group is
    # {1, 3, 5}: S1 = {1}, S2 = {3, 5}, so 1 meets 3; both had the first seat, at equal
    # strength the higher-ranked 1 gets its wish: 3-1. 5 floats down to the 0-point group,
    # whose top player 2 it has met, so it meets 4 (who wants the first seat: 4-5), and 2-6
    # remain (both had the second seat: the higher-ranked 2 takes the first).
    first = swiss.pair(field(6), [], 1)
    assert [m.players for m in first] == [(1, 4), (5, 2), (3, 6)]
    played = [won(m, m.players[0]) for m in first]
    second = swiss.pair(field(6), played, 2)
    assert [m.players for m in second] == [(3, 1), (4, 5), (2, 6)]


def test_the_bye_goes_to_the_lowest_ranked_player_without_one() -> None:
    entrants = field(5)
    r1 = [
        won(m, m.players[0]) if not m.is_bye else Match(1, m.players, (1.0,))
        for m in swiss.pair(entrants, [], 1)
    ]
    assert r1[-1].players == (5,)
    r2 = swiss.pair(entrants, r1, 2)
    bye = [m for m in r2 if m.is_bye]
    assert len(bye) == 1 and bye[0].players != (5,)


# -- standings: tie-breaks ------------------------------------------------------------------------


def test_buchholz_then_sonneborn_berger_then_direct_encounter() -> None:
    # Four players, a complete round robin, with 1 and 2 level on points, Buchholz and
    # Sonneborn-Berger: their own game separates them.
    e = field(4)
    games = [
        Match(1, (1, 2), (1.0, 0.0)),
        Match(1, (3, 4), (0.5, 0.5)),
        Match(2, (1, 3), (0.0, 1.0)),
        Match(2, (2, 4), (1.0, 0.0)),
        Match(3, (1, 4), (0.5, 0.5)),
        Match(3, (2, 3), (0.5, 0.5)),
    ]
    lines = standings(e, games)
    by = {line.player: line for line in lines}
    assert [by[p].points for p in (1, 2, 3, 4)] == [1.5, 1.5, 2.0, 1.0]
    # Buchholz: 1 met 2 (1.5), 3 (2), 4 (1) = 4.5; 2 met 1 (1.5), 4 (1), 3 (2) = 4.5.
    assert by[1].buchholz == by[2].buchholz == 4.5
    # Sonneborn-Berger: 1 beat 2 (1.5) and drew 4 (0.5) = 2.0; 2 beat 4 (1), drew 3 (1) = 2.0.
    assert by[1].sonneborn_berger == by[2].sonneborn_berger == 2.0
    # Level on all three: their own game decides (1 beat 2).
    assert by[1].direct == 1.0 and by[2].direct == 0.0
    assert [line.player for line in lines] == [3, 1, 2, 4]
    assert [line.rank for line in lines] == [1, 2, 3, 4]


def test_a_bye_counts_the_players_own_points_in_buchholz() -> None:
    e = field(3)
    games = [Match(1, (1, 2), (1.0, 0.0)), Match(1, (3,), (1.0,))]
    by = {line.player: line for line in standings(e, games)}
    assert by[3].buchholz == 1.0 and by[3].byes == 1 and by[3].played == 0
    assert by[1].buchholz == 0.0 and by[2].buchholz == 1.0


def test_crosstable_keeps_each_game() -> None:
    games = [Match(1, (1, 2), (1.0, 0.0)), Match(2, (2, 1), (0.5, 0.5))]
    assert crosstable(games) == {(1, 2): [1.0, 0.5], (2, 1): [0.0, 0.5]}


# -- table events ---------------------------------------------------------------------------------


def test_tables_merge_until_one_is_left() -> None:
    e = field(15)
    r1 = plan.next_round("tables", e, [], 1, rounds=None, size=7)
    assert [len(m.players) for m in r1] == [5, 5, 5]
    done = [
        Match(
            1,
            m.players,
            tuple(float(i == 0) for i in range(len(m.players))),
            tuple(100 if i == 0 else 0 for i in range(len(m.players))),
        )
        for m in r1
    ]
    r2 = plan.next_round("tables", e, done, 2, rounds=None, size=7)
    assert [m.players for m in r2] == [(1, 2, 3)]
    assert tables.is_final(r2, 2)
    final = [Match(2, (1, 2, 3), (0.0, 1.0, 0.0), (10, 280, 10))]
    assert plan.next_round("tables", e, done + final, 3, rounds=None, size=7) == []
    ranked = plan.rank("tables", e, done + final)
    assert [line.player for line in ranked[:3]] == [2, 1, 3]
    assert ranked[1].rank == ranked[2].rank == 2  # level at the final table


def test_a_withdrawn_round_robin_player_forfeits_the_rest() -> None:
    e = field(4)
    made = plan.next_round("robin", e, [], 2, rounds=3, withdrawn=frozenset({3}))
    forfeit = next(m for m in made if 3 in m.players)
    assert forfeit.is_over and forfeit.points_of(3) == 0.0 and forfeit.points_of(4) == 1.0


# -- properties ----------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=3, max_value=14),
    rounds=st.integers(min_value=1, max_value=9),
    outcomes=st.lists(st.sampled_from([0, 1, 2]), min_size=200, max_size=200),
)
def test_swiss_never_repeats_a_pair_gives_one_bye_each_and_keeps_seats_even(
    n: int, rounds: int, outcomes: list[int]
) -> None:
    entrants = field(n)
    total = plan.planned_rounds("swiss", n, rounds)
    assert total is not None
    played: list[Match] = []
    draws = iter(outcomes)
    for r in range(1, total + 1):
        made = plan.next_round("swiss", entrants, played, r, rounds=total)
        if not made:
            break
        seen = [p for m in made for p in m.players]
        assert sorted(seen) == list(range(1, n + 1))  # everyone once a round
        for m in made:
            if m.is_bye:
                played.append(m)
            else:
                pick = next(draws)
                played.append(won(m, None if pick == 2 else m.players[pick]))
    pairs = [frozenset(m.players) for m in played if not m.is_bye]
    assert len(pairs) == len(set(pairs))
    byes = [m.players[0] for m in played if m.is_bye]
    assert len(byes) == len(set(byes))
    for history in histories(played).values():
        assert abs(history.difference) <= MAX_SEAT_DIFFERENCE
        assert all(len(set(history.seats[i : i + 3])) > 1 for i in range(len(history.seats) - 2))


@given(n=st.integers(min_value=2, max_value=10), double=st.booleans())
def test_round_robin_meets_every_pair_exactly_once_a_cycle(n: int, double: bool) -> None:
    entrants = field(n)
    games = [
        m.players
        for r in range(1, robin.rounds_of(n, double) + 1)
        for m in robin.pair(entrants, r, double)
        if not m.is_bye
    ]
    once = [frozenset(g) for g in games]
    for a, b in itertools.combinations(range(1, n + 1), 2):
        assert once.count(frozenset((a, b))) == (2 if double else 1)
    if double:
        assert len(set(games)) == len(games)  # the return games have the seats swapped


def test_buchholz_separates_players_level_on_points() -> None:
    # 1 and 2 both score 1; 1 met 2 (1) and 3 (2), Buchholz 3; 2 met 1 (1) and 4 (0), Buchholz 1.
    games = [
        Match(1, (1, 2), (1.0, 0.0)),
        Match(1, (3, 4), (1.0, 0.0)),
        Match(2, (3, 1), (1.0, 0.0)),
        Match(2, (2, 4), (1.0, 0.0)),
    ]
    lines = standings(field(4), games)
    assert [(line.player, line.points, line.buchholz) for line in lines] == [
        (3, 2.0, 1.0),  # met 4 (0) and 1 (1)
        (1, 1.0, 3.0),
        (2, 1.0, 1.0),
        (4, 0.0, 3.0),
    ]
