-- Tournaments (issue 27): a server's event of one game, in one channel. Entrants join until it
-- starts; each round's matches (pairings, or tables of a table event) become tables in threads
-- of the channel. A match's result is written in the transaction that ends its game, and a
-- round advances only from the version it was read at, so two results arriving at once close
-- the round once.
CREATE TABLE tournaments (
    id                    INTEGER PRIMARY KEY,
    guild_id              INTEGER NOT NULL,
    channel_id            INTEGER NOT NULL,
    host_id               INTEGER NOT NULL,
    game                  TEXT    NOT NULL,
    format                TEXT    NOT NULL
                          CHECK (format IN ('swiss', 'robin', 'double_robin', 'tables')),
    rounds                INTEGER,            -- Swiss: asked for, then planned at the start
    time_control          TEXT    NOT NULL,
    starts_at             TEXT    NOT NULL,
    max_players           INTEGER NOT NULL,
    rated                 INTEGER NOT NULL DEFAULT 1,
    status                TEXT    NOT NULL DEFAULT 'open'
                          CHECK (status IN ('open', 'running', 'over', 'cancelled')),
    round                 INTEGER NOT NULL DEFAULT 0,  -- the round being played (0: none yet)
    version               INTEGER NOT NULL DEFAULT 0,  -- bumped by every change of state
    message_id            INTEGER,            -- the message with Join / Leave
    standings_message_id  INTEGER,            -- the standings, kept up to date
    ended_reason          TEXT,               -- why it was cancelled or ended early
    created_at            TEXT    NOT NULL,
    updated_at            TEXT    NOT NULL
);

CREATE INDEX tournaments_guild ON tournaments (guild_id, id);
CREATE INDEX tournaments_live ON tournaments (starts_at) WHERE status IN ('open', 'running');

CREATE TABLE tournament_entrants (
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
    user_id        INTEGER NOT NULL,
    rating         REAL    NOT NULL,          -- the rating the pairings rank by (at joining)
    joined_at      TEXT    NOT NULL,
    withdrawn_at   TEXT,                      -- left the tournament or the server
    PRIMARY KEY (tournament_id, user_id)
) WITHOUT ROWID;

CREATE TABLE tournament_matches (
    id             INTEGER PRIMARY KEY,
    tournament_id  INTEGER NOT NULL REFERENCES tournaments (id),
    round          INTEGER NOT NULL,
    board          INTEGER NOT NULL,          -- 1, 2, … within the round
    points         TEXT,                      -- JSON list per seat once it is over
    scores         TEXT,                      -- JSON list: the game's own scores (chips)
    reason         TEXT,                      -- how it ended (the game's reason, bye, forfeit)
    table_id       INTEGER REFERENCES tables (id),
    thread_id      INTEGER,                   -- the thread its table is played in
    UNIQUE (tournament_id, round, board)
);

CREATE UNIQUE INDEX tournament_matches_table ON tournament_matches (table_id)
    WHERE table_id IS NOT NULL;

-- The players of a match in seat order (seat 0 moves first); one player: a bye.
CREATE TABLE tournament_match_seats (
    match_id  INTEGER NOT NULL REFERENCES tournament_matches (id),
    seat      INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;

CREATE INDEX tournament_match_seats_user ON tournament_match_seats (user_id);
