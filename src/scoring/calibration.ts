// How much a task's retrieval can be trusted at all: a logistic model over three task-level features, fitted by
// `memcards eval cards --calibrate` (real tasks on their own repository against the same tasks on another one).
import { z } from "zod";

/** Task-level evidence features: computed from the task text and the index alone. */
export const EvidenceFeatures = z.object({
  /**
   * IDF-weighted share of the task's query terms that occur anywhere in the index (0–1). Prose words the
   * index never saw are left out: only a name written the way code writes it counts against the task.
   */
  coverage: z.number().min(0).max(1),
  /** The top-ranked file was found by the anchors channel (a path or identifier the task names resolves). */
  anchored: z.boolean(),
  /** How many files (sources and tests) the index holds: a small repository knows few words of any task. */
  files: z.number().int().nonnegative(),
});
export type EvidenceFeatures = z.infer<typeof EvidenceFeatures>;

/** Fitted coefficients: intercept, coverage, anchored, and the natural log of one plus the file count. */
export const Calibration = z.object({
  intercept: z.number(),
  coverage: z.number(),
  anchored: z.number(),
  log_files: z.number(),
});
export type Calibration = z.infer<typeof Calibration>;

/**
 * The coefficients in use, as fitted by `memcards eval cards --calibrate` on the development tasks
 * (docs/benchmarks.md, "Cards: calibration", gives the command and the separation it measured).
 */
export const CALIBRATION: Calibration = { intercept: -7.119, coverage: 9.104, anchored: 2.57, log_files: -0.269 };

/** Below this confidence a pack says it has no confident card: the fitted model's decision boundary. */
export const CONFIDENT = 0.5;

/** The model's inputs for one feature row, in the order of `Calibration`'s keys. */
function inputs(f: EvidenceFeatures): number[] {
  return [1, f.coverage, f.anchored ? 1 : 0, Math.log(1 + f.files)];
}
const KEYS = ["intercept", "coverage", "anchored", "log_files"] as const;

/** Probability that the task is about this repository, from its evidence features. */
export function confidenceOf(f: EvidenceFeatures, c: Calibration = CALIBRATION): number {
  const x = inputs(f);
  const z = KEYS.reduce((s, k, i) => s + c[k] * x[i]!, 0);
  return 1 / (1 + Math.exp(-z));
}

/**
 * Newton's method's settings, hand-set when the calibration was built (not tuned on any data): `ridge`, a small L2
 * penalty that keeps the fit finite when the two classes separate; `iterations`, a cap (four parameters take a few);
 * `tolerance`, the largest step at which the fit has converged.
 */
export const NEWTON = { ridge: 0.01, iterations: 50, tolerance: 1e-9 } as const;

/**
 * Fits the logistic model by Newton's method (four parameters, a few iterations) with a small ridge term so
 * separable data stays finite. Rows are the features, whether the task belongs to the repository, and a weight
 * (to balance the two classes).
 */
export function fitCalibration(
  rows: readonly { f: EvidenceFeatures; real: boolean; weight?: number }[],
  ridge: number = NEWTON.ridge,
): Calibration {
  const d = KEYS.length;
  let w = new Array<number>(d).fill(0);
  const x = rows.map((r) => inputs(r.f));
  for (let it = 0; it < NEWTON.iterations; it++) {
    const g = w.map((v) => ridge * v);
    const h = KEYS.map((_, i) => KEYS.map((__, j) => (i === j ? ridge : 0)));
    rows.forEach((r, n) => {
      const xi = x[n]!;
      const p = 1 / (1 + Math.exp(-xi.reduce((s, v, i) => s + w[i]! * v, 0)));
      const y = r.real ? 1 : 0;
      const wt = r.weight ?? 1;
      for (let i = 0; i < d; i++) {
        g[i]! += wt * (p - y) * xi[i]!;
        for (let j = 0; j < d; j++) h[i]![j]! += wt * p * (1 - p) * xi[i]! * xi[j]!;
      }
    });
    const step = solve(h, g);
    w = w.map((v, i) => v - step[i]!);
    if (Math.max(...step.map(Math.abs)) < NEWTON.tolerance) break;
  }
  const r = (v: number) => Math.round(v * 1000) / 1000;
  return { intercept: r(w[0]!), coverage: r(w[1]!), anchored: r(w[2]!), log_files: r(w[3]!) };
}

/** Solves a small linear system by Gaussian elimination with partial pivoting (the ridge keeps it regular). */
function solve(a: readonly number[][], b: readonly number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = c + 1; r < n; r++) {
      const k = m[r]![c]! / m[c]![c]!;
      for (let j = c; j <= n; j++) m[r]![j]! -= k * m[c]![j]!;
    }
  }
  const out = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r]![n]!;
    for (let j = r + 1; j < n; j++) s -= m[r]![j]! * out[j]!;
    out[r] = s / m[r]![r]!;
  }
  return out;
}
