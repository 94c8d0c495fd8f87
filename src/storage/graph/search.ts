// Full-text search over the graph's nodes: the contentless FTS5 table nodes_fts (rowid = node id), whose
// identifier-aware tokens are written with the nodes.
import type { Db } from "../db.js";
import { perStoreState, stmt } from "../db.js";
import { indexRunStamp } from "./counts.js";

export interface FtsHit {
  id: number;
  /** The node's path (read in the same join that filters by type). */
  path: string | null;
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
  const sql = `SELECT f.rowid AS id, n.path AS path, -bm25(nodes_fts, ${wn}, ${wp}, ${wb}) AS score
    FROM nodes_fts f JOIN nodes n ON n.id = f.rowid
    WHERE nodes_fts MATCH ? ${typeFilter}
    ORDER BY bm25(nodes_fts, ${wn}, ${wp}, ${wb}) LIMIT ?`;
  return stmt(db, sql).all(match, ...(opts.types ?? []), opts.limit) as FtsHit[];
}

/** An FTS5 MATCH expression that any of `terms` satisfies (each quoted as one token). */
function anyOf(terms: readonly string[]): string {
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
}

/**
 * BM25 over the FTS index as `searchFts` gives it for the query `rare ∪ common`, without reading the rows only
 * `common` terms match: the rows any `rare` term matches are scored by the rare terms, and those that also hold a
 * common term are scored again by every term (`(rare) AND (common)`, which FTS5 answers by seeking the common terms'
 * lists to the rare rows). BM25 is a sum over the query's terms, each with its IDF over the whole index, so a row's
 * score here is exactly its score under the one query; only rows no rare term matches are missed. Each query returns
 * at most `cap` rows (the caller's bound on the rows it reads); the merged list is cut to `limit`.
 */
export function searchFtsRareFirst(
  db: Db,
  terms: { rare: readonly string[]; common: readonly string[] },
  opts: { types?: readonly string[]; limit: number; cap: number; weights: [number, number, number] },
): FtsHit[] {
  if (terms.rare.length === 0) return [];
  const rare = anyOf(terms.rare);
  if (terms.common.length === 0) return searchFts(db, rare, opts);
  const first = searchFts(db, rare, { ...opts, limit: Math.max(opts.cap, opts.limit) });
  const both = searchFts(db, `(${rare}) AND (${anyOf(terms.common)})`, {
    ...opts,
    limit: Math.max(opts.cap, opts.limit),
  });
  const byId = new Map(first.map((h) => [h.id, h]));
  for (const h of both) byId.set(h.id, h);
  return [...byId.values()].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, opts.limit);
}

/** One ranked list of a shared full-text match: the node types it keeps, its column weights and its length. */
export interface FtsList {
  types: readonly string[];
  limit: number;
  weights: [number, number, number];
}

/**
 * Every node of the lists' types that `match` matches, once, with one BM25 score per list (each under its list's
 * column weights; higher = better): one walk of the full-text matches and one join for lists that would otherwise
 * each run the same match.
 */
function matchedForLists(
  db: Db,
  match: string,
  lists: readonly FtsList[],
): { id: number; path: string | null; type: string; scores: number[] }[] {
  const types = [...new Set(lists.flatMap((l) => l.types))];
  const scores = lists.map((l, i) => `-bm25(nodes_fts, ${l.weights.join(", ")}) AS s${i}`).join(", ");
  const sql = `SELECT f.rowid AS id, n.path AS path, n.type AS type, ${scores}
    FROM nodes_fts f JOIN nodes n ON n.id = f.rowid
    WHERE nodes_fts MATCH ? AND n.type IN (${types.map(() => "?").join(",")})`;
  const rows = stmt(db, sql).all(match, ...types) as Record<string, unknown>[];
  return rows.map((r) => ({
    id: r.id as number,
    path: r.path as string | null,
    type: r.type as string,
    scores: lists.map((_, i) => r[`s${i}`] as number),
  }));
}

/** The `limit` best of `list`'s types among `rows` under its score `i`: best first, ties by id (as FTS5 returns them). */
function bestOf(
  rows: readonly { id: number; path: string | null; type: string; scores: number[] }[],
  list: FtsList,
  i: number,
  limit: number,
): FtsHit[] {
  return rows
    .filter((r) => list.types.includes(r.type))
    .map((r) => ({ id: r.id, path: r.path, score: r.scores[i]! }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, limit);
}

/**
 * `searchFtsRareFirst` for several lists over the same terms (the file and symbol channels of one ranking), each
 * list as that function gives it alone, with each of its (at most two) full-text queries run once for all the lists.
 */
export function searchFtsRareFirstLists(
  db: Db,
  terms: { rare: readonly string[]; common: readonly string[] },
  lists: readonly FtsList[],
  cap: number,
): FtsHit[][] {
  if (terms.rare.length === 0 || lists.length === 0) return lists.map(() => []);
  const rare = anyOf(terms.rare);
  const first = matchedForLists(db, rare, lists);
  if (terms.common.length === 0) return lists.map((l, i) => bestOf(first, l, i, l.limit));
  const both = matchedForLists(db, `(${rare}) AND (${anyOf(terms.common)})`, lists);
  return lists.map((l, i) => {
    const byId = new Map(bestOf(first, l, i, Math.max(cap, l.limit)).map((h) => [h.id, h]));
    for (const h of bestOf(both, l, i, Math.max(cap, l.limit))) byId.set(h.id, h);
    return [...byId.values()].sort((a, b) => b.score - a.score || a.id - b.id).slice(0, l.limit);
  });
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
const CODE_TYPE_LIST = ["file", "test", "symbol", "rule"] as const;

/**
 * The nodes that are not the repository's own (memories, failures), counted through the type index over the ranges
 * between the code types: the few such rows are read, never the tens of thousands of symbols.
 */
const OTHER_NODES = (() => {
  const t = [...CODE_TYPE_LIST].sort().map((x) => `'${x}'`);
  const ranges = [
    `type < ${t[0]}`,
    ...t.slice(1).map((x, i) => `(type > ${t[i]} AND type < ${x})`),
    `type > ${t.at(-1)}`,
  ];
  return `SELECT count(*) AS n FROM nodes WHERE ${ranges.join(" OR ")}`;
})();

/**
 * How many nodes are the repository's own (files, tests, symbols, rules) and how many are not: the table's row count
 * (SQLite counts an index's pages) less the others (see OTHER_NODES), never a count of every symbol's index entry.
 * Kept per state of the store: the cards call that needs it also records what it served, so it is recounted per call.
 */
export function codeNodeCounts(db: Db): { code: number; other: number } {
  return perStoreState(db, "codeNodeCounts", () => {
    const other = (stmt(db, OTHER_NODES).get() as { n: number }).n;
    const all = (stmt(db, "SELECT COUNT(*) AS n FROM nodes").get() as { n: number }).n;
    return { code: Math.max(0, all - other), other };
  });
}

/** How many of the repository's files (sources and tests) the index holds. */
export function codeFileCount(db: Db): number {
  return perStoreState(
    db,
    "codeFileCount",
    () => (stmt(db, `SELECT count(*) AS n FROM nodes WHERE type IN ('file', 'test')`).get() as { n: number }).n,
  );
}

/**
 * How many of the repository's own nodes contain `term`. Exact when few nodes contain it; otherwise the count
 * over all nodes, which differs by at most `other` (the few memory nodes) and is far cheaper than a join.
 */
export function codeTermFrequency(db: Db, term: string, other: number): number {
  const stamp = indexRunStamp(db);
  // No finished run: the index may still be growing (a first run under way, or one killed), so nothing is kept.
  if (stamp === undefined) return countCodeTerm(db, term, other);
  let kept = keptCounts.get(db);
  if (!kept || kept.stamp !== stamp || kept.counts.size >= KEPT_TERM_COUNTS) {
    kept = { stamp, counts: new Map() };
    keptCounts.set(db, kept);
  }
  const key = `${other}\u0000${term}`;
  let n = kept.counts.get(key);
  if (n === undefined) kept.counts.set(key, (n = countCodeTerm(db, term, other)));
  return n;
}

/**
 * Term counts kept per index run (the stamp its end writes) and number of other nodes: a common word's count reads its
 * whole posting list, once per run instead of once per call. At most this many terms are kept; then they start over.
 */
const KEPT_TERM_COUNTS = 20_000;
const keptCounts = new WeakMap<Db, { stamp: string; counts: Map<string, number> }>();

function countCodeTerm(db: Db, term: string, other: number): number {
  const all = termDocFrequency(db, term);
  if (all === 0 || all > other) return all;
  return (
    stmt(
      db,
      `SELECT count(*) AS n FROM nodes_fts f JOIN nodes n ON n.id = f.rowid WHERE nodes_fts MATCH ? AND n.type IN ${CODE_TYPES}`,
    ).get(`"${term.replace(/"/g, '""')}"`) as { n: number }
  ).n;
}
