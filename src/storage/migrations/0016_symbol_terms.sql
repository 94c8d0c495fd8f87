-- The own tokens of each counted file's symbols, kept at index time so a card ranking reads them instead of reading
-- and tokenizing the files' lines on every call. One row per file_terms row (gone with it): per symbol span, its
-- token count and its distinct terms with their counts, the terms as positions in the file's `file_terms.terms`
-- list (varints, deflated; text/symbol-bodies.ts). An empty blob: no bodies kept, the ranking tokenizes the file.
-- Files counted before this table existed get their row at the next index run.
CREATE TABLE symbol_terms (
  file_id INTEGER PRIMARY KEY REFERENCES file_terms(id) ON DELETE CASCADE,
  bodies BLOB NOT NULL
) STRICT;
