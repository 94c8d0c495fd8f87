-- Typed memory units distilled from conversations, and the redacted raw turns kept as a cold archive.
CREATE TABLE memories (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  session_id TEXT,
  category TEXT NOT NULL,
  text TEXT NOT NULL,
  -- Category-specific fields (JSON): scope and caveats, {metric, value, unit, context}, severity and remediation…
  record TEXT NOT NULL DEFAULT '{}',
  -- What cross-referencing compares: normalized text, a metric name, an error signature.
  merge_key TEXT NOT NULL,
  confidence REAL NOT NULL,
  importance REAL NOT NULL,
  tier TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'active',
  superseded_by INTEGER REFERENCES memories(id) ON DELETE SET NULL,
  conflicts_with INTEGER REFERENCES memories(id) ON DELETE SET NULL,
  -- [{session, turn, quote}]
  evidence TEXT NOT NULL DEFAULT '[]',
  files TEXT NOT NULL DEFAULT '[]',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
) STRICT;

CREATE INDEX memories_key ON memories(project_id, category, merge_key);
CREATE INDEX memories_session ON memories(session_id);

CREATE TABLE raw_turns (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL,
  turn_id TEXT NOT NULL,
  role TEXT NOT NULL,
  text TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (session_id, turn_id)
) STRICT;
