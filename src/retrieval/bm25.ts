// Textbook BM25 over whole files: identifier-aware tokens of the content plus the path's tokens counted
// `pathWeight` times. Pure: documents come in as plain text, scores go out as a ranked list.
import { identifierTokens } from "../text/identifiers.js";
import { type Bm25Doc, bm25Doc, PATH_WEIGHT } from "../text/term-counts.js";
import type { Ranked } from "./fuse.js";

export { type Bm25Doc, bm25Doc, pathTokens } from "../text/term-counts.js";

/** BM25 parameters: the usual k1 and b, and how many times a path token counts. */
export interface Bm25Params {
  k1: number;
  b: number;
  pathWeight: number;
}

/**
 * Okapi BM25's textbook k1 = 1.2 and b = 0.75 (the usual defaults of the literature), not tuned here; path tokens
 * count `PATH_WEIGHT` times (text/term-counts.ts says why).
 */
export const BM25_DEFAULTS: Bm25Params = { k1: 1.2, b: 0.75, pathWeight: PATH_WEIGHT };

/**
 * Tokens of a text for BM25: every identifier lower-cased whole, plus its camelCase/snake_case parts when
 * compound (`parseHTTPResponse` → parsehttpresponse, parse, http, response). Repeats are kept.
 */
export function bm25Tokens(text: string): string[] {
  return identifierTokens(text);
}

/** An inverted index over documents: per term, the documents holding it and the term's (weighted) count. */
export interface Bm25Index {
  keys: string[];
  lengths: Float64Array;
  avgLength: number;
  postings: Map<string, { doc: number; tf: number }[]>;
  params: Bm25Params;
}

/** Puts counted documents into an index (their `pathWeight` must be `params.pathWeight`). */
export function indexBm25Docs(docs: Iterable<Bm25Doc>, params: Partial<Bm25Params> = {}): Bm25Index {
  const p = { ...BM25_DEFAULTS, ...params };
  const keys: string[] = [];
  const lengths: number[] = [];
  const postings = new Map<string, { doc: number; tf: number }[]>();
  for (const d of docs) {
    const doc = keys.length;
    keys.push(d.key);
    lengths.push(d.len);
    for (const [t, n] of d.tf) {
      if (n <= 0) continue;
      const list = postings.get(t);
      if (list) list.push({ doc, tf: n });
      else postings.set(t, [{ doc, tf: n }]);
    }
  }
  const total = lengths.reduce((a, b) => a + b, 0);
  return {
    keys,
    lengths: Float64Array.from(lengths),
    avgLength: keys.length ? total / keys.length : 0,
    postings,
    params: p,
  };
}

/** Builds the index; a document's length is its content tokens plus `pathWeight` × its path tokens. */
export function buildBm25Index(
  docs: Iterable<{ key: string; text: string }>,
  params: Partial<Bm25Params> = {},
): Bm25Index {
  const p = { ...BM25_DEFAULTS, ...params };
  return indexBm25Docs(
    (function* () {
      for (const d of docs) yield bm25Doc(d.key, d.text, p.pathWeight);
    })(),
    p,
  );
}

/** The Robertson–Spärck Jones estimate's 0.5 added to the document counts (textbook; it keeps df 0 finite). */
export const IDF_HALF = 0.5;

/** Robertson–Spärck Jones IDF, kept positive: ln(1 + (N − df + 0.5) / (df + 0.5)). */
export function idf(n: number, df: number): number {
  return Math.log(1 + (n - df + IDF_HALF) / (df + IDF_HALF));
}

/** Documents a scoring returns when the caller names no limit: as deep as the ranker's lists (channels.ts). */
const SCORE_LIMIT = 300;

/**
 * Scores every document holding a query token: Σ over the query's tokens (repeats count, as the words of
 * the task do) of idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avg)). Best first, ties by key.
 */
export function scoreBm25(index: Bm25Index, queryTokens: readonly string[], limit: number = SCORE_LIMIT): Ranked {
  const { k1, b } = index.params;
  const n = index.keys.length;
  const qtf = new Map<string, number>();
  for (const t of queryTokens) qtf.set(t, (qtf.get(t) ?? 0) + 1);
  const scores = new Float64Array(n);
  const touched = new Set<number>();
  for (const [term, q] of qtf) {
    const list = index.postings.get(term);
    if (!list) continue;
    const w = idf(n, list.length) * q;
    for (const { doc, tf } of list) {
      const norm = k1 * (1 - b + (b * index.lengths[doc]!) / (index.avgLength || 1));
      touched.add(doc);
      scores[doc]! += (w * tf * (k1 + 1)) / (tf + norm);
    }
  }
  return [...touched]
    .map((doc) => ({ key: index.keys[doc]!, score: scores[doc]! }))
    .sort((a, c) => c.score - a.score || (a.key < c.key ? -1 : a.key > c.key ? 1 : 0))
    .slice(0, limit);
}
