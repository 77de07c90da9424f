"""A separate process that writes to a Siege Hall database, driven by tests/storage/test_processes.

Run from the repository root::

    python -m tests.storage.worker play DB SEED [--slots N] [--limit N]
    python -m tests.storage.worker race DB TABLE_ID [--attempts N]

``play`` keeps ``--slots`` castles tables going at once (one channel each, users 1 and 2),
playing random legal actions chosen with ``random.Random`` from ``SEED`` and starting a new table
in a channel whose game is over. After ``store.act`` returns it prints ``ack <table_id>
<ply_after>`` and flushes, so every line the parent reads is an acknowledged action. It is meant
to be killed (SIGKILL) at any moment; a later run on the same file carries on with the tables
it finds open (a lobby is joined and started).

``race`` opens its own store, then for every ``go <ply> <user_id> <action json>`` line on stdin
fires ``--attempts`` concurrent ``store.act`` calls at that ply and prints ``result <json>``
with how many applied, how many were refused as StaleAction and any other exception. It prints
``ready`` when it waits for a line and exits on ``quit`` (or the end of stdin).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from collections.abc import Sequence

from engine.castles import GAME
from engine.rules import Action
from storage import RESIGN, StaleAction, Store, TableRecord

GUILD = 77
FIRST_CHANNEL = 9000
HOST, GUEST = 1, 2
#: One action in this many is a resignation, so games end (and new tables start) more often.
RESIGN_ODDS = 60


def emit(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


# -- play ------------------------------------------------------------------------------------------


async def ready_table(store: Store, channel: int, rng: random.Random) -> TableRecord:
    """The running table of ``channel``: the one left open by an earlier run, or a new one."""
    table = await store.open_table_in(channel)
    if table is None:
        table = await store.create_table(
            guild_id=GUILD,
            channel_id=channel,
            game="castles",
            host_id=HOST,
            options={"dealer": rng.choice([None, 0, 1])},
            seed=rng.randrange(2**40),
        )
    if table.status == "lobby":
        if GUEST not in table.seats:
            table = await store.join(table.id, GUEST)
        table = await store.start(table.id, HOST)
    return table


def choose(table: TableRecord, rng: random.Random) -> tuple[int, Action]:
    """The user to act and a random legal action of theirs (now and then a resignation)."""
    state = table.running_state()
    seat = GAME.to_act(state)
    assert seat is not None, f"table {table.id} is running with nobody to act"
    legal = GAME.legal_actions(state, seat)
    action = RESIGN if rng.randrange(RESIGN_ODDS) == 0 else rng.choice(legal)
    return table.seats[seat], action


async def play_slot(store: Store, slot: int, seed: int, budget: list[int]) -> None:
    rng = random.Random(f"{seed}:{slot}")
    channel = FIRST_CHANNEL + slot
    table = await ready_table(store, channel, rng)
    while budget[0] > 0:
        user, action = choose(table, rng)
        table, _ = await store.act(table.id, user, action, expected_ply=table.ply)
        budget[0] -= 1
        emit(f"ack {table.id} {table.ply}")
        if table.status != "running":
            table = await ready_table(store, channel, rng)


async def play(path: str, seed: int, slots: int, limit: int) -> None:
    store = await Store.open(path)
    try:
        await store.migrate()
        budget = [limit]  # shared by the slots: the run ends after ``limit`` actions in all
        await asyncio.gather(*(play_slot(store, slot, seed, budget) for slot in range(slots)))
    finally:
        await store.close()
    emit("done")


# -- race ------------------------------------------------------------------------------------------


async def attempt(store: Store, table_id: int, user: int, action: Action, ply: int) -> str:
    try:
        await store.act(table_id, user, action, expected_ply=ply)
    except StaleAction:
        return "stale"
    except Exception as exc:  # reported to the test, which fails on it
        return f"{type(exc).__name__}: {exc}"
    return "applied"


async def race(path: str, table_id: int, attempts: int) -> None:
    store = await Store.open(path)
    try:
        while True:
            emit("ready")
            line = await asyncio.to_thread(sys.stdin.readline)
            words = line.split(maxsplit=3)
            if not words or words[0] == "quit":
                break
            assert words[0] == "go" and len(words) == 4, f"unexpected command {line!r}"
            ply, user, action = int(words[1]), int(words[2]), json.loads(words[3])
            outcomes = await asyncio.gather(
                *(attempt(store, table_id, user, action, ply) for _ in range(attempts))
            )
            report = {
                "applied": outcomes.count("applied"),
                "stale": outcomes.count("stale"),
                "errors": sorted({o for o in outcomes if o not in ("applied", "stale")}),
            }
            emit(f"result {json.dumps(report)}")
    finally:
        await store.close()


# -- command line ----------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m tests.storage.worker")
    modes = parser.add_subparsers(dest="mode", required=True)
    play_args = modes.add_parser("play", help="play random games, acknowledging every action")
    play_args.add_argument("db")
    play_args.add_argument("seed", type=int)
    play_args.add_argument("--slots", type=int, default=3)
    play_args.add_argument("--limit", type=int, default=5000)
    race_args = modes.add_parser("race", help="fire concurrent actions at one ply on command")
    race_args.add_argument("db")
    race_args.add_argument("table_id", type=int)
    race_args.add_argument("--attempts", type=int, default=50)
    args = parser.parse_args(argv)
    if args.mode == "play":
        asyncio.run(play(args.db, args.seed, args.slots, args.limit))
    else:
        asyncio.run(race(args.db, args.table_id, args.attempts))


if __name__ == "__main__":
    main()
