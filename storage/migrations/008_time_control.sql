-- Time controls (issue 11): a table's clock, the deadline of the seat to act (or of a lobby
-- that nobody starts), the reminder at 80 % of a move's time, and missed deadlines per seat
-- for the AFK ladder. Deadlines live here so a sweeper finds what is due by an index, and a
-- restart catches up (meta holds the sweeper's last heartbeat, to shift deadlines by the time
-- the bot was down).
ALTER TABLE tables ADD COLUMN time_control TEXT NOT NULL DEFAULT 'none';  -- none | live:<minutes> | daily:<days>
ALTER TABLE tables ADD COLUMN deadline TEXT;                              -- UTC ISO, NULL: none
ALTER TABLE tables ADD COLUMN remind_at TEXT;                             -- NULL once reminded
ALTER TABLE tables ADD COLUMN forfeit_after INTEGER NOT NULL DEFAULT 2;   -- missed deadlines
ALTER TABLE seats ADD COLUMN misses INTEGER NOT NULL DEFAULT 0;

CREATE INDEX tables_deadline ON tables (deadline) WHERE deadline IS NOT NULL;
CREATE INDEX tables_remind ON tables (remind_at) WHERE remind_at IS NOT NULL;

CREATE TABLE meta (
    key         TEXT PRIMARY KEY,
    value       TEXT NOT NULL
) WITHOUT ROWID;
