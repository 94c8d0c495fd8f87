// A document's term counts for whole-file BM25: identifier-aware tokens of its text plus its path's tokens counted
// several times. Shared by the index (which stores them) and retrieval (which scores with them).
import { identifierTokens } from "./identifiers.js";

/** How many times a path token counts beside the content's tokens (hand-set: a file named for a term is about it). */
export const PATH_WEIGHT = 3;

/** Tokens of a repo-relative path: its segments split the same way (`src/json_parser.rs` → src, json_parser, json, parser, rs). */
export function pathTokens(path: string): string[] {
  return identifierTokens(path.replace(/[/\\.-]+/g, " "));
}

/** One document's weighted term counts and length, ready to be put into an index. */
export interface Bm25Doc {
  key: string;
  tf: Map<string, number>;
  len: number;
}

/** Counts a document's terms: its content tokens, plus its path tokens each counted `pathWeight` times. */
export function bm25Doc(key: string, text: string, pathWeight: number = PATH_WEIGHT): Bm25Doc {
  return bm25DocOfTokens(key, identifierTokens(text), pathWeight);
}

/** `bm25Doc` from the content's tokens, already taken (in text order). */
export function bm25DocOfTokens(key: string, tokens: Iterable<string>, pathWeight: number = PATH_WEIGHT): Bm25Doc {
  const tf = new Map<string, number>();
  let len = 0;
  for (const t of tokens) {
    tf.set(t, (tf.get(t) ?? 0) + 1);
    len++;
  }
  if (pathWeight > 0) {
    for (const t of pathTokens(key)) {
      tf.set(t, (tf.get(t) ?? 0) + pathWeight);
      len += pathWeight;
    }
  }
  return { key, tf, len };
}
