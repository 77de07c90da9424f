"""Persistence for Siege Hall tables (SQLite or PostgreSQL): lobby, games, the action log, DM
panels.

Every change is one call to :meth:`Database.write`: one ``BEGIN IMMEDIATE`` transaction run
whole on the writer's thread. A game action loads the table, checks it, runs the engine, writes
the new state, its log row and the result and commits in that one trip, guarded by a ply check so
two attempts at the same ply apply exactly once (also across processes sharing the file). Reads
go to a separate read-only connection and only ever see committed data. Schema changes are the
numbered SQL files in ``storage/migrations/``, run with SQLite's own script execution and tracked
by ``PRAGMA user_version``; a database that has data is backed up before one runs.

With a ``postgresql://`` URL instead of a path the same functions run on PostgreSQL
(storage/postgres.py): each write one SERIALIZABLE transaction on a pooled connection, run
again after a conflict, so exactly once holds across processes there too; its schema is
``storage/migrations_pg/``.

The store takes and returns engine types; SQL stays inside this package. :class:`Store` is the
concerns of ``storage/`` together, each a class beside its SQL on one base (storage/base.py:
the database, the clock, reads and writes): tables and their logs (reading.py), the lobby
(lobby.py), moves (playing.py), clocks (deadlines.py), aborts, agreed ends and claims
(endings.py), offers (offers.py), the daily challenge
(daily.py), results and ratings (results.py), players and DM panels (players.py), a player's
data on request (privacy.py, declared in kept.py), servers the bot left (departures.py), server
settings (servers.py) and the schema (schema.py). The records and errors they share are in
records.py, the table-level writes in
tables.py.
"""

from __future__ import annotations

from storage.daily import Dailies
from storage.deadlines import Deadlines
from storage.departures import Departures
from storage.endings import Endings
from storage.lobby import Lobby
from storage.offers import Offers
from storage.players import Players
from storage.playing import Playing
from storage.privacy import Privacy
from storage.reading import Reading
from storage.results import Results
from storage.schema import Schema
from storage.seeks import Seeks
from storage.servers import Servers
from storage.tournament_store import Tournaments


class Store(
    Reading,
    Lobby,
    Playing,
    Deadlines,
    Endings,
    Offers,
    Seeks,
    Dailies,
    Results,
    Players,
    Privacy,
    Departures,
    Servers,
    Schema,
    Tournaments,
):
    """The one gateway to the database. Create with :meth:`open`; close with :meth:`close`."""


__all__ = ["Store"]
