// Task-level evidence: how much of the task this index knows at all, and whether a named thing resolved.
import { queryTerms } from "../retrieval/query.js";
import type { RankedFile } from "../retrieval/rank.js";
import { type EvidenceFeatures } from "../scoring/calibration.js";
import type { Db } from "../storage/db.js";
import { codeNodeCounts, codeTermFrequency } from "../storage/graph/search.js";

/** Query terms looked up: the task's most frequent ones, as the ranker's BM25 query takes them. */
const TERMS = 32;

/** The evidence features of `task` over the index in `db`, given its file ranking. */
export function evidenceFeatures(db: Db, task: string, ranked: readonly RankedFile[]): EvidenceFeatures {
  const terms = queryTerms(task, TERMS).tokens;
  let seen = 0;
  let all = 0;
  // Only the repository's own nodes count: memories distilled from the session would make any task look known.
  const { code: n, other } = codeNodeCounts(db);
  for (const t of terms) {
    const df = codeTermFrequency(db, t, other);
    // A term the index never saw carries the most information of all: its absence weighs the most.
    const idf = Math.log((n + 1) / (df + 0.5));
    all += idf;
    if (df > 0) seen += idf;
  }
  return {
    coverage: all > 0 ? Math.round((seen / all) * 1000) / 1000 : 0,
    anchored: ranked[0]?.channels.anchors !== undefined,
  };
}
