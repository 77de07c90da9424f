"""Table events, for games of more than two seats: one table, or several that merge.

Every round seats the players still in at as few tables as hold them (at most ``size`` a table),
dealt out like cards in the initial ranking and back (1, 2, 3, 3, 2, 1 …) so the tables are
as even as can be. A table's winners (the game's own: most chips, in tower poker) go on, its
other players are out. A round of one table is the final: its winners win the event. A player
who withdraws goes on no further (if every winner of a table withdrew, its best other player
goes on). Players are ranked by the round they reached, then by how they did in it (won, then
the game's score), then by the initial ranking.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.tournament.records import Entrant, Match
from engine.tournament.standings import Standing

#: Tables need two players; fewer cannot play.
LEAST_AT_A_TABLE = 2


def seat_tables(players: Sequence[int], size: int) -> list[tuple[int, ...]]:
    """``players`` (in ranking order) at as few tables of at most ``size`` as hold them.

    >>> seat_tables([1, 2, 3, 4, 5, 6, 7, 8, 9], 7)
    [(1, 4, 5, 8, 9), (2, 3, 6, 7)]
    """
    if size < LEAST_AT_A_TABLE:
        raise ValueError("A table seats two players at least.")
    count = max(1, -(-len(players) // size))
    tables: list[list[int]] = [[] for _ in range(count)]
    for n, player in enumerate(players):
        lap, place = divmod(n, count)
        tables[place if lap % 2 == 0 else count - 1 - place].append(player)
    return [tuple(t) for t in tables if t]


def going_on(matches: Sequence[Match], withdrawn: frozenset[int] = frozenset()) -> list[int]:
    """The players who go on from a round's tables (in table order)."""
    players: list[int] = []
    for match in matches:
        if match.points is None:
            continue
        stay = [p for p in match.players if p not in withdrawn]
        won = [p for p in stay if match.points_of(p) > 0]
        if not won and stay:
            scores = match.scores or (0,) * len(match.players)
            best = max(scores[match.players.index(p)] for p in stay)
            won = [p for p in stay if scores[match.players.index(p)] == best]
        players.extend(won)
    return players


def pair(
    entrants: Sequence[Entrant],
    matches: Sequence[Match],
    round_no: int,
    size: int,
    withdrawn: frozenset[int] = frozenset(),
) -> list[Match]:
    """Round ``round_no``'s tables: everyone in round 1, then whoever went on from the round
    before (empty: the event is over)."""
    if round_no == 1:
        players = [e.id for e in entrants if e.id not in withdrawn]
    else:
        last = [m for m in matches if m.round == round_no - 1]
        if len(last) <= 1:
            return []
        players = going_on(last, withdrawn)
        if len(players) < LEAST_AT_A_TABLE:
            return []
    seed = {e.id: n for n, e in enumerate(entrants)}
    players.sort(key=lambda p: seed[p])
    return [Match(round_no, table) for table in seat_tables(players, size)]


def standings(entrants: Sequence[Entrant], matches: Sequence[Match]) -> list[Standing]:
    """Players ranked by the round they reached, how they did there, then initial ranking."""
    reached: dict[int, Match] = {}
    for match in sorted(matches, key=lambda m: m.round):
        for player in match.players:
            reached[player] = match
    seed = {e.id: n for n, e in enumerate(entrants)}
    wins = {e.id: 0 for e in entrants}
    for match in matches:
        for player in match.players:
            wins[player] = wins.get(player, 0) + (match.points_of(player) > 0)

    def key(p: int) -> tuple[float, float, float]:
        match = reached.get(p)
        if match is None:
            return (0.0, 0.0, 0.0)
        score = 0 if match.scores is None else match.scores[match.players.index(p)]
        return (-match.round, -match.points_of(p), -score)

    ordered = sorted(wins, key=lambda p: (key(p), seed.get(p, len(seed))))
    lines: list[Standing] = []
    for n, player in enumerate(ordered):
        level = lines and key(ordered[n - 1]) == key(player)
        won = wins[player]
        played = sum(1 for m in matches if player in m.players and m.is_over)
        lines.append(
            Standing(
                rank=lines[-1].rank if level else n + 1,
                player=player,
                points=float(won),
                wins=won,
                losses=played - won,
            )
        )
    return lines


def is_final(matches: Sequence[Match], round_no: int) -> bool:
    """Whether round ``round_no`` is the last: one table (its winners win the event)."""
    return len([m for m in matches if m.round == round_no]) == 1


__all__ = ["LEAST_AT_A_TABLE", "going_on", "is_final", "pair", "seat_tables", "standings"]
