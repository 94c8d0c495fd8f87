-- Team memory on this machine: the outbound queue (sent in order, once, by unit id) and the last pulled copy
-- of the team's units, read when the team store is unreachable.
CREATE TABLE team_outbox (
  seq INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  uid TEXT NOT NULL,
  op TEXT NOT NULL,
  local_id INTEGER,
  payload TEXT NOT NULL DEFAULT '{}',
  created_at TEXT NOT NULL,
  sent_at TEXT,
  UNIQUE (uid, op)
) STRICT;
CREATE INDEX team_outbox_pending ON team_outbox(project_id, sent_at, seq);
CREATE INDEX team_outbox_local ON team_outbox(local_id);

CREATE TABLE team_cache (
  uid TEXT PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  category TEXT NOT NULL,
  text TEXT NOT NULL,
  status TEXT NOT NULL,
  author TEXT NOT NULL,
  machine TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX team_cache_seq ON team_cache(project_id, seq);
