// Symbol ranking for a task: the functions, methods and classes of the best files, scored on what their
// qualified names share with the task and on what their own bodies say (BM25 over each symbol's own lines).
// Pure: symbols, lines and term statistics come in, features and scores go out.
import { z } from "zod";

import { ownTokens, type SymbolBody } from "../text/symbol-bodies.js";
import { bm25Tokens, IDF_HALF } from "./bm25.js";

export type { SymbolBody } from "../text/symbol-bodies.js";

/** One symbol of a file, as the index stores it. */
export interface SymbolDef {
  /** The index's node key. */
  key: string;
  name: string;
  /** Qualified name inside the file (`Class.method`). */
  qual: string;
  kind: string | null;
  startLine: number | null;
  endLine: number | null;
}

/** What a task asks, for symbol scoring: its tokens, the identifiers it names, and each term's rarity. */
export interface SymbolQuery {
  tokens: ReadonlySet<string>;
  /** Identifiers the task names, lower-cased last segment (`Session.request` → request). */
  named: ReadonlySet<string>;
  /** Inverse document frequency of a term over the repository's files; local to the symbols when absent. */
  idf?: (term: string) => number;
}

/** Per-symbol evidence: name matches as sums of inverse document frequencies, the body as a share. */
export const SymbolFeatures = z.strictObject({
  /** The task's terms among the tokens of the qualified name. */
  name: z.number(),
  /** The symbol's own name is an identifier the task names. */
  named: z.number(),
  /**
   * BM25 of the symbol's own lines (nested definitions excluded) against the task's terms, as a share of the
   * file's best (0–1): which part of the file the task is about, whatever the file's size.
   */
  body: z.number().min(0).max(1),
  /** A declaration that holds other symbols (class, struct, impl, …). */
  container: z.boolean(),
  /** Lines the symbol spans. */
  span: z.number(),
});
export type SymbolFeatures = z.infer<typeof SymbolFeatures>;

/** The constants combining the features; fitted by `memcards eval fit-symbols` (see docs/benchmarks.md). */
export const SymbolWeights = z.strictObject({
  /** How many of the best files' symbols are ranked. */
  files: z.number().int().min(1),
  /** File decay: a symbol of the file at 0-based rank i is scaled by 1 / (1 + decay · i). */
  decay: z.number().min(0),
  /** Weight of the named-identifier match. */
  named: z.number().min(0),
  /** Weight of the body's BM25 score. */
  body: z.number().min(0),
  /** Factor for container declarations, so a method whose body matches comes before its class. */
  container: z.number().min(0).max(1),
  /** Nudge for longer bodies (log of the span), a tie-breaker below any term match. */
  span: z.number().min(0),
});
export type SymbolWeights = z.infer<typeof SymbolWeights>;

/** Fitted on the Python development tasks whose fixes name their symbols (`memcards eval fit-symbols`, see docs/benchmarks.md). */
export const LEARNED_SYMBOL_WEIGHTS: SymbolWeights = {
  files: 3,
  decay: 0.25,
  named: 4,
  body: 64,
  container: 0.25,
  span: 0,
};

/** Declarations that hold other symbols. */
const CONTAINER_KINDS = new Set(["class", "struct", "enum", "trait", "interface", "type", "impl", "module", "scope"]);

/** Body BM25's k1 and b: Okapi BM25's textbook values (as `BM25_DEFAULTS`), not tuned here. */
const K1 = 1.2;
/** See K1. */
const B = 0.75;

/** The bodies of a file's symbols from its lines, counting only `tokens`. */
export function bodiesFromLines(
  syms: readonly SymbolDef[],
  lines: readonly string[],
  tokens: ReadonlySet<string>,
): (SymbolBody | undefined)[] {
  const lineTokens: (readonly string[] | undefined)[] = new Array(lines.length);
  const own = ownTokens(syms, lines.length, (l) => (lineTokens[l - 1] ??= bm25Tokens(lines[l - 1]!)));
  return own.map((b) => {
    if (!b) return undefined;
    const tf = new Map<string, number>();
    for (const t of b) if (tokens.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { len: b.length, tf };
  });
}

/** The bodies of a file's symbols from its lines, counting every token (see `bodiesForTokens`). */
export function allBodiesFromLines(syms: readonly SymbolDef[], lines: readonly string[]): (SymbolBody | undefined)[] {
  const lineTokens: (readonly string[] | undefined)[] = new Array(lines.length);
  const own = ownTokens(syms, lines.length, (l) => (lineTokens[l - 1] ??= bm25Tokens(lines[l - 1]!)));
  return own.map((b) => {
    if (!b) return undefined;
    const tf = new Map<string, number>();
    for (const t of b) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { len: b.length, tf };
  });
}

/** Bodies counting every token cut down to `tokens`, as `bodiesFromLines` counts them (in first-occurrence order). */
export function bodiesForTokens(
  all: readonly (SymbolBody | undefined)[],
  tokens: ReadonlySet<string>,
): (SymbolBody | undefined)[] {
  return all.map((b) => {
    if (!b) return undefined;
    const tf = new Map<string, number>();
    for (const [t, n] of b.tf) if (tokens.has(t)) tf.set(t, n);
    return { len: b.len, tf };
  });
}

/**
 * Features of one file's symbols for a task. Without the file's lines the body share is 0 (names alone).
 * Body BM25 uses the textbook k1 and b with the file's own symbols as the length norm, and is taken as a share
 * of the file's best, so a symbol's score does not depend on which other files are ranked.
 */
export function symbolFeatures(
  syms: readonly SymbolDef[],
  query: SymbolQuery,
  lines?: readonly string[],
): SymbolFeatures[] {
  return symbolFeaturesOf(syms, query, lines ? bodiesFromLines(syms, lines, query.tokens) : syms.map(() => undefined));
}

/** Features of one file's symbols from their bodies (as `symbolFeatures` scores them; undefined: names alone). */
export function symbolFeaturesOf(
  syms: readonly SymbolDef[],
  query: SymbolQuery,
  bodies: readonly (SymbolBody | undefined)[],
): SymbolFeatures[] {
  const present = bodies.filter((b): b is SymbolBody => !!b);
  const avg = present.length ? present.reduce((a, b) => a + b.len, 0) / present.length : 1;
  let idf = query.idf;
  if (!idf) {
    const df = new Map<string, number>();
    for (const b of present) for (const t of b.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
    const n = Math.max(1, present.length);
    idf = (t) => Math.log(1 + (n - (df.get(t) ?? 0) + IDF_HALF) / ((df.get(t) ?? 0) + IDF_HALF));
  }
  const raw = bodies.map((b) => {
    let body = 0;
    if (b && b.len) {
      const norm = K1 * (1 - B + (B * b.len) / Math.max(1, avg));
      for (const [t, n] of b.tf) body += (idf(t) * n * (K1 + 1)) / (n + norm);
    }
    return body;
  });
  const top = Math.max(0, ...raw);
  return syms.map((s, i) => {
    let name = 0;
    for (const t of new Set(bm25Tokens(s.qual))) if (query.tokens.has(t)) name += idf(t);
    const lower = s.name.toLowerCase();
    const named = query.named.has(lower) ? idf(lower) : 0;
    const body = top > 0 ? raw[i]! / top : 0;
    const span = s.endLine !== null && s.startLine !== null ? s.endLine - s.startLine + 1 : 1;
    return { name, named, body, container: CONTAINER_KINDS.has(s.kind ?? ""), span };
  });
}

/** A symbol's score from its features and its file's 0-based rank. */
export function symbolScore(f: SymbolFeatures, fileIndex: number, w: SymbolWeights): number {
  const evidence = f.name + w.named * f.named + w.body * f.body;
  const nudge = w.span * Math.log(1 + f.span);
  return ((evidence + nudge) * (f.container ? w.container : 1)) / (1 + w.decay * fileIndex);
}

/** Best first, ties by id; an id listed twice (a redefinition) keeps its best entry. */
export function orderSymbols<T extends { id: string; score: number }>(list: readonly T[]): T[] {
  const best = new Map<string, T>();
  for (const s of list) {
    const prev = best.get(s.id);
    if (!prev || s.score > prev.score) best.set(s.id, s);
  }
  return [...best.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
