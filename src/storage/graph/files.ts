// Indexed files: their stamp (size, mtime, inode, change time, hash), language, parser and imports as written. Writing files writes
// their nodes too (see nodes.ts), the FTS rows of a whole batch last. Callers hold the transaction.
import { z } from "zod";

import type { Db } from "../db.js";
import { stmt, writeTx } from "../db.js";
import { decodeJson } from "../json.js";
import { replaceEdgesFrom } from "./edges.js";
import {
  applyFtsWrites,
  deleteNodes,
  type FtsWrites,
  newFtsWrites,
  type NodeInput,
  nodesOfFile,
  upsertFileNodes,
} from "./nodes.js";

/** The JSON `imports` column: imports as written, so resolution is redone without re-parsing. */
const StoredImports = z.array(z.unknown());

export interface FileRow {
  id: number;
  path: string;
  language: string | null;
  size: number;
  mtime_ms: number;
  /** Null on a row written before the store kept them (see migration 0020). */
  ino: number | null;
  ctime_ms: number | null;
  hash: string;
  is_test: number;
  parser: string | null;
}

/** A file's stat as the scan saw it, recorded with the hash read under it. */
export interface FileStamp {
  path: string;
  size: number;
  mtimeMs: number;
  ino: number;
  ctimeMs: number;
  hash: string;
}

/** Every indexed file's stamp and hash, for the scanner's `known` shortcut. */
export function knownFiles(db: Db): Map<string, FileRow> {
  const rows = stmt(
    db,
    "SELECT id, path, language, size, mtime_ms, ino, ctime_ms, hash, is_test, parser FROM files",
  ).all() as FileRow[];
  return new Map(rows.map((r) => [r.path, r]));
}

/**
 * Records a new stamp for files whose content (hash) is unchanged, so the next scan need not read them. A row
 * another run rewrote since (another content) keeps its own stamp: this one was taken for `hash` only.
 */
export function restampFiles(db: Db, files: readonly FileStamp[]): void {
  if (!files.length) return;
  const update = stmt(db, "UPDATE files SET size = ?, mtime_ms = ?, ino = ?, ctime_ms = ? WHERE path = ? AND hash = ?");
  writeTx(db, () => {
    for (const f of files) update.run(f.size, f.mtimeMs, f.ino, f.ctimeMs, f.path, f.hash);
  });
}

export interface FileWrite {
  /** A stamp without inode and change time (a file not read from disk) is trusted by size and mtime alone. */
  file: Omit<FileStamp, "ino" | "ctimeMs"> &
    Partial<Pick<FileStamp, "ino" | "ctimeMs">> & { language: string | null; isTest: boolean };
  parser: string | null;
  imports: readonly unknown[];
  nodes: readonly NodeInput[];
}

/**
 * Writes files and their nodes. Nodes keep their ids when their key survives (so memories that cite a symbol
 * stay linked); nodes that disappeared are deleted with their edges, FTS rows and vectors.
 * The first node of each file must be the file's own node; `contains` edges go from it to every other node.
 * The FTS rows of all the files are written at the end, together (see `FtsWrites`).
 */
export function writeFiles(db: Db, projectId: number, files: readonly FileWrite[]): void {
  const fts = newFtsWrites();
  for (const f of files) writeFileRows(db, projectId, f, fts);
  applyFtsWrites(db, fts);
}

/** Writes one file and its nodes (see `writeFiles`). */
export function writeFile(
  db: Db,
  projectId: number,
  file: FileWrite["file"],
  parser: string | null,
  imports: readonly unknown[],
  nodes: readonly NodeInput[],
): void {
  writeFiles(db, projectId, [{ file, parser, imports, nodes }]);
}

function writeFileRows(db: Db, projectId: number, { file, parser, imports, nodes }: FileWrite, fts: FtsWrites): void {
  const now = new Date().toISOString();
  const fileId = (
    stmt(
      db,
      `INSERT INTO files (path, language, size, mtime_ms, ino, ctime_ms, hash, is_test, parser, imports, indexed_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(path) DO UPDATE SET language = excluded.language, size = excluded.size,
           mtime_ms = excluded.mtime_ms, ino = excluded.ino, ctime_ms = excluded.ctime_ms, hash = excluded.hash,
           is_test = excluded.is_test, parser = excluded.parser, imports = excluded.imports,
           indexed_at = excluded.indexed_at
         RETURNING id`,
    ).get(
      file.path,
      file.language,
      file.size,
      file.mtimeMs,
      file.ino ?? null,
      file.ctimeMs ?? null,
      file.hash,
      file.isTest ? 1 : 0,
      parser,
      JSON.stringify(imports),
      now,
    ) as { id: number }
  ).id;

  const existing = nodesOfFile(db, fileId);
  const wanted = new Set(nodes.map((n) => n.key));
  deleteNodes(
    db,
    existing.filter((e) => !wanted.has(e.key)).map((e) => e.id),
    fts,
  );
  const [fileNode, ...children] = upsertFileNodes(db, projectId, fileId, nodes, existing, fts);
  if (fileNode !== undefined) {
    replaceEdgesFrom(
      db,
      fileNode,
      "contains",
      children.map((dst) => ({ dst, weight: 1 })),
    );
  }
}

/** Deletes files (by path) with all their nodes, edges, FTS rows and vectors. */
export function deleteFiles(db: Db, paths: readonly string[]): number {
  const find = stmt(db, "SELECT id FROM files WHERE path = ?");
  const del = stmt(db, "DELETE FROM files WHERE id = ?");
  const fts = newFtsWrites();
  let n = 0;
  for (const p of paths) {
    const row = find.get(p) as { id: number } | undefined;
    if (!row) continue;
    deleteNodes(
      db,
      nodesOfFile(db, row.id).map((r) => r.id),
      fts,
    );
    del.run(row.id);
    n++;
  }
  applyFtsWrites(db, fts);
  return n;
}

/**
 * Files (all, or those of `only`) with their stored import refs as JSON values (the repository model validates
 * them), for re-resolving imports without parsing. A stored value that is not a JSON array reads as no imports.
 */
export function fileImports(db: Db, only?: readonly string[]): { path: string; imports: unknown[]; is_test: number }[] {
  type Row = { path: string; imports: string; is_test: number };
  const rows = only
    ? only.flatMap((p) => stmt(db, "SELECT path, imports, is_test FROM files WHERE path = ?").all(p) as Row[])
    : (stmt(db, "SELECT path, imports, is_test FROM files").all() as Row[]);
  return rows.map((r) => ({ path: r.path, imports: decodeJson(StoredImports, r.imports) ?? [], is_test: r.is_test }));
}

/** Every indexed file's path. */
export function indexedPaths(db: Db): string[] {
  return (stmt(db, "SELECT path FROM files").all() as { path: string }[]).map((r) => r.path);
}

/** The content hash recorded when a file was indexed (written with its symbols), or undefined for no such file. */
export function fileHash(db: Db, path: string): string | undefined {
  return (stmt(db, "SELECT hash FROM files WHERE path = ?").get(path) as { hash: string } | undefined)?.hash;
}

/** Size and mtime recorded when a file was indexed. */
export function fileStamp(db: Db, path: string): { mtime_ms: number; size: number } | undefined {
  return stmt(db, "SELECT mtime_ms, size FROM files WHERE path = ?").get(path) as
    { mtime_ms: number; size: number } | undefined;
}

/** The languages of the indexed files (none for files of no known language). */
export function indexedLanguages(db: Db): string[] {
  return (
    stmt(db, "SELECT DISTINCT language FROM files WHERE language IS NOT NULL").all() as { language: string }[]
  ).map((r) => r.language);
}

/**
 * One indexed file of `language`, the one whose size is nearest `bytes` (a typical file to rehearse a parse on), or
 * undefined when the index holds none.
 */
export function fileOfLanguageNear(db: Db, language: string, bytes: number): string | undefined {
  const row = stmt(db, "SELECT path FROM files WHERE language = ? ORDER BY abs(size - ?) LIMIT 1").get(
    language,
    bytes,
  ) as { path: string } | undefined;
  return row?.path;
}

/** How many files the index holds. */
export function fileCount(db: Db): number {
  return (stmt(db, "SELECT COUNT(*) AS n FROM files").get() as { n: number }).n;
}

/** Indexed files per language (`other` when none was detected), most first. */
export function languageCounts(db: Db): { language: string; n: number }[] {
  return stmt(
    db,
    "SELECT COALESCE(language, 'other') AS language, COUNT(*) AS n FROM files GROUP BY 1 ORDER BY n DESC, language",
  ).all() as { language: string; n: number }[];
}

/** The largest indexed files, largest first. */
export function largestFiles(db: Db, limit: number): { path: string; size: number; language: string | null }[] {
  return stmt(db, "SELECT path, size, language FROM files ORDER BY size DESC, path LIMIT ?").all(limit) as {
    path: string;
    size: number;
    language: string | null;
  }[];
}
