// Search terms from free text, for full-text (FTS5) queries: identifier-aware tokens, stop words dropped, most
// frequent first. Plain text work, so retrieval (file ranking) and memory (recall, search) share it.
import { identifierTokens } from "./identifiers.js";

/** English and issue-template words that carry no signal for finding code. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "a an the and or but if then else of to in on at by for with from as is are was were be been being it its this " +
    "that these those there here i you he she we they me my your our their not no yes do does did done have has had " +
    "can could should would will shall may might must so than too very just also only into out up down over under " +
    "about after before when where which who whom what why how all any each few more most other some such own same " +
    "both between through during while again further once because until against above below off s t get got use " +
    "used using like want need see seems seem expected actual behavior behaviour issue bug error problem work works " +
    "working code file files example following reproduce steps version thanks please would following"
  ).split(" "),
);

export interface QueryTerms {
  /** Distinct search tokens (lower case), stop words removed, most frequent first. */
  tokens: string[];
  /** FTS5 MATCH expression over `tokens` (OR of quoted terms), or "" when there is nothing to search. */
  match: string;
}

/** The FTS5 MATCH expression for a set of tokens. */
export function matchOf(tokens: readonly string[]): QueryTerms {
  return { tokens: [...tokens], match: tokens.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ") };
}

/**
 * Query terms kept when the caller names no cap, most frequent first. Hand-set with the retrieval ladder; the ranker
 * and the cards' evidence pass their own cap (32, measured with `memcards eval localize`).
 */
const MAX_QUERY_TERMS = 64;

/** Tokens for lexical search: identifier-aware, stop words and one-letter tokens dropped, capped in number. */
export function queryTerms(text: string, maxTerms: number = MAX_QUERY_TERMS): QueryTerms {
  const counts = new Map<string, number>();
  for (const t of identifierTokens(text)) {
    if (t.length < 2 || STOP_WORDS.has(t) || /^\d+$/.test(t)) continue;
    counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  const tokens = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || b[0].length - a[0].length)
    .slice(0, maxTerms)
    .map(([t]) => t);
  return matchOf(tokens);
}
