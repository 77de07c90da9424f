-- Siege Hall schema, version 1: tables (one game each), the append-only action log,
-- players' DM preferences and the DM panel message kept per table and player.

CREATE TABLE tables (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER,
    channel_id  INTEGER NOT NULL,
    game        TEXT    NOT NULL,
    options     TEXT    NOT NULL DEFAULT '{}',
    seed        INTEGER NOT NULL,
    host_id     INTEGER NOT NULL,
    seats       TEXT    NOT NULL DEFAULT '[]',   -- JSON list of Discord user ids, seat order
    status      TEXT    NOT NULL CHECK (status IN ('lobby', 'running', 'over', 'cancelled')),
    state       TEXT,                            -- JSON engine state, NULL while in the lobby
    ply         INTEGER NOT NULL DEFAULT 0,      -- accepted actions so far
    version     INTEGER NOT NULL DEFAULT 0,      -- bumped by every change, lobby ones included
    result      TEXT,                            -- JSON engine result once over
    message_id  INTEGER,                         -- the public table message
    rematch_of  INTEGER REFERENCES tables (id),
    created_at  TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);

-- One open table per channel (a thread is a channel of its own).
CREATE UNIQUE INDEX tables_one_open_per_channel
    ON tables (channel_id) WHERE status IN ('lobby', 'running');
CREATE INDEX tables_guild ON tables (guild_id, status);

CREATE TABLE actions (
    table_id    INTEGER NOT NULL REFERENCES tables (id),
    ply         INTEGER NOT NULL,                -- the ply the action was taken at
    seat        INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    action      TEXT    NOT NULL,                -- JSON
    events      TEXT    NOT NULL,                -- JSON list
    created_at  TEXT    NOT NULL,
    PRIMARY KEY (table_id, ply)
);

CREATE TABLE players (
    user_id     INTEGER PRIMARY KEY,
    dm_mode     TEXT    NOT NULL DEFAULT 'on' CHECK (dm_mode IN ('on', 'off', 'closed'))
);

CREATE TABLE dm_panels (
    table_id    INTEGER NOT NULL REFERENCES tables (id),
    user_id     INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    message_id  INTEGER NOT NULL,
    PRIMARY KEY (table_id, user_id)
);
