// A file's symbols' own tokens (their lines minus the lines of symbols nested in them), and the compact form the
// index stores them in: per symbol span, its token count and its distinct terms with their counts, the terms given
// as positions in the file's own term list (the whole-file BM25 terms the store already keeps), as varints, deflated.
import { deflateRawSync, inflateRawSync } from "node:zlib";

import { encodeVarints, varintReader } from "./varint.js";

/** A symbol's line span (1-based, inclusive); symbols without one have no body. */
export interface SymbolSpan {
  startLine: number | null;
  endLine: number | null;
}

/**
 * What body scoring needs of a symbol's own tokens: how many there are, and the counts of the query's tokens among
 * them in the order each first occurs (the order the score sums them in).
 */
export interface SymbolBody {
  len: number;
  tf: Map<string, number>;
}

/**
 * Each symbol's own tokens: the tokens of its span minus the spans of symbols nested in it (their first line kept,
 * and a nested symbol starting on the symbol's own first line does not count as nested). `tokensOf(l)` gives the
 * tokens of 1-based line l (each line tokenized once for the whole file), and a symbol visits only the symbols
 * starting inside it. Undefined for a symbol without a line span.
 */
export function ownTokens(
  syms: readonly SymbolSpan[],
  lineCount: number,
  tokensOf: (line: number) => readonly string[],
): (string[] | undefined)[] {
  const spans = syms
    .map((s, i) => ({ i, start: s.startLine ?? 0, end: s.endLine ?? 0 }))
    .filter((x) => x.start > 0 && x.end > 0)
    .sort((a, b) => a.start - b.start);
  const starts = spans.map((x) => x.start);
  return syms.map((s, i) => {
    if (!s.startLine || !s.endLine) return undefined;
    const from = s.startLine;
    const to = Math.min(s.endLine, lineCount);
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

/** The key a stored body is found by: its span (two symbols with one span have the same own tokens). */
export const spanKey = (start: number, end: number) => `${start}:${end}`;

/**
 * Encodes the own tokens of a file's symbols, each term as its position in `terms` (the file's term list). Undefined
 * when a token is not in the list (the caller then keeps no bodies for the file, and rankings tokenize it).
 */
export function encodeSymbolBodies(
  syms: readonly SymbolSpan[],
  own: readonly (readonly string[] | undefined)[],
  terms: readonly string[],
): Buffer | undefined {
  const at = new Map(terms.map((t, i) => [t, i]));
  const out: number[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < syms.length; i++) {
    const s = syms[i]!;
    const body = own[i];
    if (!body || !s.startLine || !s.endLine) continue;
    const key = spanKey(s.startLine, s.endLine);
    if (seen.has(key)) continue;
    seen.add(key);
    // Counts in first-occurrence order: the order a ranking sums the terms in.
    const tf = new Map<number, number>();
    for (const t of body) {
      const id = at.get(t);
      if (id === undefined) return undefined;
      tf.set(id, (tf.get(id) ?? 0) + 1);
    }
    out.push(s.startLine, s.endLine, body.length, tf.size);
    for (const [id, n] of tf) out.push(id, n);
  }
  return deflateRawSync(encodeVarints(out));
}

/**
 * The stored bodies of a file's symbols by span key, counting only `tokens` (the query's), or undefined when the
 * blob holds none (an empty blob: the index kept no bodies for the file).
 */
export function decodeSymbolBodies(
  blob: Buffer,
  terms: readonly string[] | string,
  tokens: ReadonlySet<string>,
): Map<string, SymbolBody> | undefined {
  const b = inflateSymbolBodies(blob);
  return b && decodeInflatedBodies(b, terms, tokens);
}

/** A stored bodies blob inflated (what `decodeInflatedBodies` reads), or undefined for an empty blob. */
export function inflateSymbolBodies(blob: Buffer): Buffer | undefined {
  return blob.byteLength === 0 ? undefined : inflateRawSync(blob);
}

/** As `decodeSymbolBodies`, from the blob already inflated (a reader that keeps a file's blob inflates it once). */
export function decodeInflatedBodies(
  b: Buffer,
  terms: readonly string[] | string,
  tokens: ReadonlySet<string>,
): Map<string, SymbolBody> {
  return spanBodiesForTokens(decodeBodySpans(b), terms, tokens);
}

/**
 * An inflated bodies blob read into arrays: per span (in stored order) its key and token count, and its (term
 * position, count) pairs in `pairs` from `starts[i]` to `starts[i + 1]`. What a reader keeps of a file, so each query
 * only looks its terms up.
 */
export interface BodySpans {
  keys: string[];
  lens: Int32Array;
  starts: Int32Array;
  pairs: Int32Array;
}

/** Reads an inflated bodies blob into `BodySpans`. */
export function decodeBodySpans(b: Buffer): BodySpans {
  const { more, next } = varintReader(b);
  const keys: string[] = [];
  const lens: number[] = [];
  const starts: number[] = [0];
  const pairs: number[] = [];
  while (more()) {
    const start = next();
    const end = next();
    lens.push(next());
    const n = next();
    for (let k = 0; k < n; k++) pairs.push(next(), next());
    keys.push(spanKey(start, end));
    starts.push(pairs.length);
  }
  return { keys, lens: Int32Array.from(lens), starts: Int32Array.from(starts), pairs: Int32Array.from(pairs) };
}

/**
 * The bodies of `spans` counting only `tokens` (each body's counts in the order its terms first occur), by span key;
 * `terms` is the file's term list the positions point into.
 */
export function spanBodiesForTokens(
  spans: BodySpans,
  terms: readonly string[] | string,
  tokens: ReadonlySet<string>,
): Map<string, SymbolBody> {
  const want = typeof terms === "string" ? termPositions(terms, tokens) : new Map<number, string>();
  if (typeof terms !== "string")
    terms.forEach((t, i) => {
      if (tokens.has(t)) want.set(i, t);
    });
  const { keys, lens, starts, pairs } = spans;
  const out = new Map<string, SymbolBody>();
  for (let i = 0; i < keys.length; i++) {
    const tf = new Map<string, number>();
    if (want.size > 0)
      for (let k = starts[i]!; k < starts[i + 1]!; k += 2) {
        const t = want.get(pairs[k]!);
        if (t !== undefined) tf.set(t, pairs[k + 1]!);
      }
    out.set(keys[i]!, { len: lens[i]!, tf });
  }
  return out;
}

/**
 * The positions of `tokens` in a term list written as one space-separated string (each term once): found by search,
 * the list never split into its thousands of terms.
 */
export function termPositions(list: string, tokens: ReadonlySet<string>): Map<number, string> {
  const found: [at: number, term: string][] = [];
  for (const t of tokens) {
    if (!t || t.includes(" ")) continue;
    for (let at = list.indexOf(t); at >= 0; at = list.indexOf(t, at + 1)) {
      const end = at + t.length;
      if ((at === 0 || list.charCodeAt(at - 1) === 32) && (end === list.length || list.charCodeAt(end) === 32)) {
        found.push([at, t]);
        break;
      }
    }
  }
  found.sort((a, b) => a[0] - b[0]);
  const out = new Map<number, string>();
  let index = 0;
  let from = 0;
  for (const [at, t] of found) {
    for (let i = from; i < at; i++) if (list.charCodeAt(i) === 32) index++;
    from = at;
    out.set(index, t);
  }
  return out;
}
