"""A player's data on request and servers the bot left (issue 28), on both backends: every table
of the schema is declared, the export holds every row naming the player, forgetting them keeps
everyone else's boards (and their recompute) exactly, and a server's data goes after its window."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from storage import Store, TableRecord, computers
from storage.kept import KEPT, undeclared
from storage.to_postgres import TABLES
from storage.tournament_records import TournamentPlan
from tests.fakeclock import Clock

GUILD, OTHER_GUILD = 77, 78
ALICE, BOB, CAROL, DAVE = 987_654_321_001, 987_654_321_002, 987_654_321_003, 987_654_321_004
channels = iter(range(50_000, 1_000_000))


@pytest.fixture
def clock() -> Clock:
    return Clock(datetime(2026, 11, 25, 12, 0, tzinfo=UTC))


async def play(store: Store, winner: int, loser: int, guild: int = GUILD) -> TableRecord:
    """A castles game that ``loser`` resigns."""
    table = await store.create_table(
        guild_id=guild,
        channel_id=next(channels),
        game="castles",
        host_id=winner,
        seats=(winner, loser),
        start=True,
        seed=7,
    )
    over, _ = await store.resign(table.id, loser)
    return over


async def running(store: Store, *seats: int, guild: int = GUILD) -> TableRecord:
    return await store.create_table(
        guild_id=guild,
        channel_id=next(channels),
        game="castles",
        host_id=seats[0],
        seats=seats,
        start=True,
        seed=11,
    )


async def boards(store: Store, guild: int = GUILD) -> dict[int, tuple[object, ...]]:
    """Every line of the server's all-time castles board, by player (everything but the rank,
    which a tie with the former player could move: ties are ordered by id)."""
    lines = await store.leaderboard(guild, "castles", limit=1000)
    return {s.user_id: (s.rating, s.sigma, s.games, s.wins, s.losses, s.draws) for s in lines}


async def mentions(store: Store, user_id: int) -> list[str]:
    """Every table whose rows hold ``user_id`` anywhere, in any column (as a number or text)."""
    found = []
    for table in await store.schema_columns():
        rows = await store._db.read(
            lambda conn, t=table: conn.execute(f"SELECT * FROM {t}").fetchall()
        )
        if any(str(user_id) in str(value) for row in rows for value in row):
            found.append(table)
    return found


async def test_every_table_and_user_column_is_declared(store: Store) -> None:
    schema = await store.schema_columns()
    assert undeclared(schema) == []
    # A new table naming users fails until it is declared (and so exported and forgotten).
    with_new = {**schema, "reminders": ("id", "user_id", "at")}
    assert undeclared(with_new) == ["table reminders is not declared in storage/kept.py"]
    changed = {**schema, "guild_secrets": (*schema["guild_secrets"], "rotated_by")}
    assert undeclared(changed) == ["guild_secrets.rotated_by names users but is not declared"]
    # A hall moved to PostgreSQL takes every table along (pending server deletions included).
    assert set(schema) - {"siege_schema"} == set(TABLES)


async def test_export_holds_every_row_naming_the_player(store: Store) -> None:
    await store.set_dm_mode(ALICE, "off")
    await store.remember_names({ALICE: "Alice", BOB: "Bob"})
    over = await play(store, BOB, ALICE)  # Alice's resignation is an action of hers
    game = await running(store, BOB, ALICE)
    await store.set_dm_panel(game.id, ALICE, 900, 901)
    await store.challenge(
        guild_id=GUILD,
        channel_id=next(channels),
        game="castles",
        challenger_id=CAROL,
        challenged_id=ALICE,
    )
    await store.start_daily(
        guild_id=GUILD,
        channel_id=next(channels),
        user_id=ALICE,
        difficulty="normal",
        day="2026-11-25",
    )
    await store.post_seek(guild_id=GUILD, channel_id=next(channels), game="king", author_id=ALICE)
    await store.change_server_settings(GUILD, ALICE, threads=False)  # Alice manages the server
    agreed = await running(store, BOB, ALICE)  # both move, then Bob offers to cancel it
    for _ in range(2):
        seat = agreed.engine.to_act(agreed.running_state())
        assert seat is not None
        agreed, _ = await store.act(agreed.id, agreed.seats[seat], {"type": "draw"}, agreed.ply)
    await store.offer_cancel(agreed.id, BOB)
    tournament = await store.create_tournament(
        TournamentPlan(
            guild_id=GUILD,
            channel_id=next(channels),
            host_id=CAROL,
            game="castles",
            fmt="swiss",
            rounds=1,
            time_control="live:5",
            starts_at=store.now() + timedelta(hours=1),
            max_players=4,
            rated=True,
        )
    )
    for user in (ALICE, BOB, CAROL):
        await store.join_tournament(tournament.id, user)
    later = store.now() + timedelta(hours=2)
    store._clock = lambda: later  # the start time has come: round 1 is paired
    assert await store.push_tournament(tournament.id) is not None
    data = await store.export_player(ALICE)
    json.dumps(data)  # the file is JSON
    for table, kept in KEPT.items():
        if kept.mine is not None:
            assert data[table], f"the export has no {table} row of the player"
        assert not set(kept.hidden) & {k for row in data.get(table, []) for k in row}
    assert {row["id"] for row in data["tables"]} >= {over.id, game.id}
    assert all(row["user_id"] == ALICE for row in data["seats"])
    assert data["players"] == [data["players"][0]] and data["players"][0]["name"] == "Alice"
    # Nothing about a player who never played.
    assert all(rows == [] for rows in (await store.export_player(DAVE)).values())


async def test_forgetting_keeps_everyone_elses_boards(db_path: Path | str, clock: Clock) -> None:
    store = await Store.open(db_path, clock=clock)
    await store.migrate()
    try:
        for winner, loser in [(ALICE, BOB), (BOB, CAROL), (ALICE, CAROL), (CAROL, ALICE)]:
            await play(store, winner, loser)
            clock.advance(minutes=5)
        await play(store, ALICE, BOB)  # a repeat pairing the same day: it counts for less
        await play(store, BOB, DAVE, guild=OTHER_GUILD)
        # Running in the other server: Alice resigns it when forgotten (so this server's boards
        # must come out exactly as they were).
        game = await running(store, BOB, ALICE, guild=OTHER_GUILD)
        lobby = await store.create_table(
            guild_id=GUILD, channel_id=next(channels), game="castles", host_id=ALICE
        )
        joined = await store.create_table(
            guild_id=GUILD, channel_id=next(channels), game="castles", host_id=CAROL
        )
        await store.join(joined.id, ALICE)
        await store.set_dm_panel(game.id, ALICE, 900, 901)
        await store.set_settings(ALICE, (await store.settings(ALICE)).__class__(digest=True))
        await store.change_server_settings(GUILD, ALICE, forfeit_after=3)  # she manages it
        offer = await store.challenge(
            guild_id=GUILD,
            channel_id=next(channels),
            game="castles",
            challenger_id=ALICE,
            challenged_id=CAROL,
        )
        seek = await store.post_seek(
            guild_id=GUILD, channel_id=next(channels), game="king", author_id=ALICE
        )
        await store.set_seek_message(seek.id, 4242)
        before = await boards(store)

        forgotten = await store.forget_player(ALICE)

        former = forgotten.former_id
        assert computers.is_former(former) and computers.label(former) == "former player"
        assert [t.id for t, _ in forgotten.resigned] == [game.id]
        ended = await store.get_table(game.id)
        assert ended is not None and ended.status == "over" and ended.seats == (BOB, former)
        assert [o.id for o in forgotten.withdrawn] == [offer.id]
        assert forgotten.panels == ((900, 901),)
        assert forgotten.seeks == ((seek.channel_id, 4242),)
        withdrawn = await store.get_seek(seek.id)
        assert withdrawn is not None and withdrawn.status == "withdrawn"
        assert withdrawn.author_id == former
        assert {t.id for t in forgotten.changed} == {lobby.id, joined.id}
        cancelled = await store.get_table(lobby.id)
        assert cancelled is not None and cancelled.status == "cancelled"
        left = await store.get_table(joined.id)
        assert left is not None and left.status == "lobby" and left.seats == (CAROL,)
        # Everyone else's board is what it was, and the former player's line is Alice's.
        after = await boards(store)
        assert ALICE not in after and after.pop(former) == before.pop(ALICE)
        assert after == before
        await store.recompute_ratings(GUILD)
        recomputed = await boards(store)
        assert recomputed.pop(former) is not None and recomputed == before
        assert set(await boards(store, OTHER_GUILD)) == {BOB, DAVE, former}
        # Nothing names Alice any more, and that holds after a restart.
        assert all(rows == [] for rows in (await store.export_player(ALICE)).values())
        assert await mentions(store, ALICE) == []
        assert await store.get_offer(offer.id) is None
        assert await store.dm_panel(game.id, ALICE) is None
        assert (await store.settings(ALICE)).digest is False
    finally:
        await store.close()
    reopened = await Store.open(db_path, clock=clock)
    try:
        assert all(rows == [] for rows in (await reopened.export_player(ALICE)).values())
        assert await mentions(reopened, ALICE) == []
        history = await reopened.recent_results(GUILD, former, None, 20)
        assert len(history) == 4
        assert {uid: line for uid, line in (await boards(reopened)).items() if uid != former} == (
            before
        )
    finally:
        await reopened.close()


async def test_forgetting_the_same_id_twice_makes_two_former_players(store: Store) -> None:
    await play(store, ALICE, BOB)
    first = (await store.forget_player(ALICE)).former_id
    await play(store, ALICE, BOB)
    second = (await store.forget_player(ALICE)).former_id
    assert first != second and computers.is_former(first) and computers.is_former(second)


async def test_a_server_left_is_deleted_after_its_window(db_path: Path | str, clock: Clock) -> None:
    store = await Store.open(db_path, clock=clock)
    await store.migrate()
    try:
        await play(store, ALICE, BOB)
        kept = await play(store, ALICE, BOB, guild=OTHER_GUILD)
        game = await running(store, ALICE, BOB)
        await store.set_dm_panel(game.id, BOB, 900, 901)
        await store.start_daily(
            guild_id=GUILD,
            channel_id=next(channels),
            user_id=CAROL,
            difficulty="normal",
            day="2026-11-25",
        )
        await store.challenge(
            guild_id=GUILD,
            channel_id=next(channels),
            game="castles",
            challenger_id=ALICE,
            challenged_id=CAROL,
        )
        window = timedelta(days=30)
        left = await store.guild_left(GUILD, window)
        assert {t.id for t in left.closed} >= {game.id}
        assert all(t.status == "cancelled" for t in left.closed)
        assert await store.departure(GUILD) == left.delete_at

        clock.advance(days=29)
        assert await store.delete_departed() == []
        assert await store.guild_returned(GUILD) is True  # back within the window
        clock.advance(days=2)
        assert await store.delete_departed() == []
        assert await boards(store) != {}

        await store.guild_left(GUILD, window)
        clock.advance(days=30)
        assert await store.delete_departed() == [GUILD]
        assert await store.delete_departed() == []
        assert await store.guild_returned(GUILD) is False
    finally:
        await store.close()
    reopened = await Store.open(db_path, clock=clock)
    try:
        assert await boards(reopened) == {}
        assert await reopened.get_table(game.id) is None
        data = await reopened.export_player(ALICE)
        assert [row["id"] for row in data["tables"]] == [kept.id]  # the other server's
        assert await boards(reopened, OTHER_GUILD) != {}
        assert (await reopened.export_player(CAROL))["daily_attempts"] == []
    finally:
        await reopened.close()


async def test_forgotten_at_a_table_that_plays_on(store: Store) -> None:
    """Tower poker goes on without a seat that resigns: the others play on beside a former
    player, whose seat never comes to act."""
    table = await store.create_table(
        guild_id=GUILD,
        channel_id=next(channels),
        game="towers",
        host_id=ALICE,
        seats=(ALICE, BOB, CAROL),
        start=True,
        seed=5,
    )
    forgotten = await store.forget_player(ALICE)
    former = forgotten.former_id
    ((resigned, _events),) = forgotten.resigned
    assert resigned.status == "running" and resigned.seats == (former, BOB, CAROL)
    assert [t.id for t in forgotten.changed] == [table.id]
    game = resigned.engine
    for _ in range(200):  # play on (the first legal action each time) until the end
        now = await store.get_table(table.id)
        assert now is not None
        if now.status != "running":
            break
        state = now.running_state()
        seat = game.to_act(state)
        assert seat is not None and now.seats[seat] != former
        action = game.legal_actions(state, seat)[0]
        await store.act(table.id, now.seats[seat], action, now.ply)
    finished = await store.get_table(table.id)
    assert finished is not None and finished.status == "over"
    assert await mentions(store, ALICE) == []
