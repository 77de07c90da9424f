"""Clocks end to end, with a clock the test moves by hand (nothing sleeps): a reminder DM at
80 % of a move's time, an automatic move, then a forfeit; a lobby nobody starts; and a restart
after downtime that shifts the deadlines instead of timing anyone out."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.e2e.test_castles_e2e import DEALER_BOB
from tests.e2e.world import World
from tests.fakeclock import Clock

pytestmark = pytest.mark.e2e


async def with_clock(w: World) -> Clock:
    """Restart the world's bot on a clock the test moves."""
    clock = Clock()
    w.clock = clock
    await w.restart_bot()
    return clock


async def sweep(w: World) -> int:
    handled = await w.running.clockwork.sweep()
    await w.fake.settle()
    return handled


async def test_reminder_automatic_move_and_forfeit(world: World) -> None:
    w = world
    clock = await with_clock(w)
    handle = await w.alice.slash(
        w.channel, "play castles-besieged", dealer=DEALER_BOB, time_control="daily:1"
    )
    lobby = handle.response_message
    assert lobby is not None and "1 day per move" in lobby.text()
    await w.bob.click(lobby, "Join")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    table = await w.table()
    assert table.time_control == "daily:1" and table.deadline is not None
    message = w.table_message(table)
    assert "it's your turn (due <t:" in (message.content or "")  # Alice moves first

    dms_before = len(w.alice.dms())
    clock.advance(hours=19, minutes=12)  # 80 % of a day
    assert await sweep(w) == 1
    reminders = w.alice.dms()[dms_before:]
    assert len(reminders) == 1 and "is due <t:" in reminders[0].text()
    assert await sweep(w) == 0  # once per move

    clock.advance(hours=5)  # past the deadline: castles plays a draw for Alice
    assert await sweep(w) == 1
    notices = [
        m.text() for m in w.fake.channel_messages(w.channel) if "ran out of time" in m.text()
    ]
    assert (
        len(notices) == 1 and "automatic move" in notices[0] and "1 more missed move" in notices[0]
    )
    assert ").." not in notices[0] and "pile)." in notices[0]  # one full stop, not two
    table = await w.table_by_id(table.id)
    assert table.ply == 1 and table.status == "running"

    await w.bob.click(w.table_message(table), "Draw (37 left)")  # Bob plays in time
    await w.fake.settle()
    clock.advance(days=1, seconds=1)  # Alice misses again: she forfeits
    assert await sweep(w) == 1
    table = await w.table_by_id(table.id)
    assert table.status == "over" and table.result is not None
    assert [table.seats[s] for s in table.result.winners] == [w.bob.id]
    notices = [
        m.text() for m in w.fake.channel_messages(w.channel) if m.text().endswith("and forfeits.")
    ]
    assert notices == [
        f"⏰ <@{w.alice.id}> missed 2 moves in a row at table #{table.id} and forfeits."
    ]
    assert "Result" in w.table_message(table).text()
    # The end is a new message to every player, not only an edit nobody is notified of.
    for player in (w.alice, w.bob):
        ends = [m.text() for m in player.dms() if m.text().startswith("🏁")]
        assert len(ends) == 1 and f"table #{table.id}" in ends[0]


async def test_a_lobby_nobody_starts_closes_itself(world: World) -> None:
    w = world
    clock = await with_clock(w)
    handle = await w.alice.slash(w.channel, "play castles-besieged")
    lobby = handle.response_message
    assert lobby is not None
    clock.advance(hours=25)
    assert await sweep(w) == 1
    assert "table closed" in w.fake.latest(lobby).text()
    assert any("nobody started it" in m.text() for m in w.fake.channel_messages(w.channel))
    again = await w.bob.slash(w.channel, "play castles-besieged")
    assert not again.ephemeral  # the channel is free


async def test_a_restart_after_downtime_shifts_deadlines(world: World) -> None:
    w = world
    clock = await with_clock(w)
    handle = await w.alice.slash(
        w.channel, "play castles-besieged", dealer=DEALER_BOB, time_control="live:10"
    )
    assert handle.response_message is not None
    await w.bob.click(handle.response_message, "Join")
    await w.alice.click(w.fake.latest(handle.response_message), "Start")
    await w.fake.settle()
    table = await w.table()
    await sweep(w)  # the sweeper's last heartbeat before the bot goes down
    clock.advance(hours=3)  # down far longer than the move's ten minutes
    await w.restart_bot()
    assert await sweep(w) == 0  # nobody loses on time for the downtime
    moved = await w.table_by_id(table.id)
    assert moved.deadline is not None and table.deadline is not None
    assert datetime.fromisoformat(moved.deadline) > datetime.fromisoformat(table.deadline)
    assert moved.ply == 0


async def test_turns_lists_every_server_most_urgent_first(world: World) -> None:
    w = world
    clock = await with_clock(w)
    other = w.fake.add_guild("Another Keep")
    await w.restart_bot()  # the bot now sits in both servers
    store = w.running.store
    relaxed = await store.create_table(
        guild_id=w.guild.id,
        channel_id=w.channel.id,
        game="castles",
        host_id=w.bob.id,
        options={"dealer": 1},
        seats=(w.alice.id, w.bob.id),  # Bob deals: Alice moves first
        start=True,
    )
    urgent = await store.create_table(
        guild_id=other.id,
        channel_id=other.add_text_channel("keep").id,
        game="castles",
        host_id=w.bob.id,
        options={"dealer": 1},
        seats=(w.alice.id, w.bob.id),
        start=True,
        time_control="live:10",
    )
    clock.advance(minutes=1)
    handle = await w.alice.slash(w.channel, "siege turns")
    answer = handle.response_message
    assert answer is not None and handle.ephemeral
    lines = [line for line in answer.text().splitlines() if "table #" in line]
    assert len(lines) == 2
    assert f"table #{urgent.id} in Another Keep" in lines[0]
    assert f"table #{relaxed.id} in {w.guild.name}" in lines[1]
    assert "due <t:" in lines[0] and "no clock" in lines[1]
    handle = await w.bob.slash(w.channel, "siege turns")
    assert handle.response_message is not None
    assert "No game is waiting for your move." in handle.response_message.text()


async def test_quiet_hours_delay_the_reminder_and_the_digest_comes_once_a_day(
    world: World,
) -> None:
    w = world
    clock = await with_clock(w)
    clock.now = datetime(2026, 11, 25, 2, 0, tzinfo=UTC)  # 11:00 in Tokyo
    handle = await w.alice.slash(
        w.channel, "siege settings", timezone="Asia/Tokyo", quiet_hours="0-9", digest=True
    )
    assert "Asia/Tokyo" in refusal(handle) and "00:00–09:00" in refusal(handle)
    bad = await w.alice.slash(w.channel, "siege settings", timezone="Mars/Olympus")
    assert "not a time zone" in refusal(bad)
    handle = await w.alice.slash(
        w.channel, "play castles-besieged", dealer=DEALER_BOB, time_control="daily:1"
    )
    assert handle.response_message is not None
    await w.bob.click(handle.response_message, "Join")
    await w.alice.click(w.fake.latest(handle.response_message), "Start")
    await w.fake.settle()

    def reminders() -> int:
        return len([m for m in w.alice.dms() if "is due" in m.text()])

    # 80 % of the day is 21:12 UTC: 06:12 in Tokyo, inside Alice's quiet hours.
    clock.now = datetime(2026, 11, 25, 21, 30, tzinfo=UTC)
    await sweep(w)
    assert reminders() == 0  # held back
    clock.now = datetime(2026, 11, 26, 0, 5, tzinfo=UTC)  # 09:05 in Tokyo; deadline 02:00
    await sweep(w)
    assert reminders() == 1
    digests = [m for m in w.alice.dms() if "daily digest" in m.text()]
    assert len(digests) == 1 and "Castles Besieged" in digests[0].text()  # 9:00 local
    await sweep(w)
    assert len([m for m in w.alice.dms() if "daily digest" in m.text()]) == 1  # once a day
    table = await w.table()
    assert table.ply == 0 and table.status == "running"  # quiet hours never move deadlines


def refusal(handle: object) -> str:
    message = handle.response_message  # type: ignore[attr-defined]
    assert message is not None
    return str(message.content)


async def test_vacation_command(world: World) -> None:
    w = world
    await with_clock(w)
    handle = await w.alice.slash(w.channel, "siege vacation", days=3)
    assert "3 days off" in refusal(handle) and "11 vacation days left" in refusal(handle)
    handle = await w.alice.slash(w.channel, "siege vacation", days=12)
    assert "11 vacation days left this month" in refusal(handle)
