-- Finished games and ratings (issue 10). A result row is written in the same transaction as
-- the action that ends the game, with each seat's rating before and after; the ratings table is
-- the current standing per server, game and season ('all' for all time, else 'YYYY-MM'), and
-- can always be rebuilt from the results in order (the recompute command).

CREATE TABLE results (
    table_id    INTEGER PRIMARY KEY REFERENCES tables (id),
    seq         INTEGER NOT NULL UNIQUE,         -- commit order: ratings replay in this order
    guild_id    INTEGER,
    game        TEXT    NOT NULL,
    season      TEXT    NOT NULL,                -- 'YYYY-MM' of ended_at (UTC)
    ended_at    TEXT    NOT NULL,
    reason      TEXT    NOT NULL,
    plies       INTEGER NOT NULL,
    rated       INTEGER NOT NULL CHECK (rated IN (0, 1)),
    weight      REAL    NOT NULL,                -- 1, 1/2, 1/3... for repeat pairings that day
    players     TEXT    NOT NULL                 -- the sorted user ids, "1,2": who met whom
);

CREATE INDEX results_guild_order ON results (guild_id, seq);
CREATE INDEX results_pairing ON results (guild_id, game, players, ended_at);

CREATE TABLE result_seats (
    table_id    INTEGER NOT NULL REFERENCES results (table_id),
    seat        INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    place       INTEGER NOT NULL,                -- 1 for the winners (or everyone in a draw)
    outcome     TEXT    NOT NULL CHECK (outcome IN ('win', 'loss', 'draw')),
    score       INTEGER,
    rating_before REAL,                          -- shown (conservative) rating, all-time board
    rating_after  REAL,                          -- NULL for an unrated game
    guild_id    INTEGER,                         -- the result's, repeated here so a player's
    game        TEXT    NOT NULL,                -- history is one range of the index below
    seq         INTEGER NOT NULL,
    PRIMARY KEY (table_id, seat)
) WITHOUT ROWID;

CREATE INDEX result_seats_user ON result_seats (user_id, table_id);
-- A player's latest games in a server, newest first (/siege history).
CREATE INDEX result_seats_recent ON result_seats (user_id, guild_id, seq);
-- A player's rating history in a server and game, in commit order, read from the index alone.
CREATE INDEX result_seats_history ON result_seats (user_id, guild_id, game, seq, rating_after);

CREATE TABLE ratings (
    guild_id    INTEGER NOT NULL,
    game        TEXT    NOT NULL,
    season      TEXT    NOT NULL,                -- 'all' or 'YYYY-MM'
    user_id     INTEGER NOT NULL,
    mu          REAL    NOT NULL,
    sigma       REAL    NOT NULL,
    rating      REAL    NOT NULL,                -- shown: scaled mu - 3 sigma
    games       INTEGER NOT NULL DEFAULT 0,
    wins        INTEGER NOT NULL DEFAULT 0,
    losses      INTEGER NOT NULL DEFAULT 0,
    draws       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, game, season, user_id)
) WITHOUT ROWID;

CREATE INDEX ratings_board ON ratings (guild_id, game, season, rating DESC, user_id);
