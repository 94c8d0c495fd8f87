-- Superseded units are indexed under another first word than their category (the memory checks' walk no longer
-- visits them); those of a store written before are indexed so once, at the first open after this migration.
INSERT INTO meta (key, value) VALUES ('memories.superseded_index_pending', '1')
  ON CONFLICT(key) DO UPDATE SET value = excluded.value;
