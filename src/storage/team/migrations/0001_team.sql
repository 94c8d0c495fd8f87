-- The shared team store: projects known by their normalized remote, units with their author and machine,
-- history of what happened to them, and an audit of what was forgotten (ids only, never text).
CREATE TABLE team_projects (
  id BIGSERIAL PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE team_units (
  uid TEXT PRIMARY KEY,
  project_id BIGINT NOT NULL REFERENCES team_projects(id) ON DELETE CASCADE,
  seq BIGSERIAL NOT NULL UNIQUE,
  category TEXT NOT NULL,
  text TEXT NOT NULL,
  record JSONB NOT NULL DEFAULT '{}',
  merge_key TEXT NOT NULL,
  confidence REAL NOT NULL,
  tier TEXT NOT NULL DEFAULT 'warm',
  status TEXT NOT NULL DEFAULT 'active',
  superseded_by TEXT REFERENCES team_units(uid) ON DELETE SET NULL,
  conflicts_with TEXT REFERENCES team_units(uid) ON DELETE SET NULL,
  evidence JSONB NOT NULL DEFAULT '[]',
  files JSONB NOT NULL DEFAULT '[]',
  author TEXT NOT NULL,
  machine TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  tsv TSVECTOR GENERATED ALWAYS AS (to_tsvector('english', category || ' ' || text)) STORED
);

CREATE INDEX team_units_tsv ON team_units USING GIN (tsv);
CREATE INDEX team_units_key ON team_units (project_id, category, merge_key);
CREATE INDEX team_units_seq ON team_units (project_id, seq);

-- Merges, supersessions and conflicts, by unit id: who did what, when.
CREATE TABLE team_history (
  id BIGSERIAL PRIMARY KEY,
  project_id BIGINT NOT NULL REFERENCES team_projects(id) ON DELETE CASCADE,
  uid TEXT NOT NULL,
  event TEXT NOT NULL,
  other_uid TEXT,
  author TEXT NOT NULL,
  at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX team_history_uid ON team_history (uid);

-- Who forgot which unit and when; a forgotten id is never accepted again.
CREATE TABLE team_forgotten (
  id BIGSERIAL PRIMARY KEY,
  project_id BIGINT NOT NULL REFERENCES team_projects(id) ON DELETE CASCADE,
  uid TEXT NOT NULL,
  forgotten_by TEXT NOT NULL,
  machine TEXT NOT NULL,
  at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX team_forgotten_uid ON team_forgotten (uid);
