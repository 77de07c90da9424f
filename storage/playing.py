"""Playing: one game action as one write transaction. It loads the table (or takes the
writer's remembered copy), checks it, runs the engine, and writes the new state, its log row
and, at the end, the result and ratings, guarded by a ply and version check so two attempts at
the same ply apply exactly once (also across processes sharing the database).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Any

from engine import get_game
from engine.rules import Action, Event, Result, RuleError, State, dumps, loads
from storage import clock, daily, results
from storage.base import StoreBase
from storage.database import Connection
from storage.records import (
    RESIGN,
    Ending,
    StaleAction,
    Status,
    TableError,
    TableRecord,
    is_resignation,
    require,
    why_resigned,
)
from storage.tables import move_deadlines, perform
from storage.tails import RawRow


class Playing(StoreBase):
    """Moves and resignations."""

    async def act(
        self, table_id: int, user_id: int, action: Action, expected_ply: int
    ) -> tuple[TableRecord, list[Event]]:
        """Apply one action for ``user_id`` at ``expected_ply``: state, log row and ply bump
        commit together, or nothing changes (RuleError, TableError, StaleAction)."""
        return await self._commit_action(table_id, user_id, action, expected_ply)

    async def resign(
        self, table_id: int, user_id: int, expected_ply: int | None = None
    ) -> tuple[TableRecord, list[Event]]:
        return await self._commit_action(table_id, user_id, RESIGN, expected_ply)

    async def _commit_action(
        self, table_id: int, user_id: int, action: Action, expected_ply: int | None
    ) -> tuple[TableRecord, list[Event]]:
        def run(conn: Connection) -> tuple[TableRecord, list[Event], RawRow]:
            return apply_action(
                conn, table_id, user_id, action, expected_ply, self._moment(), memo=self._db.memo
            )

        after, events, written = await self._write(run)
        self._tails.grow(table_id, after.ply, [written])  # its log row, as written
        return after, events


# -- On the database thread, inside the caller's transaction ------------------------------------


#: How many running tables the writer keeps in memory between their moves.
HOT_TABLES = 4096

#: A table as the writer's memo keeps it: the record's fields as a plain tuple (its state left
#: out) and the state's JSON text. Decoding the text again (tens of microseconds, on the database
#: thread) costs less than keeping the decoded state: its lists and dicts, a dozen or more per
#: table, were walked by every full garbage collection of the bot (13,000 objects at 1,000
#: tables in play). A record is an object the collector walks for as long as it is kept; a tuple
#: of numbers and text (the options as their JSON text too: a tuple holding a dict is never let
#: go) is let go after one collection (2,000 objects fewer at 1,000 tables).
Kept = tuple[tuple[Any, ...], str]

_FIELDS = tuple(field.name for field in fields(TableRecord))
_STATE, _GAME, _OPTIONS = (_FIELDS.index(name) for name in ("state", "game", "options"))


def _kept(table: TableRecord, text: str) -> Kept:
    values = [getattr(table, name) for name in _FIELDS]
    values[_STATE] = None
    values[_OPTIONS] = json.dumps(table.options)
    return tuple(values), text


def _unkept(kept: Kept) -> TableRecord:
    values, text = kept
    record = list(values)
    record[_STATE] = loads(text, get_game(record[_GAME]))
    record[_OPTIONS] = json.loads(record[_OPTIONS])
    return TableRecord(*record)


def apply_action(
    conn: Connection,
    table_id: int,
    user_id: int,
    action: Action,
    expected_ply: int | None,
    moment: datetime,
    *,
    automatic: bool = False,
    memo: dict[Any, Any] | None = None,
) -> tuple[TableRecord, list[Event], RawRow]:
    """Load, check, apply and write one action: the body of one write transaction; the table
    after it, its events and its log row (as :class:`~storage.tails.KeptTails` keeps it). The next
    move's deadline starts now; a move the player made (not ``automatic``) clears their missed
    deadlines.

    With ``memo`` (the writer's, see :attr:`Database.memo`) a table the writer wrote last is
    taken from memory instead of being read and decoded again. The write then only applies if
    the row's version is still the one remembered (every change to a table bumps it, triggers
    included); otherwise, or when the remembered copy refuses the action, the table is read
    from the file and the action tried again, so a stale copy can never decide anything."""
    key = ("table", table_id)
    kept = None if memo is None else memo.pop(key, None)
    cached = None if kept is None else _unkept(kept)
    if cached is not None:
        try:
            plan = _plan(cached, user_id, action, expected_ply)
        except (TableError, RuleError):
            plan = None  # perhaps only because the copy is stale: read the file and decide
        if plan is not None:
            done = _write_plan(conn, plan, user_id, action, moment, automatic, memo)
            if done is not None:
                return done
    plan = _plan(require(conn, table_id), user_id, action, expected_ply)
    done = _write_plan(conn, plan, user_id, action, moment, automatic, memo)
    if done is None:  # pragma: no cover - the write lock makes the load current
        raise StaleAction("That button is out of date: the game has moved on.")
    return done


@dataclass(frozen=True)
class _Plan:
    """An action checked and applied in memory, not yet written."""

    table: TableRecord
    seat: int
    state: State
    events: list[Event]
    result: Result | None


def _plan(table: TableRecord, user_id: int, action: Action, expected_ply: int | None) -> _Plan:
    if table.status != "running":
        if table.status == "lobby":
            raise TableError("This game has not started yet.")
        raise TableError("This game is over.")
    seat = table.seat_of(user_id)
    if seat is None:
        raise TableError("You are not playing at this table.")
    if expected_ply is not None and expected_ply != table.ply:
        raise StaleAction("That button is out of date: the game has moved on.")
    game = table.engine
    state = table.running_state()
    if not is_resignation(action):
        # A seat held twice (a solo table) acts as whichever of its seats is to act.
        to_act = game.to_act(state)
        if to_act is not None and to_act != seat and table.seats[to_act] == user_id:
            seat = to_act
    new_state, events = perform(game, state, seat, action, table.seed, table.ply)
    return _Plan(table, seat, new_state, events, game.result(new_state))


def _write_plan(
    conn: Connection,
    plan: _Plan,
    user_id: int,
    action: Action,
    moment: datetime,
    automatic: bool,
    memo: dict[Any, Any] | None,
) -> tuple[TableRecord, list[Event], RawRow] | None:
    """Write a planned action if the table is still the version it was planned on (else
    nothing is written and this returns None): the table after it, its events and its log row
    (as :class:`~storage.tails.KeptTails` keeps it)."""
    table, seat, new_state, events, result = (
        plan.table,
        plan.seat,
        plan.state,
        plan.events,
        plan.result,
    )
    game = table.engine
    now = clock.stamp(moment)
    status: Status = "running" if result is None else "over"
    ending, ended_by = ending_of(action, user_id) if result is not None else (None, None)
    deadline, remind_at = (None, None)
    next_seat = game.to_act(new_state)
    if result is None and next_seat is not None:
        deadline, remind_at = move_deadlines(
            conn, table.time_control, moment, table.seats[next_seat]
        )
    text = dumps(new_state)
    cur = conn.execute(
        "UPDATE tables SET state = ?, ply = ply + 1, version = version + 1,"
        " status = ?, result = ?, updated_at = ?, deadline = ?, remind_at = ?, ending = ?,"
        " ended_by = ? WHERE id = ? AND ply = ? AND version = ?",
        (
            text,
            status,
            None if result is None else json.dumps(result.to_json()),
            now,
            deadline,
            remind_at,
            ending,
            ended_by,
            table.id,
            table.ply,
            table.version,
        ),
    )
    if cur.rowcount != 1:
        return None
    if not automatic and table.time_control != clock.NONE:  # misses only happen on a clock
        conn.execute(
            "UPDATE seats SET misses = 0 WHERE table_id = ? AND user_id = ? AND misses > 0",
            (table.id, user_id),
        )
    logged = (table.id, table.ply, seat, user_id, json.dumps(action), json.dumps(events), now)
    conn.execute(
        "INSERT INTO actions (table_id, ply, seat, user_id, action, events, created_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        logged,
    )
    if result is not None:  # the game's end and its rating commit with the last action
        daily.finish(conn, table.id, result.winners, result.scores, game.summary(new_state), now)
        results.record(
            conn,
            table_id=table.id,
            guild_id=table.guild_id,
            game=table.game,
            seats=table.seats,
            result=result,
            plies=table.ply + 1,
            ended_at=now,
            ending=ending,
        )
    after = replace(
        table,
        state=new_state,
        ply=table.ply + 1,
        version=table.version + 1,
        status=status,
        result=result,
        updated_at=now,
        deadline=deadline,
        remind_at=remind_at,
        ending=ending,
        ended_by=ended_by,
    )
    if memo is not None and status == "running":
        memo[("table", table.id)] = _kept(after, text)
        if len(memo) > HOT_TABLES:  # the least recently written goes
            del memo[next(iter(memo))]
    return after, events, logged[1:]


def ending_of(action: Action, user_id: int) -> tuple[Ending, int | None]:
    """How the action that ended a game ended it, and by whom: a move ends it by the rules; a
    resignation, a forfeit on the clock (by the seat out of time) or a claim (by the claimant,
    logged in the action) by that."""
    if not is_resignation(action):
        return "rules", None
    why = why_resigned(action)
    by = action.get("by")
    return why, int(by) if why == "claim" and isinstance(by, int) else user_id


__all__ = ["HOT_TABLES", "Playing", "apply_action", "ending_of"]
