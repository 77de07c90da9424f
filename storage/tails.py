"""The history kept in memory beside each table in play: its last logged actions (see
:meth:`storage.reading.Reading.log_tail`).

Logged actions never change, so every render of a position (the table message, each panel)
can share one read of its table's recent log, and a move written by this process grows the
kept log without a read at all. Two forms, for two costs:

- **As stored** (:data:`RawRow`: the log row's plain values, its action and events still JSON
  text), for up to :data:`TAIL_TABLES` tables: every table in play. A tuple of numbers and
  strings is something the garbage collector stops walking once it has survived a collection,
  so keeping a thousand tables' logs costs the collector nothing (decoded, each table's 40
  actions were about 200 objects walked by every full collection: with 512 tables kept that
  way the longest collection at 1,000 tables went from 48 to 58 ms).
- **Decoded** (:class:`~storage.records.ActionRecord`), for the :data:`DECODED_TABLES` tables
  drawn last: the renders of one move (the table and its panels) decode a table's log once, and
  the next move decodes only its own row.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any

from storage.records import ActionRecord, action_record

#: The longest history a render shows beside a position (a panel's "since your last turn").
TAIL_KEPT = 40
#: How many tables' logs are kept as stored: every table in play, for a bot that serves a few
#: thousand (each about 40 rows of a few hundred bytes: about 16 KB a table).
TAIL_TABLES = 4096
#: How many tables' logs are kept decoded: the tables being drawn right now.
DECODED_TABLES = 128

#: A log row as kept: (ply, seat, user_id, action JSON, events JSON, created_at), the values as
#: stored (checked when decoded, so a damaged row is reported where it is shown).
RawRow = tuple[Any, ...]

COLUMNS = ("ply", "seat", "user_id", "action", "events", "created_at")


def raw_row(row: Any) -> RawRow:
    """A database row (a mapping by column, or the values a move just wrote) as kept."""
    return tuple(row[column] for column in COLUMNS)


def decode(table_id: int, rows: Sequence[RawRow]) -> tuple[ActionRecord, ...]:
    """The kept rows as records (:class:`~storage.records.CorruptTable` for a damaged one)."""
    return tuple(
        action_record({"table_id": table_id, **dict(zip(COLUMNS, row, strict=True))})
        for row in rows
    )


class KeptTails:
    """Each table's last :data:`TAIL_KEPT` logged actions before a position, by table id, with
    that position's ply; the least recently used table goes first when full."""

    def __init__(self) -> None:
        self._raw: OrderedDict[int, tuple[int, tuple[RawRow, ...]]] = OrderedDict()
        self._decoded: OrderedDict[int, tuple[int, tuple[ActionRecord, ...]]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._raw)

    def __iter__(self) -> Iterator[int]:
        return iter(self._raw)

    def clear(self) -> None:
        """Forget everything kept (after a privacy erasure: the log names players)."""
        self._raw.clear()
        self._decoded.clear()

    def ply(self, table_id: int) -> int | None:
        """The position whose history is kept for this table, if any."""
        kept = self._raw.get(table_id)
        return None if kept is None else kept[0]

    def rows(self, table_id: int) -> tuple[RawRow, ...]:
        kept = self._raw.get(table_id)
        return () if kept is None else kept[1]

    def at(self, table_id: int, ply: int) -> tuple[ActionRecord, ...] | None:
        """The decoded history before ``ply``, when that position's is kept (else None).
        Decodes only the rows a table's decoded history lacks."""
        kept = self._raw.get(table_id)
        if kept is None or kept[0] != ply:
            return None
        self._raw.move_to_end(table_id)
        rows = kept[1]
        decoded = self._decoded.get(table_id)
        if decoded is not None and decoded[0] == ply:
            self._decoded.move_to_end(table_id)
            return decoded[1]
        if decoded is not None and 0 <= ply - decoded[0] <= len(rows):
            fresh = rows[len(rows) - (ply - decoded[0]) :] if ply > decoded[0] else ()
            records = (*decoded[1], *decode(table_id, fresh))[-TAIL_KEPT:]
        else:
            records = decode(table_id, rows)
        self._decoded[table_id] = (ply, records)
        self._decoded.move_to_end(table_id)
        while len(self._decoded) > DECODED_TABLES:
            self._decoded.popitem(last=False)
        return records

    def keep(self, table_id: int, ply: int, rows: Sequence[RawRow]) -> None:
        """Keep ``rows`` (the last ones logged before ``ply``, oldest first) for this table,
        unless a later position's are kept already (a slow render of an older position)."""
        current = self._raw.get(table_id)
        if current is not None and current[0] > ply:
            return
        self._raw[table_id] = (ply, tuple(rows)[-TAIL_KEPT:])
        self._raw.move_to_end(table_id)
        while len(self._raw) > TAIL_TABLES:
            evicted, _ = self._raw.popitem(last=False)
            self._decoded.pop(evicted, None)

    def grow(self, table_id: int, ply: int, written: Sequence[RawRow]) -> None:
        """A move was just written, bringing its table to ``ply`` (``written``: the log rows it
        wrote): a history kept for the position before it grows by them, so the next render at
        ``ply`` reads nothing. Only a history kept for exactly that position grows: any other is
        read as before."""
        kept = self._raw.get(table_id)
        if kept is None or not written or kept[0] != ply - len(written):
            return
        self.keep(table_id, ply, (*kept[1], *written))


__all__ = ["COLUMNS", "DECODED_TABLES", "TAIL_KEPT", "TAIL_TABLES", "KeptTails", "RawRow"]
