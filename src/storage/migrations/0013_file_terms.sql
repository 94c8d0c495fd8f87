-- The whole-file BM25 statistics, kept at index time so a ranking reads only its query terms' postings instead of
-- reading and tokenizing every source file on its first call.
-- One row per source file of the index: its content hash when counted, its BM25 length (content tokens plus the path's
-- tokens counted the path weight times; -1 when the file could not be read, so it is no BM25 document) and its
-- distinct terms (deflated, space separated: what a later change must take out of the postings).
CREATE TABLE file_terms (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  hash TEXT NOT NULL,
  len INTEGER NOT NULL,
  terms BLOB NOT NULL
) STRICT;

-- Per term, the files holding it: little-endian Int32 pairs (file_terms.id, term count), in no particular order.
CREATE TABLE term_postings (
  term TEXT PRIMARY KEY,
  postings BLOB NOT NULL
) STRICT, WITHOUT ROWID;
