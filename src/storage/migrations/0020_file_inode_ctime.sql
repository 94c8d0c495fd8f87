-- A file's inode and change time beside its size and mtime: a content rewritten in place under its old size and mtime
-- moves its change time, one renamed over it has another inode, and the scan reads either again. Rows of a store
-- written before hold neither: their size and mtime decide until the next scan records both (without reading them).
-- The inode is a REAL: it may exceed SQLite's 64-bit signed integer, and a double keeps what JavaScript compares.
ALTER TABLE files ADD COLUMN ino REAL;
ALTER TABLE files ADD COLUMN ctime_ms REAL;
