-- The background distillation queue: a compression's span waits here (redacted) from the moment its summary is
-- stored, in the same transaction, until its units and archived turns are written, in the same transaction as
-- the row's deletion. A job left by a killed process is run again at the next start.
CREATE TABLE distill_jobs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL,
  job TEXT NOT NULL,
  created_at TEXT NOT NULL
) STRICT;
CREATE INDEX distill_jobs_project ON distill_jobs(project_id, id);
