// What the graph holds, counted across its tables.
import { z } from "zod";

import type { Db } from "../db.js";
import { stmt } from "../db.js";
import { getMeta, getMetaJson, setMetaJson } from "../meta.js";

/**
 * Meta key: the edges per type as an index run counted them, with their total. Grouping the edge table by type reads
 * every edge and sorts them (tens of milliseconds on a large repository); its total is a b-tree count, much cheaper.
 */
const EDGE_COUNTS = "graph.edge_counts";
const KeptEdgeCounts = z.object({ total: z.number(), byType: z.record(z.string(), z.number()) });

/**
 * Drops the kept edge counts: every write of edges (and every delete of nodes, whose edges go by cascade) calls it in
 * its transaction, so counts are only ever read back over the edges they were taken from.
 */
export function edgesChanged(db: Db): void {
  stmt(db, "DELETE FROM meta WHERE key = ?").run(EDGE_COUNTS);
}

/**
 * Counts per node type and edge type, and indexed files. The edges per type are those an index run kept, while no
 * write of edges dropped them since (see `edgesChanged`) and the edge total is still the one it counted. An index run
 * passes `keep` (it may write): what it counts is kept; with `recount` (it rewrote edges) it counts again whatever
 * was kept.
 */
export function graphCounts(
  db: Db,
  opts: { keep?: boolean; recount?: boolean } = {},
): { nodes: Record<string, number>; edges: Record<string, number>; files: number } {
  const nodes = Object.fromEntries(
    (stmt(db, "SELECT type, COUNT(*) AS n FROM nodes GROUP BY type").all() as { type: string; n: number }[]).map(
      (r) => [r.type, r.n],
    ),
  );
  const files = (stmt(db, "SELECT COUNT(*) AS n FROM files").get() as { n: number }).n;
  return { nodes, edges: edgeCounts(db, opts.keep === true, opts.recount === true), files };
}

function edgeCounts(db: Db, keep: boolean, recount: boolean): Record<string, number> {
  const total = (stmt(db, "SELECT COUNT(*) AS n FROM edges").get() as { n: number }).n;
  if (!recount) {
    const kept = keptEdgeCounts(db);
    if (kept?.total === total && Object.values(kept.byType).reduce((a, n) => a + n, 0) === total) return kept.byType;
  }
  const byType = Object.fromEntries(
    (stmt(db, "SELECT type, COUNT(*) AS n FROM edges GROUP BY type").all() as { type: string; n: number }[]).map(
      (r) => [r.type, r.n],
    ),
  );
  if (keep) setMetaJson(db, EDGE_COUNTS, { total, byType });
  return byType;
}

function keptEdgeCounts(db: Db): z.output<typeof KeptEdgeCounts> | undefined {
  try {
    return getMetaJson(db, EDGE_COUNTS, KeptEdgeCounts);
  } catch {
    return undefined; // a value another format wrote: counted again
  }
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
