// Identifier-aware tokenization shared by lexical search and the offline embedder.

/** Words of code and prose: identifiers (letters of any script, with their combining marks) and digit runs. */
export const WORD = /[\p{L}_$][\p{L}\p{M}\p{N}_$]*|\p{N}+/gu;

/**
 * Parts of a camelCase chunk: an upper-case run not followed by lower case (an acronym), an optional capital
 * with its lower-case run, a digit run, or a trailing upper-case run. Letters without case (CJK, Arabic, …) and
 * combining marks count as lower case, so they stay attached to the part they continue.
 */
const PART =
  /[\p{Lu}\p{Lt}]+(?![\p{Ll}\p{Lo}\p{Lm}\p{M}])|[\p{Lu}\p{Lt}]?[\p{Ll}\p{Lo}\p{Lm}\p{M}]+|\p{N}+|[\p{Lu}\p{Lt}]+/gu;

/** Splits one identifier into lower-case parts: `parseHTTPResponse_v2` → [parse, http, response, v2]. */
export function splitIdentifier(ident: string): string[] {
  const parts: string[] = [];
  for (const chunk of ident.split(/[_$]+/)) {
    if (!chunk) continue;
    const pieces = chunk.match(PART) ?? [chunk];
    for (const p of pieces) parts.push(p.toLowerCase());
  }
  // Re-attach trailing digits to the previous part when split off ("v2" stays "v2").
  const merged: string[] = [];
  for (const p of parts) {
    const prev = merged[merged.length - 1];
    if (/^\p{N}+$/u.test(p) && prev !== undefined && prev.length === 1) merged[merged.length - 1] = prev + p;
    else merged.push(p);
  }
  return merged;
}

/**
 * Tokenizes text for search: every identifier yields its lower-cased whole form and, when compound,
 * its camelCase/snake_case parts. Order is preserved; duplicates are kept (term frequency matters).
 */
export function identifierTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) {
    for (const t of wordTokens(m[0])) out.push(t);
  }
  return out;
}

/** Tokens of one word, memoized: code repeats the same identifiers over and over. */
const memo = new Map<string, readonly string[]>();
const MEMO_MAX = 200_000;

export function wordTokens(word: string): readonly string[] {
  let toks = memo.get(word);
  if (toks) return toks;
  const lower = word.toLowerCase();
  const parts = splitIdentifier(word);
  toks = parts.length > 1 ? [lower, ...parts.filter((p) => p !== lower)] : [lower];
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(word, toks);
  return toks;
}
