// Vector storage: vector_items (what to embed, stored redacted) and the vec0 table `vectors` (their embeddings,
// same rowid). Embeddings are stored as int8, each vector scaled so its largest component is ±127: cosine distance
// ignores a vector's scale, so kNN ranks as with float32 at a quarter of the size. Readers get Float32Arrays back
// through `nearestVectors` and `nodeVectors`; nothing else reads or writes the table's blobs.
import { createHash } from "node:crypto";

import { redact } from "../text/redact.js";
import type { Db } from "./db.js";
import { stmt, writeTx } from "./db.js";
import { storedSymbolText } from "./graph/symbol-text.js";

export interface VectorItem {
  id: number;
  text: string;
  /** The identity of the text when it was read: a vector computed from it is stored only while it still holds. */
  hash: string;
}

/** A text's identity for "unchanged, keep its vector": 64 bits of its sha1 (hex). */
function hashText(text: string): string {
  return createHash("sha1").update(text).digest("hex").slice(0, 16);
}

/** Vector writes made through this connection, per connection: what a reader's in-memory copy checks. */
const writes = new WeakMap<Db, number>();

/**
 * Meta key counting vector writes in the store itself, so another connection's in-memory copy sees them too: a
 * vector replaced in place (an edited symbol re-embedded by a hook's re-index) changes neither the count nor the
 * highest id of the embedded items.
 */
const EPOCH_KEY = "vectors.epoch";

/**
 * Notes a write to the vector table (a recreated table, a forgotten memory's vector, new or replaced vectors): on this
 * connection, and in the store for other connections. Call inside the write's transaction.
 */
export function noteVectorWrite(db: Db): void {
  writes.set(db, (writes.get(db) ?? 0) + 1);
  stmt(
    db,
    `INSERT INTO meta (key, value) VALUES ('${EPOCH_KEY}', '1')
     ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)`,
  ).run();
}
const wrote = noteVectorWrite;

/** True when the store has its vec0 table (created when an embedder is bound). */
export function hasVectorTable(db: Db): boolean {
  return stmt(db, "SELECT 1 FROM sqlite_master WHERE name = 'vectors'").get() !== undefined;
}

/** Creates the vec0 table for vectors of `dimension` components, stored as int8 (see the module header). */
export function createVectorTable(db: Db, dimension: number): void {
  db.exec(`CREATE VIRTUAL TABLE vectors USING vec0(embedding int8[${Math.trunc(dimension)}] distance_metric=cosine)`);
}

/** A vector as stored: int8 components scaled so the largest is ±127 (all zeros for the zero vector). */
export function quantizeVector(v: Float32Array): Buffer {
  const n = v.length;
  let max = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.abs(v[i]!);
    if (a > max) max = a;
  }
  // Written byte by byte into a pooled buffer (a full index quantizes one vector per node): two's complement of each
  // component, as an Int8Array would hold it.
  const out = Buffer.allocUnsafe(n);
  if (max === 0) return out.fill(0);
  const scale = 127 / max;
  for (let i = 0; i < n; i++) out[i] = Math.round(v[i]! * scale) & 0xff;
  return out;
}

/** A stored vector read back as a unit-length Float32Array (the zero vector stays zero). */
export function dequantizeVector(blob: Uint8Array): Float32Array {
  const q = new Int8Array(blob.buffer, blob.byteOffset, blob.byteLength);
  const out = new Float32Array(q.length);
  let norm = 0;
  for (let i = 0; i < q.length; i++) norm += q[i]! * q[i]!;
  if (norm === 0) return out;
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < q.length; i++) out[i] = q[i]! * inv;
  return out;
}

/**
 * An item's text: raw text (redacted here), or text the caller redacted, with `fromNode` when it is exactly what its
 * symbol node's row composes (`storedSymbolText`): then the row is not copied, the item's stored text is empty and
 * `pendingVectorItems` composes it again.
 */
export type ItemText = string | { text: string; fromNode: boolean };

function itemText(t: ItemText): { text: string; stored: string } {
  if (typeof t === "string") {
    const text = redact(t);
    return { text, stored: text };
  }
  return { text: t.text, stored: t.fromNode ? FROM_NODE : t.text };
}

/** The stored text of an item whose words its symbol node composes. */
const FROM_NODE = "";

/**
 * Registers (or updates) the text of an embeddable thing. An unchanged text keeps its vector; a changed one is
 * queued again. Call inside the caller's transaction.
 */
export function upsertVectorItem(db: Db, projectId: number, ownerType: string, ownerId: number, t: ItemText): void {
  const { text, stored } = itemText(t);
  const hash = hashText(text);
  const row = stmt(
    db,
    "SELECT id, text_hash, text = ? AS same FROM vector_items WHERE owner_type = ? AND owner_id = ?",
  ).get(stored, ownerType, ownerId) as { id: number; text_hash: string; same: number } | undefined;
  if (row?.text_hash === hash) {
    // The same words keep their vector, but how they are kept follows the row: a symbol's row that no longer composes
    // them (its summary changed, its redacted text did not) must not be what the embedder reads.
    if (!row.same) stmt(db, "UPDATE vector_items SET text = ? WHERE id = ?").run(stored, row.id);
    return;
  }
  if (row) {
    // Its vector goes (a new item has none yet: nothing a copy of the vectors holds changes).
    wrote(db);
    stmt(db, "UPDATE vector_items SET text = ?, text_hash = ?, embedded = 0 WHERE id = ?").run(stored, hash, row.id);
    if (hasVectorTable(db)) stmt(db, "DELETE FROM vectors WHERE rowid = ?").run(BigInt(row.id));
  } else {
    stmt(db, "INSERT INTO vector_items (project_id, owner_type, owner_id, text, text_hash) VALUES (?, ?, ?, ?, ?)").run(
      projectId,
      ownerType,
      ownerId,
      stored,
      hash,
    );
  }
}

/** Registers the text of an owner known to have no vector item yet (a new node): one insert, no lookup. */
export function insertVectorItem(db: Db, projectId: number, ownerType: string, ownerId: number, t: ItemText): void {
  const { text, stored } = itemText(t);
  stmt(db, "INSERT INTO vector_items (project_id, owner_type, owner_id, text, text_hash) VALUES (?, ?, ?, ?, ?)").run(
    projectId,
    ownerType,
    ownerId,
    stored,
    hashText(text),
  );
}

/** Removes the vector items (and vectors) of owners. Call inside the caller's transaction. */
export function deleteVectorItems(db: Db, ownerType: string, ownerIds: readonly number[]): void {
  const find = stmt(db, "SELECT id FROM vector_items WHERE owner_type = ? AND owner_id = ?");
  const delItem = stmt(db, "DELETE FROM vector_items WHERE id = ?");
  const delVec = hasVectorTable(db) ? stmt(db, "DELETE FROM vectors WHERE rowid = ?") : undefined;
  wrote(db);
  for (const ownerId of ownerIds) {
    const row = find.get(ownerType, ownerId) as { id: number } | undefined;
    if (!row) continue;
    delVec?.run(BigInt(row.id));
    delItem.run(row.id);
  }
}

/**
 * Up to `limit` items still waiting for a vector, in id order after `afterId`, with their text (a symbol's composed
 * from its node's row).
 */
export function pendingVectorItems(db: Db, limit: number, projectId?: number, afterId = 0): VectorItem[] {
  const sql = `SELECT i.id AS id, i.text AS text, i.text_hash AS hash, n.kind AS kind, n.key AS key, n.path AS path, n.summary AS summary
    FROM vector_items i LEFT JOIN nodes n ON i.text = '' AND i.owner_type = 'node' AND n.id = i.owner_id AND n.type = 'symbol'
    WHERE i.embedded = 0${projectId === undefined ? "" : " AND i.project_id = ?"} AND i.id > ? ORDER BY i.id LIMIT ?`;
  const args = projectId === undefined ? [afterId, limit] : [projectId, afterId, limit];
  type Row = VectorItem & { kind: string | null; key: string | null; path: string | null; summary: string | null };
  return (stmt(db, sql).all(...args) as Row[]).map((r) => ({
    id: r.id,
    hash: r.hash,
    text:
      r.text === FROM_NODE && r.key !== null && r.path !== null
        ? storedSymbolText({ kind: r.kind, key: r.key, path: r.path, summary: r.summary })
        : r.text,
  }));
}

/**
 * Stores computed vectors and marks their items embedded, in one write transaction. An item given with the `hash` of
 * the text its vector was computed from is skipped when its text changed since (another run re-queued it meanwhile):
 * it stays queued for its new words.
 */
export function storeVectors(db: Db, items: readonly { id: number; vector: Float32Array; hash?: string }[]): void {
  const del = stmt(db, "DELETE FROM vectors WHERE rowid = ?");
  const ins = stmt(db, "INSERT INTO vectors (rowid, embedding) VALUES (?, vec_int8(?))");
  const mark = stmt(db, "UPDATE vector_items SET embedded = 1 WHERE id = ?");
  const current = stmt(db, "SELECT text_hash FROM vector_items WHERE id = ?").pluck();
  writeTx(db, () => {
    wrote(db);
    for (const { id, vector, hash } of items) {
      if (hash !== undefined && current.get(id) !== hash) continue;
      del.run(BigInt(id));
      // A zero vector (empty text) has no direction: it is marked done but never returned by kNN.
      if (vector.some((x) => x !== 0)) ins.run(BigInt(id), quantizeVector(vector));
      mark.run(id);
    }
  });
}

/** Marks every item as needing a new vector (after the vec0 table was recreated for another embedder). */
export function markAllPending(db: Db): number {
  return writeTx(db, () => {
    wrote(db);
    return stmt(db, "UPDATE vector_items SET embedded = 0").run().changes;
  });
}

/**
 * k nearest vector items to `query` (cosine distance, between the stored int8 vectors and the query quantized the
 * same way), optionally restricted to an owner type.
 */
export function nearestVectors(
  db: Db,
  query: Float32Array,
  k: number,
  ownerType?: string,
): { id: number; ownerType: string; ownerId: number; distance: number }[] {
  if (!hasVectorTable(db)) return [];
  const rows = stmt(
    db,
    `SELECT v.rowid AS id, v.distance AS distance, i.owner_type AS ownerType, i.owner_id AS ownerId
       FROM vectors v JOIN vector_items i ON i.id = v.rowid
       WHERE v.embedding MATCH vec_int8(?) AND k = ? ORDER BY v.distance`,
  ).all(quantizeVector(query), k) as { id: number; ownerType: string; ownerId: number; distance: number }[];
  return ownerType ? rows.filter((r) => r.ownerType === ownerType) : rows;
}

/** Vector items of nodes of the given types that have a stored vector: item id, node id, unit-length vector. */
export function nodeVectors(
  db: Db,
  types: readonly string[],
  onlyNodeIds?: readonly number[],
): { itemId: number; nodeId: number; vector: Float32Array }[] {
  if (!hasVectorTable(db)) return [];
  const rows = stmt(
    db,
    `SELECT i.id AS itemId, n.id AS nodeId, v.embedding AS embedding
       FROM vector_items i JOIN nodes n ON n.id = i.owner_id JOIN vectors v ON v.rowid = i.id
       WHERE i.owner_type = 'node' AND n.type IN (${types.map(() => "?").join(",")})`,
  ).all(...types) as { itemId: number; nodeId: number; embedding: Buffer }[];
  const only = onlyNodeIds ? new Set(onlyNodeIds) : undefined;
  return rows
    .filter((r) => !only || only.has(r.nodeId))
    .map((r) => ({
      itemId: r.itemId,
      nodeId: r.nodeId,
      vector: dequantizeVector(r.embedding),
    }));
}

/** Ids of a project's nodes of the given types whose vector is still pending (read through the pending index). */
export function pendingNodeIds(db: Db, projectId: number, types: readonly string[]): number[] {
  return (
    stmt(
      db,
      `SELECT n.id AS id FROM vector_items i JOIN nodes n ON n.id = i.owner_id
       WHERE i.project_id = ? AND i.embedded = 0 AND i.owner_type = 'node'
         AND n.type IN (${types.map(() => "?").join(",")})`,
    ).all(projectId, ...types) as { id: number }[]
  ).map((r) => r.id);
}

/**
 * What an in-memory copy of the vectors is checked against before each use: this connection's vector writes, the
 * commits of other connections (`data_version`) and, only when another connection committed, the fingerprint of
 * `vectorsFingerprint` (an index run elsewhere adds, removes or re-embeds items; a commit that left them alone, such
 * as a hook recording served cards, does not force a reload).
 */
export function vectorsVersion(db: Db): { own: number; external: number } {
  return { own: writes.get(db) ?? 0, external: Number(db.pragma("data_version", { simple: true })) };
}

/**
 * Count and highest id of the embedded items (read through the items' index) and the store's count of vector writes:
 * a fingerprint of the vector table that any connection's write changes.
 */
export function vectorsFingerprint(db: Db): string {
  if (!hasVectorTable(db)) return "none";
  const r = stmt(
    db,
    `SELECT count(*) AS n, max(id) AS m, (SELECT value FROM meta WHERE key = '${EPOCH_KEY}') AS e
       FROM vector_items WHERE embedded = 1`,
  ).get() as { n: number; m: number | null; e: string | null };
  return `${r.n}:${r.m ?? 0}:${r.e ?? 0}`;
}

/** One storage chunk of the vec0 table: which of its slots hold a vector, their rowids, and the vectors, packed. */
export interface VectorChunk {
  chunkId: number;
  size: number;
  /** Bit i (least significant first) set when slot i holds a vector. */
  validity: Buffer;
  /** Little-endian int64 rowid per slot. */
  rowids: Buffer;
  /** `size` float32 vectors, one after the other. */
  vectors: Buffer;
}

/**
 * Up to `limit` storage chunks of the vec0 table after chunk `afterId`, read from its shadow tables (the layout of
 * sqlite-vec 0.1, where a chunk is one row of 1,024 vectors): reading them is one row per chunk, where reading the
 * table row by row costs a lookup per vector. Undefined when the tables do not have that layout.
 */
export function vectorChunks(db: Db, afterId: number, limit: number): VectorChunk[] | undefined {
  const layout = stmt(
    db,
    "SELECT count(*) AS n FROM sqlite_master WHERE name IN ('vectors_chunks', 'vectors_vector_chunks00')",
  ).get() as { n: number };
  if (layout.n !== 2) return undefined;
  try {
    return stmt(
      db,
      `SELECT c.chunk_id AS chunkId, c.size AS size, c.validity AS validity, c.rowids AS rowids, v.vectors AS vectors
         FROM vectors_chunks c JOIN vectors_vector_chunks00 v ON v.rowid = c.chunk_id
         WHERE c.chunk_id > ? ORDER BY c.chunk_id LIMIT ?`,
    ).all(afterId, limit) as VectorChunk[];
  } catch {
    return undefined;
  }
}

/** Slots of the vec0 table's storage chunks (at least its vector count; see `vectorChunks`), 0 without that layout. */
export function vectorSlots(db: Db): number {
  try {
    return (stmt(db, "SELECT coalesce(sum(size), 0) AS n FROM vectors_chunks").get() as { n: number }).n;
  } catch {
    return 0;
  }
}

/** The owners of the given vector items (item id → owner type and id); ids of no item are left out. */
export function vectorItemOwners(db: Db, ids: readonly number[]): Map<number, { ownerType: string; ownerId: number }> {
  if (ids.length === 0) return new Map();
  const rows = stmt(
    db,
    `SELECT id, owner_type AS ownerType, owner_id AS ownerId FROM vector_items
       WHERE id IN (SELECT value FROM json_each(?))`,
  ).all(JSON.stringify(ids)) as { id: number; ownerType: string; ownerId: number }[];
  return new Map(rows.map((r) => [r.id, { ownerType: r.ownerType, ownerId: r.ownerId }]));
}
