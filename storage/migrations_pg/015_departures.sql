-- Servers the bot was removed from (see SQLite migration 015).
CREATE TABLE guild_departures (
    guild_id    BIGINT PRIMARY KEY,
    left_at     TEXT COLLATE "C" NOT NULL,
    delete_at   TEXT COLLATE "C" NOT NULL
);

CREATE INDEX guild_departures_due ON guild_departures (delete_at);
