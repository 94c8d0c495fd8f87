// Numbered migrations for the team store on PostgreSQL: each applied in its own transaction and recorded.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import type { ClientBase } from "pg";

import { AppError } from "../../errors.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "migrations");
const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;
/** One number for every memcards migrating the same server at once: they queue on it. */
const LOCK = 7_201_421;

/** The team store's migrations, sorted by number. */
export function teamMigrations(dir = DIR): { version: number; name: string; sql: string }[] {
  return readdirSync(dir)
    .flatMap((f) => {
      const m = FILE.exec(f);
      return m ? [{ version: Number(m[1]), name: m[2]!, sql: readFileSync(join(dir, f), "utf8") }] : [];
    })
    .sort((a, b) => a.version - b.version);
}

/** The highest migration applied to the team store (0 before the first). */
export async function teamSchemaVersion(c: ClientBase): Promise<number> {
  const t = await c.query<{ n: string | null }>("SELECT to_regclass('team_schema_migrations')::text AS n");
  if (!t.rows[0]?.n) return 0;
  const r = await c.query<{ v: number | null }>("SELECT MAX(version) AS v FROM team_schema_migrations");
  return r.rows[0]?.v ?? 0;
}

/** Applies the pending migrations, each in one transaction; a failed one leaves nothing of itself behind. */
export async function migrateTeam(c: ClientBase, dir = DIR): Promise<{ applied: number[]; version: number }> {
  const migrations = teamMigrations(dir);
  const applied: number[] = [];
  const latest = migrations.at(-1)?.version ?? 0;
  // Up to date: nothing to lock or create (a member's role has no DDL rights).
  const pending = (await teamSchemaVersion(c)) >= latest ? [] : migrations;
  for (const m of pending) {
    await c.query("BEGIN");
    try {
      await c.query("SELECT pg_advisory_xact_lock($1)", [LOCK]);
      await c.query(`CREATE TABLE IF NOT EXISTS team_schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
      const done = await c.query("SELECT 1 FROM team_schema_migrations WHERE version = $1", [m.version]);
      if (done.rowCount === 0) {
        await c.query(m.sql);
        await c.query("INSERT INTO team_schema_migrations (version, name) VALUES ($1, $2)", [m.version, m.name]);
        applied.push(m.version);
      }
      await c.query("COMMIT");
    } catch (err) {
      await c.query("ROLLBACK").catch(() => undefined);
      throw new AppError(
        "DB_MIGRATION_FAILED",
        `team store migration ${String(m.version).padStart(4, "0")}_${m.name} failed: ${(err as Error).message}. Nothing of it was applied.`,
        { cause: err },
      );
    }
  }
  const version = await teamSchemaVersion(c);
  if (version > latest)
    throw new AppError(
      "DB_NEWER_SCHEMA",
      `the team store is at schema ${version} but this memcards knows only up to ${latest}. Upgrade memcards.`,
    );
  return { applied, version };
}
