"""The daily challenge's storage: one unguessable seed per server and day, one scored attempt per
player, day and difficulty, the score written once with the game's end, and the day's board."""

from __future__ import annotations

import hashlib
import hmac
import sqlite3
from pathlib import Path

from engine import get_game
from storage import Store
from storage import daily as daily_module
from tests.pg import raw_connect

GUILD, OTHER_GUILD = 77, 78
ALICE, BOB, CAROL = 1, 2, 3
DAY, NEXT_DAY = "2026-11-25", "2026-11-26"
KURTH = get_game("kurth")


async def start(
    store: Store,
    user: int,
    channel: int,
    *,
    guild: int = GUILD,
    day: str = DAY,
    difficulty: str = "normal",
) -> tuple[int, bool, dict[str, object]]:
    table, scored = await store.start_daily(
        guild_id=guild, channel_id=channel, user_id=user, difficulty=difficulty, day=day
    )
    assert table.status == "running" and table.seats == (user,)
    return table.id, scored, KURTH.view(table.running_state(), 0)


async def test_everyone_in_a_server_gets_the_days_seed(store: Store, db_path: Path) -> None:
    _, _, alice = await start(store, ALICE, 1)
    _, _, bob = await start(store, BOB, 2)
    assert alice == bob  # the same first upkeep: cards, markers, everything
    _, _, elsewhere = await start(store, ALICE, 3, guild=OTHER_GUILD)
    _, _, tomorrow = await start(store, ALICE, 4, day=NEXT_DAY)
    await start(store, BOB, 5, difficulty="advanced")
    seeds = dict(raw_connect(db_path).execute("SELECT channel_id, seed FROM tables").fetchall())
    # One seed per server, day and difficulty (issue 23: an easy game showed the advanced deal).
    assert seeds[1] == seeds[2] and len({seeds[1], seeds[3], seeds[4], seeds[5]}) == 4
    # The seed is an HMAC of the day under the server's stored random secret: no one can work
    # out a future day's seed from the date.
    (secret,) = (
        raw_connect(db_path)
        .execute("SELECT secret FROM guild_secrets WHERE guild_id = ?", (GUILD,))
        .fetchone()
    )
    assert len(bytes.fromhex(secret)) == 32
    expected = hmac.new(bytes.fromhex(secret), f"kurth-daily:{DAY}:normal".encode(), hashlib.sha256)
    assert seeds[1] == int.from_bytes(expected.digest()[:8], "big") >> 2
    assert elsewhere != alice or tomorrow != alice


async def test_one_scored_attempt_per_day_and_difficulty(store: Store) -> None:
    first, scored, _ = await start(store, ALICE, 1)
    assert scored
    await store.resign(first, ALICE)
    _, again, _ = await start(store, ALICE, 1)
    assert not again  # practice
    _, harder, _ = await start(store, ALICE, 2, difficulty="advanced")
    assert harder
    _, tomorrow, _ = await start(store, ALICE, 3, day=NEXT_DAY)
    assert tomorrow


async def test_the_end_of_a_scored_game_is_written_once(store: Store, db_path: Path) -> None:
    table_id, _, _ = await start(store, ALICE, 1)
    over, _ = await store.resign(table_id, ALICE)
    assert over.result is not None and over.result.scores == (0,)
    rows = (
        raw_connect(db_path)
        .execute("SELECT score, turns, won, finished_at IS NOT NULL FROM daily_attempts")
        .fetchall()
    )
    assert rows == [(0, 1, 0, 1)]
    line = await store.daily_standing(GUILD, DAY, "normal", ALICE)
    assert line is not None and (line.rank, line.score, line.won) == (1, 0, False)


async def test_the_days_board_orders_by_score_then_turns(store: Store) -> None:
    outcomes = {ALICE: (30, 12), BOB: (45, 12), CAROL: (30, 11)}
    for channel, (user, (score, turns)) in enumerate(outcomes.items(), start=1):
        table_id, _, _ = await start(store, user, channel)

        def finish(
            conn: sqlite3.Connection, tid: int = table_id, s: int = score, t: int = turns
        ) -> None:
            daily_module.finish(conn, tid, (0,), (s,), {"turn": t}, f"{DAY}T20:00:0{tid}")
            daily_module.finish(conn, tid, (0,), (999,), {"turn": 1}, f"{DAY}T21:00:00")

        await store._write(finish)  # the second call changes nothing: written once
    board = await store.daily_board(GUILD, DAY, "normal")
    assert [(line.user_id, line.score, line.turns, line.rank) for line in board] == [
        (BOB, 45, 12, 1),
        (CAROL, 30, 11, 2),
        (ALICE, 30, 12, 3),
    ]
    mine = await store.daily_standing(GUILD, DAY, "normal", ALICE)
    assert mine == board[2]
    assert await store.daily_board(GUILD, DAY, "advanced") == []
    assert await store.daily_board(GUILD, DAY, "normal", offset=1, limit=1) == [board[1]]
