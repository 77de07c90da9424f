"""Load benchmark: many tables played at once through the real bot and the loopback fake Discord.

Not a test. Opens TABLES Castles Besieged tables (one per channel, two players each), then
has every table play MOVES draws concurrently, each click sent as soon as that table's previous
answer arrived. Prints the click-to-answer latency (the time a player waits for the table to
update: the action committed and the table re-rendered) and the throughput, plus REST calls
per action. Everything runs in one process on 127.0.0.1.

Run: ``.venv/bin/python benchmarks/table_load.py [TABLES] [MOVES]`` (defaults 20 and 15).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root, for tests.fakecord

import bot as siege_bot
from tests.fakecord import FakeDiscord, FakeMessage, start_client, stop_client
from tests.fakecord.world import FakeChannel, FakeUser


async def open_table(
    fake: FakeDiscord, channel: FakeChannel, host: FakeUser, guest: FakeUser
) -> FakeMessage:
    lobby = (await host.slash(channel, "siege new", game="castles", dealer="1")).response_message
    assert lobby is not None
    await guest.click(lobby, "Join")
    await host.click(fake.latest(lobby), "Start")
    await fake.settle()
    return fake.latest(lobby)


async def play(
    fake: FakeDiscord, message: FakeMessage, players: tuple[FakeUser, FakeUser], moves: int
) -> list[float]:
    """Each table: the two players take turns drawing from the table message."""
    waits: list[float] = []
    for move in range(moves):
        current = fake.latest(message)
        draw = next(b.label for b in current.buttons() if b.label.startswith("Draw"))
        start = time.perf_counter()
        handle = await players[move % 2].click(current, draw, settle_first=False)
        waits.append(time.perf_counter() - start)
        assert handle.response_type == 7, "the table should have been edited in place"
    return waits


async def main(tables: int, moves: int) -> None:
    async with FakeDiscord() as fake:
        guild = fake.add_guild("Load")
        pairs = []
        for n in range(tables):
            channel = guild.add_text_channel(f"table-{n}")
            alice, bob = fake.add_user(f"a{n}"), fake.add_user(f"b{n}")
            guild.add_member(alice)
            guild.add_member(bob)
            pairs.append((channel, alice, bob))
        with tempfile.TemporaryDirectory() as tmp:
            settings = siege_bot.Settings(
                token="fake-token", database_path=f"{tmp}/load.db", dev_guild_id=guild.id
            )
            client = siege_bot.create_bot(settings, guild_ready_timeout=0.05)
            await start_client(client)
            try:
                messages = [await open_table(fake, c, a, b) for c, a, b in pairs]
                requests_before = fake.request_count
                start = time.perf_counter()
                results = await asyncio.gather(
                    *(
                        play(fake, m, (a, b), moves)
                        for m, (_, a, b) in zip(messages, pairs, strict=True)
                    )
                )
                await fake.settle()
                elapsed = time.perf_counter() - start
                requests = fake.request_count - requests_before
            finally:
                await stop_client(client)
        if fake.violations:
            print("violations:", *fake.violations, sep="\n  ")
    waits = sorted(w * 1000 for table in results for w in table)
    total = len(waits)
    p95 = waits[int(0.95 * (total - 1))]
    print(f"{tables} tables x {moves} moves = {total} actions in {elapsed:.2f} s")
    print(f"throughput: {total / elapsed:.1f} actions/s")
    print(
        f"click to answer: mean {statistics.fmean(waits):.1f} ms, median "
        f"{statistics.median(waits):.1f} ms, p95 {p95:.1f} ms, max {waits[-1]:.1f} ms"
    )
    print(f"REST requests per action (answer + DM panels): {requests / total:.2f}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    asyncio.run(main(*(args + [20, 15][len(args) :])))
