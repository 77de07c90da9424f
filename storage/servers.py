"""A server's settings (issue 28): where tables may open, who moderates, the defaults of new
tables, which games are offered and how the leaderboards count — and every change, with who
made it.

Each setting a server's admins changed is one row of ``server_settings`` (its value as JSON);
a setting without a row has the default of :class:`ServerSettings`, which is how the bot behaved
before servers had settings. A change is one transaction: the new values and one row of
``server_setting_changes`` per setting that changed (old and new value, who, when), or none of
it. A value is checked before anything is written; a bad one is refused with a sentence
(:class:`storage.records.TableError`) and changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from engine import GAMES
from storage import clock
from storage.base import StoreBase
from storage.database import Connection
from storage.records import FORFEIT_AFTER, TableError
from storage.seasons import LENGTHS, MONTHLY

#: How many changes ``/siege-admin show`` lists (the newest).
RECENT_CHANGES = 5


@dataclass(frozen=True)
class ServerSettings:
    """A server's settings; the defaults are a server that never changed any."""

    #: Channels where tables may open (and the threads in them); empty: every channel.
    channels: tuple[int, ...] = ()
    #: A role whose members may cancel and re-post tables, beside Manage Messages.
    moderator_role: int | None = None
    #: The clock of a new table when its host names none (a value of :func:`clock.choices`).
    time_control: str = clock.NONE
    #: Missed moves after which a seat forfeits, when its host names no number.
    forfeit_after: int = FORFEIT_AFTER
    #: Each new game in a thread of its own (off: in the channel, one table at a time).
    threads: bool = True
    #: Games not offered in this server (by key; a game added later is offered).
    games_off: tuple[str, ...] = ()
    #: Whether ``/siege leaderboard`` shows the boards (ratings are kept either way).
    leaderboards: bool = True
    #: How long a season of the boards lasts (:data:`storage.seasons.LENGTHS`).
    season: str = MONTHLY
    #: The n-th rated game of the same players on the same UTC day counts 1/n (anti-farming).
    repeats_count_less: bool = True

    def allows_channel(self, channel_id: int, parent_id: int | None = None) -> bool:
        """Whether a table may open in ``channel_id`` (a thread: in its ``parent_id``)."""
        if not self.channels:
            return True
        return channel_id in self.channels or (parent_id is not None and parent_id in self.channels)

    def offers(self, game: str) -> bool:
        return game not in self.games_off


DEFAULTS = ServerSettings()
NAMES = tuple(f.name for f in fields(ServerSettings))


@dataclass(frozen=True)
class SettingChange:
    """One change of one setting, as the history keeps it."""

    name: str
    old: Any
    new: Any
    user_id: int
    changed_at: str


def check(name: str, value: Any) -> Any:
    """A setting's value as it is stored (lists sorted, as tuples), or ``TableError``."""
    if name == "channels":
        return tuple(sorted({int(v) for v in value}))
    if name == "moderator_role":
        return None if value is None else int(value)
    if name == "time_control":
        if value not in clock.choices():
            raise TableError(f"{value!r} is not a clock; pick one from the list.")
        return str(value)
    if name == "forfeit_after":
        if not isinstance(value, int) or not 1 <= value <= 5:
            raise TableError("A seat forfeits after 1 to 5 missed moves.")
        return value
    if name == "games_off":
        off = tuple(sorted(set(value)))
        unknown = [key for key in off if key not in GAMES]
        if unknown:
            raise TableError(f"There is no game {unknown[0]!r}.")
        if len(off) >= len(GAMES):
            raise TableError("At least one game stays offered.")
        return off
    if name == "season":
        if value not in LENGTHS:
            raise TableError(f"A season is {', '.join(LENGTHS[:-1])} or {LENGTHS[-1]}.")
        return str(value)
    if name in ("threads", "leaderboards", "repeats_count_less"):
        return bool(value)
    raise TableError(f"There is no server setting {name!r}.")


def _decode(name: str, text: str) -> Any:
    value = json.loads(text)
    return tuple(value) if isinstance(value, list) else value


def _encode(value: Any) -> str:
    return json.dumps(list(value) if isinstance(value, tuple) else value)


def load(conn: Connection, guild_id: int) -> ServerSettings:
    rows = conn.execute(
        "SELECT name, value FROM server_settings WHERE guild_id = ?", (guild_id,)
    ).fetchall()
    stored = {str(name): _decode(str(name), str(value)) for name, value in rows}
    return replace(DEFAULTS, **{n: v for n, v in stored.items() if n in NAMES})


def setting(conn: Connection, guild_id: int | None, name: str) -> Any:
    """One setting of a server (its default for a game outside a server)."""
    default = getattr(DEFAULTS, name)
    if guild_id is None:
        return default
    row = conn.execute(
        "SELECT value FROM server_settings WHERE guild_id = ? AND name = ?", (guild_id, name)
    ).fetchone()
    return default if row is None else _decode(name, str(row[0]))


def change(
    conn: Connection, guild_id: int, user_id: int, changes: Mapping[str, Any], now: str
) -> tuple[ServerSettings, list[SettingChange]]:
    """Apply ``changes`` (setting name to value) for ``user_id``: the new settings and what
    actually changed (a value already in place is no change and is not logged)."""
    checked = {name: check(name, value) for name, value in changes.items()}
    current = load(conn, guild_id)
    done: list[SettingChange] = []
    for name, value in checked.items():
        old = getattr(current, name)
        if old == value:
            continue
        conn.execute(
            "INSERT INTO server_settings (guild_id, name, value) VALUES (?, ?, ?)"
            " ON CONFLICT (guild_id, name) DO UPDATE SET value = excluded.value",
            (guild_id, name, _encode(value)),
        )
        conn.execute(
            "INSERT INTO server_setting_changes (guild_id, name, old, new, user_id, changed_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (guild_id, name, _encode(old), _encode(value), user_id, now),
        )
        done.append(SettingChange(name, old, value, user_id, now))
    return replace(current, **checked), done


def history(conn: Connection, guild_id: int, limit: int) -> list[SettingChange]:
    """A server's latest setting changes, newest first."""
    rows = conn.execute(
        "SELECT name, old, new, user_id, changed_at FROM server_setting_changes"
        " WHERE guild_id = ? ORDER BY id DESC LIMIT ?",
        (guild_id, limit),
    ).fetchall()
    return [
        SettingChange(
            str(name), _decode(name, str(old)), _decode(name, str(new)), int(uid), str(at)
        )
        for name, old, new, uid, at in rows
    ]


class Servers(StoreBase):
    """The store's side of server settings (each method runs this module's function)."""

    async def server_settings(self, guild_id: int | None) -> ServerSettings:
        """A server's settings; outside a server (a DM) the defaults."""
        if guild_id is None:
            return DEFAULTS
        return await self._read(lambda conn: load(conn, guild_id))

    async def change_server_settings(
        self, guild_id: int, user_id: int, **changes: Any
    ) -> tuple[ServerSettings, list[SettingChange]]:
        """Change settings of a server as ``user_id``, logged; ``TableError`` for a bad value
        (nothing changed then)."""
        for name, value in changes.items():
            check(name, value)  # refused before the writer is asked
        now = self._now()
        return await self._write(lambda conn: change(conn, guild_id, user_id, changes, now))

    async def server_setting_history(
        self, guild_id: int, limit: int = RECENT_CHANGES
    ) -> list[SettingChange]:
        return await self._read(lambda conn: history(conn, guild_id, limit))

    async def moderator_role(self, guild_id: int | None) -> int | None:
        """The role a server named to moderate tables (``None``: none named)."""
        if guild_id is None:
            return None
        role: int | None = await self._read(lambda conn: setting(conn, guild_id, "moderator_role"))
        return role


__all__ = [
    "DEFAULTS",
    "NAMES",
    "RECENT_CHANGES",
    "ServerSettings",
    "Servers",
    "SettingChange",
    "change",
    "check",
    "history",
    "load",
    "setting",
]
