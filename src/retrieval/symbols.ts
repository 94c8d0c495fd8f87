// Symbol ranking for a task: the functions, methods and classes of the best files, scored on what their
// qualified names share with the task and on what their own bodies say (BM25 over each symbol's own lines).
// Pure: symbols, lines and term statistics come in, features and scores go out.
import { z } from "zod";

import { bm25Tokens } from "./bm25.js";

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

const K1 = 1.2;
const B = 0.75;

/**
 * Each symbol's own tokens: the tokens of its span minus the spans of symbols nested in it (their first line kept,
 * and a nested symbol starting on the symbol's own first line does not count as nested). Each line is tokenized once
 * for the whole file, and a symbol visits only the symbols starting inside it.
 */
function ownTokens(syms: readonly SymbolDef[], lines: readonly string[]): (string[] | undefined)[] {
  const lineTokens: (readonly string[] | undefined)[] = new Array(lines.length);
  const tokensOf = (l: number) => (lineTokens[l - 1] ??= bm25Tokens(lines[l - 1]!));
  const spans = syms
    .map((s, i) => ({ i, start: s.startLine ?? 0, end: s.endLine ?? 0 }))
    .filter((x) => x.start > 0 && x.end > 0)
    .sort((a, b) => a.start - b.start);
  const starts = spans.map((x) => x.start);
  return syms.map((s, i) => {
    if (!s.startLine || !s.endLine) return undefined;
    const from = s.startLine;
    const to = Math.min(s.endLine, lines.length);
    // Lines covered by a nested symbol, as a difference array over the span.
    const cover = new Int32Array(Math.max(0, s.endLine - from + 2));
    for (let k = upperBound(starts, from); k < spans.length && spans[k]!.start <= s.endLine; k++) {
      const o = spans[k]!;
      if (o.i === i || o.end > s.endLine) continue;
      cover[o.start - from]!++;
      cover[o.end - from + 1]!--;
    }
    const out: string[] = [];
    let depth = 0;
    for (let l = from; l <= to; l++) {
      depth += cover[l - from]!;
      if (l !== from && depth > 0) continue;
      for (const t of tokensOf(l)) out.push(t);
    }
    return out;
  });
}

/** The index of the first element of ascending `xs` greater than `x`. */
function upperBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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
  const bodies = lines ? ownTokens(syms, lines) : syms.map(() => undefined);
  const present = bodies.filter((b): b is string[] => !!b);
  const avg = present.length ? present.reduce((a, b) => a + b.length, 0) / present.length : 1;
  let idf = query.idf;
  if (!idf) {
    const df = new Map<string, number>();
    for (const b of present) for (const t of new Set(b)) if (query.tokens.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
    const n = Math.max(1, present.length);
    idf = (t) => Math.log(1 + (n - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
  }
  const raw = bodies.map((b) => {
    let body = 0;
    if (b && b.length) {
      const tf = new Map<string, number>();
      for (const t of b) if (query.tokens.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
      const norm = K1 * (1 - B + (B * b.length) / Math.max(1, avg));
      for (const [t, n] of tf) body += (idf(t) * n * (K1 + 1)) / (n + norm);
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
