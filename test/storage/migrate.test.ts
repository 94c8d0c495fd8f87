import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";

import { openDatabase } from "../../src/storage/db.js";
import { loadMigrations, migrate, schemaVersion } from "../../src/storage/migrate.js";
import { tableCounts } from "../../src/storage/stats.js";
import { tmpDir } from "../helpers/tmp.js";

function tables(db: Database.Database): string[] {
  return (
    db.prepare("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name").all() as { name: string }[]
  ).map((r) => r.name);
}

describe("migrations", () => {
  it("creates the base schema on a fresh file, with WAL and foreign keys on", () => {
    const path = join(tmpDir(), "fresh.db");
    const db = openDatabase(path);
    const latest = loadMigrations().at(-1)?.version ?? 0;
    expect(latest).toBeGreaterThanOrEqual(1);
    expect(schemaVersion(db)).toBe(latest);
    // Stamped where plain SQLite tools (and a future memcards) see it too.
    expect(db.pragma("user_version", { simple: true })).toBe(latest);
    expect(tables(db)).toEqual(expect.arrayContaining(["meta", "projects", "sessions", "schema_migrations"]));
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
    db.close();
  });

  it("re-opening applies nothing twice and keeps data", () => {
    const path = join(tmpDir(), "reopen.db");
    const a = openDatabase(path);
    a.prepare("INSERT INTO meta (key, value) VALUES ('k', 'v')").run();
    a.close();
    const b = openDatabase(path);
    expect(migrate(b).applied).toEqual([]);
    expect(b.prepare("SELECT value FROM meta WHERE key = 'k'").get()).toEqual({ value: "v" });
    const rows = b.prepare("SELECT COUNT(*) AS n FROM schema_migrations").get() as { n: number };
    expect(rows.n).toBe(loadMigrations().length);
    b.close();
  });

  it("a failing migration rolls back every pending one and names the file", () => {
    const dir = join(tmpDir(), "migs");
    mkdirSync(dir);
    writeFileSync(join(dir, "0001_ok.sql"), "CREATE TABLE a (x INTEGER) STRICT;");
    writeFileSync(join(dir, "0002_broken.sql"), "CREATE TABLE b (x INTEGER) STRICT; INSERT INTO nowhere VALUES (1);");
    const path = join(tmpDir(), "broken.db");
    expect(() => openDatabase(path, { migrationsDir: dir })).toThrow(/0002_broken failed/);
    const raw = new Database(path);
    const names = tables(raw);
    expect(names).not.toContain("a");
    expect(names).not.toContain("b");
    raw.close();
  });

  it("refuses a database written by a newer memcards", () => {
    const path = join(tmpDir(), "newer.db");
    openDatabase(path).close();
    const raw = new Database(path);
    raw.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, 'future', 'x')").run();
    raw.close();
    expect(() => openDatabase(path)).toThrow(/schema 9999/);
  });

  it("rejects two migrations with one number", () => {
    const dir = join(tmpDir(), "dup");
    mkdirSync(dir);
    writeFileSync(join(dir, "0001_a.sql"), "SELECT 1;");
    writeFileSync(join(dir, "0001_b.sql"), "SELECT 1;");
    expect(() => loadMigrations(dir)).toThrow(/share number 1/);
  });

  it("counts rows per table, virtual tables included, shadow tables excluded", () => {
    const db = openDatabase(":memory:");
    db.exec("CREATE VIRTUAL TABLE docs USING fts5(body); INSERT INTO docs VALUES ('hello');");
    const counts = tableCounts(db);
    expect(counts.docs).toBe(1);
    expect(counts.projects).toBe(0);
    expect(Object.keys(counts).some((k) => k.startsWith("docs_"))).toBe(false);
    db.close();
  });

  it("gives a clear error for a database path it cannot create", () => {
    const file = join(tmpDir(), "a-file");
    writeFileSync(file, "not a directory");
    const bad = join(file, "x.db");
    expect(() => openDatabase(bad)).toThrow(
      new RegExp(`cannot open database ${bad.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`),
    );
  });
});
