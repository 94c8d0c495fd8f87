-- Indexes that match the hot queries: a file's symbols (`path = ? AND type = ?`, where most nodes are symbols and
-- `nodes_type` alone selects nearly the whole table), and the newest units of a category still in force (walked in
-- id order, no temporary B-tree).
DROP INDEX IF EXISTS nodes_path;
CREATE INDEX nodes_path_type ON nodes(path, type);
CREATE INDEX memories_recent ON memories(project_id, category, id);
-- The most important units of a category in force (recall, cards): read in index order, stopped at the limit.
CREATE INDEX memories_rank ON memories(project_id, category, status, importance DESC, id DESC);
