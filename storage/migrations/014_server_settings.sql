-- Server settings (issue 28): what a server's admins chose, one row per setting they changed
-- (a setting without a row has its default, storage/servers.py), and every change with who made
-- it and when. A result keeps whether repeated games counted less when it was rated, so a
-- recompute rates every game as it was rated then, whatever the setting is now.
CREATE TABLE server_settings (
    guild_id    INTEGER NOT NULL,
    name        TEXT    NOT NULL,
    value       TEXT    NOT NULL,                -- JSON
    PRIMARY KEY (guild_id, name)
);

CREATE TABLE server_setting_changes (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    name        TEXT    NOT NULL,
    old         TEXT    NOT NULL,                -- JSON, as it was
    new         TEXT    NOT NULL,                -- JSON, as it became
    user_id     INTEGER NOT NULL,                -- who changed it
    changed_at  TEXT    NOT NULL
);

CREATE INDEX server_setting_changes_guild ON server_setting_changes (guild_id, id);

ALTER TABLE results ADD COLUMN repeats_count_less INTEGER NOT NULL DEFAULT 1;
