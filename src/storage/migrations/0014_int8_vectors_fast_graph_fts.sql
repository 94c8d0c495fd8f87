-- Vectors are stored as int8 (a quarter of float32; see storage/vectors.ts): the float table is dropped and every
-- item queued again. Opening the store with an embedder bound creates the int8 table, and the next build embeds.
DROP TABLE IF EXISTS vectors;
UPDATE vector_items SET embedded = 0;
-- The graph's FTS rows are rewritten on every re-index: a delete leaves a tombstone instead of rewriting the
-- term's pages in place. Forgetting a memory still rewrites the index (`optimize`), so no deleted text stays.
INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('secure-delete', 0);
