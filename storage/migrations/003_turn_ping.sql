-- The channel message that pings the player to act when they get no DM panel (DMs off or
-- closed): replaced on every turn, deleted when the game ends.
ALTER TABLE tables ADD COLUMN ping_message_id INTEGER;
