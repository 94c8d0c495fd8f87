-- Counts of a project's units per category, tier and status, kept by triggers in every write (insert, delete,
-- a change of category, tier or status), so the viewer's filter bar and page totals read a few rows instead of
-- counting every unit.
CREATE TABLE memory_counts (
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  category TEXT NOT NULL,
  tier TEXT NOT NULL,
  status TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (project_id, category, tier, status)
) STRICT, WITHOUT ROWID;

INSERT INTO memory_counts (project_id, category, tier, status, n)
SELECT project_id, category, tier, status, COUNT(*) FROM memories GROUP BY project_id, category, tier, status;

CREATE TRIGGER memory_counts_insert AFTER INSERT ON memories BEGIN
  INSERT INTO memory_counts (project_id, category, tier, status, n)
  VALUES (new.project_id, new.category, new.tier, new.status, 1)
  ON CONFLICT (project_id, category, tier, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER memory_counts_delete AFTER DELETE ON memories BEGIN
  UPDATE memory_counts SET n = n - 1
  WHERE project_id = old.project_id AND category = old.category AND tier = old.tier AND status = old.status;
  DELETE FROM memory_counts
  WHERE project_id = old.project_id AND category = old.category AND tier = old.tier AND status = old.status AND n <= 0;
END;

CREATE TRIGGER memory_counts_update AFTER UPDATE OF project_id, category, tier, status ON memories
WHEN old.project_id IS NOT new.project_id OR old.category IS NOT new.category OR old.tier IS NOT new.tier
  OR old.status IS NOT new.status
BEGIN
  UPDATE memory_counts SET n = n - 1
  WHERE project_id = old.project_id AND category = old.category AND tier = old.tier AND status = old.status;
  DELETE FROM memory_counts
  WHERE project_id = old.project_id AND category = old.category AND tier = old.tier AND status = old.status AND n <= 0;
  INSERT INTO memory_counts (project_id, category, tier, status, n)
  VALUES (new.project_id, new.category, new.tier, new.status, 1)
  ON CONFLICT (project_id, category, tier, status) DO UPDATE SET n = n + 1;
END;

-- The viewer's pages walk a project's units newest first, from the last id shown (keyset), through an index that
-- matches the filter: the whole project, one status (a few units waiting for review among many), one tier, or a
-- time since (whose count and lowest id come from its range alone). One category walks memories_recent (0010).
CREATE INDEX memories_project ON memories(project_id, id);
CREATE INDEX memories_status ON memories(project_id, status, id);
CREATE INDEX memories_tier ON memories(project_id, tier, id);
CREATE INDEX memories_created ON memories(project_id, created_at);
