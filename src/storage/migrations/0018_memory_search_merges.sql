-- The memory index merges its segments two at a time (FTS5's default waits for four on a level): each write is its
-- own transaction and adds a segment, and every duplicate or contradiction check walks all segments, so fewer of them
-- keep a check's cost flat as the store grows, for a little more merging per write.
INSERT INTO memories_fts (memories_fts, rank) VALUES ('automerge', 2);
