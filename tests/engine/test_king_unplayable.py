"""``engine.king.unplayable_reasons``: the words for a held card without a play agree with the
legal list, in every position of seeded random games (the panel shows them instead of leaving
a card out of the menu)."""

from __future__ import annotations

import random

from engine.king import ARTISAN, GAME, unplayable_reasons
from engine.rules import rng_for


def test_reasons_name_exactly_the_held_cards_without_a_legal_play() -> None:
    checked = 0
    for seed in range(25):
        rng = random.Random(seed)
        state = GAME.setup(2, {"specials": seed % 4 != 3}, rng_for(seed, "setup"))
        ply = 0
        while GAME.result(state) is None:
            seat = GAME.to_act(state)
            assert seat is not None
            legal = GAME.legal_actions(state, seat)
            reasons = unplayable_reasons(GAME.view(state, seat))
            if state["phase"] == "play":
                playable = {a["card"] for a in legal if a["type"] == "play"}
                assert set(reasons) == set(state["hands"][seat]) - playable
                assert all(r.startswith(f"{r.split(':')[0]}:") for r in reasons.values())
                if ARTISAN in state["hands"][seat]:
                    assert {"type": "discard", "card": ARTISAN} in legal
                checked += 1
            else:
                assert reasons == {}
            state, _ = GAME.apply(state, seat, rng.choice(legal), rng_for(seed, ply))
            ply += 1
    assert checked > 500


def test_a_spectator_view_has_no_reasons() -> None:
    state = GAME.setup(2, {}, rng_for(1, "setup"))
    for seat in (0, 1):
        order = ["KING", "THRONE", "THRONE"]
        state, _ = GAME.apply(state, seat, {"type": "arrange", "order": order}, rng_for(1, seat))
    assert unplayable_reasons(GAME.view(state, None)) == {}
