-- Vectors are stored as int8 (a quarter of float32; see storage/vectors.ts): the float table is dropped and every
-- item queued again. Opening the store with an embedder bound creates the int8 table, and the next build embeds.
DROP TABLE IF EXISTS vectors;
UPDATE vector_items SET embedded = 0;
-- The graph's FTS rows are rewritten on every re-index: a delete leaves a tombstone instead of rewriting the
-- term's pages in place. Forgetting a memory still rewrites the index (`optimize`), so no deleted text stays.
INSERT INTO nodes_fts (nodes_fts, rank) VALUES ('secure-delete', 0);
-- Text hashes keep 64 bits (16 hex digits): enough to tell a changed text, and a smaller row per item.
UPDATE vector_items SET text_hash = substr(text_hash, 1, 16);
-- Only pending items are looked up by state: the index holds just them, in id order.
DROP INDEX IF EXISTS vector_items_pending;
CREATE INDEX vector_items_pending ON vector_items(project_id, id) WHERE embedded = 0;
