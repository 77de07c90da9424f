"""Swiss pairings for two-seat games, in the outline of the FIDE (Dutch) system (C.04.3).

Players are ranked by points, then rating, then the initial ranking (C.04.3 A.2). Each pairing
takes the highest-ranked unpaired player and tries opponents in the Dutch order: first its own
score group, its upper half against its lower half (player *i* of S1 meets player *i* of S2,
A.6), then the nearest score groups below (a downfloater meets the top of the next group). A
pair that has met already is never made (C.04.1.b); nor one that would give a player the same
seat three times running or a seat difference beyond 2 (C.04.1.f, A.6.a). Among the candidates
of a group, those whose seat preferences both come true go first (the Dutch transpositions, in
short). When a choice leaves the rest unpairable the search backs up and takes the next one,
so a pairing is found whenever one exists. An odd field gives the bye (a win's point, C.04.1.c)
to the lowest-ranked player who has not had one (C.04.1.d) and whose absence leaves the others
pairable.

Seats (C.04.3 E): a player whose seat difference is beyond 1, or who had the same seat in the
last two rounds, must get the other (absolute); a difference of 1 wants the other (strong); no
difference wants to alternate (mild). Both served if they can be; else the stronger preference
wins, and at equal strength the higher-ranked player. In the first round the higher-ranked
player of each board alternates: first seat on board 1, second on board 2, and so on (E.5, with
the first seat drawn for the top player).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.tournament.records import Entrant, Match, PairingImpossible
from engine.tournament.standings import points

#: The furthest a player's first seats may outnumber their second seats, or the reverse.
MAX_SEAT_DIFFERENCE = 2


@dataclass
class _History:
    opponents: set[int] = field(default_factory=set)
    seats: list[int] = field(default_factory=list)  # +1 first seat, -1 second, in round order
    had_bye: bool = False

    @property
    def difference(self) -> int:
        return sum(self.seats)

    def preference(self) -> int:
        """+n wants the first seat, -n the second; n = 3 absolute, 2 strong, 1 mild, 0 none."""
        d, last = self.difference, self.seats[-2:]
        if abs(d) > 1:
            return -3 if d > 0 else 3
        if len(last) == 2 and last[0] == last[1]:
            return -3 * last[0]
        if d:
            return -2 * d
        if self.seats:
            return -self.seats[-1]
        return 0

    def may_take(self, seat: int) -> bool:
        last = self.seats[-2:]
        three = len(last) == 2 and last[0] == last[1] == seat
        return abs(self.difference + seat) <= MAX_SEAT_DIFFERENCE and not three


def histories(matches: Sequence[Match]) -> dict[int, _History]:
    """Who each player has met, their seats in round order, and whether they had a bye."""
    found: dict[int, _History] = {}
    for match in sorted(matches, key=lambda m: m.round):
        if match.is_bye:
            found.setdefault(match.players[0], _History()).had_bye = True
            continue
        a, b = match.players
        found.setdefault(a, _History()).opponents.add(b)
        found.setdefault(b, _History()).opponents.add(a)
        found[a].seats.append(1)
        found[b].seats.append(-1)
    return found


def pair(
    entrants: Sequence[Entrant],
    matches: Sequence[Match],
    round_no: int,
    withdrawn: frozenset[int] = frozenset(),
) -> list[Match]:
    """The matches of round ``round_no``: pairs in board order (board 1 first), then the bye if
    any. Raises :class:`PairingImpossible` when every pairing would repeat a pair."""
    history = histories(matches)
    for e in entrants:
        history.setdefault(e.id, _History())
    total = {e.id: 0.0 for e in entrants} | points(matches)
    seed = {e.id: n for n, e in enumerate(entrants)}
    rating = {e.id: e.rating for e in entrants}
    ranked = sorted(
        (e.id for e in entrants if e.id not in withdrawn),
        key=lambda p: (-total[p], -rating[p], seed[p]),
    )
    byes: list[int | None] = [None]
    if len(ranked) % 2:
        fresh = [p for p in reversed(ranked) if not history[p].had_bye]
        byes = list(fresh or reversed(ranked))
    pairing = _Pairing(history, total)
    for bye in byes:
        order = [p for p in ranked if p != bye]
        pairs = pairing.search(tuple(order))
        if pairs is not None:
            made = [Match(round_no, pair) for pair in pairs]
            if pairing.first_round:
                made = seat_round_one(made)
            return made + ([Match(round_no, (bye,))] if bye is not None else [])
    raise PairingImpossible(
        "Every pairing left would make two players meet a second time, so no round "
        f"{round_no} can be paired."
    )


class _Pairing:
    def __init__(self, history: dict[int, _History], total: dict[int, float]) -> None:
        self.history = history
        self.total = total
        self.first_round = all(not h.seats for h in history.values())
        self.failed: set[tuple[int, ...]] = set()

    def search(self, order: tuple[int, ...]) -> list[tuple[int, int]] | None:
        if not order:
            return []
        if order in self.failed:
            return None
        top, others = order[0], order[1:]
        for other in self._candidates(top, others):
            seats = self._seats(top, other)
            if seats is None:
                continue
            rest = self.search(tuple(p for p in others if p != other))
            if rest is not None:
                return [seats, *rest]
        self.failed.add(order)
        return None

    def _candidates(self, top: int, others: tuple[int, ...]) -> list[int]:
        """``top``'s opponents in the Dutch order: its score group from the middle down (S1
        against S2), the pairs whose seat preferences both come true first; then the other
        groups, the nearest in points first."""
        met = self.history[top].opponents
        group = [top, *(p for p in others if self.total[p] == self.total[top])]
        half = len(group) // 2
        own = [p for p in group[half:] + group[1:half][::-1] if p != top and p not in met]
        own.sort(key=lambda p: not self._both_served(top, p))
        rest = sorted(
            (p for p in others if self.total[p] != self.total[top] and p not in met),
            key=lambda p: abs(self.total[top] - self.total[p]),
        )
        return own + rest

    def _both_served(self, a: int, b: int) -> bool:
        pa, pb = self.history[a].preference(), self.history[b].preference()
        return pa == 0 or pb == 0 or (pa > 0) != (pb > 0)

    def _seats(self, a: int, b: int) -> tuple[int, int] | None:
        """The pair in seat order (first seat first), or None when neither way is allowed.
        ``a`` is the higher-ranked (in round one, listed first: :func:`seat_round_one` seats
        the boards once they are known)."""
        ha, hb = self.history[a], self.history[b]
        pa, pb = ha.preference(), hb.preference()
        if pa == 0 and pb == 0:
            a_first = True
        elif pa == 0 or pb == 0 or (pa > 0) != (pb > 0):
            a_first = pa > 0 if pa else pb < 0
        else:  # the same seat wanted: the stronger preference, then the higher-ranked
            a_first = (pa > 0) if abs(pa) >= abs(pb) else (pb < 0)
        for first in (a_first, not a_first):
            x, y = (a, b) if first else (b, a)
            if self.history[x].may_take(1) and self.history[y].may_take(-1):
                return (x, y)
        return None


def seat_round_one(pairs: list[Match]) -> list[Match]:
    """Round one's seats by board: the higher-ranked player (listed first) takes the first seat
    on odd boards and the second on even ones (C.04.3 E.5, the first seat drawn for the top
    player)."""
    return [
        m if m.is_bye or n % 2 == 0 else Match(m.round, m.players[::-1])
        for n, m in enumerate(pairs)
    ]


__all__ = ["MAX_SEAT_DIFFERENCE", "histories", "pair", "seat_round_one"]
