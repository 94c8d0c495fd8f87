// Paired bootstrap: a confidence interval for the mean per-task difference between two rungs.
import { z } from "zod";

import { AppError } from "../../src/errors.js";
import { mean, round } from "./metrics.js";

/** mean(b − a) over tasks and its percentile interval, 3 decimals. */
export const Interval = z.strictObject({ mean_diff: z.number(), lo: z.number(), hi: z.number() });
export type Interval = z.infer<typeof Interval>;

export interface BootstrapOptions {
  /** Number of resamples (default 2000). */
  resamples?: number;
  /** PRNG seed (default 1): the same inputs and seed give the same interval. */
  seed?: number;
  /** Confidence level (default 0.95). */
  level?: number;
}

/** mulberry32: a small, fast, seeded 32-bit PRNG returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Paired bootstrap interval of mean(b[i] − a[i]): tasks are resampled with replacement, each draw
 * taking both rungs' values of the same task. `a` is the baseline (the rung below), `b` the rung above.
 */
export function pairedBootstrap(
  a: readonly number[],
  b: readonly number[],
  { resamples = 2000, seed = 1, level = 0.95 }: BootstrapOptions = {},
): Interval {
  if (a.length !== b.length) {
    throw new AppError(
      "BAD_INPUT",
      `paired bootstrap needs one value per task in both rungs (got ${a.length} and ${b.length})`,
    );
  }
  if (!Number.isInteger(resamples) || resamples < 1) {
    throw new AppError("BAD_INPUT", `resamples must be a positive integer (got ${resamples})`);
  }
  if (!(level > 0 && level < 1)) throw new AppError("BAD_INPUT", `level must be in (0, 1) (got ${level})`);
  const n = a.length;
  if (n === 0) return { mean_diff: 0, lo: 0, hi: 0 };
  const d = a.map((x, i) => b[i]! - x);
  const rand = seededRandom(seed);
  const means = new Float64Array(resamples);
  for (let k = 0; k < resamples; k++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(rand() * n)]!;
    means[k] = s / n;
  }
  means.sort();
  const tail = (1 - level) / 2;
  const lo = means[Math.min(resamples - 1, Math.floor(tail * resamples))]!;
  const hi = means[Math.max(0, Math.ceil((1 - tail) * resamples) - 1)]!;
  return { mean_diff: round(mean(d)), lo: round(lo), hi: round(hi) };
}
