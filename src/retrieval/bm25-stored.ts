// Whole-file BM25 from the statistics the index keeps in the store (storage/graph/terms.ts): the document lengths
// are read once, and each ranking reads only its query terms' postings. The scores are those of an index built in
// memory from the same files.
import type { Db } from "../storage/db.js";
import { fileTermRows, termPostings } from "../storage/graph/terms.js";
import { BM25_DEFAULTS, type Bm25Index } from "./bm25.js";
import type { Bm25Source } from "./bm25-store.js";

/** The BM25 index restricted to some query tokens: every document, and the postings of those tokens only. */
export type Bm25ForTokens = (tokens: Iterable<string>) => Bm25Index;

/**
 * The stored statistics as a BM25 index per query, or undefined when they do not describe exactly `sources` (a store
 * indexed before they were kept, or one whose files changed since): the caller then counts the files itself.
 */
export function storedBm25(db: Db, sources: readonly Bm25Source[]): Bm25ForTokens | undefined {
  const rows = fileTermRows(db);
  if (rows.length !== sources.length || rows.length === 0) return undefined;
  const byPath = new Map(rows.map((r) => [r.path, r]));
  for (const s of sources) if (byPath.get(s.path)?.hash !== s.hash) return undefined;
  const docs = rows.filter((r) => r.len >= 0);
  const keys = docs.map((r) => r.path);
  const lengths = Float64Array.from(docs.map((r) => r.len));
  const total = docs.reduce((a, r) => a + r.len, 0);
  const avgLength = docs.length ? total / docs.length : 0;
  const docOf = new Map(docs.map((r, i) => [r.id, i]));
  return (tokens) => {
    const postings = new Map<string, { doc: number; tf: number }[]>();
    for (const [term, pairs] of termPostings(db, tokens)) {
      const list: { doc: number; tf: number }[] = [];
      for (let i = 0; i < pairs.length; i += 2) {
        const doc = docOf.get(pairs[i]!);
        if (doc !== undefined && pairs[i + 1]! > 0) list.push({ doc, tf: pairs[i + 1]! });
      }
      if (list.length) postings.set(term, list);
    }
    return { keys, lengths, avgLength, postings, params: BM25_DEFAULTS };
  };
}
