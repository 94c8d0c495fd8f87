-- Cards served (for the card resource, the log and outcome attribution) and reported outcomes per unit.
CREATE TABLE cards_served (
  id TEXT NOT NULL,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  session_id TEXT,
  unit_key TEXT NOT NULL,
  task TEXT NOT NULL,
  card TEXT NOT NULL,
  served_at TEXT NOT NULL,
  PRIMARY KEY (project_id, id)
) STRICT;

CREATE INDEX cards_served_unit ON cards_served(project_id, unit_key);

CREATE TABLE outcomes (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  unit_key TEXT NOT NULL,
  -- 1: helped (or the file finally edited), 0: served and not helpful.
  helped INTEGER NOT NULL,
  session_id TEXT,
  created_at TEXT NOT NULL
) STRICT;

CREATE INDEX outcomes_unit ON outcomes(project_id, unit_key);
