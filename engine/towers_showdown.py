"""The show and the end of Siege tower poker (key ``towers``): every seat still in the hand
shows, each pot (side pots from table stakes) goes to its best contesting hand, and at the end of
the game the most chips win.

Follows ``../shared/seeds/siege-towers-poker.txt`` as settled by ``../shared/spec/towers.md``
(sections 6.6, 6.7 and 7).
"""

from __future__ import annotations

from engine.poker_hands import best_value, category
from engine.rules import Event, Result, State


def _show(s: State, events: list[Event]) -> None:
    """6.6 and 6.7: every seat in the hand shows; each pot goes to its best contesting hand.
    The hand then ends (``engine.towers_hand._end_hand``)."""
    n = s["seats"]
    dealer = s["dealer"]
    shown = [x for x in range(n) if s["in_hand"][x]]
    tower_cards = 3 if s["jackpot"] else 1
    values: dict[int, int] = {}
    used: dict[int, list[str]] = {}
    for x in shown:
        value, choice = best_value(s["hands"][x], s["face_up"], tower_cards)
        values[x], used[x] = value, list(choice)
    in_pot = s["in_pot"]
    levels = sorted({in_pot[x] for x in shown})
    payouts = [0] * n
    winners: set[int] = set()
    pots = []
    previous = 0
    for j, level in enumerate(levels):
        amount = sum(min(p, level) - min(p, previous) for p in in_pot)
        if j == 0:
            amount += s["fees"]
        if j == len(levels) - 1:
            amount += sum(max(0, p - level) for p in in_pot)
        contest = [x for x in shown if in_pot[x] >= level]
        best = max(values[x] for x in contest)
        won = sorted((x for x in contest if values[x] == best), key=lambda x: (x - dealer - 1) % n)
        share, odd = divmod(amount, len(won))
        for i, x in enumerate(won):
            payouts[x] += share + (1 if i < odd else 0)
        winners.update(won)
        pots.append({"amount": amount, "seats": contest, "winners": sorted(won)})
        previous = level
    for x in range(n):
        s["chips"][x] += payouts[x]
    categories: list[str | None] = [None] * n
    for x in shown:
        categories[x] = category(values[x])
    show = {
        "hand_no": s["hand_no"],
        "hands": [sorted(s["hands"][x]) if x in values else None for x in range(n)],
        "tower": [used.get(x) for x in range(n)],
        "face_up": list(s["face_up"]),
        "burned": s["burned"],
    }
    s["shows"].append(show)
    events.append(
        {
            "type": "shown",
            "hands": show["hands"],
            "tower": show["tower"],
            "categories": categories,
            "pots": pots,
            "payouts": payouts,
        }
    )
    s["last_hand"] = {
        "hand_no": s["hand_no"],
        "winners": sorted(winners),
        "payouts": payouts,
        "categories": categories,
    }


def _finish(s: State, reason: str, events: list[Event]) -> None:
    """7: the most chips win (seats that left count their chips, seats that are out 0)."""
    chips = s["chips"]
    top = max(chips)
    result = Result(
        tuple(x for x in range(s["seats"]) if chips[x] == top), reason, tuple(chips)
    ).to_json()
    s.update(phase="over", to_act=None, result=result)
    events.append({"type": "game_ended", **result})
