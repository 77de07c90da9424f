"""What Siege Hall keeps: every table of the schema declared once, in plain words, with the
columns that hold a Discord user id and how one server's rows are found.

The declaration is what ``/siege privacy`` tells a player, what ``/siege privacy export`` reads,
what forgetting a player rewrites and what deleting a server removes. A test reads the schema of
both backends and fails while a table is missing here or a column that names a user (``user_id``,
``host_id``, ``..._by``) is not declared, so a new table is never kept silently.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The rows of one server's tables, for the tables that hang off ``tables`` by ``table_id``.
_OF_SERVER_TABLES = "table_id IN (SELECT id FROM tables WHERE guild_id = ?)"
#: A player's rows of a table keyed by ``table_id`` without an index on ``user_id``: found
#: through their seats (an index), so a big log is never read whole.
_AT_THEIR_SEATS = "table_id IN (SELECT table_id FROM seats WHERE user_id = ?) AND user_id = ?"


@dataclass(frozen=True)
class Kept:
    """One table of the schema."""

    #: What it holds and why, in plain words (``/siege privacy`` shows those naming players).
    what: str
    #: How long it is kept, in plain words.
    kept: str
    #: Columns holding one Discord user id each.
    users: tuple[str, ...] = ()
    #: Columns holding a sorted comma-separated list of user ids (in a table keyed by
    #: ``table_id``).
    user_lists: tuple[str, ...] = ()
    #: The rows that name a player: a WHERE clause whose every ``?`` is their user id. (Seats
    #: are replaced after the tables above them here, so a clause may go through them.)
    mine: str | None = None
    #: One server's rows: a WHERE clause whose every ``?`` is the server id (``None``: the rows
    #: belong to no server and stay when a server is deleted).
    server: str | None = None
    #: Whether forgetting a player deletes their rows here (else their id is replaced by a
    #: former player's, so the other players' games and ratings stay as they were).
    removed: bool = False
    #: Columns never exported: a game's secrets (a running game's hidden state, its seed and
    #: salt) that a player must not read before the end.
    hidden: tuple[str, ...] = ()

    @property
    def names_players(self) -> bool:
        return bool(self.users or self.user_lists)


#: How long what is part of games is kept.
GAMES = (
    "as long as the bot stays in the server; if you delete your data your id in it becomes an "
    "anonymous former player, so the other players' games and ratings stay as they were"
)
#: How long what is yours alone is kept.
YOURS = "until you delete your data (or the server's data is deleted)"

#: Every table, children before their parents (the order a server's rows are deleted in).
KEPT: dict[str, Kept] = {
    "cancel_offers": Kept(
        "the offers to end a running game by agreement at your tables: who asked, who has not "
        "answered yet, status, the Accept/Decline message",
        YOURS,
        users=("host_id",),
        mine="table_id IN (SELECT table_id FROM seats WHERE user_id = ?) OR host_id = ?",
        server=_OF_SERVER_TABLES,
        removed=True,
    ),
    "offer_seats": Kept(
        "your answer to each challenge or rematch offer you were part of (so the game starts "
        "when everyone has said yes)",
        YOURS,
        users=("user_id",),
        mine="user_id = ?",
        server="offer_id IN (SELECT id FROM offers WHERE guild_id = ?)",
        removed=True,
    ),
    "offers": Kept(
        "the challenges and rematch offers you made or were sent: game, options, channel, "
        "status, the Accept/Decline message",
        YOURS,
        users=("host_id",),
        mine="host_id = ? OR id IN (SELECT offer_id FROM offer_seats WHERE user_id = ?)",
        server="guild_id = ?",
        removed=True,
    ),
    "seeks": Kept(
        "the open challenges you posted or accepted in a channel: game, options, who may "
        "accept, status, the game it opened (whether it counts for ratings); yours still open "
        "are withdrawn when you delete your data",
        GAMES,
        users=("author_id", "accepted_by"),
        mine="author_id = ? OR accepted_by = ?",
        server="guild_id = ?",
    ),
    "tournament_match_seats": Kept(
        "your seat in each tournament game you were paired for (who met whom, a bye)",
        GAMES,
        users=("user_id",),
        mine="user_id = ?",
        server="match_id IN (SELECT m.id FROM tournament_matches AS m JOIN tournaments AS t"
        " ON t.id = m.tournament_id WHERE t.guild_id = ?)",
    ),
    "tournament_matches": Kept(
        "the tournament games you were paired for: round, table, result, the table it was "
        "played at",
        GAMES,
        mine="id IN (SELECT match_id FROM tournament_match_seats WHERE user_id = ?)",
        server="tournament_id IN (SELECT id FROM tournaments WHERE guild_id = ?)",
    ),
    "tournament_entrants": Kept(
        "the tournaments you joined: your rating when you joined (the pairings rank by it), "
        "when you joined and withdrew",
        GAMES,
        users=("user_id",),
        mine="user_id = ?",
        server="tournament_id IN (SELECT id FROM tournaments WHERE guild_id = ?)",
    ),
    "tournaments": Kept(
        "the tournaments you organised or joined: game, format, clock, start, status, messages",
        GAMES,
        users=("host_id",),
        mine="host_id = ? OR id IN (SELECT tournament_id FROM tournament_entrants WHERE"
        " user_id = ?)",
        server="guild_id = ?",
    ),
    "dm_panels": Kept(
        "the ids of the DM messages that hold your private panel for each table (so they can "
        "be kept up to date rather than sent again)",
        YOURS,
        users=("user_id",),
        mine=_AT_THEIR_SEATS,
        server=_OF_SERVER_TABLES,
        removed=True,
    ),
    "daily_attempts": Kept(
        "your daily-challenge attempts: day, board, score, turns (the daily board)",
        GAMES,
        users=("user_id",),
        mine=_AT_THEIR_SEATS,
        server="guild_id = ?",
    ),
    "actions": Kept(
        "every move of every game you played, with its time (replays, history and the check "
        "that a game was played by its rules)",
        GAMES,
        users=("user_id",),
        mine=_AT_THEIR_SEATS,
        server=_OF_SERVER_TABLES,
        hidden=("events",),
    ),
    "seats": Kept(
        "your seats at tables (who plays where) and missed deadlines",
        GAMES,
        users=("user_id",),
        mine="user_id = ?",
        server=_OF_SERVER_TABLES,
    ),
    "result_seats": Kept(
        "your place, outcome, score and rating before and after each finished game (history, "
        "stats)",
        GAMES,
        users=("user_id",),
        mine="user_id = ?",
        server="guild_id = ?",
    ),
    "results": Kept(
        "each finished game: when it ended, why, and who met whom (ratings count repeat games "
        "on one day for less)",
        GAMES,
        user_lists=("players",),
        mine="table_id IN (SELECT table_id FROM result_seats WHERE user_id = ?)",
        server="guild_id = ?",
    ),
    "ratings": Kept(
        "your rating, games, wins, losses and draws per server, game and season (leaderboards)",
        GAMES,
        users=("user_id",),
        mine="user_id = ?",
        server="guild_id = ?",
    ),
    "server_setting_changes": Kept(
        "each change a server manager made to the server's Siege Hall settings: which setting, "
        "from what to what, who made it and when (/siege-admin show lists the latest)",
        "until the server's data is deleted (if you delete your data, your id in it becomes an "
        "anonymous former player's)",
        users=("user_id",),
        mine="user_id = ?",
        server="guild_id = ?",
    ),
    "server_settings": Kept(
        "a server's Siege Hall settings: channels, moderator role, defaults, games offered, "
        "leaderboards (nothing about you)",
        "until the server's data is deleted",
        server="guild_id = ?",
    ),
    "guild_secrets": Kept(
        "a random secret per server that the daily challenge's deals come from (nothing about you)",
        "until the server's data is deleted",
        server="guild_id = ?",
    ),
    "tables": Kept(
        "the tables you hosted or sat at, or ended (a claim, an abort, a moderator's cancel): "
        "game, options, channel and messages, status, the game's state, result and how it ended",
        GAMES,
        users=("host_id", "ended_by"),
        mine="host_id = ? OR ended_by = ? OR id IN (SELECT table_id FROM seats WHERE user_id = ?)",
        server="guild_id = ?",
        hidden=("state", "seed", "salt"),
    ),
    "guild_departures": Kept(
        "servers the bot was removed from, and when their data is deleted (nothing about you)",
        "until the server's data is deleted, or the bot is added back",
        server="guild_id = ?",
    ),
    "players": Kept(
        "your settings: DM panels on or off, time zone, quiet hours, daily digest, vacation "
        "days, and the name you were last seen under (so boards can name you)",
        "until you delete your data (it belongs to no one server)",
        users=("user_id",),
        mine="user_id = ?",
        removed=True,
    ),
    "meta": Kept(
        "the bot's own notes, such as when the clock last ran (nothing about you)",
        "always",
    ),
    "siege_schema": Kept(
        "the version of the database's layout, on PostgreSQL (nothing about you)",
        "always",
    ),
}


def names_a_user(column: str) -> bool:
    """Whether a column's name says it holds who someone is (a user id, a host, who did it).

    >>> [names_a_user(c) for c in ("user_id", "host_id", "changed_by", "guild_id", "players")]
    [True, True, True, False, True]
    """
    return (
        column.endswith(("user_id", "host_id", "_by", "member_id", "author_id"))
        or column == "players"
    )


def undeclared(schema: dict[str, tuple[str, ...]]) -> list[str]:
    """What the declaration misses of a schema (tables and their columns): a table not in
    :data:`KEPT`, a column naming users that is not one of its declared ``users`` or
    ``user_lists``, a table with a ``guild_id`` but no ``server`` clause. Empty: all declared."""
    missing = []
    for table, columns in sorted(schema.items()):
        kept = KEPT.get(table)
        if kept is None:
            missing.append(f"table {table} is not declared in storage/kept.py")
            continue
        for column in columns:
            if names_a_user(column) and column not in (*kept.users, *kept.user_lists):
                missing.append(f"{table}.{column} names users but is not declared")
        if "guild_id" in columns and kept.server is None:
            missing.append(f"{table} has a guild_id but no server clause")
    queried = {name for name, kept in KEPT.items() if kept.mine or kept.server}
    missing.extend(
        f"{table} is declared but not in the schema" for table in queried - schema.keys()
    )
    return missing


def params(clause: str, value: int) -> tuple[int, ...]:
    """The parameters of a declared WHERE clause: ``value`` for each ``?``."""
    return (value,) * clause.count("?")


__all__ = ["GAMES", "KEPT", "YOURS", "Kept", "names_a_user", "params", "undeclared"]
