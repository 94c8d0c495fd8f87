// What the graph holds, counted across its tables.
import type { Db } from "../db.js";
import { stmt } from "../db.js";

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
