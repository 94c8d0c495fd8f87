// The graph's nodes (file, test, symbol, rule, memory, failure) and their FTS rows and vectors. Callers hold the
// transaction. Summaries are stored redacted (FTS tokens come from the caller, who tokenizes redacted text).
import { z } from "zod";

import { redact } from "../../text/redact.js";
import type { Db } from "../db.js";
import { stmt } from "../db.js";
import { decodeJson } from "../json.js";
import { deleteVectorItems, insertVectorItem, upsertVectorItem } from "../vectors.js";
import { edgesChanged } from "./counts.js";
import { storedSymbolText } from "./symbol-text.js";

/**
 * The JSON `meta` column: a symbol's enclosing type, a rule's scope. A field of the wrong type reads as absent,
 * and a value that is not JSON as no meta at all.
 */
export const NodeMeta = z.object({
  parent: z.string().optional().catch(undefined),
  ruleKind: z.string().optional().catch(undefined),
  dir: z.string().optional().catch(undefined),
  globs: z.array(z.string()).optional().catch(undefined),
  alwaysApply: z.boolean().optional().catch(undefined),
});
export type NodeMeta = z.infer<typeof NodeMeta>;

export interface NodeInput {
  key: string;
  type: string;
  path: string | null;
  name: string | null;
  kind: string | null;
  startLine: number | null;
  endLine: number | null;
  summary: string | null;
  tokens: number;
  contentHash: string | null;
  source: string;
  meta?: NodeMeta | undefined;
  /** Pre-tokenized FTS columns. */
  fts: { name: string; path: string; body: string };
  /** Text to embed, or undefined when this node gets no vector. */
  embedText?: string | undefined;
  /**
   * The summary and embed text were composed from text already redacted (a file's content, redacted before it was
   * parsed): they are stored as given. Otherwise both are redacted here.
   */
  fromRedacted?: boolean | undefined;
}

export interface NodeRow {
  id: number;
  key: string;
  type: string;
  file_id: number | null;
  path: string | null;
  name: string | null;
  kind: string | null;
  start_line: number | null;
  end_line: number | null;
  summary: string | null;
  tokens: number;
  content_hash: string | null;
  source: string;
  confidence: number;
  meta: NodeMeta | null;
}

type StoredNode = Omit<NodeRow, "meta"> & { meta: string | null };

function decodeNode(r: StoredNode): NodeRow {
  return { ...r, meta: r.meta === null ? null : (decodeJson(NodeMeta, r.meta) ?? null) };
}

const encodeMeta = (meta: NodeMeta | undefined) => (meta ? JSON.stringify(meta) : null);

/**
 * FTS rows a batch of writes owes, written together at its end by `applyFtsWrites`. FTS5 flushes its pending
 * terms into a new segment at every statement savepoint, so an FTS insert between two other writes costs a segment
 * (and the merges that follow); written together, a batch's rows make one.
 */
export interface FtsWrites {
  deletes: number[];
  inserts: [id: number, name: string, path: string, body: string][];
}

export function newFtsWrites(): FtsWrites {
  return { deletes: [], inserts: [] };
}

/** Writes a batch's FTS rows: every delete first (an id may be reused by a node inserted later), then inserts. */
export function applyFtsWrites(db: Db, fts: FtsWrites): void {
  const delFts = stmt(db, "DELETE FROM nodes_fts WHERE rowid = ?");
  const insFts = stmt(db, "INSERT INTO nodes_fts (rowid, name, path, body) VALUES (?, ?, ?, ?)");
  for (const id of fts.deletes) delFts.run(id);
  for (const [id, name, path, body] of fts.inserts) insFts.run(id, name, path, body);
  fts.deletes.length = 0;
  fts.inserts.length = 0;
}

/**
 * Deletes nodes with their FTS rows and vectors (edges go by cascade). With `fts`, the FTS deletes are left to the
 * batch's `applyFtsWrites`.
 */
export function deleteNodes(db: Db, ids: readonly number[], fts?: FtsWrites): void {
  if (ids.length === 0) return;
  edgesChanged(db);
  const delFts = stmt(db, "DELETE FROM nodes_fts WHERE rowid = ?");
  const delNode = stmt(db, "DELETE FROM nodes WHERE id = ?");
  deleteVectorItems(db, "node", ids);
  for (const id of ids) {
    if (fts) fts.deletes.push(id);
    else delFts.run(id);
    delNode.run(id);
  }
}

/** Ids and keys of the nodes of one file. */
export function nodesOfFile(db: Db, fileId: number): { id: number; key: string }[] {
  return stmt(db, "SELECT id, key FROM nodes WHERE file_id = ?").all(fileId) as { id: number; key: string }[];
}

/**
 * Writes the nodes of one file (upserted by key, so surviving nodes keep their ids) with their vectors, and queues
 * their FTS rows in `fts` (the caller applies them); `existing` are the file's nodes before the write. Returns the
 * nodes' ids in order.
 */
export function upsertFileNodes(
  db: Db,
  projectId: number,
  fileId: number,
  nodes: readonly NodeInput[],
  existing: readonly { id: number; key: string }[],
  fts: FtsWrites,
): number[] {
  const upsert = stmt(
    db,
    `INSERT INTO nodes (key, type, file_id, path, name, kind, start_line, end_line, summary, tokens, content_hash, source, meta)
     VALUES (@key, @type, @fileId, @path, @name, @kind, @startLine, @endLine, @summary, @tokens, @contentHash, @source, @meta)
     ON CONFLICT(key) DO UPDATE SET type = excluded.type, file_id = excluded.file_id, path = excluded.path,
       name = excluded.name, kind = excluded.kind, start_line = excluded.start_line, end_line = excluded.end_line,
       summary = excluded.summary, tokens = excluded.tokens, content_hash = excluded.content_hash,
       source = excluded.source, meta = excluded.meta
     RETURNING id`,
  );
  const before = new Map(existing.map((e) => [e.key, e.id]));
  const ids: number[] = [];
  for (const n of nodes) {
    const summary = n.summary === null || n.fromRedacted ? n.summary : redact(n.summary);
    const id = (
      upsert.get({
        key: n.key,
        type: n.type,
        fileId,
        path: n.path,
        name: n.name,
        kind: n.kind,
        startLine: n.startLine,
        endLine: n.endLine,
        summary,
        tokens: n.tokens,
        contentHash: n.contentHash,
        source: n.source,
        meta: encodeMeta(n.meta),
      }) as { id: number }
    ).id;
    ids.push(id);
    const existed = before.has(n.key);
    if (existed) fts.deletes.push(id);
    fts.inserts.push([id, n.fts.name, n.fts.path, n.fts.body]);
    if (n.embedText !== undefined) {
      const text = n.fromRedacted ? n.embedText : redact(n.embedText);
      // A symbol's text that its row composes again word for word is not stored twice (see symbol-text.ts).
      const fromNode =
        n.type === "symbol" &&
        n.path !== null &&
        text === storedSymbolText({ kind: n.kind, key: n.key, path: n.path, summary });
      const item = { text, fromNode };
      if (existed) upsertVectorItem(db, projectId, "node", id, item);
      else insertVectorItem(db, projectId, "node", id, item);
    } else if (existed) deleteVectorItems(db, "node", [id]);
  }
  return ids;
}

/** Writes a node that belongs to no file (a rule is tied to its file; memories and failures are not). */
export function upsertLooseNode(db: Db, projectId: number, n: NodeInput): number {
  const id = (
    stmt(
      db,
      `INSERT INTO nodes (key, type, path, name, kind, summary, tokens, content_hash, source, meta)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(key) DO UPDATE SET type = excluded.type, path = excluded.path, name = excluded.name,
           kind = excluded.kind, summary = excluded.summary, tokens = excluded.tokens,
           content_hash = excluded.content_hash, source = excluded.source, meta = excluded.meta
         RETURNING id`,
    ).get(
      n.key,
      n.type,
      n.path,
      n.name,
      n.kind,
      n.summary === null ? null : redact(n.summary),
      n.tokens,
      n.contentHash,
      n.source,
      encodeMeta(n.meta),
    ) as { id: number }
  ).id;
  stmt(db, "DELETE FROM nodes_fts WHERE rowid = ?").run(id);
  stmt(db, "INSERT INTO nodes_fts (rowid, name, path, body) VALUES (?, ?, ?, ?)").run(
    id,
    n.fts.name,
    n.fts.path,
    n.fts.body,
  );
  if (n.embedText !== undefined) upsertVectorItem(db, projectId, "node", id, n.embedText);
  return id;
}

/** The ids of file-level nodes (file, test, rule: key `file:<path>`) by key, read through the key index. */
export function fileNodeIdsByKey(db: Db): Map<string, number> {
  const rows = stmt(db, "SELECT id, key FROM nodes WHERE key >= 'file:' AND key < 'file;'").all() as {
    id: number;
    key: string;
  }[];
  return new Map(rows.map((r) => [r.key, r.id]));
}

/** Node ids by key (missing keys are absent from the map). */
export function nodeIdsByKey(db: Db, type?: string): Map<string, number> {
  const rows = (
    type ? stmt(db, "SELECT id, key FROM nodes WHERE type = ?").all(type) : stmt(db, "SELECT id, key FROM nodes").all()
  ) as { id: number; key: string }[];
  return new Map(rows.map((r) => [r.key, r.id]));
}

export function getNode(db: Db, id: number): NodeRow | undefined {
  const r = stmt(db, "SELECT * FROM nodes WHERE id = ?").get(id) as StoredNode | undefined;
  return r && decodeNode(r);
}

export function getNodes(db: Db, ids: readonly number[]): NodeRow[] {
  if (ids.length === 0) return [];
  const out: NodeRow[] = [];
  const st = stmt(db, "SELECT * FROM nodes WHERE id = ?");
  for (const id of ids) {
    const r = st.get(id) as StoredNode | undefined;
    if (r) out.push(decodeNode(r));
  }
  return out;
}

export function getNodeByKey(db: Db, key: string): NodeRow | undefined {
  const r = stmt(db, "SELECT * FROM nodes WHERE key = ?").get(key) as StoredNode | undefined;
  return r && decodeNode(r);
}

/** Nodes whose path is `path` (a file and its symbols), or whose name matches (case-insensitive). */
export function findNodes(db: Db, q: { path?: string; name?: string; limit?: number }): NodeRow[] {
  const limit = q.limit ?? 20;
  if (q.path !== undefined) {
    return (
      stmt(db, "SELECT * FROM nodes WHERE path = ? ORDER BY (type IN ('file','test')) DESC, start_line LIMIT ?").all(
        q.path,
        limit,
      ) as StoredNode[]
    ).map(decodeNode);
  }
  if (q.name !== undefined) {
    return (
      stmt(db, "SELECT * FROM nodes WHERE name = ? COLLATE NOCASE ORDER BY type, path LIMIT ?").all(
        q.name,
        limit,
      ) as StoredNode[]
    ).map(decodeNode);
  }
  return [];
}

/** The file-level node (file or test) at `path`, read through the (path, type) index. */
export function fileNodeAt(db: Db, path: string): NodeRow | undefined {
  const r = stmt(db, "SELECT * FROM nodes WHERE path = ? AND type IN ('file','test') LIMIT 1").get(path) as
    StoredNode | undefined;
  return r && decodeNode(r);
}

/** Rule nodes with their path and scope (from their meta). */
export function ruleNodes(db: Db): { id: number; path: string; meta: NodeMeta }[] {
  return (
    stmt(db, "SELECT id, path, meta FROM nodes WHERE type = 'rule'").all() as {
      id: number;
      path: string;
      meta: string | null;
    }[]
  ).map((r) => ({ id: r.id, path: r.path, meta: (r.meta === null ? undefined : decodeJson(NodeMeta, r.meta)) ?? {} }));
}

/** File-level nodes (file or test) of given ids' files: maps any node id to its file node id. */
export function fileNodeOf(db: Db, ids: readonly number[]): Map<number, number> {
  const st = stmt(
    db,
    `SELECT f.id AS fid FROM nodes n JOIN nodes f ON f.file_id = n.file_id AND f.type IN ('file','test')
     WHERE n.id = ?`,
  );
  const out = new Map<number, number>();
  for (const id of ids) {
    const r = st.get(id) as { fid: number } | undefined;
    if (r) out.set(id, r.fid);
  }
  return out;
}

export interface FileNodeRef {
  id: number;
  path: string;
  type: string;
  kind: string | null;
}

/** All file-level nodes (file, test, rule) with their language: the candidate universe for file ranking. */
export function fileLevelNodes(db: Db): FileNodeRef[] {
  return stmt(db, "SELECT id, path, type, kind FROM nodes WHERE type IN ('file','test','rule')").all() as FileNodeRef[];
}

/**
 * The file-level nodes of `paths` (key `file:<path>`, read through the key index) with the content hash of their
 * files row; a path without either is absent.
 */
export function fileLevelNodesAt(db: Db, paths: Iterable<string>): (FileNodeRef & { hash: string })[] {
  const get = stmt(
    db,
    "SELECT n.id AS id, n.path AS path, n.type AS type, n.kind AS kind, f.hash AS hash FROM nodes n JOIN files f ON f.path = n.path WHERE n.key = ?",
  );
  const out: (FileNodeRef & { hash: string })[] = [];
  for (const p of new Set(paths)) {
    const row = get.get(`file:${p}`) as (FileNodeRef & { hash: string }) | undefined;
    if (row) out.push(row);
  }
  return out;
}

/** How many indexed files (file nodes with a files row) there are of each language. */
export function fileNodesByLanguage(db: Db): { kind: string | null; n: number }[] {
  const sql = `SELECT n.kind AS kind, count(*) AS n FROM nodes n JOIN files f ON f.path = n.path
    WHERE n.type = 'file' GROUP BY n.kind`;
  return stmt(db, sql).all() as { kind: string | null; n: number }[];
}

/** Symbol definitions by exact name (case-insensitive index; callers re-check case): id, file path, kind. */
export function symbolsNamed(
  db: Db,
  name: string,
  limit = 200,
): { id: number; path: string; kind: string; name: string }[] {
  return stmt(
    db,
    "SELECT id, path, kind, name FROM nodes WHERE name = ? COLLATE NOCASE AND +type = 'symbol' LIMIT ?",
  ).all(name, limit) as { id: number; path: string; kind: string; name: string }[];
}

/**
 * The files defining a symbol of exactly this name (case-sensitive), at most `limit` definitions: each with the
 * file's node (id, path, type `file` or `test`), the symbol's kind and its qualified name (`Class.method`).
 */
export function symbolDefiners(
  db: Db,
  name: string,
  limit = 50,
): { fileId: number; path: string; fileType: string; kind: string | null; qual: string }[] {
  const rows = stmt(
    db,
    `SELECT f.id AS fileId, f.path AS path, f.type AS fileType, n.kind AS kind, n.key AS key
     FROM nodes n JOIN nodes f ON f.file_id = n.file_id AND f.type IN ('file','test')
     WHERE n.name = ? COLLATE NOCASE AND +n.name = ? AND +n.type = 'symbol' LIMIT ?`,
  ).all(name, name, limit) as { fileId: number; path: string; fileType: string; kind: string | null; key: string }[];
  return rows.map((r) => ({
    fileId: r.fileId,
    path: r.path,
    fileType: r.fileType,
    kind: r.kind,
    qual: r.key.slice(r.key.indexOf("#") + 1).replace(/~\d+$/, ""),
  }));
}

/** Paths of symbol nodes, by id. */
export function symbolPaths(db: Db, ids: readonly number[]): Map<number, string> {
  const st = stmt(db, "SELECT path FROM nodes WHERE id = ?");
  const out = new Map<number, string>();
  for (const id of ids) {
    const r = st.get(id) as { path: string } | undefined;
    if (r) out.set(id, r.path);
  }
  return out;
}

/** One indexed symbol with a name and its file (the first by id), or undefined when the index has none. */
export function anySymbol(db: Db): { name: string; path: string } | undefined {
  return stmt(
    db,
    "SELECT name, path FROM nodes WHERE type = 'symbol' AND name IS NOT NULL AND path IS NOT NULL LIMIT 1",
  ).get() as { name: string; path: string } | undefined;
}

/** How many nodes the index holds. */
export function nodeCount(db: Db): number {
  return (stmt(db, "SELECT COUNT(*) AS n FROM nodes").get() as { n: number }).n;
}

/** The symbols defined in one file: key, name, qualified name (`Class.method`, from the key), kind and lines. */
export function symbolsOfFile(
  db: Db,
  path: string,
): {
  key: string;
  name: string;
  qual: string;
  kind: string | null;
  startLine: number | null;
  endLine: number | null;
}[] {
  const rows = stmt(
    db,
    "SELECT key, name, kind, start_line AS startLine, end_line AS endLine FROM nodes WHERE path = ? AND type = 'symbol'",
  ).all(path) as { key: string; name: string; kind: string | null; startLine: number | null; endLine: number | null }[];
  return rows.map((r) => ({
    key: r.key,
    name: r.name,
    qual: r.key.slice(r.key.indexOf("#") + 1).replace(/~\d+$/, ""),
    kind: r.kind,
    startLine: r.startLine,
    endLine: r.endLine,
  }));
}
