// The ranker's channels, one function each: every one takes a task's query (or its seeds) and what it reads from,
// and returns files with scores, best first. The fusion (weights.ts, fitted by `memcards eval fit-weights`) combines
// their ranks; the constants here shape each channel's own list and were set by hand, each for the reason given.
import type { Embedder } from "../embeddings/provider.js";
import type { Db } from "../storage/db.js";
import { fileNeighbors } from "../storage/graph/edges.js";
import { symbolPaths, symbolsNamed } from "../storage/graph/nodes.js";
import { type FtsHit, type FtsList, searchFtsRareFirst, searchFtsRareFirstLists } from "../storage/graph/search.js";
import { type Bm25Index, scoreBm25 } from "./bm25.js";
import { expand, type Ranked, rollUp, toRanked } from "./fuse.js";
import type { NearestVectors } from "./nearest.js";
import { type Anchor, matchOf, type queryTerms } from "./query.js";
import { isSource, moduleMatches, pathMatches, type Universe } from "./universe.js";

/** Files each list keeps: far more than any caller reads (cards read 12, the evaluation 50 and its ladder 100). */
export const LIST_DEPTH = 300;

/**
 * FTS5 column weights (name, path, body) of the file channel: a file node's name repeats its path, so only the path
 * and the capped body count, the path three times as much (as whole-file BM25 counts path tokens three times).
 */
export const FILE_FTS_WEIGHTS: [number, number, number] = [0, 3, 1];
/** FTS5 column weights of the symbol channel: a symbol's name three times its body; its path says nothing more. */
export const SYMBOL_FTS_WEIGHTS: [number, number, number] = [3, 0, 1];
/** Symbols matched before they are rolled up to their files: deep enough that a file's few symbols all count. */
export const SYMBOL_HITS = 600;
/** Nearest vectors read before they are rolled up to their files (filtered to graph nodes after the k). */
export const VECTOR_HITS = 200;
/** Characters of the task embedded: past a pasted log's head, more text only blurs the vector. */
export const EMBED_CHARS = 4000;

/**
 * One-hop expansion weights by edge: importing a seed is strong evidence (0.5), being imported by it weaker (0.3),
 * any other relation (a test, a similar file) in between (0.4). Hand-set; the fitted fusion gives expansion weight 0,
 * so they matter only to the ladder's expansion rung.
 */
export const EXPANSION = { importsOut: 0.5, importsIn: 0.3, other: 0.4 } as const;
/** Fused files the expansion seeds on. */
export const EXPANSION_SEEDS = 10;

/**
 * The FTS channels drop terms in this share or more of the indexed nodes (posting lists that make a query slow on a
 * large repository) once the index holds at least `minNodes` nodes, but keep at least `keep` terms (the rarest).
 */
export const COMMON_TERMS = { share: 0.2, minNodes: 500, keep: 4 } as const;

/**
 * Postings the FTS channels read per query: the query's rarest terms whose document counts sum to at most this many
 * match rows; the other terms only add their scores to those rows (see `searchFtsRareFirst`), so a common word costs
 * a seek per matched row instead of a scored row per node it occurs in. Set by hand on sympy (43k nodes), where a
 * task's terms together match a few thousand rows and path words (`sympy`, `py`) most of them; the rarest term always
 * searches. Each of the two queries also returns at most this many rows.
 */
export const FTS_POSTINGS = 2000;

/** The terms an FTS channel searches with: the rare ones match, the common ones only add to the rows those match. */
export interface FtsTerms {
  rare: readonly string[];
  common: readonly string[];
}

/** Every term matches (no document counts at hand): one query, as FTS5 alone would rank. */
export const allRare = (tokens: readonly string[]): FtsTerms => ({ rare: tokens, common: [] });

/**
 * Splits the query terms by document count: the rarest first, while their counts sum to at most `budget` (always every
 * term no node holds and the rarest one some node holds: a term that matches nothing must not leave the query with no
 * rows), the rest common. Ties keep the query's order (most frequent first).
 */
export function rareFirst(
  tokens: readonly string[],
  docFrequency: (term: string) => number,
  budget: number = FTS_POSTINGS,
): FtsTerms {
  const byCount = tokens.map((t, i) => ({ t, i, n: docFrequency(t) })).sort((a, b) => a.n - b.n || a.i - b.i);
  const rare = new Set<string>();
  let sum = 0;
  for (const x of byCount) {
    if (sum > 0 && sum + x.n > budget) break;
    rare.add(x.t);
    sum += x.n;
  }
  return { rare: tokens.filter((t) => rare.has(t)), common: tokens.filter((t) => !rare.has(t)) };
}

/**
 * Anchor scores, per kind of anchor, as multiples of the anchor's own weight (query.ts): a path named in prose is the
 * strongest evidence (1.5), a stack frame's file slightly less (1.2: frames also name callers); a named test file
 * passes 0.7 of its score to the file it covers; a module's file scores 0.5 plus 0.5 times the share of the dotted
 * name it accounts for, and a symbol the module defines adds 0.3; an identifier that is a file's stem adds 0.6.
 * Names defined in more files than the limits below name none. Hand-set on the development tasks' anchors.
 */
export const ANCHOR = {
  path: 1.5,
  frame: 1.2,
  testCovers: 0.7,
  moduleBase: 0.5,
  moduleShare: 0.5,
  moduleSymbol: 0.3,
  stem: 0.6,
  /** Files a member (`Type::member`), a phrase and a stem may resolve to. */
  memberFiles: 3,
  phraseFiles: 3,
  stemFiles: 5,
  /** Files an identifier may be defined in; its score is spread as weight / √files. */
  identifierFiles: 25,
  /** Definitions looked up per name. */
  typeDefs: 50,
  nameDefs: 200,
} as const;

/** The file channel: the index's FTS5 BM25 over file nodes (path and capped body), source files only. */
export function ftsChannel(db: Db, u: Universe, terms: FtsTerms): Ranked {
  return fileList(u, searchFtsRareFirst(db, terms, { ...FILE_LIST, cap: FTS_POSTINGS }));
}

/** The full-text list of the file channel: file nodes under the file weights. */
const FILE_LIST: FtsList = { types: ["file"], limit: LIST_DEPTH, weights: FILE_FTS_WEIGHTS };
/** The full-text list of the symbol channel: symbol nodes under the symbol weights. */
const SYMBOL_LIST: FtsList = { types: ["symbol"], limit: SYMBOL_HITS, weights: SYMBOL_FTS_WEIGHTS };

/** The file channel's list from its full-text hits: source files only. */
function fileList(u: Universe, hits: readonly FtsHit[]): Ranked {
  const out: Ranked = [];
  for (const h of hits) {
    const n = u.byId.get(h.id);
    if (isSource(n)) out.push({ key: n!.path, score: h.score });
  }
  return out;
}

/** Whole-file BM25 over the query's tokens, or `fallback` (the FTS channel) when no whole-file index is at hand. */
export function bm25Channel(index: Bm25Index | undefined, tokens: readonly string[], fallback: () => Ranked): Ranked {
  return index ? scoreBm25(index, tokens, LIST_DEPTH) : fallback();
}

/** The symbol channel: FTS5 over symbol names and bodies, each file scored by its matching symbols (rolled up). */
export function symbolChannel(db: Db, u: Universe, terms: FtsTerms): Ranked {
  return symbolList(u, searchFtsRareFirst(db, terms, { ...SYMBOL_LIST, cap: FTS_POSTINGS }));
}

/**
 * The file channel and the symbol channel together (`ftsChannel` and `symbolChannel`, the same lists): their
 * full-text queries share the match and run once for both. The shared statement hands back every row the rare terms
 * match (two lists under two scores are not cut in one statement), so when those terms' document counts
 * (`docFrequency`) pass the postings the channels read, each channel runs its own statements, cut by SQLite.
 */
export function fileAndSymbolChannels(
  db: Db,
  u: Universe,
  terms: FtsTerms,
  docFrequency: (term: string) => number,
): { files: Ranked; symbols: Ranked } {
  if (terms.rare.reduce((n, t) => n + docFrequency(t), 0) > FTS_POSTINGS)
    return { files: ftsChannel(db, u, terms), symbols: symbolChannel(db, u, terms) };
  const [files, symbols] = searchFtsRareFirstLists(db, terms, [FILE_LIST, SYMBOL_LIST], FTS_POSTINGS);
  return { files: fileList(u, files!), symbols: symbolList(u, symbols!) };
}

/** The symbol channel's list from its full-text hits: each source file scored by its matching symbols. */
function symbolList(u: Universe, hits: readonly FtsHit[]): Ranked {
  return rollUp(
    hits.flatMap((h) => (h.path && isSource(u.byPath.get(h.path)) ? [{ key: h.path, score: h.score }] : [])),
  );
}

/** The vector channel: the task's embedding against the stored node vectors, rolled up to source files. */
export async function vectorChannel(
  db: Db,
  u: Universe,
  near: NearestVectors,
  embedder: Embedder,
  query: string,
): Promise<Ranked> {
  const [q] = await embedder.embed([query.slice(0, EMBED_CHARS)]);
  if (!q || !q.some((x) => x !== 0)) return [];
  const hits = near.nearest(q, VECTOR_HITS, "node");
  const paths = symbolPaths(
    db,
    hits.map((n) => n.ownerId),
  );
  return rollUp(
    hits.flatMap((n) => {
      const p = paths.get(n.ownerId);
      return p && isSource(u.byPath.get(p)) ? [{ key: p, score: 1 - n.distance }] : [];
    }),
  );
}

/** A source file's graph neighbours with the expansion weight of the edge. */
export function expansionNeighbours(db: Db, u: Universe, path: string): { key: string; weight: number }[] {
  const node = u.byPath.get(path);
  if (!node) return [];
  return fileNeighbors(db, node.id).flatMap((n) => {
    const t = u.byId.get(n.id);
    if (!isSource(t)) return [];
    const w = n.type === "imports" ? (n.dir === "out" ? EXPANSION.importsOut : EXPANSION.importsIn) : EXPANSION.other;
    return [{ key: t!.path, weight: w }];
  });
}

/** The expansion channel: one hop from the best fused files along the graph's edges. */
export function expansionChannel(db: Db, u: Universe, seeds: readonly { path: string; score: number }[]): Ranked {
  return expand(
    seeds.slice(0, EXPANSION_SEEDS).map((s) => ({ key: s.path, score: s.score })),
    (key) => expansionNeighbours(db, u, key),
  );
}

/**
 * The query terms the FTS channels search with: without the terms that `COMMON_TERMS.share` or more of the `total`
 * indexed nodes contain (their counts from `docFrequency`), keeping at least the rarest `COMMON_TERMS.keep`.
 */
export function dropCommonTerms(
  terms: ReturnType<typeof queryTerms>,
  total: number,
  docFrequency: (term: string) => number,
): ReturnType<typeof queryTerms> {
  if (total < COMMON_TERMS.minNodes) return terms;
  const docs = new Map(terms.tokens.map((t) => [t, docFrequency(t)]));
  const kept = terms.tokens.filter((t) => (docs.get(t) ?? 0) < COMMON_TERMS.share * total);
  if (kept.length >= Math.min(COMMON_TERMS.keep, terms.tokens.length))
    return kept.length === terms.tokens.length ? terms : matchOf(kept);
  return matchOf([...terms.tokens].sort((a, b) => (docs.get(a) ?? 0) - (docs.get(b) ?? 0)).slice(0, COMMON_TERMS.keep));
}

/** The anchor channel: files named, imported or defining identifiers named in the task, by specificity. */
export function anchorScores(db: Db, u: Universe, anchors: readonly Anchor[]): Ranked {
  const scores = new Map<string, number>();
  const add = (path: string, s: number) => scores.set(path, (scores.get(path) ?? 0) + s);
  for (const a of anchors) {
    if (a.kind === "path" || a.kind === "frame" || a.kind === "test") pathAnchor(db, u, a, add);
    else if (a.kind === "member") memberAnchor(db, a, add);
    else if (a.kind === "phrase") {
      const hits = u.byFlatStem.get(a.text) ?? [];
      if (hits.length > 0 && hits.length <= ANCHOR.phraseFiles) for (const h of hits) add(h, a.weight / hits.length);
    } else if (a.kind === "module") moduleAnchor(db, u, a, add);
    else identifierAnchor(db, u, a, add);
  }
  return toRanked(scores);
}

type Add = (path: string, score: number) => void;

/** A path, stack frame or test id: the file it names (a test file passes its score to the files it covers). */
function pathAnchor(db: Db, u: Universe, a: Anchor, add: Add): void {
  const hits = pathMatches(u, a.text);
  for (const h of hits) {
    const node = u.byPath.get(h);
    const s = (a.weight * (a.kind === "frame" ? ANCHOR.frame : ANCHOR.path)) / hits.length;
    if (node?.type === "test") {
      for (const n of fileNeighbors(db, node.id)) {
        const t = u.byId.get(n.id);
        if (t && n.type === "test_covers" && n.dir === "out") add(t.path, ANCHOR.testCovers * s);
      }
    } else add(h, s);
  }
}

/** `Type::member`: the few files defining both. */
function memberAnchor(db: Db, a: Anchor, add: Add): void {
  const [type, member] = a.text.split("::") as [string, string];
  const typeFiles = new Set(
    symbolsNamed(db, type, ANCHOR.typeDefs)
      .filter((d) => d.name === type)
      .map((d) => d.path),
  );
  const both = [
    ...new Set(
      symbolsNamed(db, member, ANCHOR.nameDefs)
        .filter((d) => d.name === member && typeFiles.has(d.path))
        .map((d) => d.path),
    ),
  ];
  if (both.length > 0 && both.length <= ANCHOR.memberFiles) for (const f of both) add(f, a.weight / both.length);
}

/** A dotted module name: its file(s), and the file defining its last part when that is a symbol. */
function moduleAnchor(db: Db, u: Universe, a: Anchor, add: Add): void {
  const hits = moduleMatches(u, a.text);
  for (const h of hits) add(h.path, (a.weight * (ANCHOR.moduleBase + ANCHOR.moduleShare * h.frac)) / hits.length);
  // `pkg.mod.Class`: the last part may be a symbol defined in the module file.
  const last = a.text.slice(a.text.lastIndexOf(".") + 1);
  if (hits.length && last) {
    const defs = symbolsNamed(db, last, ANCHOR.typeDefs).filter((d) => d.name === last);
    for (const d of defs) if (hits.some((h) => h.path === d.path)) add(d.path, ANCHOR.moduleSymbol * a.weight);
  }
}

/** An identifier: the files defining it (spread by specificity), and the file whose stem it is. */
function identifierAnchor(db: Db, u: Universe, a: Anchor, add: Add): void {
  const defs = symbolsNamed(db, a.text, ANCHOR.nameDefs).filter((d) => d.name === a.text && d.kind !== "variable");
  const files = [...new Set(defs.map((d) => d.path))];
  if (files.length > 0 && files.length <= ANCHOR.identifierFiles) {
    const spec = a.weight / Math.sqrt(files.length);
    for (const f of files) add(f, spec);
  }
  // An identifier that is a file's stem (e.g. `sessions`, `Gson`) names that file.
  const stemHits = u.bySuffix.get(a.text) ?? [];
  if (stemHits.length > 0 && stemHits.length <= ANCHOR.stemFiles && !a.weak)
    for (const h of stemHits) add(h.path, (ANCHOR.stem * a.weight) / stemHits.length);
}
