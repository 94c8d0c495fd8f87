-- Anchored summaries: one row per compression of a session; the latest is the session's summary.
CREATE TABLE summaries (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  markdown TEXT NOT NULL,
  -- The structured sections (JSON), merged into by the next compression.
  sections TEXT NOT NULL,
  -- The last turn summarized: the next compression reads only the turns after it.
  last_turn_id TEXT,
  last_turn_index INTEGER,
  format TEXT,
  stats TEXT NOT NULL,
  created_at TEXT NOT NULL,
  UNIQUE (session_id, seq)
) STRICT;
