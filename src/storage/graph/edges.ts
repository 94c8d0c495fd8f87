// Typed edges between nodes (contains, imports, test_covers, precondition, similar, task_memory…). Callers hold
// the transaction.
import type { Db } from "../db.js";
import { stmt } from "../db.js";
import { edgesChanged } from "./counts.js";

export interface EdgeRow {
  src: number;
  dst: number;
  type: string;
  weight: number;
}

/** Replaces every edge of the given types by `edges` (used for derived relations recomputed as a whole). */
export function replaceEdges(
  db: Db,
  types: readonly string[],
  edges: readonly { src: number; dst: number; type: string; weight: number }[],
): void {
  edgesChanged(db);
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
  edgesChanged(db);
  stmt(db, "DELETE FROM edges WHERE src = ? AND type = ?").run(src, type);
  const ins = stmt(db, "INSERT OR REPLACE INTO edges (src, dst, type, weight) VALUES (?, ?, ?, ?)");
  for (const e of edges) ins.run(src, e.dst, type, e.weight);
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

/** One-hop file-level neighbors of file nodes along imports (both ways) and test_covers (test → target). */
export function fileNeighbors(db: Db, id: number): { id: number; type: string; dir: "out" | "in" }[] {
  return stmt(
    db,
    `SELECT dst AS id, type, 'out' AS dir FROM edges WHERE src = ? AND type IN ('imports','test_covers')
     UNION ALL SELECT src AS id, type, 'in' AS dir FROM edges WHERE dst = ? AND type IN ('imports','test_covers')`,
  ).all(id, id) as { id: number; type: string; dir: "out" | "in" }[];
}
