-- Open challenges (issue 27): a seek is a game offered to anyone in a channel. The first member
-- who accepts (never its author) takes the other seat and the game opens there; a seek closes
-- when it is accepted, withdrawn by its author, superseded (its author took a seat in another
-- game, the same transaction closes it) or expired (at expires_at, by the sweeper). "shown" is
-- 0 while a closed seek's message still shows it open (superseded ones: the hall edits it).
CREATE TABLE seeks (
    id              INTEGER PRIMARY KEY,
    guild_id        INTEGER,
    channel_id      INTEGER NOT NULL,               -- where the game opens
    game            TEXT    NOT NULL,
    options         TEXT    NOT NULL DEFAULT '{}',  -- JSON, resolved
    time_control    TEXT    NOT NULL DEFAULT 'none',
    rated           INTEGER NOT NULL DEFAULT 1,     -- 0: the game it opens is not rated
    rating_low      INTEGER,                        -- who may accept: rated from low to high
    rating_high     INTEGER,                        -- in this game here (NULL: anyone)
    author_id       INTEGER NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'open'
                    CHECK (status IN ('open', 'accepted', 'withdrawn', 'superseded', 'expired')),
    accepted_by     INTEGER,
    table_id        INTEGER REFERENCES tables (id), -- the game it opened
    message_id      INTEGER,                        -- the seek's message in channel_id
    shown           INTEGER NOT NULL DEFAULT 1,
    expires_at      TEXT    NOT NULL,
    created_at      TEXT    NOT NULL,
    updated_at      TEXT    NOT NULL
);

CREATE INDEX seeks_open ON seeks (guild_id, created_at) WHERE status = 'open';
CREATE INDEX seeks_expiry ON seeks (expires_at) WHERE status = 'open';
CREATE INDEX seeks_author ON seeks (author_id) WHERE status = 'open';
CREATE INDEX seeks_unshown ON seeks (author_id) WHERE shown = 0;
CREATE INDEX seeks_table ON seeks (table_id) WHERE table_id IS NOT NULL;
