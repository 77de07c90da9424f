"""Offers end to end, through the fake Discord: a challenge accepted from a DM opens the table in
the channel with both seated; a challenge declined (by a player without DMs, asked in the
channel) tells the challenger; a rematch starts only once the other player accepts; an offer
nobody answers expires with the sweeper on a clock the test moves by hand."""

from __future__ import annotations

import pytest

from tests.e2e.test_castles_e2e import DEALER_BOB
from tests.e2e.test_clock_e2e import sweep, with_clock
from tests.e2e.world import World
from tests.fakecord import FakeMessage
from tests.fakecord.world import FakeUser

pytestmark = pytest.mark.e2e


def offer_dm(w: World, user: FakeUser) -> FakeMessage:
    dms = [m for m in user.dms() if "challenges you" in m.text()]
    assert dms, "no challenge in the DMs"
    return dms[-1]


async def test_a_challenge_accepted_from_a_dm(world: World) -> None:
    w = world
    handle = await w.alice.slash(
        w.channel, "siege challenge", user=w.bob, game="king", time_control="daily:2"
    )
    said = handle.response_message
    assert said is not None and not handle.ephemeral
    assert "challenged" in said.text() and "by DM" in said.text()
    await w.fake.settle()
    invite = offer_dm(w, w.bob)
    assert [b.label for b in invite.buttons()] == ["Accept", "Decline"]
    await w.bob.click(invite, "Accept")
    await w.fake.settle()
    table = await w.table()
    assert table.status == "running" and table.seats == (w.alice.id, w.bob.id)
    assert table.game == "king" and table.time_control == "daily:2"
    message = w.table_message(table)
    assert message.channel_id == w.channel.id and "it's your turn" in (message.content or "")
    answered = w.fake.latest(invite)
    assert "Accepted" in answered.text() and answered.buttons() == []
    # The button is stale now and says so.
    again = await w.bob.click(invite, "Accept")
    assert again.ephemeral and again.response_message is not None
    assert "already accepted" in again.response_message.text()


async def test_a_challenge_declined_in_the_channel(world: World) -> None:
    w = world
    w.bob.dms_closed = True
    handle = await w.alice.slash(w.channel, "siege challenge", user=w.bob, game="castles")
    asked = handle.response_message
    assert asked is not None and not handle.ephemeral
    assert asked.text().startswith(f"<@{w.bob.id}>") and "challenges you" in asked.text()
    await w.bob.click(asked, "Decline")
    await w.fake.settle()
    assert "declined" in w.fake.latest(asked).text() and w.fake.latest(asked).buttons() == []
    told = [m.text() for m in w.alice.dms() if "declined" in m.text()]
    assert len(told) == 1 and f"<@{w.bob.id}>" in told[0]
    assert await w.running.store.open_table_in(w.channel.id) is None

    # Refusals, each with a sentence.
    for user, game, words in (
        (w.bob, "kurth", "Pick a two-player game from the list"),  # a solo game is not offered
        (w.alice, "castles", "challenge yourself"),
        (w.fake.bot_user, "castles", "Bots do not take challenges"),
    ):
        refused = await w.alice.slash(w.channel, "siege challenge", user=user, game=game)
        assert refused.ephemeral and refused.response_message is not None
        assert words in refused.response_message.text()
    await w.carol.slash(w.channel, "play castles-besieged")
    refused = await w.alice.slash(w.channel, "siege challenge", user=w.bob, game="castles")
    assert refused.response_message is not None and "open table" in refused.response_message.text()


async def test_a_rematch_is_an_offer_the_other_player_accepts(world: World) -> None:
    w = world
    handle = await w.alice.slash(w.channel, "play castles-besieged", dealer=DEALER_BOB)
    lobby = handle.response_message
    assert lobby is not None
    await w.bob.click(lobby, "Join")
    await w.alice.click(w.fake.latest(lobby), "Start")
    await w.fake.settle()
    table = await w.table()
    await w.alice.click(w.table_message(table), "Resign")
    await w.fake.settle()
    confirm = [m for m in w.alice.view(w.channel) if "Resign this game?" in m.text()][-1]
    await w.alice.click(confirm, "Yes, resign")
    await w.fake.settle()
    table = await w.table_by_id(table.id)
    assert table.status == "over"

    asked = await w.alice.click(w.table_message(table), "Rematch")
    offer = asked.response_message
    assert offer is not None and not asked.ephemeral
    assert f"<@{w.bob.id}>" in offer.text() and "every player has accepted" in offer.text()
    await w.fake.settle()
    assert await w.running.store.open_table_in(w.channel.id) is None  # not started yet
    carol = await w.carol.click(offer, "Accept")  # not her game
    assert carol.ephemeral and carol.response_message is not None
    assert "not for you" in carol.response_message.text()
    await w.bob.click(offer, "Accept")
    await w.fake.settle()
    rematch = await w.table()
    assert rematch.status == "running" and rematch.rematch_of == table.id
    assert rematch.seats == table.seats and rematch.options["dealer"] == 1  # Bob won: he deals
    assert rematch.message_id is not None
    assert "Accepted" in w.fake.latest(offer).text()


async def test_an_offer_nobody_answers_expires(world: World) -> None:
    w = world
    clock = await with_clock(w)
    await w.alice.slash(w.channel, "siege challenge", user=w.bob, game="castles")
    await w.fake.settle()
    invite = offer_dm(w, w.bob)
    clock.advance(hours=23)
    assert await sweep(w) == 0
    clock.advance(hours=1, seconds=1)
    assert await sweep(w) == 1
    notices = [m.text() for m in w.fake.channel_messages(w.channel) if "expired" in m.text()]
    assert len(notices) == 1 and f"<@{w.bob.id}> did not answer" in notices[0]
    assert w.fake.latest(invite).buttons() == []
    late = await w.bob.click(invite, "Accept")
    assert late.response_message is not None and "expired" in late.response_message.text()
    assert await sweep(w) == 0
    assert await w.running.store.open_table_in(w.channel.id) is None
