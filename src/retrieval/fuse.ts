// Pure ranking arithmetic: ranked lists, reciprocal rank fusion, roll-ups. No I/O.

import { scoreShare } from "./weights.js";

/**
 * Defaults of the arithmetic below, set by hand when the retrieval ladder was built (no command fits them):
 * `rrfK`, reciprocal rank fusion's k (the fitted fusion in weights.ts, whose k `memcards eval fit-weights` chooses
 * from 1, 3, 5, 10, 20 and 60, also has 10; this default serves callers that fuse without it); `rollUpDamp` and
 * `rollUpPerFile`, how much a file's next-best hits add to its best (the next two at most, each at 0.3: many
 * matching symbols count, but less than one strong match); `expandDecay`, the share of a seed's score its graph
 * neighbours receive (half).
 */
export const FUSE = { rrfK: 10, rollUpDamp: 0.3, rollUpPerFile: 3, expandDecay: 0.5 } as const;

/** A channel's result: keys (file paths) with scores, best first. */
export type Ranked = { key: string; score: number }[];

/** Sorts a score map into a ranked list (ties broken by key for determinism). */
export function toRanked(scores: ReadonlyMap<string, number>): Ranked {
  return [...scores.entries()]
    .filter(([, s]) => s > 0 && Number.isFinite(s))
    .map(([key, score]) => ({ key, score }))
    .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Weighted reciprocal rank fusion: score(d) = Σ_c w_c / (k + rank_c(d)), ranks 1-based.
 * Channels with weight 0 or empty lists contribute nothing; a `scaled` channel multiplies by score / top score.
 */
export function rrf(
  channels: readonly { list: Ranked; weight: number; scaled?: boolean }[],
  k: number = FUSE.rrfK,
): Ranked {
  const scores = new Map<string, number>();
  for (const { list, weight, scaled } of channels) {
    if (weight <= 0) continue;
    // A scaled channel also passes on how much stronger its top hits are (an explicit path beats a loose name).
    const max = list[0]?.score ?? 1;
    list.forEach((item, i) => {
      const factor = scaled ? scoreShare(item.score, max) : 1;
      scores.set(item.key, (scores.get(item.key) ?? 0) + (weight * factor) / (k + i + 1));
    });
  }
  return toRanked(scores);
}

/**
 * Rolls item-level hits up to their files: a file's score is its best hit plus a damped share of the next
 * ones (many matching symbols in one file count, but less than one strong match).
 */
export function rollUp(
  hits: readonly { key: string; score: number }[],
  damp: number = FUSE.rollUpDamp,
  perFile: number = FUSE.rollUpPerFile,
): Ranked {
  const byFile = new Map<string, number[]>();
  for (const h of hits) {
    const arr = byFile.get(h.key);
    if (arr) arr.push(h.score);
    else byFile.set(h.key, [h.score]);
  }
  const scores = new Map<string, number>();
  for (const [key, arr] of byFile) {
    arr.sort((a, b) => b - a);
    const top = arr.slice(0, perFile);
    scores.set(key, top[0]! + damp * top.slice(1).reduce((s, x) => s + x, 0));
  }
  return toRanked(scores);
}

/**
 * One-hop expansion: each seed passes `decay × edge weight × seed score` to its neighbors, which become
 * candidates in their own right (a neighbor reached from several seeds sums them).
 */
export function expand(
  seeds: Ranked,
  neighbors: (key: string) => readonly { key: string; weight: number }[],
  decay: number = FUSE.expandDecay,
): Ranked {
  const scores = new Map<string, number>();
  const max = seeds[0]?.score ?? 1;
  for (const s of seeds) {
    for (const n of neighbors(s.key)) {
      if (n.key === s.key) continue;
      scores.set(n.key, (scores.get(n.key) ?? 0) + decay * n.weight * (s.score / max));
    }
  }
  return toRanked(scores);
}

/** 1-based rank of `key` in a list, or null. */
export function rankOf(list: Ranked, key: string): number | null {
  const i = list.findIndex((x) => x.key === key);
  return i < 0 ? null : i + 1;
}
