// Key/value settings of a database: schema facts and the embedder it is bound to.
import type { z } from "zod";

import type { Db } from "./db.js";
import { stmt, writeTx } from "./db.js";
import { decodeJson } from "./json.js";
import { createVectorTable, hasVectorTable, noteVectorWrite } from "./vectors.js";

/** Reads one meta value, or undefined. */
export function getMeta(db: Db, key: string): string | undefined {
  const row = stmt(db, "SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
  return row?.value;
}

/** Writes one meta value. */
export function setMeta(db: Db, key: string, value: string): void {
  stmt(db, "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(
    key,
    value,
  );
}

/** Reads one JSON meta value decoded with its schema; undefined when absent, not JSON or not matching. */
export function getMetaJson<T extends z.ZodType>(db: Db, key: string, schema: T): z.output<T> | undefined {
  const raw = getMeta(db, key);
  return raw ? decodeJson(schema, raw) : undefined;
}

/** Writes one JSON meta value. */
export function setMetaJson(db: Db, key: string, value: unknown): void {
  setMeta(db, key, JSON.stringify(value));
}

export interface EmbedderBinding {
  id: string;
  dimension: number;
}

/** The embedder recorded for this database, if any. */
export function getEmbedderBinding(db: Db): EmbedderBinding | undefined {
  const id = getMeta(db, "embedder_id");
  const dim = getMeta(db, "embedder_dimension");
  if (!id || !dim) return undefined;
  return { id, dimension: Number(dim) };
}

/**
 * Binds the database to an embedder and (re)creates the vector table for its dimension; a store whose vector table
 * was dropped by a migration (to change how vectors are stored) gets it back here. Existing vectors are dropped:
 * callers re-embed afterwards. Returns true if the binding changed or the table was created.
 */
export function bindEmbedder(db: Db, binding: EmbedderBinding): boolean {
  const current = getEmbedderBinding(db);
  const same = current && current.id === binding.id && current.dimension === binding.dimension;
  if (same && hasVectorTable(db)) return false;
  writeTx(db, () => {
    db.exec("DROP TABLE IF EXISTS vectors");
    noteVectorWrite(db);
    createVectorTable(db, binding.dimension);
    setMeta(db, "embedder_id", binding.id);
    setMeta(db, "embedder_dimension", String(binding.dimension));
    setMeta(db, "embedder_bound_at", new Date().toISOString());
  });
  return true;
}
