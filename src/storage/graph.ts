// SQL of the context graph: files, nodes, edges and their FTS rows. Callers hold the transaction. Node summaries
// are stored redacted (FTS tokens come from the caller, who tokenizes redacted text).
import { redact } from "../text/redact.js";
import type { Db } from "./db.js";
import { stmt } from "./db.js";
import { deleteVectorItems, insertVectorItem, upsertVectorItem } from "./vectors.js";

export interface FileRow {
  id: number;
  path: string;
  language: string | null;
  size: number;
  mtime_ms: number;
  hash: string;
  is_test: number;
  parser: string | null;
  imports: string;
}

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
  meta?: Record<string, unknown> | undefined;
  /** Pre-tokenized FTS columns. */
  fts: { name: string; path: string; body: string };
  /** Text to embed, or undefined when this node gets no vector. */
  embedText?: string | undefined;
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
  meta: string | null;
}

/** Every indexed file's size, mtime and hash, for the scanner's `known` shortcut. */
export function knownFiles(db: Db): Map<string, FileRow> {
  const rows = stmt(db, "SELECT * FROM files").all() as FileRow[];
  return new Map(rows.map((r) => [r.path, r]));
}

function deleteNodes(db: Db, ids: readonly number[]): void {
  if (ids.length === 0) return;
  const delFts = stmt(db, "DELETE FROM nodes_fts WHERE rowid = ?");
  const delNode = stmt(db, "DELETE FROM nodes WHERE id = ?");
  deleteVectorItems(db, "node", ids);
  for (const id of ids) {
    delFts.run(id);
    delNode.run(id);
  }
}

/**
 * Writes one file and its nodes. Nodes keep their ids when their key survives (so memories that cite a symbol
 * stay linked); nodes that disappeared are deleted with their edges, FTS rows and vectors.
 * The first node must be the file's own node; `contains` edges go from it to every other node.
 */
export function writeFile(
  db: Db,
  projectId: number,
  file: { path: string; language: string | null; size: number; mtimeMs: number; hash: string; isTest: boolean },
  parser: string | null,
  imports: unknown[],
  nodes: readonly NodeInput[],
): void {
  const now = new Date().toISOString();
  const fileId = (
    stmt(
      db,
      `INSERT INTO files (path, language, size, mtime_ms, hash, is_test, parser, imports, indexed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(path) DO UPDATE SET language = excluded.language, size = excluded.size,
           mtime_ms = excluded.mtime_ms, hash = excluded.hash, is_test = excluded.is_test, parser = excluded.parser,
           imports = excluded.imports, indexed_at = excluded.indexed_at
         RETURNING id`,
    ).get(
      file.path,
      file.language,
      file.size,
      file.mtimeMs,
      file.hash,
      file.isTest ? 1 : 0,
      parser,
      JSON.stringify(imports),
      now,
    ) as { id: number }
  ).id;

  const existing = stmt(db, "SELECT id, key FROM nodes WHERE file_id = ?").all(fileId) as {
    id: number;
    key: string;
  }[];
  const wanted = new Set(nodes.map((n) => n.key));
  deleteNodes(
    db,
    existing.filter((e) => !wanted.has(e.key)).map((e) => e.id),
  );

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
  const delFts = stmt(db, "DELETE FROM nodes_fts WHERE rowid = ?");
  const insFts = stmt(db, "INSERT INTO nodes_fts (rowid, name, path, body) VALUES (?, ?, ?, ?)");
  const before = new Map(existing.map((e) => [e.key, e.id]));
  const ids: number[] = [];
  for (const n of nodes) {
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
        summary: n.summary === null ? null : redact(n.summary),
        tokens: n.tokens,
        contentHash: n.contentHash,
        source: n.source,
        meta: n.meta ? JSON.stringify(n.meta) : null,
      }) as { id: number }
    ).id;
    ids.push(id);
    const existed = before.has(n.key);
    if (existed) delFts.run(id);
    insFts.run(id, n.fts.name, n.fts.path, n.fts.body);
    if (n.embedText !== undefined) {
      if (existed) upsertVectorItem(db, projectId, "node", id, n.embedText);
      else insertVectorItem(db, projectId, "node", id, n.embedText);
    } else if (existed) deleteVectorItems(db, "node", [id]);
  }
  const [fileNode, ...children] = ids;
  if (fileNode !== undefined) {
    stmt(db, "DELETE FROM edges WHERE src = ? AND type = 'contains'").run(fileNode);
    const ins = stmt(db, "INSERT OR IGNORE INTO edges (src, dst, type, weight) VALUES (?, ?, 'contains', 1)");
    for (const c of children) ins.run(fileNode, c);
  }
}

/** Deletes files (by path) with all their nodes, edges, FTS rows and vectors. */
export function deleteFiles(db: Db, paths: readonly string[]): number {
  const find = stmt(db, "SELECT id FROM files WHERE path = ?");
  const nodesOf = stmt(db, "SELECT id FROM nodes WHERE file_id = ?");
  const del = stmt(db, "DELETE FROM files WHERE id = ?");
  let n = 0;
  for (const p of paths) {
    const row = find.get(p) as { id: number } | undefined;
    if (!row) continue;
    deleteNodes(
      db,
      (nodesOf.all(row.id) as { id: number }[]).map((r) => r.id),
    );
    del.run(row.id);
    n++;
  }
  return n;
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
      n.meta ? JSON.stringify(n.meta) : null,
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

/** Node ids by key (missing keys are absent from the map). */
export function nodeIdsByKey(db: Db, type?: string): Map<string, number> {
  const rows = (
    type ? stmt(db, "SELECT id, key FROM nodes WHERE type = ?").all(type) : stmt(db, "SELECT id, key FROM nodes").all()
  ) as { id: number; key: string }[];
  return new Map(rows.map((r) => [r.key, r.id]));
}

/** Replaces every edge of the given types by `edges` (used for derived relations recomputed as a whole). */
export function replaceEdges(
  db: Db,
  types: readonly string[],
  edges: readonly { src: number; dst: number; type: string; weight: number }[],
): void {
  const del = stmt(db, "DELETE FROM edges WHERE type = ?");
  for (const t of types) del.run(t);
  const ins = stmt(db, "INSERT OR REPLACE INTO edges (src, dst, type, weight) VALUES (?, ?, ?, ?)");
  for (const e of edges) ins.run(e.src, e.dst, e.type, e.weight);
}

/** Replaces the edges of given types leaving `src`. */
export function replaceEdgesFrom(
  db: Db,
  src: number,
  type: string,
  edges: readonly { dst: number; weight: number }[],
): void {
  stmt(db, "DELETE FROM edges WHERE src = ? AND type = ?").run(src, type);
  const ins = stmt(db, "INSERT OR REPLACE INTO edges (src, dst, type, weight) VALUES (?, ?, ?, ?)");
  for (const e of edges) ins.run(src, e.dst, type, e.weight);
}

/** Files with their stored import refs, for re-resolving imports without parsing. */
export function fileImports(db: Db): { path: string; imports: string; is_test: number }[] {
  return stmt(db, "SELECT path, imports, is_test FROM files").all() as {
    path: string;
    imports: string;
    is_test: number;
  }[];
}

export interface FtsHit {
  id: number;
  score: number;
}

/**
 * BM25 over the FTS index (higher score = better). `match` is an FTS5 query string built by the caller
 * from quoted tokens; `types` restricts node types.
 */
export function searchFts(
  db: Db,
  match: string,
  opts: { types?: readonly string[]; limit: number; weights: [number, number, number] },
): FtsHit[] {
  const [wn, wp, wb] = opts.weights;
  const typeFilter = opts.types?.length ? `AND n.type IN (${opts.types.map(() => "?").join(",")})` : "";
  const sql = `SELECT f.rowid AS id, -bm25(nodes_fts, ${wn}, ${wp}, ${wb}) AS score
    FROM nodes_fts f JOIN nodes n ON n.id = f.rowid
    WHERE nodes_fts MATCH ? ${typeFilter}
    ORDER BY bm25(nodes_fts, ${wn}, ${wp}, ${wb}) LIMIT ?`;
  return stmt(db, sql).all(match, ...(opts.types ?? []), opts.limit) as FtsHit[];
}

export function getNode(db: Db, id: number): NodeRow | undefined {
  return stmt(db, "SELECT * FROM nodes WHERE id = ?").get(id) as NodeRow | undefined;
}

export function getNodes(db: Db, ids: readonly number[]): NodeRow[] {
  if (ids.length === 0) return [];
  const out: NodeRow[] = [];
  const st = stmt(db, "SELECT * FROM nodes WHERE id = ?");
  for (const id of ids) {
    const r = st.get(id) as NodeRow | undefined;
    if (r) out.push(r);
  }
  return out;
}

export function getNodeByKey(db: Db, key: string): NodeRow | undefined {
  return stmt(db, "SELECT * FROM nodes WHERE key = ?").get(key) as NodeRow | undefined;
}

/** Nodes whose path is `path` (a file and its symbols), or whose name matches (case-insensitive). */
export function findNodes(db: Db, q: { path?: string; name?: string; limit?: number }): NodeRow[] {
  const limit = q.limit ?? 20;
  if (q.path !== undefined) {
    return stmt(
      db,
      "SELECT * FROM nodes WHERE path = ? ORDER BY (type IN ('file','test')) DESC, start_line LIMIT ?",
    ).all(q.path, limit) as NodeRow[];
  }
  if (q.name !== undefined) {
    return stmt(db, "SELECT * FROM nodes WHERE name = ? COLLATE NOCASE ORDER BY type, path LIMIT ?").all(
      q.name,
      limit,
    ) as NodeRow[];
  }
  return [];
}

export interface EdgeRow {
  src: number;
  dst: number;
  type: string;
  weight: number;
}

/** Edges touching a node, both directions. */
export function edgesOf(db: Db, id: number, limit = 500): EdgeRow[] {
  return stmt(
    db,
    `SELECT src, dst, type, weight FROM edges WHERE src = ?
       UNION ALL SELECT src, dst, type, weight FROM edges WHERE dst = ? LIMIT ?`,
  ).all(id, id, limit) as EdgeRow[];
}

/** Outgoing edges of one type from many nodes. */
export function edgesFrom(db: Db, ids: readonly number[], type: string): EdgeRow[] {
  const st = stmt(db, "SELECT src, dst, type, weight FROM edges WHERE src = ? AND type = ?");
  return ids.flatMap((id) => st.all(id, type) as EdgeRow[]);
}

/** Incoming edges of one type to many nodes. */
export function edgesTo(db: Db, ids: readonly number[], type: string): EdgeRow[] {
  const st = stmt(db, "SELECT src, dst, type, weight FROM edges WHERE dst = ? AND type = ?");
  return ids.flatMap((id) => st.all(id, type) as EdgeRow[]);
}

/** Counts per node type and edge type, and indexed files. */
export function graphCounts(db: Db): { nodes: Record<string, number>; edges: Record<string, number>; files: number } {
  const nodes = Object.fromEntries(
    (stmt(db, "SELECT type, COUNT(*) AS n FROM nodes GROUP BY type").all() as { type: string; n: number }[]).map(
      (r) => [r.type, r.n],
    ),
  );
  const edges = Object.fromEntries(
    (stmt(db, "SELECT type, COUNT(*) AS n FROM edges GROUP BY type").all() as { type: string; n: number }[]).map(
      (r) => [r.type, r.n],
    ),
  );
  const files = (stmt(db, "SELECT COUNT(*) AS n FROM files").get() as { n: number }).n;
  return { nodes, edges, files };
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

// ---- leases: one watcher per project across processes ----

/** Takes or renews a lease; true when this holder has it until `now + ttlMs`. */
export function acquireLease(db: Db, name: string, holder: string, ttlMs: number, now = Date.now()): boolean {
  const res = stmt(
    db,
    `INSERT INTO leases (name, holder, pid, expires_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, expires_at = excluded.expires_at
       WHERE leases.holder = excluded.holder OR leases.expires_at < ?`,
  ).run(name, holder, process.pid, now + ttlMs, now);
  return res.changes > 0;
}

export function releaseLease(db: Db, name: string, holder: string): void {
  stmt(db, "DELETE FROM leases WHERE name = ? AND holder = ?").run(name, holder);
}

export function leaseHolder(db: Db, name: string): { holder: string; pid: number; expires_at: number } | undefined {
  return stmt(db, "SELECT holder, pid, expires_at FROM leases WHERE name = ?").get(name) as
    { holder: string; pid: number; expires_at: number } | undefined;
}

// ---- similar edges from vectors ----

/** Vector items of nodes of the given types that have a stored vector: item id, node id, vector. */
export function nodeVectors(
  db: Db,
  types: readonly string[],
  onlyNodeIds?: readonly number[],
): { itemId: number; nodeId: number; vector: Float32Array }[] {
  if (!stmt(db, "SELECT 1 FROM sqlite_master WHERE name = 'vectors'").get()) return [];
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
      vector: new Float32Array(r.embedding.buffer, r.embedding.byteOffset, r.embedding.byteLength / 4),
    }));
}

/** Ids of nodes of the given types whose vector is still pending. */
export function pendingNodeIds(db: Db, types: readonly string[]): number[] {
  return (
    stmt(
      db,
      `SELECT n.id AS id FROM vector_items i JOIN nodes n ON n.id = i.owner_id
       WHERE i.owner_type = 'node' AND i.embedded = 0 AND n.type IN (${types.map(() => "?").join(",")})`,
    ).all(...types) as { id: number }[]
  ).map((r) => r.id);
}

// ---- retrieval lookups ----

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

/** One-hop file-level neighbours of file nodes along imports (both ways) and test_covers (test → target). */
export function fileNeighbours(db: Db, id: number): { id: number; type: string; dir: "out" | "in" }[] {
  return stmt(
    db,
    `SELECT dst AS id, type, 'out' AS dir FROM edges WHERE src = ? AND type IN ('imports','test_covers')
     UNION ALL SELECT src AS id, type, 'in' AS dir FROM edges WHERE dst = ? AND type IN ('imports','test_covers')`,
  ).all(id, id) as { id: number; type: string; dir: "out" | "in" }[];
}

/** Size and mtime recorded when a file was indexed. */
export function fileStamp(db: Db, path: string): { mtime_ms: number; size: number } | undefined {
  return stmt(db, "SELECT mtime_ms, size FROM files WHERE path = ?").get(path) as
    { mtime_ms: number; size: number } | undefined;
}

/** How many indexed nodes contain `term` (its FTS document frequency). */
export function termDocFrequency(db: Db, term: string): number {
  return (
    stmt(db, "SELECT count(*) AS n FROM nodes_fts WHERE nodes_fts MATCH ?").get(`"${term.replace(/"/g, '""')}"`) as {
      n: number;
    }
  ).n;
}

/** How many nodes the index holds. */
export function nodeCount(db: Db): number {
  return (stmt(db, "SELECT COUNT(*) AS n FROM nodes").get() as { n: number }).n;
}
