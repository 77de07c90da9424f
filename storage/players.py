"""A player's own settings: time zone, quiet hours and the daily digest (issue 11).

Quiet hours delay reminders, never deadlines: :func:`is_quiet` is asked before a reminder goes
out, and a reminder held back goes out at the first sweep after the quiet hours end. The digest
goes out once a local day, at the first sweep from :data:`DIGEST_HOUR` local time on.
:class:`Players` is the store's side of a player: settings, vacations, the names they were last
seen under, their DM mode and their DM panels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from storage import clock
from storage.base import StoreBase
from storage.database import Connection
from storage.records import CorruptTable, DmMode, TableError, dm_panel_key, require

DIGEST_HOUR = 9


@dataclass(frozen=True)
class Settings:
    timezone: str = "UTC"
    quiet_from: int | None = None
    quiet_to: int | None = None
    digest: bool = False

    def local(self, moment: datetime) -> datetime:
        return moment.astimezone(ZoneInfo(self.timezone))

    def is_quiet(self, moment: datetime) -> bool:
        """Whether ``moment`` falls in the quiet hours (``from`` inclusive, ``to`` exclusive,
        wrapping past midnight).

        >>> from datetime import UTC
        >>> night = Settings("Europe/Paris", 22, 8)
        >>> night.is_quiet(datetime(2026, 11, 25, 22, 30, tzinfo=UTC))  # 23:30 in Paris
        True
        >>> night.is_quiet(datetime(2026, 11, 25, 7, 30, tzinfo=UTC))  # 08:30 in Paris
        False
        """
        if self.quiet_from is None or self.quiet_to is None:
            return False
        hour = self.local(moment).hour
        if self.quiet_from <= self.quiet_to:
            return self.quiet_from <= hour < self.quiet_to
        return hour >= self.quiet_from or hour < self.quiet_to


def check_timezone(name: str) -> str:
    """The IANA name if this machine knows it, else ``ValueError`` with a sentence."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(
            f"{name!r} is not a time zone I know: use a name like Europe/Paris or America/Chicago."
        ) from None
    return name


def load(conn: Connection, user_id: int) -> Settings:
    row = conn.execute(
        "SELECT timezone, quiet_from, quiet_to, digest FROM players WHERE user_id = ?",
        (user_id,),
    ).fetchone()
    if row is None:
        return Settings()
    timezone, quiet_from, quiet_to, digest = row
    return Settings(timezone or "UTC", quiet_from, quiet_to, bool(digest))


def save(conn: Connection, user_id: int, settings: Settings) -> None:
    conn.execute(
        "INSERT INTO players (user_id, timezone, quiet_from, quiet_to, digest)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET"
        " timezone = excluded.timezone, quiet_from = excluded.quiet_from,"
        " quiet_to = excluded.quiet_to, digest = excluded.digest",
        (user_id, settings.timezone, settings.quiet_from, settings.quiet_to, int(settings.digest)),
    )


VACATION_DAYS_A_MONTH = 14


def vacation_left(conn: Connection, user_id: int, moment: datetime) -> timedelta:
    """How much longer this player's daily clocks wait (nothing when not on vacation)."""
    row = conn.execute(
        "SELECT vacation_until FROM players WHERE user_id = ?", (user_id,)
    ).fetchone()
    if row is None or row[0] is None:
        return timedelta(0)
    return max(datetime.fromisoformat(str(row[0])) - moment, timedelta(0))


def take_vacation(conn: Connection, user_id: int, days: int, moment: datetime) -> int:
    """Start (or extend) ``days`` of vacation from now; returns the days left this month.
    Raises ``ValueError`` with a sentence past :data:`VACATION_DAYS_A_MONTH` a month."""
    month = f"{moment:%Y-%m}"
    row = conn.execute(
        "SELECT vacation_month, vacation_days, vacation_until FROM players WHERE user_id = ?",
        (user_id,),
    ).fetchone()
    used = int(row[1]) if row is not None and row[0] == month else 0
    if used + days > VACATION_DAYS_A_MONTH:
        left = VACATION_DAYS_A_MONTH - used
        raise ValueError(
            f"You have {left} vacation day{'s' if left != 1 else ''} left this month "
            f"({VACATION_DAYS_A_MONTH} a month)."
        )
    start = moment
    if row is not None and row[2] is not None:
        start = max(moment, datetime.fromisoformat(str(row[2])))
    until = (start + timedelta(days=days)).isoformat(timespec="milliseconds")
    conn.execute(
        "INSERT INTO players (user_id, vacation_until, vacation_month, vacation_days)"
        " VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET"
        " vacation_until = excluded.vacation_until, vacation_month = excluded.vacation_month,"
        " vacation_days = excluded.vacation_days",
        (user_id, until, month, used + days),
    )
    return VACATION_DAYS_A_MONTH - used - days


def digests_due(conn: Connection, moment: datetime) -> list[int]:
    """Players who asked for the digest and have not had today's (their local day), from
    :data:`DIGEST_HOUR` local time on."""
    rows = conn.execute(
        "SELECT user_id, timezone, digest_sent_on FROM players INDEXED BY players_digest"
        " WHERE digest = 1"
    ).fetchall()
    due = []
    for user_id, timezone, sent_on in rows:
        local = Settings(timezone or "UTC").local(moment)
        if local.hour >= DIGEST_HOUR and sent_on != local.date().isoformat():
            due.append(int(user_id))
    return due


def digest_sent(conn: Connection, user_id: int, moment: datetime) -> bool:
    """Mark today's digest sent; ``False`` if it already was (once a day, across processes)."""
    settings = load(conn, user_id)
    today = settings.local(moment).date().isoformat()
    cur = conn.execute(
        "UPDATE players SET digest_sent_on = ? WHERE user_id = ?"
        " AND (digest_sent_on IS NULL OR digest_sent_on != ?)",
        (today, user_id, today),
    )
    return cur.rowcount == 1


class Players(StoreBase):
    """Players' settings, vacations, names, DM modes and DM panels (a method named like one of
    this module's functions runs it)."""

    async def settings(self, user_id: int) -> Settings:
        return await self._db.read(lambda conn: load(conn, user_id))

    async def set_settings(self, user_id: int, settings: Settings) -> None:
        await self._write(lambda conn: save(conn, user_id, settings))

    async def digests_due(self) -> list[int]:
        moment = self._moment()
        return await self._db.read(lambda conn: digests_due(conn, moment))

    async def digest_sent(self, user_id: int) -> bool:
        moment = self._moment()
        return await self._write(lambda conn: digest_sent(conn, user_id, moment))

    async def take_vacation(self, user_id: int, days: int) -> tuple[int, int]:
        """``days`` of vacation for ``user_id``: the deadlines of their daily-clock moves that
        are waiting now move on by that much, and new ones wait it out too. Returns (tables
        whose deadline moved, vacation days left this month); ``TableError`` past the cap."""
        moment = self._moment()

        def run(conn: Connection) -> tuple[int, int]:
            try:
                left = take_vacation(conn, user_id, days, moment)
            except ValueError as exc:
                raise TableError(str(exc)) from None
            moved = 0
            rows = conn.execute(
                "SELECT tables.id FROM seats JOIN tables ON tables.id = seats.table_id"
                " WHERE seats.user_id = ? AND tables.status = 'running'"
                " AND tables.time_control LIKE 'daily:%' AND tables.deadline IS NOT NULL"
                " GROUP BY tables.id",
                (user_id,),
            ).fetchall()
            for (table_id,) in rows:
                try:
                    table = require(conn, int(table_id))
                except CorruptTable:
                    continue
                seat = table.engine.to_act(table.running_state())
                if seat is None or table.seats[seat] != user_id or table.deadline is None:
                    continue
                shift = timedelta(days=days)
                conn.execute(
                    "UPDATE tables SET deadline = ?, remind_at = ? WHERE id = ?",
                    (
                        clock.stamp(datetime.fromisoformat(table.deadline) + shift),
                        None
                        if table.remind_at is None
                        else clock.stamp(datetime.fromisoformat(table.remind_at) + shift),
                        table.id,
                    ),
                )
                moved += 1
            return moved, left

        return await self._write(run)

    async def remember_names(self, names: Mapping[int, str]) -> None:
        """Keep the names players were last seen under (written only when one changed)."""
        known = await self.names(list(names))
        changed = [(uid, name) for uid, name in names.items() if known.get(uid) != name]
        if not changed:
            return

        def run(conn: Connection) -> None:
            conn.executemany(
                "INSERT INTO players (user_id, name) VALUES (?, ?)"
                " ON CONFLICT (user_id) DO UPDATE SET name = excluded.name",
                changed,
            )

        await self._write(run)

    async def names(self, user_ids: Sequence[int]) -> dict[int, str]:
        """The stored names of these players (those never seen are left out)."""
        ids = list(dict.fromkeys(user_ids))

        def run(conn: Connection) -> dict[int, str]:
            marks = ",".join("?" * len(ids))
            found = conn.execute(
                "SELECT user_id, name FROM players"
                f" WHERE name IS NOT NULL AND user_id IN ({marks})",
                ids,
            ).fetchall()
            return {int(uid): str(name) for uid, name in found}

        return await self._db.read_near(run) if ids else {}  # every table drawn reads them

    async def dm_mode(self, user_id: int) -> DmMode:
        mode = await self._db.scalar("SELECT dm_mode FROM players WHERE user_id = ?", (user_id,))
        found: DmMode = "on" if mode is None else mode
        return found

    async def set_dm_mode(self, user_id: int, mode: DmMode) -> None:
        await self._execute(
            "INSERT INTO players (user_id, dm_mode) VALUES (?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET dm_mode = excluded.dm_mode",
            (user_id, mode),
        )

    async def dm_panel(self, table_id: int, user_id: int) -> tuple[int, int] | None:
        """The (DM channel id, message id) of a player's panel for a table, if one was sent."""

        key = dm_panel_key(table_id, user_id)
        if self._db.has_unwritten(key):
            unwritten: tuple[int, int] | None = self._db.unwritten(key)
            return unwritten

        def run(conn: Connection) -> tuple[int, int] | None:
            row = conn.execute(
                "SELECT channel_id, message_id FROM dm_panels WHERE table_id = ? AND user_id = ?",
                (table_id, user_id),
            ).fetchone()
            return None if row is None else (int(row[0]), int(row[1]))

        return await self._db.read_near(run)

    async def set_dm_panel(
        self, table_id: int, user_id: int, channel_id: int, message_id: int
    ) -> None:
        """Remember the DM that holds a player's panel for a table. Bookkeeping, not an action:
        on SQLite written with the next trip of the writer (:meth:`GroupCommit.write_later`),
        read back at once by :meth:`dm_panel` and :meth:`delivery_targets`; on PostgreSQL
        written now (:attr:`GroupCommit.writes_later`)."""
        params = (table_id, user_id, channel_id, message_id)

        def run(conn: Connection) -> None:
            conn.execute(
                "INSERT INTO dm_panels (table_id, user_id, channel_id, message_id)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (table_id, user_id) DO UPDATE SET"
                " channel_id = excluded.channel_id, message_id = excluded.message_id",
                params,
            )

        await self._write_later(dm_panel_key(table_id, user_id), run, (channel_id, message_id))

    async def forget_dm_panel(self, table_id: int, user_id: int) -> None:
        """Forget a player's DM panel for a table (as :meth:`set_dm_panel`: later on SQLite, at
        once on PostgreSQL)."""

        def run(conn: Connection) -> None:
            conn.execute(
                "DELETE FROM dm_panels WHERE table_id = ? AND user_id = ?", (table_id, user_id)
            )

        await self._write_later(dm_panel_key(table_id, user_id), run, None)


__all__ = [
    "DIGEST_HOUR",
    "VACATION_DAYS_A_MONTH",
    "Players",
    "Settings",
    "check_timezone",
    "digest_sent",
    "digests_due",
    "load",
    "save",
    "take_vacation",
    "vacation_left",
]
