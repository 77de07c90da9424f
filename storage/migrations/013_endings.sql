-- How a game ended (issue 25): each ending is its own recorded reason, kept with the table and
-- its result, so the table, the end DM, the history, the replay and the export tell a loss on
-- time from a resignation. NULL: still open, or closed before this migration (read as before:
-- the engine's own reason, or "cancelled").
--   rules      the game's rules ended it          resigned   a player resigned
--   time       a seat forfeited on the clock      claim      the others claimed an abandoned game
--   aborted    aborted before every player moved  agreed     the players accepted a cancel offer
--   moderator  a moderator cancelled it
-- ended_by: who resigned, claimed, aborted, offered the agreed end, or cancelled as moderator.
ALTER TABLE tables ADD COLUMN ending TEXT;
ALTER TABLE tables ADD COLUMN ended_by INTEGER;
ALTER TABLE results ADD COLUMN ending TEXT;

-- Offers to end a running game by agreement (a cancel offer): the asker has said yes; the game
-- ends, unrated, when every other player has (waiting: the user ids still to answer, comma
-- separated). At most one open offer per table.
CREATE TABLE cancel_offers (
    id                  INTEGER PRIMARY KEY,
    table_id            INTEGER NOT NULL REFERENCES tables (id),
    host_id             INTEGER NOT NULL,
    waiting             TEXT    NOT NULL,
    status              TEXT    NOT NULL DEFAULT 'open'
                        CHECK (status IN ('open', 'accepted', 'declined', 'expired')),
    message_channel_id  INTEGER,
    message_id          INTEGER,
    expires_at          TEXT    NOT NULL,
    created_at          TEXT    NOT NULL,
    updated_at          TEXT    NOT NULL
);

CREATE UNIQUE INDEX cancel_offers_one_open ON cancel_offers (table_id) WHERE status = 'open';
CREATE INDEX cancel_offers_expiry ON cancel_offers (expires_at) WHERE status = 'open';
