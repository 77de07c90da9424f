"""The records of the store and the reading of a table: what every concern of ``storage/``
shares. A table's row and its seats become a :class:`TableRecord`, a logged action an
:class:`ActionRecord`; a row this code cannot read raises :class:`CorruptTable`. The functions
here run on the database thread, inside the caller's transaction (or read).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from engine import get_game
from engine.rules import JSON, Action, Event, Game, Result, State, loads
from storage import clock
from storage.database import Connection

DmMode = Literal["on", "off", "closed"]
Seating = Literal["join", "random", "host_first", "host_second"]
Status = Literal["lobby", "running", "over", "cancelled"]
#: How a game ended, kept with the table and its result (migration 013): by the game's rules,
#: a resignation, a forfeit on the clock, a claim on an abandoned game, an abort before every
#: player moved, a cancel offer every player accepted, or a moderator's cancel.
Ending = Literal["rules", "resigned", "time", "claim", "aborted", "agreed", "moderator"]
Clock = Callable[[], datetime]


#: Missed deadlines before a seat forfeits, unless the table says otherwise.
FORFEIT_AFTER = 2


class TableError(Exception):
    """A table-level refusal (not a rule of the game) with a sentence a player understands."""


class StaleAction(TableError):
    """The action was aimed at a ply the table has moved past (a stale button or double click)."""


class TableExists(TableError):
    """The channel already has an open table."""

    def __init__(self, table: TableRecord) -> None:
        super().__init__("This channel already has an open table.")
        self.table = table


class CorruptTable(TableError):
    """A stored row that this code cannot read."""


class StoreBusy(TableError):
    """The database stayed locked by another program for longer than the busy timeout."""


BUSY = "The game database is busy right now; nothing changed. Try again in a moment."
DAMAGED = (
    "This table could not be read from the database (the file is damaged); an admin can "
    "cancel it, and the operator can run `python -m storage check`."
)


@dataclass(frozen=True)
class TableRecord:
    id: int
    guild_id: int | None
    channel_id: int
    game: str
    options: dict[str, JSON]
    seed: int
    host_id: int
    seats: tuple[int, ...]
    status: Status
    state: State | None
    ply: int
    version: int
    result: Result | None
    message_id: int | None
    rematch_of: int | None
    created_at: str
    updated_at: str
    seating: Seating = "join"
    ping_message_id: int | None = None
    time_control: str = clock.NONE
    deadline: str | None = None  # when the seat to act (or the lobby) runs out of time
    remind_at: str | None = None  # when to remind the seat to act (None once reminded)
    forfeit_after: int = FORFEIT_AFTER  # missed deadlines before a seat forfeits
    salt: str | None = None  # kept secret with the seed until the end (None: made before 012)
    ending: Ending | None = None  # how it ended (None: open, or closed before migration 013)
    ended_by: int | None = None  # who resigned, claimed, aborted, offered or cancelled it

    @property
    def engine(self) -> Game:
        return get_game(self.game)

    @property
    def is_open(self) -> bool:
        return self.status in ("lobby", "running")

    def seat_of(self, user_id: int) -> int | None:
        """The first seat this user holds (a solo game has one), or None."""
        try:
            return self.seats.index(user_id)
        except ValueError:
            return None

    def running_state(self) -> State:
        if self.state is None:
            raise TableError("This game has not started yet.")
        return self.state


@dataclass(frozen=True)
class Timeout:
    """What a missed deadline did: ``rung`` is ``lobby_expired``, ``auto_move`` (the game's safe
    move was played for the seat) or ``forfeit`` (the seat resigned by the clock)."""

    table: TableRecord
    events: list[Event]
    rung: str
    seat: int | None
    user_id: int | None
    misses: int
    #: The deadline that was missed (how late the sweeper came is measured from it).
    missed: str


@dataclass(frozen=True)
class ActionRecord:
    table_id: int
    ply: int
    seat: int
    user_id: int
    action: Action
    events: list[Event]
    created_at: str


@dataclass(frozen=True)
class DmTarget:
    """How a seated player is reached: their DM mode and their stored DM panel of a table."""

    mode: DmMode
    panel: tuple[int, int] | None  # (DM channel id, message id)


def dm_panel_key(table_id: int, user_id: int) -> tuple[str, int, int]:
    """The key of a DM panel's write, which waits for the writer's next trip
    (:meth:`storage.group_commit.GroupCommit.write_later`)."""
    return ("dm_panel", table_id, user_id)


RESIGN: Action = {"type": "resign"}


def resignation(why: Ending = "resigned", by: int | None = None) -> Action:
    """The logged table-level action that takes a seat out of the game: a resignation
    (:data:`RESIGN`, as logged before migration 013), a forfeit on the clock (``time``), or the
    others' claim on an abandoned game (``claim``, ``by`` the claimant).

    >>> resignation() == RESIGN, resignation("claim", 7)
    (True, {'type': 'resign', 'why': 'claim', 'by': 7})
    """
    if why == "resigned":
        return dict(RESIGN)
    action: Action = {"type": "resign", "why": why}
    return action if by is None else {**action, "by": by}


def drawn_claim(by: int) -> Action:
    """The logged action of a claimed draw (logged for the seat that abandoned the game, ``by``
    the claimant): a claim that ends the game drawn (``Game.claim_draw``), not by a forfeit.

    >>> drawn_claim(7)
    {'type': 'resign', 'why': 'claim', 'by': 7, 'draw': True}
    """
    return {**resignation("claim", by), "draw": True}


def is_drawn_claim(action: Action) -> bool:
    """Whether a logged table-level action is a claimed draw (see :func:`drawn_claim`)."""
    return is_resignation(action) and action.get("draw") is True


def is_resignation(action: Action) -> bool:
    """Whether a logged action is a table-level resignation, forfeit or claim (not a move)."""
    return action.get("type") == "resign"


def why_resigned(action: Action) -> Ending:
    """Why a logged resignation happened (``resigned`` for one logged before migration 013)."""
    why = action.get("why")
    if why == "time":
        return "time"
    return "claim" if why == "claim" else "resigned"


# -- On the database thread: reading a table inside the caller's transaction -----------------


def load_table(conn: Connection, table_id: int) -> TableRecord | None:
    row = conn.execute("SELECT * FROM tables WHERE id = ?", (table_id,)).fetchone()
    return None if row is None else table_record(row, seats_of(conn, table_id))


def newest(conn: Connection, table: TableRecord) -> TableRecord | None:
    """``table`` as stored now, read and decoded again only when its version moved on (every
    change of a table's row moves it: see migration 011)."""
    row = conn.execute("SELECT version FROM tables WHERE id = ?", (table.id,)).fetchone()
    if row is None:
        return None
    return table if int(row[0]) == table.version else load_table(conn, table.id)


def require(conn: Connection, table_id: int) -> TableRecord:
    table = load_table(conn, table_id)
    if table is None:
        raise TableError("That table no longer exists.")
    return table


def open_table_in(conn: Connection, channel_id: int) -> TableRecord | None:
    row = conn.execute(
        "SELECT * FROM tables WHERE channel_id = ? AND status IN ('lobby', 'running')",
        (channel_id,),
    ).fetchone()
    return None if row is None else table_record(row, seats_of(conn, row["id"]))


def seats_of(conn: Connection, table_id: int) -> tuple[int, ...]:
    rows = conn.execute(
        "SELECT user_id FROM seats WHERE table_id = ? ORDER BY seat", (table_id,)
    ).fetchall()
    return tuple(int(row[0]) for row in rows)


def read_actions(conn: Connection, sql: str, params: tuple[Any, ...]) -> list[ActionRecord]:
    return [action_record(row) for row in conn.execute(sql, params).fetchall()]


def action_record(row: Any) -> ActionRecord:
    """A log row (a database row, or the values a move just wrote, by column) as a record."""
    try:
        action = json.loads(row["action"])
        events = json.loads(row["events"])
        if not isinstance(action, dict) or not isinstance(events, list):
            raise TypeError("an action is an object and its events a list")
        return ActionRecord(
            table_id=int(row["table_id"]),
            ply=int(row["ply"]),
            seat=int(row["seat"]),
            user_id=int(row["user_id"]),
            action=action,
            events=events,
            created_at=row["created_at"],
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptTable(
            f"Move {row['ply']} of table {row['table_id']} could not be read from the database."
        ) from exc


def table_record(row: Any, seats: tuple[int, ...]) -> TableRecord:
    try:
        game = get_game(row["game"])
        if len(seats) < (1 if row["state"] is None else game.min_seats):
            raise ValueError("the table's seats are missing")
        return TableRecord(
            id=row["id"],
            guild_id=row["guild_id"],
            channel_id=row["channel_id"],
            game=row["game"],
            options=json.loads(row["options"]),
            seed=row["seed"],
            host_id=row["host_id"],
            seats=seats,
            status=row["status"],
            state=None if row["state"] is None else loads(row["state"], game),
            ply=row["ply"],
            version=row["version"],
            result=None if row["result"] is None else Result.from_json(json.loads(row["result"])),
            message_id=row["message_id"],
            rematch_of=row["rematch_of"],
            created_at=row["created_at"],
            updated_at=row["updated_at"],
            seating=row["seating"],
            ping_message_id=row["ping_message_id"],
            time_control=row["time_control"],
            deadline=row["deadline"],
            remind_at=row["remind_at"],
            forfeit_after=row["forfeit_after"],
            salt=row["salt"],
            ending=row["ending"],
            ended_by=row["ended_by"],
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise CorruptTable(
            f"Table {row['id']} could not be read from the database; an admin can cancel it."
        ) from exc


__all__ = [
    "BUSY",
    "DAMAGED",
    "FORFEIT_AFTER",
    "RESIGN",
    "ActionRecord",
    "Clock",
    "CorruptTable",
    "DmMode",
    "DmTarget",
    "Ending",
    "Seating",
    "StaleAction",
    "Status",
    "StoreBusy",
    "TableError",
    "TableExists",
    "TableRecord",
    "Timeout",
    "dm_panel_key",
    "drawn_claim",
    "is_drawn_claim",
    "is_resignation",
    "load_table",
    "newest",
    "open_table_in",
    "read_actions",
    "require",
    "resignation",
    "seats_of",
    "table_record",
    "why_resigned",
]
