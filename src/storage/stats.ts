// Read-only facts about a database file: size and row counts per table.
import { statSync } from "node:fs";

import type { Db } from "./db.js";
import { schemaVersion } from "./migrate.js";

/** Row counts of every table, virtual tables included; their shadow tables and SQLite internals excluded. */
export function tableCounts(db: Db): Record<string, number> {
  const tables = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string; sql: string | null }[];
  const virtuals = tables.filter((t) => t.sql?.startsWith("CREATE VIRTUAL TABLE")).map((t) => t.name);
  const out: Record<string, number> = {};
  for (const { name } of tables) {
    if (virtuals.some((v) => name.startsWith(v + "_"))) continue;
    const row = db.prepare(`SELECT COUNT(*) AS n FROM "${name.replaceAll('"', '""')}"`).get() as { n: number };
    out[name] = row.n;
  }
  return out;
}

/** Bytes on disk of the database file and its WAL. */
export function databaseSize(path: string): { bytes: number; walBytes: number } {
  const size = (p: string) => {
    try {
      return statSync(p).size;
    } catch {
      return 0;
    }
  };
  return { bytes: size(path), walBytes: size(path + "-wal") };
}

export { schemaVersion };
