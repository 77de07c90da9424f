-- Servers the bot was removed from (issue 28): their open tables were closed when it left, and
-- everything of the server is deleted by the sweeper once delete_at has passed. The bot's return
-- before then deletes the row, and everything is as it was.
CREATE TABLE guild_departures (
    guild_id    INTEGER PRIMARY KEY,
    left_at     TEXT    NOT NULL,
    delete_at   TEXT    NOT NULL
);

CREATE INDEX guild_departures_due ON guild_departures (delete_at);
