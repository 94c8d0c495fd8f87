// The whole-file BM25 statistics kept in the store (migration 0013): each source file's length and distinct terms
// (file_terms), and per term the files holding it with their counts (term_postings).
import { deflateRawSync, inflateRawSync } from "node:zlib";

import { varintReader } from "../../text/varint.js";
import type { Db } from "../db.js";
import { stmt, writeTx } from "../db.js";

/** One counted file: its id (the document id in the postings), path, content hash and BM25 length (-1: unread). */
export interface FileTermsRow {
  id: number;
  path: string;
  hash: string;
  len: number;
}

/**
 * A file's counts to store: `tf` undefined when it could not be read (no BM25 document); `bodies` its symbols' own
 * tokens, encoded against the order of `tf`'s keys (text/symbol-bodies.ts; empty: none kept).
 */
export interface CountedFile {
  path: string;
  hash: string;
  len: number;
  tf: ReadonlyMap<string, number> | undefined;
  bodies?: Buffer;
}

/**
 * Whether some count was taken under another content than the indexed one, of a file that could not be read
 * (len -1), or of a file no longer indexed.
 */
export function hasStaleFileTerms(db: Db): boolean {
  const sql =
    "SELECT 1 FROM file_terms t LEFT JOIN files f ON f.path = t.path WHERE t.len < 0 OR f.hash IS NOT t.hash LIMIT 1";
  return stmt(db, sql).get() !== undefined;
}

/** How many files have counts. */
export function fileTermCount(db: Db): number {
  return (stmt(db, "SELECT count(*) AS n FROM file_terms").get() as { n: number }).n;
}

/** Every counted file, by id. */
export function fileTermRows(db: Db): FileTermsRow[] {
  return stmt(db, "SELECT id, path, hash, len FROM file_terms ORDER BY id").all() as FileTermsRow[];
}

/** The postings of `terms`: per term, its (file id, count) pairs; terms no file holds are absent. */
export function termPostings(db: Db, terms: Iterable<string>): Map<string, Int32Array> {
  const get = stmt(db, "SELECT postings FROM term_postings WHERE term = ?");
  const out = new Map<string, Int32Array>();
  for (const t of new Set(terms)) {
    const row = get.get(t) as { postings: Buffer } | undefined;
    if (row) out.set(t, decodePairs(row.postings));
  }
  return out;
}

/** The counted files among `paths`, each read through the path index. */
export function fileTermRowsAt(db: Db, paths: Iterable<string>): FileTermsRow[] {
  const get = stmt(db, "SELECT id, path, hash, len FROM file_terms WHERE path = ?");
  const out: FileTermsRow[] = [];
  for (const p of new Set(paths)) {
    const row = get.get(p) as FileTermsRow | undefined;
    if (row) out.push(row);
  }
  return out;
}

/**
 * Counted files whose symbol bodies are not stored (counted before migration 0016 kept them); with `paths`, only
 * those among them.
 */
export function filesWithoutBodies(db: Db, paths?: Iterable<string>): Set<string> {
  if (paths) {
    const get = stmt(
      db,
      "SELECT 1 FROM file_terms f WHERE f.path = ? AND NOT EXISTS (SELECT 1 FROM symbol_terms s WHERE s.file_id = f.id)",
    );
    return new Set([...new Set(paths)].filter((p) => get.get(p) !== undefined));
  }
  const rows = stmt(
    db,
    "SELECT path FROM file_terms f WHERE NOT EXISTS (SELECT 1 FROM symbol_terms s WHERE s.file_id = f.id)",
  ).all() as { path: string }[];
  return new Set(rows.map((r) => r.path));
}

/**
 * A file's stored symbol bodies and its term list (space-separated: what the bodies' term positions point into), when they were
 * counted from the content the index holds now (their hash is the indexed file's); else undefined.
 */
export function storedSymbolBodies(db: Db, path: string): { terms: string; bodies: Buffer } | undefined {
  const row = stmt(
    db,
    `SELECT t.terms, s.bodies FROM files f JOIN file_terms t ON t.path = f.path AND t.hash = f.hash
     JOIN symbol_terms s ON s.file_id = t.id WHERE f.path = ?`,
  ).get(path) as { terms: Buffer; bodies: Buffer } | undefined;
  return row ? { terms: termList(row.terms), bodies: row.bodies } : undefined;
}

/**
 * A term's postings as stored (migration 0017): per file in ascending id order, the gap from the previous id (the
 * first from 0) and the term's count, each a varint (7 bits a byte, low first): a third of the size of int32 pairs.
 * Read back as (file id, count) pairs.
 */
function decodePairs(b: Buffer): Int32Array {
  const out: number[] = [];
  const r = varintReader(b);
  let doc = 0;
  while (r.more()) {
    doc += r.next();
    out.push(doc, r.next());
  }
  return Int32Array.from(out);
}

/** Bytes a varint of a number below 2^35 may take (a count or a file id gap; ids are SQLite rowids far below that). */
const VARINT_MAX_BYTES = 5;

/**
 * A term's stored postings with the files in `out` taken out and the (file id, count) pairs of `ins` put in (`ins`
 * in ascending id order; a file in both keeps its new count), merged in one pass over the stored varints without
 * decoding them into a list first. "unchanged" when the result is what is stored: a file saved again with the same
 * count of the term, the common case of an edit, costs no write.
 */
export function mergePostings(
  stored: Buffer | undefined,
  out: ReadonlySet<number>,
  ins: readonly (readonly [number, number])[],
): Buffer | "unchanged" {
  // Taking a pair out joins two gaps into one no longer than both: the stored length bounds all but what is put in.
  const b = Buffer.allocUnsafe((stored?.length ?? 0) + ins.length * 2 * VARINT_MAX_BYTES);
  let o = 0;
  let prev = 0;
  let changed = false;
  const put = (doc: number, n: number) => {
    for (let x = doc - prev; ; x = Math.floor(x / 0x80)) {
      if (x < 0x80) {
        b[o++] = x;
        break;
      }
      b[o++] = (x % 0x80) | 0x80;
    }
    for (let x = n; ; x = Math.floor(x / 0x80)) {
      if (x < 0x80) {
        b[o++] = x;
        break;
      }
      b[o++] = (x % 0x80) | 0x80;
    }
    prev = doc;
  };
  let j = 0;
  if (stored) {
    const r = varintReader(stored);
    let doc = 0;
    while (r.more()) {
      doc += r.next();
      const n = r.next();
      while (j < ins.length && ins[j]![0] < doc) {
        put(ins[j]![0], ins[j]![1]);
        j++;
        changed = true;
      }
      if (j < ins.length && ins[j]![0] === doc) {
        if (ins[j]![1] !== n) changed = true;
        put(doc, ins[j]![1]);
        j++;
      } else if (out.has(doc)) changed = true;
      else put(doc, n);
    }
  }
  for (; j < ins.length; j++, changed = true) put(ins[j]![0], ins[j]![1]);
  return changed ? Buffer.from(b.subarray(0, o)) : "unchanged";
}

/**
 * Replaces the counts of `upserts` and removes the files at `removed`, keeping every touched term's postings in step,
 * in one write transaction.
 */
export function writeFileTerms(db: Db, upserts: readonly CountedFile[], removed: readonly string[]): void {
  const old = stmt(db, "SELECT id, terms FROM file_terms WHERE path = ?");
  const del = stmt(db, "DELETE FROM file_terms WHERE id = ?");
  const put = stmt(
    db,
    `INSERT INTO file_terms (path, hash, len, terms) VALUES (?, ?, ?, ?)
     ON CONFLICT(path) DO UPDATE SET hash = excluded.hash, len = excluded.len, terms = excluded.terms RETURNING id`,
  );
  const getPostings = stmt(db, "SELECT postings FROM term_postings WHERE term = ?");
  const setPostings = stmt(
    db,
    "INSERT INTO term_postings (term, postings) VALUES (?, ?) ON CONFLICT(term) DO UPDATE SET postings = excluded.postings",
  );
  const delPostings = stmt(db, "DELETE FROM term_postings WHERE term = ?");
  const putBodies = stmt(
    db,
    "INSERT INTO symbol_terms (file_id, bodies) VALUES (?, ?) ON CONFLICT(file_id) DO UPDATE SET bodies = excluded.bodies",
  );
  writeTx(db, () => {
    // Per touched term: the file ids to take out and the (file id, count) pairs to put in.
    const changes = new Map<string, { out: Set<number>; in: Map<number, number> }>();
    const change = (t: string) => {
      let c = changes.get(t);
      if (!c) changes.set(t, (c = { out: new Set(), in: new Map() }));
      return c;
    };
    const takeOut = (path: string): void => {
      const row = old.get(path) as { id: number; terms: Buffer } | undefined;
      if (!row) return;
      for (const t of decodeTerms(row.terms)) change(t).out.add(row.id);
    };
    for (const path of removed) {
      takeOut(path);
      const row = old.get(path) as { id: number } | undefined;
      if (row) del.run(row.id);
    }
    for (const f of upserts) {
      takeOut(f.path);
      const terms = f.tf ? [...f.tf.keys()] : [];
      const { id } = put.get(f.path, f.hash, f.tf ? f.len : -1, encodeTerms(terms)) as { id: number };
      putBodies.run(id, f.bodies ?? EMPTY);
      if (f.tf) for (const [t, n] of f.tf) if (n > 0) change(t).in.set(id, n);
    }
    for (const [term, c] of changes) {
      const row = getPostings.get(term) as { postings: Buffer } | undefined;
      const ins = [...c.in].sort((a, b) => a[0] - b[0]);
      const merged = mergePostings(row?.postings, c.out, ins);
      if (merged === "unchanged") continue;
      if (merged.length === 0) {
        if (row) delPostings.run(term);
      } else setPostings.run(term, merged);
    }
  });
}

const EMPTY = Buffer.alloc(0);

function encodeTerms(terms: readonly string[]): Buffer {
  return deflateRawSync(Buffer.from(terms.join(" ")));
}

/** A file's term list as stored: its terms in order, separated by single spaces. */
function termList(b: Buffer): string {
  return inflateRawSync(b).toString();
}

function decodeTerms(b: Buffer): string[] {
  const s = termList(b);
  return s ? s.split(" ") : [];
}

/** Drops every stored count (rankings then count the files themselves until the next index run refreshes them). */
export function clearFileTerms(db: Db): void {
  writeTx(db, () => {
    stmt(db, "DELETE FROM term_postings").run();
    stmt(db, "DELETE FROM symbol_terms").run();
    stmt(db, "DELETE FROM file_terms").run();
  });
}
