// Localization metrics: per-task indicators from a ranked file list and the gold files, and their means.
import { z } from "zod";

/** The metrics of one rung over a set of tasks: means of the per-task indicators, and query time. */
export const RungMetrics = z.strictObject({
  "acc@1": z.number(),
  "acc@3": z.number(),
  "acc@5": z.number(),
  "acc@10": z.number(),
  "mrr@10": z.number(),
  "all_gold@5": z.number(),
  "coverage@50": z.number(),
  p50_ms: z.number(),
  p95_ms: z.number(),
});
export type RungMetrics = z.infer<typeof RungMetrics>;

/** One task under one rung. Indicators are 0 or 1; `rr@10` is 1/rank when rank ≤ 10, else 0. */
export interface TaskScore {
  /** 1-based rank of the first gold file in the ranked list, or null when none is in it. */
  rank: number | null;
  "acc@1": number;
  "acc@3": number;
  "acc@5": number;
  "acc@10": number;
  "rr@10": number;
  "all_gold@5": number;
  "coverage@50": number;
}

const normalize = (p: string) => p.replace(/^(\.\/)+/, "");

/** Repo-relative POSIX paths with a leading `./` dropped and repeats removed (the first occurrence counts). */
export function normalizeRanked(ranked: readonly string[]): string[] {
  return [...new Set(ranked.map(normalize))];
}

/** Scores one ranked list against the gold files. */
export function scoreTask(ranked: readonly string[], gold: readonly string[]): TaskScore {
  const list = normalizeRanked(ranked);
  const goldSet = new Set(gold.map(normalize));
  const i = list.findIndex((p) => goldSet.has(p));
  const rank = i < 0 ? null : i + 1;
  const within = (k: number) => (rank !== null && rank <= k ? 1 : 0);
  const top5 = new Set(list.slice(0, 5));
  return {
    rank,
    "acc@1": within(1),
    "acc@3": within(3),
    "acc@5": within(5),
    "acc@10": within(10),
    "rr@10": rank !== null && rank <= 10 ? 1 / rank : 0,
    "all_gold@5": [...goldSet].every((g) => top5.has(g)) ? 1 : 0,
    "coverage@50": within(50),
  };
}

export const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/** The median (mean of the two middle values for an even count); 0 for no values. */
export function median(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile: the smallest value with at least `q` of the values at or below it; 0 for none. */
export function percentile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length, Math.max(1, Math.ceil(q * s.length))) - 1]!;
}

export const round = (x: number, digits = 3): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

/** Means of the per-task indicators (3 decimals) and the median and p95 query times (0.1 ms). */
export function aggregate(scores: readonly TaskScore[], queryMs: readonly number[]): RungMetrics {
  const m = (k: Exclude<keyof TaskScore, "rank">) => round(mean(scores.map((s) => s[k])));
  return {
    "acc@1": m("acc@1"),
    "acc@3": m("acc@3"),
    "acc@5": m("acc@5"),
    "acc@10": m("acc@10"),
    "mrr@10": m("rr@10"),
    "all_gold@5": m("all_gold@5"),
    "coverage@50": m("coverage@50"),
    p50_ms: round(median(queryMs), 1),
    p95_ms: round(percentile(queryMs, 0.95), 1),
  };
}

/** Symbol-level accuracy over the tasks that name gold symbols: the share with one in the top k. */
export const SymbolMetrics = z.strictObject({
  n_tasks: z.number().int().nonnegative(),
  "sym_acc@1": z.number(),
  "sym_acc@5": z.number(),
  "sym_acc@10": z.number(),
});
export type SymbolMetrics = z.infer<typeof SymbolMetrics>;

/** 1-based rank of the first gold symbol (`path::Class.method`) among the ranked ids, or null. */
export function symbolRank(ranked: readonly string[], gold: readonly string[]): number | null {
  const goldSet = new Set(gold.map(normalize));
  const i = ranked.map(normalize).findIndex((s) => goldSet.has(s));
  return i < 0 ? null : i + 1;
}

/** sym_acc@1/5/10 from per-task ranks (null = no gold symbol ranked). */
export function aggregateSymbols(ranks: readonly (number | null)[]): SymbolMetrics {
  const at = (k: number) => round(mean(ranks.map((r) => (r !== null && r <= k ? 1 : 0))));
  return { n_tasks: ranks.length, "sym_acc@1": at(1), "sym_acc@5": at(5), "sym_acc@10": at(10) };
}
