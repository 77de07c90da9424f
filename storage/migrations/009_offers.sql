-- Offers (issue 11): a challenge to a game, or a rematch, that starts once every player has
-- said yes. One row per offer, one row per seat with that player's answer (NULL: not yet). An
-- open offer expires at expires_at (the sweeper finds those due by an index); accepting the
-- last seat and creating the table commit together.
CREATE TABLE offers (
    id                  INTEGER PRIMARY KEY,
    kind                TEXT    NOT NULL CHECK (kind IN ('challenge', 'rematch')),
    guild_id            INTEGER,
    channel_id          INTEGER NOT NULL,               -- where the game opens
    game                TEXT    NOT NULL,
    options             TEXT    NOT NULL DEFAULT '{}',  -- JSON, resolved
    time_control        TEXT    NOT NULL DEFAULT 'none',
    host_id             INTEGER NOT NULL,               -- who made the offer
    rematch_of          INTEGER REFERENCES tables (id),
    status              TEXT    NOT NULL DEFAULT 'open'
                        CHECK (status IN ('open', 'accepted', 'declined', 'expired')),
    table_id            INTEGER REFERENCES tables (id), -- the game it started
    message_channel_id  INTEGER,                        -- the message with Accept / Decline
    message_id          INTEGER,
    expires_at          TEXT    NOT NULL,
    created_at          TEXT    NOT NULL,
    updated_at          TEXT    NOT NULL
);

CREATE INDEX offers_expiry ON offers (expires_at) WHERE status = 'open';
-- At most one open rematch offer per finished table: a second Rematch click answers it.
CREATE UNIQUE INDEX offers_one_open_rematch ON offers (rematch_of)
    WHERE status = 'open' AND rematch_of IS NOT NULL;

CREATE TABLE offer_seats (
    offer_id    INTEGER NOT NULL REFERENCES offers (id),
    seat        INTEGER NOT NULL,                       -- 0-based, the seat in the new game
    user_id     INTEGER NOT NULL,
    answer      TEXT CHECK (answer IN ('yes', 'no')),   -- NULL: not answered yet
    PRIMARY KEY (offer_id, seat)
) WITHOUT ROWID;

CREATE INDEX offer_seats_user ON offer_seats (user_id, offer_id);
