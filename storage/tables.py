"""The table-level writes every concern of ``storage/`` needs: a new table, its seats, a
lobby's change, a cancellation, the next move's deadline, and one logged action through the rules
(:func:`perform`). They run on the database thread, inside the caller's transaction.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from engine import chance, get_game
from engine.rules import JSON, Action, Event, Game, State, dumps
from storage import clock, fairness, players, seek_hooks
from storage.database import Connection
from storage.records import (
    FORFEIT_AFTER,
    Ending,
    Seating,
    TableExists,
    TableRecord,
    is_drawn_claim,
    is_resignation,
    open_table_in,
    require,
    why_resigned,
)

#: The events of a seat leaving the game at the table (a two-player game's resignation ends it;
#: a tower poker seat leaves).
QUITTING = ("resigned", "left")


def perform(
    game: Game, state: State, seat: int, action: Action, seed: int, ply: int
) -> tuple[State, list[Event]]:
    """One logged action: the table-level resignation, or a move through the game's rules with
    the chance of the table's scheme (engine/chance.py). A forfeit on the clock or a claim is a
    resignation whose events say why (``why``), so the log tells them from a resignation; a
    claimed draw ends the game drawn by the game's rules (``Game.claim_draw``)."""
    if is_drawn_claim(action):
        after, events = game.claim_draw(state, seat)
        return chance.keep(state, after), events
    if is_resignation(action):
        after, events = game.resign(state, seat)
        why = why_resigned(action)
        if why != "resigned":
            events = [
                {**e, "why": why} if e.get("seat") == seat and e["type"] in QUITTING else e
                for e in events
            ]
        return chance.keep(state, after), events
    return chance.advance(game, state, seat, action, seed, ply)


def new_table(
    conn: Connection,
    *,
    guild_id: int | None,
    channel_id: int,
    game: str,
    options: dict[str, JSON],
    seed: int,
    host_id: int,
    seats: tuple[int, ...],
    start: bool,
    moment: datetime,
    rematch_of: int | None = None,
    seating: Seating = "join",
    time_control: str = clock.NONE,
    forfeit_after: int = FORFEIT_AFTER,
) -> TableRecord:
    """Insert a lobby, or a started game, in a channel that has no open table. A lobby waits
    :data:`clock.LOBBY_WAIT` for its host to start it; a started game's first move has its
    clock's time. Its players' open seeks close (storage/seek_hooks.py)."""
    existing = open_table_in(conn, channel_id)
    if existing is not None:
        raise TableExists(existing)
    engine = get_game(game)
    clock.per_move(time_control)  # refuses an unknown control before anything is written
    state = chance.deal(engine, len(seats), options, seed) if start else None
    now = clock.stamp(moment)
    if start and state is not None:
        first = engine.to_act(state)
        deadline, remind_at = move_deadlines(
            conn, time_control, moment, seats[first if first is not None else 0]
        )
    else:
        deadline, remind_at = clock.stamp(moment + clock.LOBBY_WAIT), None
    cur = conn.execute(
        "INSERT INTO tables (guild_id, channel_id, game, options, seed, host_id,"
        " status, state, created_at, updated_at, rematch_of, seating, time_control, deadline,"
        " remind_at, forfeit_after, salt) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
        " ?, ?)",
        (
            guild_id,
            channel_id,
            game,
            json.dumps(options),
            seed,
            host_id,
            "running" if start else "lobby",
            None if state is None else dumps(state),
            now,
            now,
            rematch_of,
            seating,
            time_control,
            deadline,
            remind_at,
            forfeit_after,
            fairness.new_salt(),
        ),
    )
    assert cur.lastrowid is not None
    write_seats(conn, cur.lastrowid, seats)
    seek_hooks.seated(conn, game, seats, now)  # its players' open seeks are withdrawn
    return require(conn, cur.lastrowid)


def write_seats(conn: Connection, table_id: int, seats: Sequence[int]) -> None:
    conn.execute("DELETE FROM seats WHERE table_id = ?", (table_id,))
    conn.executemany(
        "INSERT INTO seats (table_id, seat, user_id) VALUES (?, ?, ?)",
        [(table_id, n, user_id) for n, user_id in enumerate(seats)],
    )


def update_lobby(
    conn: Connection, table: TableRecord, seats: tuple[int, ...], now: str
) -> TableRecord:
    conn.execute(
        "UPDATE tables SET version = version + 1, updated_at = ? WHERE id = ?", (now, table.id)
    )
    write_seats(conn, table.id, seats)
    return replace(table, seats=seats, version=table.version + 1, updated_at=now)


def move_deadlines(
    conn: Connection, control: str, moment: datetime, user_id: int
) -> tuple[str | None, str | None]:
    """The deadline and reminder of ``user_id``'s next move; a daily clock waits out their
    vacation first. Without a clock there is no deadline, and the "reminder" is the moment the
    others may claim the game if the seat to act is still away (:data:`clock.CLAIM_AFTER`)."""
    if control == clock.NONE:
        return None, clock.stamp(moment + clock.CLAIM_AFTER)
    if not control.startswith("daily:"):
        return clock.deadlines(control, moment)
    return clock.deadlines(control, moment + players.vacation_left(conn, user_id, moment))


def cancel(
    conn: Connection,
    table_id: int,
    now: str,
    ending: Ending | None = None,
    ended_by: int | None = None,
) -> None:
    """Close a table unrated: a lobby (no ``ending``), or a started game aborted, ended by
    agreement or cancelled by a moderator (``ending``, ``ended_by``)."""
    conn.execute(
        "UPDATE tables SET status = 'cancelled', version = version + 1, updated_at = ?,"
        " deadline = NULL, remind_at = NULL, ending = ?, ended_by = ? WHERE id = ?",
        (now, ending, ended_by, table_id),
    )


def cancelled(
    table: TableRecord, now: str, ending: Ending | None = None, ended_by: int | None = None
) -> TableRecord:
    """``table`` as :func:`cancel` leaves it (without reading it again)."""
    return replace(
        table,
        status="cancelled",
        version=table.version + 1,
        updated_at=now,
        deadline=None,
        remind_at=None,
        ending=ending,
        ended_by=ended_by,
    )


__all__ = [
    "cancel",
    "cancelled",
    "move_deadlines",
    "new_table",
    "perform",
    "update_lobby",
    "write_seats",
]
