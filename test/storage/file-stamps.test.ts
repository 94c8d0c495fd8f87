// A store written before files kept their inode and change time opens with both columns added and empty: its rows
// keep their size, mtime and hash, and an index run over it records the rest (see test/graph/in-place-change.test.ts).
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { openDatabase } from "../../src/storage/db.js";
import { tmpDir } from "../helpers/tmp.js";

const MIGRATIONS = join(import.meta.dirname, "..", "..", "src", "storage", "migrations");

describe("files' stamps in a store written before migration 0020", () => {
  it("are kept, with an empty inode and change time", () => {
    const older = tmpDir("memcards-old-migrations-");
    for (const f of readdirSync(MIGRATIONS))
      if (/^(\d{4})_/.test(f) && Number(f.slice(0, 4)) <= 19) copyFileSync(join(MIGRATIONS, f), join(older, f));
    const dir = tmpDir("memcards-stamps-");
    mkdirSync(dir, { recursive: true });
    const path = join(dir, "store.db");
    let db = openDatabase(path, { migrationsDir: older });
    db.prepare(
      `INSERT INTO files (path, language, size, mtime_ms, hash, is_test, parser, imports, indexed_at)
       VALUES ('a.py', 'python', 26, 1700000000000.5, 'abc', 0, 'tree-sitter', '[]', '2026-11-27T00:00:00Z')`,
    ).run();
    expect(db.prepare("SELECT name FROM pragma_table_info('files')").pluck().all()).not.toContain("ino");
    db.close();

    db = openDatabase(path);
    try {
      expect(db.prepare("SELECT path, size, mtime_ms, hash, ino, ctime_ms FROM files").all()).toEqual([
        { path: "a.py", size: 26, mtime_ms: 1700000000000.5, hash: "abc", ino: null, ctime_ms: null },
      ]);
    } finally {
      db.close();
    }
  });
});
