// What the graph holds, counted across its tables.
import type { Db } from "../db.js";
import { stmt } from "../db.js";
import { getMeta } from "../meta.js";

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

/** How many edges of one type the graph holds. */
export function edgeCount(db: Db, type: string): number {
  return (stmt(db, "SELECT COUNT(*) AS n FROM edges WHERE type = ?").get(type) as { n: number }).n;
}

/** Whether the index holds any file (one row read, whatever the store's size). */
export function hasIndexedFiles(db: Db): boolean {
  return stmt(db, "SELECT 1 FROM files LIMIT 1").get() !== undefined;
}

/**
 * A stamp of the last finished index run (the record graph/build-state.ts writes when a run ends), undefined before
 * the first: what is computed from the graph's files can be kept until it changes.
 */
export function indexRunStamp(db: Db): string | undefined {
  return getMeta(db, "graph.last_run");
}
