-- A player's own settings (issue 11): a time zone and quiet hours that delay reminders (never
-- deadlines), the opt-in daily digest of games waiting for them, and vacation from daily clocks
-- (a capped number of days a month).
ALTER TABLE players ADD COLUMN timezone TEXT;         -- IANA name; NULL: UTC
ALTER TABLE players ADD COLUMN quiet_from INTEGER;    -- local hour 0-23; NULL: no quiet hours
ALTER TABLE players ADD COLUMN quiet_to INTEGER;      -- local hour 0-23 (may wrap past midnight)
ALTER TABLE players ADD COLUMN digest INTEGER NOT NULL DEFAULT 0;
ALTER TABLE players ADD COLUMN digest_sent_on TEXT;   -- the local date of the last digest
ALTER TABLE players ADD COLUMN vacation_until TEXT;   -- UTC moment; daily clocks wait till then
ALTER TABLE players ADD COLUMN vacation_month TEXT;   -- 'YYYY-MM' the days below were taken in
ALTER TABLE players ADD COLUMN vacation_days INTEGER NOT NULL DEFAULT 0;

CREATE INDEX players_digest ON players (user_id) WHERE digest = 1;
