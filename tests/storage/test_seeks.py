"""Seeks in the store, on both backends: an accepted seek opens one started table with the author
first; two members accepting at once (through one store, and through two stores on the same
database, as two processes would) start exactly one game; a game for more players opens as a
lobby; the author taking a seat elsewhere supersedes their seeks in that transaction; a seek
expires with a moved clock; an unrated seek's game (and its rematch) is not rated; and each
refusal says why and changes nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from storage import Store, TableError
from storage.seeks import SeekRecord
from tests.fakeclock import Clock

ALICE, BOB, CAROL, DAVE = 1, 2, 3, 4
GUILD, CHANNEL, OTHER = 1, 10, 11


async def seek(store: Store, author: int = ALICE, game: str = "king", **kw: object) -> SeekRecord:
    return await store.post_seek(
        guild_id=GUILD, channel_id=kw.pop("channel", CHANNEL), game=game, author_id=author, **kw
    )  # type: ignore[arg-type]


async def count(store: Store, sql: str) -> int:
    return int(await store._db.scalar(sql))


async def test_an_accepted_seek_opens_one_started_table(timed: Store) -> None:
    posted = await seek(timed, time_control="daily:2")
    assert posted.status == "open" and posted.rated and posted.author_id == ALICE
    await timed.set_seek_message(posted.id, 555)
    assert [s.id for s in await timed.open_seeks(GUILD)] == [posted.id]
    outcome = await timed.accept_seek(posted.id, BOB)
    table = outcome.table
    assert outcome.seek.status == "accepted" and outcome.seek.accepted_by == BOB
    assert outcome.seek.table_id == table.id and outcome.seek.message_id == 555
    assert table.status == "running" and table.seats == (ALICE, BOB)
    assert table.game == "king" and table.time_control == "daily:2" and table.deadline
    assert table.channel_id == CHANNEL and table.host_id == ALICE
    assert await timed.open_seeks(GUILD) == []
    with pytest.raises(TableError, match="accepted this seek first"):
        await timed.accept_seek(posted.id, CAROL)
    assert await count(timed, "SELECT count(*) FROM tables") == 1


async def test_refusals_change_nothing(timed: Store) -> None:
    with pytest.raises(TableError, match="solo game"):
        await seek(timed, game="kurth")
    with pytest.raises(ValueError, match="unknown time control"):  # the command checks first
        await seek(timed, time_control="live:999")
    posted = await seek(timed)
    with pytest.raises(TableError, match="already seek a game of Siege the King"):
        await seek(timed, channel=OTHER)
    with pytest.raises(TableError, match="your own seek"):
        await timed.accept_seek(posted.id, ALICE)
    with pytest.raises(TableError, match="Only the member who posted"):
        await timed.withdraw_seek(posted.id, BOB)
    with pytest.raises(TableError, match="no longer exists"):
        await timed.accept_seek(posted.id + 100, BOB)
    assert (await timed.get_seek(posted.id)) == posted
    assert await count(timed, "SELECT count(*) FROM tables") == 0
    # A busy channel: its seek waits for the table to close, or opens in its own thread.
    await timed.create_table(guild_id=GUILD, channel_id=OTHER, game="castles", host_id=9)
    early = await seek(timed, author=CAROL, channel=OTHER, game="castles")
    with pytest.raises(TableError, match="accept again once it is closed"):
        await timed.accept_seek(early.id, BOB)
    assert (await timed.get_seek(early.id)) == early  # still open, nobody seated
    await timed.set_seek_message(early.id, 777)
    with pytest.raises(TableError, match="its channel or its own thread"):
        await timed.accept_seek(early.id, BOB, channel_id=778)
    table = (await timed.accept_seek(early.id, BOB, channel_id=777)).table
    assert table.channel_id == 777 and table.seats == (CAROL, BOB)


async def test_withdrawn_by_its_author(timed: Store) -> None:
    posted = await seek(timed)
    withdrawn = await timed.withdraw_seek(posted.id, ALICE)
    assert withdrawn.status == "withdrawn"
    with pytest.raises(TableError, match="withdrew this seek"):
        await timed.accept_seek(posted.id, BOB)
    with pytest.raises(TableError, match="withdrew"):
        await timed.withdraw_seek(posted.id, ALICE)
    assert await seek(timed)  # a new one may be posted now


async def test_concurrent_accepts_start_exactly_one_game(timed: Store) -> None:
    posted = await seek(timed)
    outcomes = await asyncio.gather(
        timed.accept_seek(posted.id, BOB),
        timed.accept_seek(posted.id, CAROL),
        return_exceptions=True,
    )
    won = [o for o in outcomes if not isinstance(o, BaseException)]
    lost = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(won) == 1 and len(lost) == 1
    assert isinstance(lost[0], TableError) and "accepted this seek first" in str(lost[0])
    assert await count(timed, "SELECT count(*) FROM tables") == 1
    assert won[0].table.seats == (ALICE, won[0].seek.accepted_by)


async def test_two_stores_racing_start_exactly_one_game(db_path: Path | str) -> None:
    """Two stores on one database (as two processes): each race has one winner."""
    first = await Store.open(db_path)
    await first.migrate()
    second = await Store.open(db_path)
    try:
        for round_ in range(6):
            posted = await first.post_seek(
                guild_id=GUILD, channel_id=100 + round_, game="castles", author_id=50 + round_
            )
            outcomes = await asyncio.gather(
                first.accept_seek(posted.id, BOB),
                second.accept_seek(posted.id, CAROL),
                return_exceptions=True,
            )
            won = [o for o in outcomes if not isinstance(o, BaseException)]
            lost = [o for o in outcomes if isinstance(o, BaseException)]
            assert len(won) == 1 and len(lost) == 1, outcomes
            assert isinstance(lost[0], TableError)
            assert "accepted this seek first" in str(lost[0])
            assert (
                await count(first, f"SELECT count(*) FROM tables WHERE channel_id = {100 + round_}")
                == 1
            )
    finally:
        await second.close()
        await first.close()


async def test_a_game_for_more_opens_a_lobby_both_seated(timed: Store) -> None:
    posted = await seek(timed, game="towers")
    outcome = await timed.accept_seek(posted.id, BOB)
    table = outcome.table
    assert table.status == "lobby" and table.seats == (ALICE, BOB) and table.host_id == ALICE
    table = await timed.join(table.id, CAROL)
    started = await timed.start(table.id, ALICE)
    assert started.status == "running" and len(started.seats) == 3


async def test_taking_a_seat_elsewhere_supersedes_a_seek(timed: Store) -> None:
    alice = await seek(timed)
    bob = await seek(timed, author=BOB, game="castles")
    carol = await seek(timed, author=CAROL, game="castles")
    # A solo game leaves a seek open.
    await timed.create_table(
        guild_id=GUILD, channel_id=OTHER, game="kurth", host_id=ALICE, seats=(ALICE,), start=True
    )
    assert (await timed.get_seek(alice.id)).status == "open"  # type: ignore[union-attr]
    # Opening a lobby is starting another game; joining one is joining another game.
    lobby = await timed.create_table(guild_id=GUILD, channel_id=20, game="towers", host_id=ALICE)
    assert (await timed.get_seek(alice.id)).status == "superseded"  # type: ignore[union-attr]
    await timed.join(lobby.id, BOB)
    assert (await timed.get_seek(bob.id)).status == "superseded"  # type: ignore[union-attr]
    assert (await timed.get_seek(carol.id)).status == "open"  # type: ignore[union-attr]
    with pytest.raises(TableError, match="started or joined another game"):
        await timed.accept_seek(alice.id, DAVE)
    # Their messages still show them open: claimed once, for the hall to edit.
    claimed = await timed.superseded_seeks((ALICE, CAROL))
    assert [s.id for s in claimed] == [alice.id]
    assert [s.id for s in await timed.superseded_seeks()] == [bob.id]
    assert await timed.superseded_seeks() == []
    assert await timed.superseded_seeks((BOB,)) == []


async def test_accepting_supersedes_both_players_other_seeks(timed: Store) -> None:
    alice_king = await seek(timed)
    alice_castles = await seek(timed, game="castles", channel=OTHER)
    bob_towers = await seek(timed, author=BOB, game="towers", channel=30)
    await timed.accept_seek(alice_king.id, BOB)
    assert (await timed.get_seek(alice_castles.id)).status == "superseded"  # type: ignore[union-attr]
    assert (await timed.get_seek(bob_towers.id)).status == "superseded"  # type: ignore[union-attr]
    assert (await timed.get_seek(alice_king.id)).status == "accepted"  # type: ignore[union-attr]
    assert {s.id for s in await timed.superseded_seeks((ALICE, BOB))} == {
        alice_castles.id,
        bob_towers.id,
    }


async def test_a_seek_expires_after_a_day(timed: Store, clock: Clock) -> None:
    posted = await seek(timed)
    clock.advance(hours=23, minutes=59)
    assert await timed.expire_seeks() == []
    clock.advance(minutes=1)
    with pytest.raises(TableError, match="expired"):  # due, though not swept yet
        await timed.accept_seek(posted.id, BOB)
    assert await timed.open_seeks(GUILD) == []
    expired = await timed.expire_seeks()
    assert [s.id for s in expired] == [posted.id] and expired[0].status == "expired"
    assert await timed.expire_seeks() == []
    with pytest.raises(TableError, match="expired"):
        await timed.accept_seek(posted.id, BOB)


async def test_an_unrated_seek_opens_an_unrated_game_and_rematch(timed: Store) -> None:
    casual = await seek(timed, rated=False)
    table = (await timed.accept_seek(casual.id, BOB)).table
    table, _ = await timed.resign(table.id, ALICE)
    rated = await seek(timed, author=CAROL, channel=OTHER, game="king")
    other = (await timed.accept_seek(rated.id, DAVE)).table
    other, _ = await timed.resign(other.id, CAROL)
    rematch = await timed.offer_rematch(table.id, BOB)
    again = (await timed.answer_offer(rematch.offer.id, ALICE, True)).table
    assert again is not None
    await timed.resign(again.id, BOB)
    rows = await timed._db.read(
        lambda conn: conn.execute("SELECT table_id, rated FROM results ORDER BY seq").fetchall()
    )
    assert [(int(r[0]), bool(r[1])) for r in rows] == [
        (table.id, False),
        (other.id, True),
        (again.id, False),
    ]
    assert await timed.standing(GUILD, "king", ALICE) is None
    assert await timed.standing(GUILD, "king", DAVE) is not None
