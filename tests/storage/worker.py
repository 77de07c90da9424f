"""A separate process that writes to a Siege Hall database, driven by tests/storage/test_processes.

Run from the repository root::

    python -m tests.storage.worker play DB SEED [--slots N] [--limit N]
    python -m tests.storage.worker race DB TABLE_ID [--attempts N]
    python -m tests.storage.worker sweep DB NOW [--rounds N]

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

``sweep`` runs the periodic jobs of the bot on a store whose clock stands at ``NOW`` (ISO): it
prints ``ready``, waits for ``go`` on stdin (so two sweepers start together), then runs
``--rounds`` rounds of every job, the items of each job concurrently: reminders
(``reminders_due`` then ``mark_reminded``), deadlines (``due`` then ``time_out``), offer expiry,
computer turns (``computer_turns`` then ``act`` at the seen ply) and the daily game of
``DAILY_USERS`` in server ``GUILD``. It prints ``result <json>`` with what it did itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from collections.abc import Sequence
from datetime import datetime

from engine.castles import GAME
from engine.rules import Action
from storage import RESIGN, StaleAction, Store, TableError, TableRecord

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


# -- sweep -----------------------------------------------------------------------------------------

DAILY_USERS = range(1, 7)
DAILY_DAY = "2026-11-27"
DAILY_CHANNEL = 7000


async def remind(store: Store, table: TableRecord) -> list[int] | None:
    return [table.id, table.ply] if await store.mark_reminded(table.id, table.ply) else None


async def time_out(store: Store, table_id: int, ply: int) -> list[object] | None:
    done = await store.time_out(table_id, ply)
    return None if done is None else [table_id, ply, done.rung]


async def computer_move(store: Store, table: TableRecord) -> list[int] | None:
    state = table.running_state()
    seat = GAME.to_act(state)
    assert seat is not None
    action = GAME.legal_actions(state, seat)[0]
    try:
        await store.act(table.id, table.seats[seat], action, expected_ply=table.ply)
    except StaleAction:
        return None
    return [table.id, table.ply]


async def daily(store: Store, user: int, slot: int) -> list[int] | None:
    try:
        table, scored = await store.start_daily(
            guild_id=GUILD,
            channel_id=DAILY_CHANNEL + 100 * slot + user,
            user_id=user,
            difficulty="normal",
            day=DAILY_DAY,
        )
    except TableError:
        return None  # this round's channel already has its game (the other sweeper's)
    return [table.id, table.seed, user, int(scored)]


def kept(found: Sequence[list[object] | list[int] | None]) -> list[object]:
    return [item for item in found if item is not None]


async def sweep(path: str, now: str, rounds: int, slot: int) -> None:
    moment = datetime.fromisoformat(now)
    store = await Store.open(path, clock=lambda: moment)
    done: dict[str, list[object]] = {
        "reminded": [],
        "timed_out": [],
        "expired": [],
        "computer": [],
        "daily": [],
    }
    try:
        emit("ready")
        line = await asyncio.to_thread(sys.stdin.readline)
        assert line.strip() == "go", f"unexpected command {line!r}"
        for _ in range(rounds):
            due = await store.reminders_due()
            done["reminded"] += kept(await asyncio.gather(*(remind(store, t) for t in due)))
            late = await store.due()
            done["timed_out"] += kept(
                await asyncio.gather(*(time_out(store, tid, ply) for tid, ply in late))
            )
            done["expired"] += [offer.id for offer in await store.expire_offers()]
            waiting = await store.computer_turns()
            done["computer"] += kept(
                await asyncio.gather(*(computer_move(store, t) for t in waiting))
            )
            done["daily"] += kept(
                await asyncio.gather(*(daily(store, user, slot) for user in DAILY_USERS))
            )
        emit(f"result {json.dumps(done)}")
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
    sweep_args = modes.add_parser("sweep", help="run the periodic jobs at a fixed moment")
    sweep_args.add_argument("db")
    sweep_args.add_argument("now")
    sweep_args.add_argument("--rounds", type=int, default=3)
    sweep_args.add_argument("--slot", type=int, default=0, help="which sweeper this is (0, 1)")
    args = parser.parse_args(argv)
    if args.mode == "play":
        asyncio.run(play(args.db, args.seed, args.slots, args.limit))
    elif args.mode == "sweep":
        asyncio.run(sweep(args.db, args.now, args.rounds, args.slot))
    else:
        asyncio.run(race(args.db, args.table_id, args.attempts))


if __name__ == "__main__":
    main()
