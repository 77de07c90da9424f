-- Seats move out of the tables row into their own indexed table: one malformed JSON list can no
-- longer break "my tables" for every user, and "whose games / whose turn" queries use an index.
-- Rows whose old list cannot be read get no seats; the store then reports that table as
-- unreadable (an admin can close it with /siege cancel) and every other table is unaffected.
CREATE TABLE seats (
    table_id    INTEGER NOT NULL REFERENCES tables (id),
    seat        INTEGER NOT NULL,                -- 0-based, in the order of play (join order in a lobby)
    user_id     INTEGER NOT NULL,
    PRIMARY KEY (table_id, seat)
) WITHOUT ROWID;

CREATE INDEX seats_user ON seats (user_id, table_id);

WITH readable AS MATERIALIZED (
    SELECT id, seats FROM tables WHERE json_valid(seats) AND json_type(seats) = 'array'
)
INSERT INTO seats (table_id, seat, user_id)
    SELECT readable.id, CAST(item.key AS INTEGER), CAST(item.value AS INTEGER)
    FROM readable, json_each(readable.seats) AS item
    WHERE item.type = 'integer';

ALTER TABLE tables DROP COLUMN seats;
