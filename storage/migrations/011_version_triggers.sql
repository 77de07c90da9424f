-- Every change to a table's row bumps its version, whatever statement made it (a message id, a
-- reminder mark, a deadline, another process). The writer keeps the running tables it last
-- wrote in memory and writes a move with "WHERE version = ?": a version that moved on means the
-- copy is stale and the table is read again. This trigger makes that safe for statements that
-- do not bump the version themselves. (Recursive triggers are off, so its own UPDATE does not
-- fire it again.) Seats change only in a lobby or at the start, always together with an UPDATE
-- of the table that bumps its version.
CREATE TRIGGER tables_version_bump AFTER UPDATE ON tables
FOR EACH ROW WHEN NEW.version = OLD.version
BEGIN
    UPDATE tables SET version = OLD.version + 1 WHERE id = OLD.id;
END;
