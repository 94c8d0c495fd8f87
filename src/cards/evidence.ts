// Task-level evidence: how much of the task this index knows at all, and whether a named thing resolved.
import { extractAnchors, queryTerms } from "../retrieval/query.js";
import type { RankedFile } from "../retrieval/rank.js";
import { type EvidenceFeatures } from "../scoring/calibration.js";
import type { Db } from "../storage/db.js";
import { codeFileCount, codeNodeCounts, codeTermFrequency } from "../storage/graph/search.js";
import { identifierTokens } from "../text/identifiers.js";

/**
 * Query terms looked up: the task's most frequent ones, as many as the ranker's query takes (32, chosen by hand over
 * 64 as faster and better on the Python development tasks in `memcards eval localize`).
 */
const TERMS = 32;
/** The shortest term counted: one- and two-letter pieces (`ex`, `dx`, from splitting `zq1ex`) name nothing. */
const MIN_TERM = 3;
/** The IDF's 0.5 added to a term's document count, as in Robertson–Spärck Jones (textbook; it keeps df 0 finite). */
const IDF_HALF = 0.5;

/** The terms of the names the task writes the way code does: paths, dotted names, identifiers, class names. */
export function namedTerms(task: string): Set<string> {
  const out = new Set<string>();
  for (const a of extractAnchors(task)) if (a.kind !== "phrase") for (const t of identifierTokens(a.text)) out.add(t);
  return out;
}

/** The evidence features of `task` over the index in `db`, given its file ranking. */
export function evidenceFeatures(db: Db, task: string, ranked: readonly RankedFile[]): EvidenceFeatures {
  const terms = queryTerms(task, TERMS).tokens;
  const named = namedTerms(task);
  let seen = 0;
  let all = 0;
  // Only the repository's own nodes count: memories distilled from the session would make any task look known.
  const { code: n, other } = codeNodeCounts(db);
  for (const t of terms) {
    // One- and two-letter pieces (`ex`, `dx`, from splitting `zq1ex`) occur in any code and name nothing.
    if (t.length < MIN_TERM) continue;
    const df = codeTermFrequency(db, t, other);
    // A name the index never saw says the task is about other code. A prose word it never saw says little:
    // a small repository simply has few words ("fix", "wrong"), so such words are left out rather than
    // weighing the most.
    if (df === 0 && !named.has(t)) continue;
    const idf = Math.log((n + 1) / (df + IDF_HALF));
    all += idf;
    if (df > 0) seen += idf;
  }
  return {
    coverage: all > 0 ? Math.round((seen / all) * 1000) / 1000 : 0,
    anchored: ranked[0]?.channels.anchors !== undefined,
    files: codeFileCount(db),
  };
}
