-- Full-text search over memory units and the raw turn archive (rowid = their id; pre-tokenized by the app).
CREATE VIRTUAL TABLE memories_fts USING fts5(
  body,
  content = '',
  contentless_delete = 1,
  tokenize = "unicode61 remove_diacritics 2 tokenchars '_$'"
);

CREATE VIRTUAL TABLE raw_turns_fts USING fts5(
  body,
  content = '',
  contentless_delete = 1,
  tokenize = "unicode61 remove_diacritics 2 tokenchars '_$'"
);

-- FTS5 overwrites deleted entries' data instead of leaving it in place (forget must leave no trace).
INSERT INTO memories_fts (memories_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO raw_turns_fts (raw_turns_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('secure-delete', 1);
