"""The search models' quick rules, playout policies and evaluations (issue 26, second part).

Each quick rule plays as the engine does, each policy is legal and a function of its generator,
and each evaluation prefers what it claims to. Strength and speed are the benchmarks' business
(``benchmarks/computer_strength.py``, ``kurth_strength.py``), never asserted here.
"""

from __future__ import annotations

import random
from typing import Any

import engine
from engine import ai
from engine.ai import castles as castles_ai
from engine.ai import king as king_ai
from engine.ai import kurth as kurth_ai
from engine.ai.search import ismcts
from engine.king import ATTACKER, DEFENDER, KING, THRONE, column_value
from engine.rules import State, rng_for
from tests.engine.test_computer import random_state
from tests.engine.test_computer_policies import _king_state

KURTH = engine.GAMES["kurth"]
CASTLES = engine.GAMES["castles"]


def _castles(rows: list[list[str]], hand: list[str]) -> State:
    """A Castles position with these rows and seat 0's hand (seat 0 to act)."""
    state = CASTLES.setup(2, {"dealer": 1}, rng_for(2, "setup"))
    placed = {c for row in rows for c in row} | set(hand)
    rest = [c for c in state["hands"][0] + state["hands"][1] + state["pile"] if c not in placed]
    state["rows"], state["hands"] = rows, [hand, rest[:7]]
    state["pile"] = rest[7:]
    return state


def test_the_castles_rule_of_thumb_kills_on_a_fair_roll_before_laying() -> None:
    """Rows level and a kill on 7 or more: it attacks that card rather than spend one from
    its hand (the rule of thumb before laid its best card)."""
    state = _castles([["9S", "3H"], ["TD", "5C"]], ["KD", "2S"])
    assert castles_ai.greedy_action(state, 0, random.Random(0)) == {"type": "attack", "pos": 0}
    # Only hard kills (9 or more needed): it lays its best card instead.
    state = _castles([["2S", "3H"], ["QD", "KC"]], ["KD", "4S"])
    assert castles_ai.greedy_action(state, 0, random.Random(0)) == {"type": "lay", "card": "KD"}
    # Behind (an unblocked card faces its castle) and a kill on 7: it attacks too.
    state = _castles([["9S"], ["KD", "5C"]], ["QH"])
    assert castles_ai.greedy_action(state, 0, random.Random(0)) == {"type": "attack", "pos": 0}
    # Ahead: the unblocked card hits the castle.
    state = _castles([["9S", "3H"], ["TD"]], ["KD"])
    assert castles_ai.greedy_action(state, 0, random.Random(0)) == {"type": "attack", "pos": 1}


def test_the_kurth_model_applies_moves_as_the_engine_does() -> None:
    """The playouts skip the engine's legality check; the states they reach are the engine's."""
    for seed in range(12):
        state = KURTH.setup(
            1, {"difficulty": ("easy", "normal", "advanced")[seed % 3]}, rng_for(seed, "setup")
        )
        model = kurth_ai.KurthModel(KURTH.view(state, 0), 0)
        chooser = random.Random(seed)
        ply = 0
        while state["to_act"] is not None:
            legal = KURTH.legal_actions(state, 0)
            assert model.legal(state, 0) == legal
            action = chooser.choice(legal)
            quick = model.apply(state, 0, action, random.Random(ply))
            state, _ = KURTH.apply(state, 0, action, random.Random(ply))
            assert quick == state, (seed, ply)
            ply += 1
        assert model.legal(state, 0) == []


def test_the_kurth_playout_policy_lists_only_what_it_needs_and_stays_legal() -> None:
    """Without the legal list the policy makes the same choice as with it, and a legal one."""
    for seed in range(12):
        state = KURTH.setup(1, {"difficulty": "normal"}, rng_for(seed, "setup"))
        chooser = random.Random(seed)
        ply = 0
        while state["to_act"] is not None:
            legal = KURTH.legal_actions(state, 0)
            lazy = kurth_ai.greedy_action(state, None, random.Random(ply))
            assert lazy == kurth_ai.greedy_action(state, legal, random.Random(ply))
            assert lazy in legal
            state, _ = KURTH.apply(state, 0, chooser.choice(legal), random.Random(ply))
            ply += 1


class _Ambush:
    """A toy two-seat search problem: seat 0 plays ``safe`` (worth 0.6) or ``bold`` (worth 1,
    unless seat 1 answers with the one ``punish`` among its twenty replies: then 0). Seat 1's
    playout policy always finds ``punish``."""

    rollout_depth = 0

    def __init__(self) -> None:
        self.game = self

    def legal_actions(self, state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
        return self.legal(state, seat)

    def shortcut(self, rng: random.Random) -> None:
        return None

    def to_act(self, state: dict[str, Any]) -> int | None:
        if not state["moves"]:
            return 0
        if state["moves"] == ["bold"]:
            return 1
        return None

    def legal(self, state: dict[str, Any], seat: int) -> list[dict[str, Any]]:
        if seat == 0:
            return [{"type": "safe"}, {"type": "bold"}]
        return [{"type": "punish"}] + [{"type": f"reply{n}"} for n in range(19)]

    def apply(
        self, state: dict[str, Any], seat: int, action: dict[str, Any], rng: random.Random
    ) -> dict[str, Any]:
        return {"moves": [*state["moves"], action["type"]]}

    def determinize(self, rng: random.Random) -> dict[str, Any]:
        return {"moves": []}

    def rollout_action(
        self, state: dict[str, Any], seat: int, rng: random.Random
    ) -> dict[str, Any]:
        return {"type": "punish"} if seat == 1 else {"type": "bold"}

    def evaluate(self, state: dict[str, Any]) -> list[float]:
        moves = state["moves"]
        mine = 0.6 if moves[0] == "safe" else 0.0 if moves[-1] == "punish" else 1.0
        return [mine, 1.0 - mine]

    def is_cutoff(self, state: dict[str, Any], depth: int) -> bool:
        return True

    def root_actions(self, legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return legal


def test_a_guided_search_sees_the_reply_its_playout_policy_would_make() -> None:
    """With few iterations, a search that expands replies at random rarely meets the one that
    punishes ``bold``; expanding first with the policy's reply finds it at once."""
    for seed in range(10):
        guided = ismcts(_Ambush(), 0, 24, random.Random(seed), guided=True)  # type: ignore[arg-type]
        assert guided == {"type": "safe"}, seed
    blind = [ismcts(_Ambush(), 0, 24, random.Random(s)) for s in range(10)]  # type: ignore[arg-type]
    assert sum(a == {"type": "bold"} for a in blind) >= 5


def _king_columns(values: list[int]) -> list[dict[str, Any]]:
    """Face-down columns of these values, built of Defenders and Attackers."""
    columns = []
    for value in values:
        cards, roles = [], []
        rest = value - 10
        while rest > 0:
            cards.append(f"D{min(rest, 8)}")
            roles.append(DEFENDER)
            rest -= min(rest, 8)
        while rest < 0:
            cards.append(f"A{min(-rest, 8)}")
            roles.append(ATTACKER)
            rest += min(-rest, 8)
        columns.append({"cards": cards, "roles": roles})
    return columns


def test_the_king_evaluation_fears_the_column_nearest_to_falling() -> None:
    """Three columns at 10 are safer than 2, 20 and 20 although the mean danger of the second
    castle is lower: the next attack goes for the column at 2, whichever card it hides."""
    state, seat = _king_state()
    for i, column in enumerate(_king_columns([10, 10, 10])):
        state["columns"][seat][i] = column
    level = king_ai.evaluate(state, seat)[seat]
    for i, column in enumerate(_king_columns([2, 20, 20])):
        state["columns"][seat][i] = column
    assert [column_value(c) for c in state["columns"][seat]] == [2, 20, 20]
    assert king_ai.evaluate(state, seat)[seat] < level


def test_the_king_computer_never_uses_where_its_own_king_hides() -> None:
    """While its castle is face down, the computer's choice is the same wherever among those
    columns its King lies (same view otherwise, same generator): its play cannot point to the
    King. It failed with a search that kept the King where it is in a quarter of its samples."""
    king_game = engine.GAMES["king"]
    checked = 0
    for seed in range(40):
        state = random_state(king_game, seed, 6 + seed % 12, 2, {})
        seat = state["to_act"]
        if seat is None or state["phase"] != "play" or any(state["revealed"][seat]):
            continue
        choices = []
        for king in range(3):
            moved = dict(state)
            castles = [list(c) for c in state["castles"]]
            castles[seat] = [KING if i == king else THRONE for i in range(3)]
            moved["castles"] = castles
            view = king_game.view(moved, seat)
            choices.append(ai.choose("king", view, seat, "hard", random.Random(seed), budget=60))
        assert choices[0] == choices[1] == choices[2], seed
        checked += 1
    assert checked >= 5


def _mirrored(state: State) -> State:
    other = dict(state)
    for key in ("rows", "hands", "hits"):
        other[key] = list(reversed(state[key]))
    other["to_act"] = None if state["to_act"] is None else 1 - state["to_act"]
    return other


def test_the_castles_evaluation_is_a_chance_and_fair_to_both_seats() -> None:
    """Each seat's value is its chance to win: the two add up to 1, and swapping the seats
    swaps them; a seat with more cards left to lay once the pile is empty stands better."""
    for seed in range(20):
        state = random_state(CASTLES, seed, 20 + 9 * seed, 2, {})
        if state["result"] is not None:
            continue
        p0, p1 = castles_ai.evaluate(state)
        assert 0 < p0 < 1 and abs(p0 + p1 - 1) < 1e-9
        q0, q1 = castles_ai.evaluate(_mirrored(state))
        assert abs(q1 - p0) < 1e-9 and abs(q0 - p1) < 1e-9
    state = _castles([["9S"], ["TD"]], ["KD", "2S", "3H"])
    state["pile"], state["hands"][1] = [], ["4C"]
    richer = castles_ai.evaluate(state)[0]
    state["hands"][0] = ["KD"]
    assert castles_ai.evaluate(state)[0] < richer
