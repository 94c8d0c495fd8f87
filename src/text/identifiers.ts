// Identifier-aware tokenization shared by lexical search and the offline embedder.

/** Words of code and prose: identifiers and digit runs. */
export const WORD = /[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+/g;

/** Splits one identifier into lower-case parts: `parseHTTPResponse_v2` → [parse, http, response, v2]. */
export function splitIdentifier(ident: string): string[] {
  const parts: string[] = [];
  for (const chunk of ident.split(/[_$]+/)) {
    if (!chunk) continue;
    const pieces = chunk.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+|[A-Z]+/g) ?? [chunk];
    for (const p of pieces) parts.push(p.toLowerCase());
  }
  // Re-attach trailing digits to the previous part when split off ("v2" stays "v2").
  const merged: string[] = [];
  for (const p of parts) {
    const prev = merged[merged.length - 1];
    if (/^[0-9]+$/.test(p) && prev !== undefined && prev.length === 1) merged[merged.length - 1] = prev + p;
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
