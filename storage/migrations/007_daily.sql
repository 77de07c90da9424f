-- The daily challenge of Siege at Kurth (issue 9): one seed per server and UTC day, derived from
-- a secret of the server kept here (so nobody can work out tomorrow's draws and dice), and one
-- scored attempt per player, day and difficulty; further attempts that day are practice.

CREATE TABLE guild_secrets (
    guild_id    INTEGER PRIMARY KEY,
    secret      TEXT    NOT NULL
);

CREATE TABLE daily_attempts (
    table_id    INTEGER PRIMARY KEY REFERENCES tables (id),
    guild_id    INTEGER NOT NULL,
    day         TEXT    NOT NULL,                -- 'YYYY-MM-DD' (UTC)
    difficulty  TEXT    NOT NULL,
    user_id     INTEGER NOT NULL,
    scored      INTEGER NOT NULL CHECK (scored IN (0, 1)),
    score       INTEGER,                         -- set in the transaction that ends the game
    turns       INTEGER,
    won         INTEGER,
    finished_at TEXT
);

CREATE UNIQUE INDEX daily_one_scored ON daily_attempts (guild_id, day, difficulty, user_id)
    WHERE scored = 1;
CREATE INDEX daily_board ON daily_attempts (guild_id, day, difficulty, score DESC, turns)
    WHERE scored = 1 AND finished_at IS NOT NULL;
