// Numbered SQL migrations, applied in order in one transaction and recorded in schema_migrations.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import type Database from "better-sqlite3";

import { AppError } from "../errors.js";

const DEFAULT_DIR = join(dirname(fileURLToPath(import.meta.url)), "migrations");
const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Lists the migrations in `dir`, sorted by version; rejects duplicate numbers. */
export function loadMigrations(dir = DEFAULT_DIR): Migration[] {
  const out: Migration[] = [];
  for (const file of readdirSync(dir)) {
    const m = FILE.exec(file);
    if (!m) continue;
    out.push({ version: Number(m[1]), name: m[2] ?? file, sql: readFileSync(join(dir, file), "utf8") });
  }
  out.sort((a, b) => a.version - b.version);
  for (let i = 1; i < out.length; i++) {
    if (out[i]?.version === out[i - 1]?.version) {
      throw new AppError("DB_MIGRATION_FAILED", `two migrations share number ${out[i]?.version} in ${dir}`);
    }
  }
  return out;
}

/** Current schema version (0 for a fresh database). */
export function schemaVersion(db: Database.Database): number {
  const row = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!row) return 0;
  const v = db.prepare("SELECT MAX(version) AS v FROM schema_migrations").get() as { v: number | null };
  return v.v ?? 0;
}

/**
 * The schema version a store claims: the highest recorded migration, or SQLite's user_version when that is higher
 * (each migration run stamps it, so a store written by a newer memcards shows it even to plain SQLite tools).
 */
export function storedSchemaVersion(db: Database.Database): number {
  return Math.max(schemaVersion(db), Number(db.pragma("user_version", { simple: true })) || 0);
}

/** Throws DB_NEWER_SCHEMA when the store was written by a newer memcards; reads only. */
export function assertKnownSchema(db: Database.Database, dir = DEFAULT_DIR): void {
  const latest = loadMigrations(dir).at(-1)?.version ?? 0;
  newerSchemaCheck(storedSchemaVersion(db), latest);
}

function newerSchemaCheck(current: number, latest: number): void {
  if (current > latest) {
    throw new AppError(
      "DB_NEWER_SCHEMA",
      `the database is at schema ${current} but this memcards knows only up to ${latest}. Upgrade memcards, or point --db at another file.`,
    );
  }
}

/** Applies every pending migration in one IMMEDIATE transaction; on any failure nothing is applied. */
export function migrate(db: Database.Database, dir = DEFAULT_DIR): { applied: number[]; version: number } {
  const migrations = loadMigrations(dir);
  const latest = migrations.at(-1)?.version ?? 0;
  const run = db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`);
    newerSchemaCheck(storedSchemaVersion(db), latest);
    const current = schemaVersion(db);
    const applied: number[] = [];
    const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
    for (const m of migrations) {
      if (m.version <= current) continue;
      try {
        db.exec(m.sql);
      } catch (err) {
        throw new AppError(
          "DB_MIGRATION_FAILED",
          `migration ${String(m.version).padStart(4, "0")}_${m.name} failed: ${(err as Error).message}. Nothing was changed.`,
          { cause: err },
        );
      }
      record.run(m.version, m.name, new Date().toISOString());
      applied.push(m.version);
    }
    const version = Math.max(current, ...applied);
    if (applied.length) db.pragma(`user_version = ${version}`);
    return { applied, version };
  });
  return run.immediate();
}
