-- A unit's history (the units it superseded) and its conflicts are looked up by these columns: without an index,
-- each lookup, and each deletion's ON DELETE SET NULL, scans every unit.
CREATE INDEX memories_superseded_by ON memories(superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX memories_conflicts_with ON memories(conflicts_with) WHERE conflicts_with IS NOT NULL;
