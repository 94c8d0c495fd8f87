-- A unit's id is never reused: after forget, an old id names no other unit. The table is rebuilt with
-- AUTOINCREMENT (renamed first, so its self-references follow the old copy and the drop touches no new row), and
-- the sequence starts above every id ever handed out that is still cited (served cards, outcomes, graph nodes,
-- the team queue).
ALTER TABLE memories RENAME TO memories_before_0012;

CREATE TABLE memories (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  session_id TEXT,
  category TEXT NOT NULL,
  text TEXT NOT NULL,
  record TEXT NOT NULL DEFAULT '{}',
  merge_key TEXT NOT NULL,
  confidence REAL NOT NULL,
  importance REAL NOT NULL,
  tier TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active',
  superseded_by INTEGER REFERENCES memories(id) ON DELETE SET NULL,
  conflicts_with INTEGER REFERENCES memories(id) ON DELETE SET NULL,
  evidence TEXT NOT NULL DEFAULT '[]',
  files TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

INSERT INTO memories (
  id, project_id, session_id, category, text, record, merge_key, confidence, importance, tier, status,
  superseded_by, conflicts_with, evidence, files, created_at, updated_at
)
SELECT
  id, project_id, session_id, category, text, record, merge_key, confidence, importance, tier, status,
  superseded_by, conflicts_with, evidence, files, created_at, updated_at
FROM memories_before_0012;

DROP TABLE memories_before_0012;

CREATE INDEX memories_key ON memories(project_id, category, merge_key);
CREATE INDEX memories_session ON memories(session_id);
CREATE INDEX memories_superseded_by ON memories(superseded_by) WHERE superseded_by IS NOT NULL;
CREATE INDEX memories_conflicts_with ON memories(conflicts_with) WHERE conflicts_with IS NOT NULL;
-- The hot-path indexes of 0010 go with the old table: made again on the new one.
CREATE INDEX memories_recent ON memories(project_id, category, id);
CREATE INDEX memories_rank ON memories(project_id, category, status, importance DESC, id DESC);

DELETE FROM sqlite_sequence WHERE name = 'memories';
INSERT INTO sqlite_sequence (name, seq)
SELECT 'memories', COALESCE(MAX(v), 0) FROM (
  SELECT MAX(id) AS v FROM memories
  UNION ALL SELECT MAX(CAST(substr(unit_key, 8) AS INTEGER)) FROM cards_served WHERE unit_key LIKE 'memory:%'
  UNION ALL SELECT MAX(CAST(substr(unit_key, 8) AS INTEGER)) FROM outcomes WHERE unit_key LIKE 'memory:%'
  UNION ALL SELECT MAX(CAST(substr(key, 8) AS INTEGER)) FROM nodes WHERE key LIKE 'memory:%'
  UNION ALL SELECT MAX(local_id) FROM team_outbox
);
