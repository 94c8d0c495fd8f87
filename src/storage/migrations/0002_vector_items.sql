-- What gets embedded: one row per embeddable thing (graph node, memory, …), keyed into the vec0 table by id.
-- `text` is exactly what was (or will be) embedded, so a change of embedder can re-embed without re-parsing.
CREATE TABLE vector_items (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
  owner_type TEXT NOT NULL,
  owner_id INTEGER NOT NULL,
  text TEXT NOT NULL,
  text_hash TEXT NOT NULL,
  embedded INTEGER NOT NULL DEFAULT 0,
  UNIQUE (owner_type, owner_id)
) STRICT;

CREATE INDEX vector_items_pending ON vector_items(project_id, embedded);
