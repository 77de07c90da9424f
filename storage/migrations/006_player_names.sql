-- The name a player was last seen under, so boards and histories can name people who have
-- since left the server (Discord no longer resolves their mention there).
ALTER TABLE players ADD COLUMN name TEXT;
