"""Tournaments, on the database thread: entrants, rounds and their matches, each match a table.

A tournament is one ``tournaments`` row (its ``version`` bumped by every change of state), one
``tournament_entrants`` row per player and one ``tournament_matches`` row per pairing (or table
of a table event), which points at the table its game is played at. Every change of state is
one write transaction that reads the row under the write lock and acts only on what it finds:

- a game's end writes its match's points in the transaction that ends the game
  (:func:`record_game`, called from :func:`storage.results.record`), at most once;
- a round advances (:func:`advance`) only if every match of the round is over and the round is
  still the one read, so two results arriving at once pair the next round once;
- a match gets its table (:func:`seat`) only while it has none.

The pairings themselves are :mod:`engine.tournament`'s; :class:`storage.tournament_store.
Tournaments` is the store's side of all this (what the front ends await).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from engine import get_game
from engine.rules import Result
from engine.tournament import points_of
from engine.tournament.plan import LEAST_PLAYERS, next_round, planned_rounds
from engine.tournament.robin import MOST_PLAYERS
from storage import clock, records, tables
from storage.database import Connection
from storage.shards import Shards
from storage.shards import condition as shard_condition
from storage.tournament_records import (
    MatchRecord,
    TournamentPlan,
    TournamentRecord,
    load,
    matches,
    of_guild,
    of_table,
    require,
)

#: The rating a player without a rated game of the game is seeded by (the boards' newcomer).
NEWCOMER_RATING = 1500.0
#: The most players any tournament takes.
MOST_ENTRANTS = 64


@dataclass(frozen=True)
class Advance:
    """What a push on a tournament did: ``started`` (round 1 made), ``cancelled`` (too few
    players), ``round`` (the next round made), ``over`` (the last round was played)."""

    tournament: TournamentRecord
    what: str
    matches: tuple[MatchRecord, ...] = ()


# -- creating and joining ----------------------------------------------------------------------


def create(conn: Connection, plan: TournamentPlan, moment: datetime) -> TournamentRecord:
    """A new tournament, open for entrants until its start time."""
    fmt, rounds, max_players = plan.fmt, plan.rounds, plan.max_players
    engine = get_game(plan.game)
    if engine.min_seats > 2 or engine.max_seats < 2:
        raise records.TableError(f"{engine.title} cannot be played in a tournament.")
    two_seats = engine.max_seats == 2
    if two_seats == (fmt == "tables"):
        wanted = "Swiss or a round robin" if two_seats else "a table event"
        raise records.TableError(f"{engine.title} tournaments are {wanted}.")
    if clock.per_move(plan.time_control) is None:
        raise records.TableError(
            "A tournament needs a clock (live or daily): it cannot wait for a move forever."
        )
    if plan.starts_at <= moment:
        raise records.TableError("The start time has passed; give one in the future.")
    least = LEAST_PLAYERS[fmt]
    most = MOST_PLAYERS if fmt in ("robin", "double_robin") else MOST_ENTRANTS
    if not least <= max_players <= most:
        raise records.TableError(f"This format takes {least} to {most} players.")
    if fmt == "swiss" and not (rounds is not None and 1 <= rounds <= 15):
        raise records.TableError("A Swiss tournament needs 1 to 15 rounds.")
    now = clock.stamp(moment)
    cur = conn.execute(
        "INSERT INTO tournaments (guild_id, channel_id, host_id, game, format, rounds,"
        " time_control, starts_at, max_players, rated, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            plan.guild_id,
            plan.channel_id,
            plan.host_id,
            plan.game,
            fmt,
            rounds if fmt == "swiss" else None,
            plan.time_control,
            clock.stamp(plan.starts_at),
            max_players,
            int(plan.rated),
            now,
            now,
        ),
    )
    assert cur.lastrowid is not None
    return require(conn, cur.lastrowid)


def join(conn: Connection, tid: int, user_id: int, moment: datetime) -> TournamentRecord:
    tournament = require(conn, tid)
    if tournament.status != "open":
        raise records.TableError("This tournament has started: entries are closed.")
    if tournament.has(user_id):
        raise records.TableError("You are in this tournament already.")
    if len(tournament.entrants) >= tournament.max_players:
        raise records.TableError("This tournament is full.")
    conn.execute(
        "INSERT INTO tournament_entrants (tournament_id, user_id, rating, joined_at)"
        " VALUES (?, ?, ?, ?)",
        (tid, user_id, _rating(conn, tournament, user_id), clock.stamp(moment)),
    )
    return _bump(conn, tid, moment)


def leave(
    conn: Connection, tid: int, user_id: int, moment: datetime
) -> tuple[TournamentRecord, list[int]]:
    """Leave before the start (the entry goes), or withdraw after it: paired no more. Returns
    the tournament and the tables where the player's game is still on (the caller resigns them
    in the same transaction)."""
    tournament = require(conn, tid)
    if not tournament.has(user_id) or user_id in tournament.withdrawn:
        raise records.TableError("You are not in this tournament.")
    if tournament.status == "open":
        conn.execute(
            "DELETE FROM tournament_entrants WHERE tournament_id = ? AND user_id = ?",
            (tid, user_id),
        )
        return _bump(conn, tid, moment), []
    if tournament.status != "running":
        raise records.TableError("This tournament is over.")
    conn.execute(
        "UPDATE tournament_entrants SET withdrawn_at = ? WHERE tournament_id = ? AND user_id = ?",
        (clock.stamp(moment), tid, user_id),
    )
    resigned = []
    for match in matches(conn, tid):
        if match.points is not None or user_id not in match.players:
            continue
        if match.table_id is None:  # paired, its table not yet opened: a two-player match is
            if len(match.players) == 2:  # forfeited now, so no table opens for a withdrawn player
                other = 1 - match.players.index(user_id)
                conn.execute(
                    "UPDATE tournament_matches SET points = ?, reason = 'forfeit'"
                    " WHERE id = ? AND points IS NULL AND table_id IS NULL",
                    (json.dumps(list(points_of((other,), 2))), match.id),
                )
            continue
        table = records.require(conn, match.table_id)
        if table.status == "running" and table.engine.is_playing(
            table.running_state(), table.seats.index(user_id)
        ):
            resigned.append(table.id)
    return _bump(conn, tid, moment), resigned


def withdrawals_of(conn: Connection, guild_id: int | None, user_id: int) -> list[int]:
    """The tournaments a member is in and still plays, of one server (they left it) or, with
    ``guild_id`` None, of every server (they asked to be forgotten)."""
    where = "" if guild_id is None else " AND t.guild_id = ?"
    rows = conn.execute(
        "SELECT t.id FROM tournaments AS t JOIN tournament_entrants AS e"
        " ON e.tournament_id = t.id WHERE e.user_id = ? AND e.withdrawn_at IS NULL"
        f" AND t.status IN ('open', 'running'){where}",
        (user_id,) if guild_id is None else (user_id, guild_id),
    ).fetchall()
    return [int(row[0]) for row in rows]


# -- rounds ------------------------------------------------------------------------------------


def advance(conn: Connection, tid: int, moment: datetime) -> Advance | None:
    """Push the tournament on if it is due: start it (or cancel it, too few players) once its
    start time has come; make the next round once every match of this one is over; end it after
    the last. ``None``: nothing was due (another push did it, or games are being played)."""
    tournament = require(conn, tid)
    now = clock.stamp(moment)
    if tournament.status == "open":
        if tournament.starts_at > now:
            return None
        least = LEAST_PLAYERS[tournament.format]
        if len(tournament.entrants) < least:
            reason = f"only {len(tournament.entrants)} of the {least} players it needs had joined"
            _set(conn, tid, moment, status="cancelled", ended_reason=reason)
            return Advance(require(conn, tid), "cancelled")
        rounds = planned_rounds(tournament.format, len(tournament.entrants), tournament.rounds or 0)
        _set(conn, tid, moment, status="running", rounds=rounds)
        tournament = require(conn, tid)
    elif tournament.status != "running":
        return None
    played = matches(conn, tid)
    if any(m.points is None for m in played if m.round == tournament.round):
        return None
    what = "started" if tournament.round == 0 else "round"
    while True:  # a round decided before it is played (forfeits only) is passed at once
        made = next_round(
            tournament.format,
            tournament.seeds,
            [m.match for m in played],
            tournament.round + 1,
            rounds=tournament.rounds,
            size=tournament.table_size,
            withdrawn=tournament.withdrawn,
        )
        if not made:
            early = tournament.rounds is not None and tournament.round < tournament.rounds
            why = "no pairing was left that would not repeat a game" if early else None
            _set(conn, tid, moment, status="over", ended_reason=why)
            return Advance(require(conn, tid), "over")
        round_no = tournament.round + 1
        for board, match in enumerate(made, start=1):
            how = None if match.points is None else ("bye" if match.is_bye else "forfeit")
            cur = conn.execute(
                "INSERT INTO tournament_matches (tournament_id, round, board, points, reason)"
                " VALUES (?, ?, ?, ?, ?)",
                (
                    tid,
                    round_no,
                    board,
                    None if match.points is None else json.dumps(list(match.points)),
                    how,
                ),
            )
            assert cur.lastrowid is not None
            conn.executemany(
                "INSERT INTO tournament_match_seats (match_id, seat, user_id) VALUES (?, ?, ?)",
                [(cur.lastrowid, n, player) for n, player in enumerate(match.players)],
            )
        _set(conn, tid, moment, round=round_no)
        tournament = require(conn, tid)
        played = matches(conn, tid)
        current = tuple(m for m in played if m.round == round_no)
        if any(m.points is None for m in current):
            return Advance(tournament, what, current)


def seat(
    conn: Connection, match_id: int, thread_id: int, seed: int, moment: datetime
) -> records.TableRecord | None:
    """Open the table of a match in its thread, the game started and its players seated in the
    match's order; ``None`` if the match has a table already (or needs none)."""
    row = conn.execute(
        "SELECT tournament_id FROM tournament_matches WHERE id = ? AND table_id IS NULL"
        " AND points IS NULL",
        (match_id,),
    ).fetchone()
    if row is None:
        return None
    tournament = require(conn, int(row[0]))
    match = next(m for m in matches(conn, tournament.id) if m.id == match_id)
    engine = get_game(tournament.game)
    table = tables.new_table(
        conn,
        guild_id=tournament.guild_id,
        channel_id=thread_id,
        game=tournament.game,
        options={o.name: o.default for o in engine.options},
        seed=seed,
        host_id=tournament.host_id,
        seats=match.players,
        start=True,
        moment=moment,
        seating="join",
        time_control=tournament.time_control,
    )
    conn.execute(
        "UPDATE tournament_matches SET table_id = ?, thread_id = ? WHERE id = ?",
        (table.id, thread_id, match_id),
    )
    return table


def record_game(conn: Connection, table_id: int, seats: tuple[int, ...], result: Result) -> bool:
    """A game has ended (inside its last action's transaction): if it is a tournament's, its
    match takes the points. Returns whether the game may be rated (an unrated tournament's
    games are not)."""
    row = conn.execute(
        "SELECT m.id, m.tournament_id, t.rated FROM tournament_matches AS m JOIN tournaments"
        " AS t ON t.id = m.tournament_id WHERE m.table_id = ? AND m.points IS NULL",
        (table_id,),
    ).fetchone()
    if row is None:
        return True
    points = points_of(result.winners, len(seats))
    conn.execute(
        "UPDATE tournament_matches SET points = ?, scores = ?, reason = ?"
        " WHERE id = ? AND points IS NULL",
        (
            json.dumps(list(points)),
            None if result.scores is None else json.dumps(list(result.scores)),
            result.reason,
            int(row[0]),
        ),
    )
    conn.execute("UPDATE tournaments SET version = version + 1 WHERE id = ?", (int(row[1]),))
    return bool(row[2])


def settle_cancelled(conn: Connection, tid: int) -> int:
    """A match whose table was cancelled (by a moderator) scores nothing for either player,
    so the round is not stuck waiting for it. Returns how many were settled."""
    rows = conn.execute(
        "SELECT m.id, (SELECT count(*) FROM tournament_match_seats AS s WHERE s.match_id = m.id)"
        " FROM tournament_matches AS m JOIN tables AS t"
        " ON t.id = m.table_id WHERE m.tournament_id = ? AND m.points IS NULL"
        " AND t.status = 'cancelled'",
        (tid,),
    ).fetchall()
    for match_id, seats in rows:
        nothing = [0.0] * int(seats)
        conn.execute(
            "UPDATE tournament_matches SET points = ?, reason = 'cancelled' WHERE id = ?",
            (json.dumps(nothing), int(match_id)),
        )
    if rows:
        conn.execute("UPDATE tournaments SET version = version + 1 WHERE id = ?", (tid,))
    return len(rows)


def due(conn: Connection, moment: datetime, limit: int, shards: Shards | None = None) -> list[int]:
    """The tournaments a push may have work for: open ones whose start has come, running ones
    whose round is over, has a match without its table, or a cancelled table (with ``shards``:
    only those of the servers on those shards)."""
    now = clock.stamp(moment)
    mine, params = shard_condition(shards, "t.guild_id")
    rows = conn.execute(
        "SELECT t.id FROM tournaments AS t WHERE ((t.status = 'open' AND t.starts_at <= ?)"
        " OR (t.status = 'running' AND (NOT EXISTS (SELECT 1 FROM tournament_matches AS m"
        " WHERE m.tournament_id = t.id AND m.round = t.round AND m.points IS NULL)"
        " OR EXISTS (SELECT 1 FROM tournament_matches AS m LEFT JOIN tables AS g"
        " ON g.id = m.table_id WHERE m.tournament_id = t.id AND m.round = t.round"
        " AND m.points IS NULL AND (m.table_id IS NULL OR g.status = 'cancelled')))))"
        f"{mine} ORDER BY t.id LIMIT ?",
        (now, *params, limit),
    ).fetchall()
    return [int(row[0]) for row in rows]


# -- small writes ------------------------------------------------------------------------------


def set_message(conn: Connection, tid: int, column: str, message_id: int | None) -> None:
    if column not in ("message_id", "standings_message_id"):
        raise ValueError(column)
    conn.execute(f"UPDATE tournaments SET {column} = ? WHERE id = ?", (message_id, tid))


def _set(conn: Connection, tid: int, moment: datetime, **values: object) -> None:
    columns = "".join(f"{name} = ?, " for name in values)
    conn.execute(
        f"UPDATE tournaments SET {columns}version = version + 1, updated_at = ? WHERE id = ?",
        (*values.values(), clock.stamp(moment), tid),
    )


def _bump(conn: Connection, tid: int, moment: datetime) -> TournamentRecord:
    _set(conn, tid, moment)
    return require(conn, tid)


def _rating(conn: Connection, tournament: TournamentRecord, user_id: int) -> float:
    row = conn.execute(
        "SELECT rating FROM ratings WHERE guild_id = ? AND game = ? AND season = 'all'"
        " AND user_id = ?",
        (tournament.guild_id, tournament.game, user_id),
    ).fetchone()
    return NEWCOMER_RATING if row is None else float(row[0])


__all__ = [
    "Advance",
    "MatchRecord",
    "TournamentRecord",
    "advance",
    "create",
    "due",
    "join",
    "leave",
    "load",
    "matches",
    "of_guild",
    "of_table",
    "record_game",
    "require",
    "seat",
    "settle_cancelled",
    "withdrawals_of",
]
