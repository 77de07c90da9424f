"""Open challenges end to end, through the fake Discord and on both backends: a seek posted with
``/siege seek`` is accepted with one click and the game opens in the channel with both seated;
two members clicking Accept at once get one game and one sentence; its author cannot accept it
and may withdraw it; it expires after a day (a clock the test moves, and the sweeper); it is
withdrawn when its author starts or joins another game; a game for more players opens as a
lobby; in a channel that has a table meanwhile, the game opens in a thread of the seek;
``/siege seeks`` lists the open ones; and a seek posted before a restart still works."""

from __future__ import annotations

import asyncio

import discord
import pytest

from tests.e2e.test_clock_e2e import sweep, with_clock
from tests.e2e.world import World
from tests.fakecord import FakeMessage
from tests.fakecord.world import FakeUser

pytestmark = pytest.mark.e2e


async def post_seek(w: World, user: FakeUser, game: str, **options: object) -> FakeMessage:
    handle = await user.slash(w.channel, "siege seek", game=game, **options)
    message = handle.response_message
    assert message is not None and not handle.ephemeral, handle
    assert [b.label for b in message.buttons()] == ["Accept", "Withdraw"]
    await w.fake.settle()
    return message


async def refused(handle_or_click: object) -> str:
    handle = handle_or_click
    assert handle.ephemeral and handle.response_message is not None  # type: ignore[attr-defined]
    return str(handle.response_message.text())  # type: ignore[attr-defined]


async def test_a_seek_accepted_with_one_click_opens_the_game(world: World) -> None:
    w = world
    seek = await post_seek(w, w.alice, "king", time_control="daily:2")
    text = seek.text()
    assert f"<@{w.alice.id}> (no rating yet) seeks a game of **Siege the King**" in text
    assert "2 days per move" in text and "rated" in text and "Expires <t:" in text
    assert "both of you seated" in text

    own = await w.alice.click(seek, "Accept")
    assert "your own seek" in await refused(own)
    assert await w.running.store.open_table_in(w.channel.id) is None

    await w.bob.click(seek, "Accept")
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running" and table.seats == (w.alice.id, w.bob.id)
    assert table.game == "king" and table.time_control == "daily:2"
    message = w.table_message(table)
    assert message.channel_id == w.channel.id and message.id > seek.id
    assert "it's your turn" in (message.content or "")
    assert any("Siege the King" in m.text() for m in w.alice.dms())  # her panel, as usual
    assert any("Siege the King" in m.text() for m in w.bob.dms())
    answered = w.fake.latest(seek)
    assert answered.buttons() == [] and f"<@{w.bob.id}> accepted" in answered.text()
    assert f"table #{table.id}" in answered.text()

    late = await w.carol.click(seek, "Accept")  # the old snapshot: stale, and says so
    assert "accepted this seek first" in await refused(late)
    listed = await w.carol.slash(w.channel, "siege seeks")
    assert "Nobody is seeking" in await refused(listed)


async def test_two_members_accept_at_once_and_one_gets_the_seat(world: World) -> None:
    w = world
    seek = await post_seek(w, w.alice, "castles")
    clicks = await asyncio.gather(
        w.bob.click(seek, "Accept", settle_first=False),
        w.carol.click(seek, "Accept", settle_first=False),
    )
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running" and table.seats[0] == w.alice.id
    winner = table.seats[1]
    assert winner in (w.bob.id, w.carol.id)
    loser = next(c for c, u in zip(clicks, (w.bob, w.carol), strict=True) if u.id != winner)
    assert "accepted this seek first" in await refused(loser)
    tables = await w.running.store._db.scalar("SELECT count(*) FROM tables")
    assert tables == 1
    assert f"<@{winner}> accepted" in w.fake.latest(seek).text()


async def test_its_author_withdraws_it(world: World) -> None:
    w = world
    seek = await post_seek(w, w.alice, "castles", rated=False)
    assert "casual (not rated)" in seek.text()
    other = await w.bob.click(seek, "Withdraw")
    assert "Only the member who posted this seek" in await refused(other)
    await w.alice.click(seek, "Withdraw")
    await w.fake.settle()
    shown = w.fake.latest(seek)
    assert shown.buttons() == [] and "withdrew their seek" in shown.text()
    late = await w.bob.click(seek, "Accept")
    assert "withdrew this seek" in await refused(late)
    assert await w.running.store.open_table_in(w.channel.id) is None


async def test_a_seek_expires_after_a_day(world: World) -> None:
    w = world
    clock = await with_clock(w)
    seek = await post_seek(w, w.alice, "king")
    clock.advance(hours=23, minutes=59)
    assert await sweep(w) == 0
    assert w.fake.latest(seek).buttons() != []
    clock.advance(minutes=1)
    assert await sweep(w) == 1
    shown = w.fake.latest(seek)
    assert shown.buttons() == [] and "expired: nobody accepted it in a day" in shown.text()
    late = await w.bob.click(seek, "Accept")
    assert "expired" in await refused(late)
    assert await sweep(w) == 0
    assert await w.running.store.open_table_in(w.channel.id) is None


async def test_starting_or_joining_another_game_withdraws_it(world: World) -> None:
    w = world
    side = w.guild.add_text_channel("side")
    alice_seek = await post_seek(w, w.alice, "king")
    bob_seek = await post_seek(w, w.bob, "castles")
    listed = await w.carol.slash(w.channel, "siege seeks")
    text = await refused(listed)
    assert "Siege the King" in text and "Castles Besieged" in text
    assert (
        f"/channels/{w.guild.id}/{w.channel.id}/{alice_seek.id}"
        in (
            listed.response_message.embeds[0]["description"]  # type: ignore[union-attr]
        )
    )

    # Alice opens a table elsewhere: her seek is withdrawn at once, with an edit.
    lobby = (await w.alice.slash(side, "play siege-tower-poker")).response_message
    assert lobby is not None
    await w.fake.settle()
    shown = w.fake.latest(alice_seek)
    assert shown.buttons() == [] and "started or joined another game" in shown.text()
    late = await w.carol.click(alice_seek, "Accept")
    assert "started or joined another game" in await refused(late)
    assert w.fake.latest(bob_seek).buttons() != []

    # Bob joins her lobby: his is withdrawn too.
    await w.bob.click(lobby, "Join")
    await w.fake.settle()
    shown = w.fake.latest(bob_seek)
    assert shown.buttons() == [] and "started or joined another game" in shown.text()
    text = await refused(await w.carol.slash(w.channel, "siege seeks"))
    assert "Nobody is seeking" in text

    # Carol accepts a challenge: hers goes too.
    carol_seek = await post_seek(w, w.carol, "castles")
    await w.mod.slash(w.channel, "siege challenge", user=w.carol, game="king")
    await w.fake.settle()
    invite = [m for m in w.carol.dms() if "challenges you" in m.text()][-1]
    await w.carol.click(invite, "Accept")
    await w.fake.settle()
    assert (await w.table()).seats == (w.mod.id, w.carol.id)
    shown = w.fake.latest(carol_seek)
    assert shown.buttons() == [] and "started or joined another game" in shown.text()


async def test_a_game_for_more_players_opens_a_lobby(world: World) -> None:
    w = world
    seek = await post_seek(w, w.alice, "towers")
    assert "more players may join it (2 to 7)" in seek.text()
    await w.bob.click(seek, "Accept")
    await w.fake.settle()
    table = await w.table()
    assert table.status == "lobby" and table.seats == (w.alice.id, w.bob.id)
    assert "more players may join it until" in w.fake.latest(seek).text()
    told = [m.text() for m in w.alice.dms() if "accepted your seek" in m.text()]
    assert len(told) == 1 and "press **Start** there" in told[0]  # she starts it: told so
    lobby = w.table_message(table)
    await w.carol.click(lobby, "Join")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running" and set(table.seats) == {w.alice.id, w.bob.id, w.carol.id}


async def test_a_rating_range_keeps_others_out(world: World) -> None:
    w = world
    # Bob wins two rated games against Carol: his rating moves away from a newcomer's 1500.
    for _ in range(2):
        seek = await post_seek(w, w.carol, "king")
        await w.bob.click(seek, "Accept")
        await w.fake.settle()
        table = await w.table()
        await w.running.store.resign(table.id, w.carol.id)
        await w.fake.settle()
    bob = await w.running.store.standing(w.guild.id, "king", w.bob.id)
    assert bob is not None and abs(bob.rating - 1500) > 60
    seek = await post_seek(w, w.alice, "king", rating_range=50)
    assert "for ratings 1450–1550" in seek.text()
    kept_out = await w.bob.click(seek, "Accept")
    text = await refused(kept_out)
    assert "for players rated 1450–1550" in text and f"you are rated {round(bob.rating)}" in text
    await w.mod.click(seek, "Accept")  # a newcomer, like Alice
    await w.fake.settle()
    assert (await w.table()).seats == (w.alice.id, w.mod.id)


async def test_a_deleted_channel_takes_its_seeks(world: World) -> None:
    w = world
    side = w.guild.add_text_channel("side")
    handle = await w.alice.slash(side, "siege seek", game="king")
    assert handle.response_message is not None
    await w.fake.settle()
    w.fake.delete_channel(side)
    await w.fake.settle()
    assert "Nobody is seeking" in await refused(await w.bob.slash(w.channel, "siege seeks"))
    await post_seek(w, w.alice, "king")  # her seek of that game is gone: a new one may go up


async def test_refusals_of_the_command(world: World) -> None:
    w = world
    guide = await w.carol.slash(w.channel, "siege help")
    assert "`/siege seek`" in await refused(guide) and "`/siege seeks`" in await refused(guide)
    solo = await w.alice.slash(w.channel, "siege seek", game="kurth")
    assert "Pick a game for two or more from the list" in await refused(solo)
    clockless = await w.alice.slash(w.channel, "siege seek", game="king", time_control="hourly")
    assert "Pick a time control" in await refused(clockless)
    await post_seek(w, w.alice, "king")
    again = await w.alice.slash(w.channel, "siege seek", game="king")
    assert "already seek a game of Siege the King" in await refused(again)


async def test_in_a_busy_channel_the_game_opens_in_a_thread(world: World) -> None:
    w = world
    seek = await post_seek(w, w.alice, "king")
    lobby = (await w.carol.slash(w.channel, "play castles-besieged")).response_message
    assert lobby is not None
    allowed = w.fake.bot_permissions  # first without Create Public Threads: a sentence
    w.fake.bot_permissions = allowed & ~discord.Permissions(create_public_threads=True).value
    refused_click = await w.bob.click(seek, "Accept")
    assert "may not start a thread here" in await refused(refused_click)
    assert (await w.running.store.open_seeks(w.guild.id))[0].message_id == seek.id
    assert seek.id not in w.fake.channels
    w.fake.bot_permissions = allowed
    await w.bob.click(seek, "Accept")
    await w.fake.settle()
    thread = w.fake.channels[seek.id]  # a thread started from a message has its id
    assert thread.parent_id == w.channel.id
    table = await w.table(thread)
    assert table.status == "running" and table.seats == (w.alice.id, w.bob.id)
    assert w.table_message(table).channel_id == thread.id
    assert f"in its thread <#{thread.id}>" in w.fake.latest(seek).text()
    assert (await w.table()).game == "castles"  # Carol's lobby is still the channel's


async def test_a_seek_survives_a_restart(world: World) -> None:
    w = world
    seek = await post_seek(w, w.alice, "castles")
    gone = await post_seek(w, w.carol, "king")
    await w.carol.click(gone, "Withdraw")
    await w.restart_bot()
    late = await w.bob.click(gone, "Accept")  # an old message, after the restart
    assert "withdrew this seek" in await refused(late)
    await w.bob.click(seek, "Accept")
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running" and table.seats == (w.alice.id, w.bob.id)
    assert w.fake.latest(seek).buttons() == []


async def test_the_listing_leaves_out_seeks_in_channels_the_viewer_cannot_see(
    world: World,
) -> None:
    w = world
    staff = w.guild.add_text_channel("staff", visible_to=[w.alice, w.bob])
    await w.fake.settle()
    handle = await w.alice.slash(staff, "siege seek", game="castles")
    assert handle.response_message is not None and not handle.ephemeral, handle
    await post_seek(w, w.bob, "king")  # in the channel everyone sees
    await w.fake.settle()

    # Carol may not see #staff: Alice's seek there is not hers to know of.
    seen_by_carol = await refused(await w.carol.slash(w.channel, "siege seeks"))
    assert "Siege the King" in seen_by_carol and f"<@{w.bob.id}>" in seen_by_carol
    assert "Castles Besieged" not in seen_by_carol and f"<#{staff.id}>" not in seen_by_carol
    assert f"<@{w.alice.id}>" not in seen_by_carol
    # Bob may: both are listed, wherever he asks.
    seen_by_bob = await refused(await w.bob.slash(w.channel, "siege seeks"))
    assert "Castles Besieged" in seen_by_bob and f"<#{staff.id}>" in seen_by_bob
    assert "Siege the King" in seen_by_bob
    seen_in_staff = await refused(await w.alice.slash(staff, "siege seeks"))
    assert "Castles Besieged" in seen_in_staff and "Siege the King" in seen_in_staff
