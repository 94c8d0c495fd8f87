// The canary corpus (test/fixtures/secrets/canaries.json): one line per kind of secret, each carrying a unique
// canary, and negatives that redaction must leave alone; plus a byte-level search of a database and its WAL.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import type { Db } from "../../src/storage/db.js";
import { identifierTokens } from "../../src/text/identifiers.js";

export interface Canary {
  kind: string;
  text: string;
  canary: string;
}

const file = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures", "secrets", "canaries.json");
export const corpus = JSON.parse(readFileSync(file, "utf8")) as { canaries: Canary[]; negatives: string[] };

/** Every canary line, one per line (a private key block spans several). */
export const canaryText = corpus.canaries.map((c) => c.text).join("\n");

/**
 * What a leak of a canary looks like in the file: the canary itself, and its longest alphanumeric run in lower
 * case (the form a search index keeps).
 */
export function needlesOf(c: Canary): string[] {
  const runs = c.canary.match(/[A-Za-z0-9]+/g) ?? [];
  const longest = runs.reduce((a, b) => (b.length > a.length ? b : a), "");
  return longest.length >= 12 ? [c.canary, longest.toLowerCase()] : [c.canary];
}

/** The bytes of a database file and its -wal file (when present). */
export function dbBytes(path: string): Buffer {
  const parts = [readFileSync(path)];
  if (existsSync(`${path}-wal`)) parts.push(readFileSync(`${path}-wal`));
  return Buffer.concat(parts);
}

/** Needles found in the bytes of the database and its WAL. */
export function leaked(path: string, needles: readonly string[]): string[] {
  const bytes = dbBytes(path);
  return needles.filter((n) => bytes.includes(Buffer.from(n, "utf8")));
}

/** Canaries (by kind) that appear in `text`, in either leak form. */
export function canariesIn(text: string): string[] {
  const lower = text.toLowerCase();
  return corpus.canaries
    .filter((c) => needlesOf(c).some((n, i) => (i === 0 ? text.includes(n) : lower.includes(n))))
    .map((c) => c.kind);
}

/** The search-index form of a canary: its identifier tokens long enough to be its own. */
export function ftsNeedlesOf(secret: string): string[] {
  return identifierTokens(secret).filter((t) => t.length >= 10);
}

/** Every term the three full-text indexes still hold (fts5vocab reads their data pages). */
export function ftsTerms(db: Db): Set<string> {
  const out = new Set<string>();
  for (const table of ["memories_fts", "raw_turns_fts", "nodes_fts"]) {
    db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table}_v USING fts5vocab(main, ${table}, 'row')`);
    for (const r of db.prepare(`SELECT term FROM temp.${table}_v`).all() as { term: string }[]) out.add(r.term);
  }
  return out;
}
