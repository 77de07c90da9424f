-- How seats are assigned when the host starts the game: 'join' (in the order players joined),
-- 'random', 'host_first' or 'host_second' (the host takes that seat; the others follow in
-- join order). Games with sides (the 1966 board game) let the host choose.
ALTER TABLE tables ADD COLUMN seating TEXT NOT NULL DEFAULT 'join'
    CHECK (seating IN ('join', 'random', 'host_first', 'host_second'));
