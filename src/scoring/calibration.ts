// How much a task's retrieval can be trusted at all: a logistic model over two task-level features, fitted by
// `memcards eval cards --calibrate` (real tasks on their own repository against the same tasks on another one).
import { z } from "zod";

/** Task-level evidence features: computed from the task text and the index alone. */
export const EvidenceFeatures = z.object({
  /** IDF-weighted share of the task's query terms that occur anywhere in the index (0–1). */
  coverage: z.number().min(0).max(1),
  /** The top-ranked file was found by the anchors channel (a path or identifier the task names resolves). */
  anchored: z.boolean(),
});
export type EvidenceFeatures = z.infer<typeof EvidenceFeatures>;

/** Fitted coefficients: intercept, coverage, anchored. */
export const Calibration = z.object({ intercept: z.number(), coverage: z.number(), anchored: z.number() });
export type Calibration = z.infer<typeof Calibration>;

/**
 * The coefficients in use, as fitted by `memcards eval cards --calibrate` on the Python development tasks
 * (docs/benchmarks.md, "Cards: calibration", gives the command and the separation it measured).
 */
export const CALIBRATION: Calibration = { intercept: -7.929, coverage: 10.174, anchored: 1.539 };

/** Below this confidence a pack says it has no confident card: the fitted model's decision boundary. */
export const CONFIDENT = 0.5;

/** Probability that the task is about this repository, from its evidence features. */
export function confidenceOf(f: EvidenceFeatures, c: Calibration = CALIBRATION): number {
  const z = c.intercept + c.coverage * f.coverage + c.anchored * (f.anchored ? 1 : 0);
  return 1 / (1 + Math.exp(-z));
}

/**
 * Fits the logistic model by Newton's method (three parameters, a few iterations) with a small ridge term so
 * separable data stays finite. Rows are the features, whether the task belongs to the repository, and a weight
 * (to balance the two classes).
 */
export function fitCalibration(
  rows: readonly { f: EvidenceFeatures; real: boolean; weight?: number }[],
  ridge = 0.01,
): Calibration {
  let w = [0, 0, 0];
  const x = rows.map((r) => [1, r.f.coverage, r.f.anchored ? 1 : 0]);
  for (let it = 0; it < 50; it++) {
    const g = [0, 0, 0];
    const h = [
      [ridge, 0, 0],
      [0, ridge, 0],
      [0, 0, ridge],
    ];
    for (let i = 0; i < 3; i++) g[i] = ridge * w[i]!;
    rows.forEach((r, n) => {
      const xi = x[n]!;
      const p = 1 / (1 + Math.exp(-(w[0]! * xi[0]! + w[1]! * xi[1]! + w[2]! * xi[2]!)));
      const y = r.real ? 1 : 0;
      const wt = r.weight ?? 1;
      for (let i = 0; i < 3; i++) {
        g[i]! += wt * (p - y) * xi[i]!;
        for (let j = 0; j < 3; j++) h[i]![j]! += wt * p * (1 - p) * xi[i]! * xi[j]!;
      }
    });
    const step = solve3(h, g);
    w = w.map((v, i) => v - step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  const r = (v: number) => Math.round(v * 1000) / 1000;
  return { intercept: r(w[0]!), coverage: r(w[1]!), anchored: r(w[2]!) };
}

/** Solves a 3×3 linear system by Cramer's rule (the Hessian is positive definite thanks to the ridge). */
function solve3(a: number[][], b: number[]): number[] {
  const det = (m: number[][]) =>
    m[0]![0]! * (m[1]![1]! * m[2]![2]! - m[1]![2]! * m[2]![1]!) -
    m[0]![1]! * (m[1]![0]! * m[2]![2]! - m[1]![2]! * m[2]![0]!) +
    m[0]![2]! * (m[1]![0]! * m[2]![1]! - m[1]![1]! * m[2]![0]!);
  const d = det(a);
  return [0, 1, 2].map((col) => det(a.map((row, i) => row.map((v, j) => (j === col ? b[i]! : v)))) / d);
}
