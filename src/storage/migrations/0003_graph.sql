-- The instance context graph: indexed files, nodes (file, test, symbol, rule, memory, failure) and typed edges,
-- with an FTS5 index of identifier-aware tokens (pre-tokenized by the app; rowid = node id).
CREATE TABLE files (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  language TEXT,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  hash TEXT NOT NULL,
  is_test INTEGER NOT NULL DEFAULT 0,
  parser TEXT,
  -- Imports as written, JSON [{spec, names?, line}]: resolution is redone without re-parsing.
  imports TEXT NOT NULL DEFAULT '[]',
  indexed_at TEXT NOT NULL
) STRICT;

CREATE TABLE nodes (
  id INTEGER PRIMARY KEY,
  -- Stable identity: file:<path>, sym:<path>#<Parent.name>[~n], rule:<path>, memory:<id>, failure:<id>.
  key TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  file_id INTEGER REFERENCES files(id) ON DELETE CASCADE,
  path TEXT,
  name TEXT,
  kind TEXT,
  start_line INTEGER,
  end_line INTEGER,
  summary TEXT,
  tokens INTEGER NOT NULL DEFAULT 0,
  content_hash TEXT,
  source TEXT NOT NULL,
  confidence REAL NOT NULL DEFAULT 1,
  meta TEXT
) STRICT;

CREATE INDEX nodes_file ON nodes(file_id);
CREATE INDEX nodes_path ON nodes(path);
CREATE INDEX nodes_name ON nodes(name COLLATE NOCASE);
CREATE INDEX nodes_type ON nodes(type);

CREATE TABLE edges (
  src INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
  dst INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  weight REAL NOT NULL DEFAULT 1,
  PRIMARY KEY (src, type, dst)
) STRICT, WITHOUT ROWID;

CREATE INDEX edges_dst ON edges(dst, type);

-- name: symbol/file name tokens; path: path tokens; body: content tokens. Contentless, deletable.
CREATE VIRTUAL TABLE nodes_fts USING fts5(
  name, path, body,
  content = '',
  contentless_delete = 1,
  tokenize = "unicode61 remove_diacritics 2 tokenchars '_$'"
);

-- One watcher per project across processes: whoever holds an unexpired lease watches.
CREATE TABLE leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  pid INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
