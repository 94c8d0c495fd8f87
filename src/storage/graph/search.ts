// Full-text search over the graph's nodes: the contentless FTS5 table nodes_fts (rowid = node id), whose
// identifier-aware tokens are written with the nodes.
import type { Db } from "../db.js";
import { stmt } from "../db.js";

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

/** How many indexed nodes contain `term` (its FTS document frequency). */
export function termDocFrequency(db: Db, term: string): number {
  return (
    stmt(db, "SELECT count(*) AS n FROM nodes_fts WHERE nodes_fts MATCH ?").get(`"${term.replace(/"/g, '""')}"`) as {
      n: number;
    }
  ).n;
}

/** Node types that hold the repository's own code and text (not memories or session units). */
const CODE_TYPES = "('file','test','symbol','rule')";

/** How many of the repository's own nodes (files, tests, symbols, rules) contain `term`, and how many there are. */
export function codeTermFrequency(db: Db, term: string): { df: number; n: number } {
  const df = (
    stmt(
      db,
      `SELECT count(*) AS n FROM nodes_fts f JOIN nodes n ON n.id = f.rowid WHERE nodes_fts MATCH ? AND n.type IN ${CODE_TYPES}`,
    ).get(`"${term.replace(/"/g, '""')}"`) as { n: number }
  ).n;
  const n = (stmt(db, `SELECT count(*) AS n FROM nodes WHERE type IN ${CODE_TYPES}`).get() as { n: number }).n;
  return { df, n };
}
