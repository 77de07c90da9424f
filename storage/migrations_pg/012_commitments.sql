-- Provably fair chance (issue 23): each table keeps a random salt beside its seed. The table shows
-- sha256("<seed>:<salt>") when its game starts and reveals both at the end, so anyone can check
-- that the deal was fixed before the first move (python -m engine.verify). Tables made before
-- this have none (NULL): they were never committed to, and say so. Which chance scheme a game was
-- dealt with is kept in its state (engine/chance.py): no column needed.
ALTER TABLE tables ADD COLUMN salt TEXT COLLATE "C";
