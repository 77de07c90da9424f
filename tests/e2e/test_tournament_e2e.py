"""Tournaments end to end, through the fake Discord, on a clock the test moves by hand: a
moderator creates one, players join with the buttons, the sweeper starts it at its time, each
game opens in a thread of the channel with its players told by DM, results come back by
themselves (a resignation, a game lost on time), players leave (the tournament, the server),
rounds advance, the standings message follows, and the end posts the podium and crosstable. A
restart in the middle of a round loses nothing; too few players cancel with a sentence to
everyone."""

from __future__ import annotations

import asyncio

import discord
import pytest

from storage import TableRecord
from storage.tournament_records import MatchRecord, TournamentRecord
from tests.e2e.test_clock_e2e import sweep, with_clock
from tests.e2e.world import World
from tests.fakecord import FakeMessage
from tests.fakecord.world import FakeUser

pytestmark = pytest.mark.e2e


def more_players(w: World, count: int) -> list[FakeUser]:
    users = []
    for n in range(count):
        user = w.fake.add_user(f"player{n}")
        w.guild.add_member(user)
        users.append(user)
    return users


async def create(w: World, **options: object) -> FakeMessage:
    handle = await w.mod.slash(w.channel, "siege tournament create", **options)
    message = handle.response_message
    assert message is not None and not handle.ephemeral, "no tournament message"
    return message


async def join(w: World, message: FakeMessage, users: list[FakeUser]) -> FakeMessage:
    for user in users:
        answer = await user.click(w.fake.latest(message), "Join")
        assert not answer.ephemeral  # the message itself is edited
    await w.fake.settle()
    return w.fake.latest(message)


async def the_tournament(w: World) -> TournamentRecord:
    found = await w.running.store.tournaments_of(w.guild.id)
    assert found, "no tournament stored"
    return found[0]


async def current(w: World, tid: int) -> list[tuple[MatchRecord, TableRecord]]:
    """The current round's matches that are being played, with their tables."""
    t = await w.running.store.get_tournament(tid)
    assert t is not None
    pairs = []
    for match in await w.running.store.tournament_matches(tid):
        if match.round == t.round and match.table_id is not None and match.points is None:
            pairs.append((match, await w.table_by_id(match.table_id)))
    return pairs


def user_of(w: World, users: list[FakeUser], user_id: int) -> FakeUser:
    return next(u for u in users if u.id == user_id)


async def resign(w: World, user: FakeUser, table: TableRecord) -> None:
    """``user`` resigns at ``table`` with the buttons, as a player would."""
    thread = w.fake.channels[table.channel_id]
    await user.click(w.fake.latest(w.table_message(table)), "Resign")
    confirm = [m for m in user.view(thread) if "Resign this game?" in m.text()][-1]
    await user.click(confirm, "Yes, resign")
    await w.fake.settle()


async def play_round(w: World, tid: int, users: list[FakeUser]) -> None:
    """Every game of the round ends: the second seat resigns."""
    for _, table in await current(w, tid):
        await resign(w, user_of(w, users, table.seats[1]), table)


async def test_a_four_player_round_robin(world: World) -> None:
    w = world
    clock = await with_clock(w)
    players = [w.alice, w.bob, w.carol, *more_players(w, 1)]
    message = await create(
        w, game="castles", time_control="live:5", start="1h", format="robin", rated=False
    )
    assert [b.label for b in message.buttons()] == ["Join", "Leave"]
    assert "Tournament #" in message.text() and "round robin" in message.text()
    message = await join(w, message, players)
    assert "Players (4/10)" in message.text()
    again = await w.alice.click(message, "Join")
    assert again.ephemeral and "already" in (again.response_message or message).text()
    refused = await w.alice.slash(
        w.channel, "siege tournament create", game="castles", time_control="live:5", start="1h"
    )
    assert refused.ephemeral and "Manage Server" in (refused.response_message or message).text()

    clock.advance(hours=1)
    await sweep(w)
    t = await the_tournament(w)
    assert t.status == "running" and t.round == 1
    assert [b.label for b in w.fake.latest(message).buttons()] == ["Withdraw"]  # entries closed
    games = await current(w, t.id)
    assert len(games) == 2
    for match, table in games:
        thread = w.fake.channels[table.channel_id]
        assert thread.parent_id == w.channel.id and "round 1" in thread.name
        assert table.seats == match.players and table.time_control == "live:5"
        for player in match.players:
            told = [m.text() for m in user_of(w, players, player).dms() if "Round 1" in m.text()]
            assert told and f"<#{thread.id}>" in told[-1]
    for round_no in (1, 2, 3):
        await play_round(w, t.id, players)
        t = await the_tournament(w)
        assert t.round == min(round_no + 1, 3)
    t = await the_tournament(w)
    assert t.status == "over"
    text = w.public_text()
    assert "is over" in text and "🥇" in text and "Crosstable of tournament" in text
    standings = w.fake.messages[t.standings_message_id or 0]
    assert "Final" in standings.text()
    matches = await w.running.store.tournament_matches(t.id)
    assert len({frozenset(m.players) for m in matches}) == 6
    # The second seat resigned every game, so each first seat of the Berger table won.
    assert all(m.points == (1.0, 0.0) and m.reason == "resigned" for m in matches)
    wins = {p.id: sum(m.players[0] == p.id for m in matches) for p in players}
    best = max(wins, key=lambda p: wins[p])
    assert f"1. <@{best}>" in standings.text()


async def test_a_channel_without_thread_rights_is_told_once_and_the_round_waits(
    world: World,
) -> None:
    w = world
    clock = await with_clock(w)
    allowed = w.fake.bot_permissions
    w.fake.bot_permissions = allowed & ~discord.Permissions(create_public_threads=True).value
    message = await create(w, game="castles", time_control="live:5", start="1h", rounds=1)
    await join(w, message, [w.alice, w.bob, w.carol])
    clock.advance(hours=1)
    await sweep(w)
    await sweep(w)
    warning = "cannot open its games' threads here"
    assert w.public_text().count(warning) == 1
    t = await the_tournament(w)
    assert t.status == "running" and await current(w, t.id) == []
    w.fake.bot_permissions = allowed
    await sweep(w)
    assert len(await current(w, t.id)) == 1


async def test_too_few_players_cancel_with_a_sentence_to_everyone(world: World) -> None:
    w = world
    clock = await with_clock(w)
    message = await create(w, game="king", time_control="daily:1", start="2h", rounds=2)
    await join(w, message, [w.alice])
    clock.advance(hours=2)
    await sweep(w)
    t = await the_tournament(w)
    assert t.status == "cancelled"
    sentence = "is cancelled: only 1 of the 3 players it needs had joined."
    assert sentence in w.public_text()
    assert any(sentence in m.text() for m in w.alice.dms())
    assert w.fake.latest(message).buttons() == []


async def test_a_six_player_swiss_with_a_bye_a_timeout_and_leavers(world: World) -> None:
    """Six join, one leaves before the start (five: a bye each round), one forfeits on time in
    round 1, one withdraws with Leave during round 2 (their game is lost), one leaves the server
    between rounds; the bot is restarted in the middle of round 2; the podium comes after
    round 3."""
    w = world
    clock = await with_clock(w)
    players = [w.alice, w.bob, w.carol, *more_players(w, 3)]
    message = await create(w, game="castles", time_control="live:5", start="30m", rounds=3)
    message = await join(w, message, players)
    quitter = players[5]
    await quitter.click(w.fake.latest(message), "Leave")
    players = players[:5]
    clock.advance(minutes=30)
    await sweep(w)
    t = await the_tournament(w)
    assert t.status == "running" and len(t.entrants) == 5
    matches = await w.running.store.tournament_matches(t.id)
    byes = [m for m in matches if m.reason == "bye"]
    assert len(byes) == 1
    bye_player = byes[0].players[0]
    assert any("bye in round 1" in m.text() for m in user_of(w, players, bye_player).dms())

    # Round 1: one game ends by resignation, the other on time (nobody moves: the clock plays
    # the safe move once, then forfeits the player to move).
    games = await current(w, t.id)
    assert len(games) == 2
    (_, resigned), (_, timed_out) = games
    await resign(w, user_of(w, players, resigned.seats[1]), resigned)
    for _ in range(4):
        clock.advance(minutes=6)
        await sweep(w)
        if (await w.table_by_id(timed_out.id)).status == "over":
            break
    lost = await w.table_by_id(timed_out.id)
    assert lost.status == "over" and lost.result is not None
    assert "forfeits" in w.public_text(w.fake.channels[lost.channel_id])
    t = await the_tournament(w)
    assert t.round == 2
    timed_match = next(
        m for m in await w.running.store.tournament_matches(t.id) if m.table_id == lost.id
    )
    assert timed_match.points is not None and sorted(timed_match.points) == [0.0, 1.0]

    # Round 2: one player withdraws with Leave (their game is resigned); then a restart.
    games = await current(w, t.id)
    assert len(games) == 2
    leaver_id = games[0][1].seats[0]
    leaver = user_of(w, players, leaver_id)
    said = await leaver.click(w.fake.latest(message), "Withdraw")
    assert said.ephemeral and "withdrew" in (said.response_message or message).text()
    await w.fake.settle()
    assert (await w.table_by_id(games[0][1].id)).status == "over"
    await w.restart_bot()
    still = await current(w, t.id)
    assert [table.id for _, table in still] == [games[1][1].id]
    # Meanwhile a player whose game is over leaves the server: withdrawn before round 3.
    busy = {leaver_id, *still[0][1].seats}
    gone_id = next(e.user_id for e in t.entrants if e.user_id not in busy)
    del w.guild.members[gone_id]
    await resign(w, user_of(w, players, still[0][1].seats[1]), still[0][1])
    t = await the_tournament(w)
    assert t.round == 3 and t.withdrawn == {leaver_id, gone_id}
    assert f"<@{gone_id}> left the server" in w.public_text()
    games = await current(w, t.id)
    assert len(games) == 1
    assert not {leaver_id, gone_id} & set(games[0][1].seats)
    await play_round(w, t.id, players)
    t = await the_tournament(w)
    assert t.status == "over"
    text = w.public_text()
    assert "🥇" in text and "🥈" in text and "🥉" in text
    assert f"<@{leaver_id}> withdrew" in text
    matches = await w.running.store.tournament_matches(t.id)
    pairs = [frozenset(m.players) for m in matches if len(m.players) == 2]
    assert len(pairs) == len(set(pairs))
    byes = [m.players[0] for m in matches if m.reason == "bye"]
    assert len(byes) == len(set(byes))


async def test_races_between_results_close_a_round_once(world: World) -> None:
    w = world
    clock = await with_clock(w)
    players = [w.alice, w.bob, w.carol, *more_players(w, 1)]
    message = await create(w, game="knights", time_control="live:10", start="5m", rounds=2)
    await join(w, message, players)
    clock.advance(minutes=5)
    await sweep(w)
    t = await the_tournament(w)
    games = await current(w, t.id)
    confirms = []
    for _, table in games:
        user = user_of(w, players, table.seats[1])
        await user.click(w.fake.latest(w.table_message(table)), "Resign")
        thread = w.fake.channels[table.channel_id]
        confirms.append(
            (user, [m for m in user.view(thread) if "Resign this game?" in m.text()][-1])
        )
    await asyncio.gather(
        *(user.click(c, "Yes, resign", settle_first=False) for user, c in confirms),
        sweep(w),
    )
    await w.fake.settle()
    await sweep(w)
    matches = await w.running.store.tournament_matches(t.id)
    assert [m.round for m in matches] == [1, 1, 2, 2]
    threads = [c for c in w.fake.channels.values() if c.parent_id == w.channel.id]
    assert len(threads) == 4  # one per game, none opened twice


async def test_a_tower_poker_table_event(world: World) -> None:
    w = world
    clock = await with_clock(w)
    players = [w.alice, w.bob, w.carol]
    message = await create(w, game="towers", time_control="live:5", start="10m")
    assert "table event" in message.text()
    await join(w, message, players)
    clock.advance(minutes=10)
    await sweep(w)
    t = await the_tournament(w)
    games = await current(w, t.id)
    assert len(games) == 1 and len(games[0][1].seats) == 3
    table = games[0][1]
    winner = table.seats[0]
    for seat in table.seats[1:]:  # everyone but the first leaves the table: they win
        await resign(w, user_of(w, players, seat), await w.table_by_id(table.id))
    t = await the_tournament(w)
    assert t.status == "over"
    assert f"🥇 <@{winner}>" in w.public_text()


async def test_the_moderator_role_creates_tournaments_where_the_server_allows(
    world: World,
) -> None:
    """Creating a tournament takes Manage Server or the role the server named for moderators
    (`/siege-admin moderator`), and follows the server's games and channels like any table."""
    w = world
    options = {"game": "castles", "time_control": "live:5", "start": "1h"}
    refused = await w.carol.slash(w.channel, "siege tournament create", **options)
    assert refused.ephemeral and "moderator role" in (refused.response_message.text())  # type: ignore[union-attr]
    referees = w.guild.add_role("Referees")
    w.guild.member(w.carol).roles.append(referees)  # type: ignore[union-attr]
    await w.mod.slash(w.channel, "siege-admin moderator", role=referees)
    await w.mod.slash(w.channel, "siege-admin games", game="castles", offered=False)
    off = await w.carol.slash(w.channel, "siege tournament create", **options)
    assert off.ephemeral and "Castles Besieged is not offered on this server." in (
        off.response_message.text()  # type: ignore[union-attr]
    )
    await w.mod.slash(w.channel, "siege-admin games", game="castles", offered=True)
    made = await w.carol.slash(w.channel, "siege tournament create", **options)
    assert not made.ephemeral and "Tournament #" in made.response_message.text()  # type: ignore[union-attr]
