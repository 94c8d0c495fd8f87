// The task-evidence calibration: the logistic model in use, its fit, and the leave-one-repository-out report.
import { describe, expect, it } from "vitest";

import { calibrate, type CalibrationRow } from "../../bench/cards-calibrate.js";
import { CALIBRATION, confidenceOf, CONFIDENT, fitCalibration } from "../../src/scoring/calibration.js";

describe("confidence", () => {
  it("rises with coverage and with an anchor, and splits plain cases either side of the boundary", () => {
    const at = (coverage: number, anchored = false) => confidenceOf({ coverage, anchored, files: 500 });
    expect(at(0.4)).toBeLessThan(at(0.6));
    expect(at(0.6, true)).toBeGreaterThan(at(0.6));
    expect(at(0)).toBeLessThan(0.01);
    expect(at(0.35)).toBeLessThan(CONFIDENT);
    expect(at(0.85, true)).toBeGreaterThan(CONFIDENT);
    expect(CALIBRATION.coverage).toBeGreaterThan(0);
  });
});

/** Rows from three repositories: real tasks cover most of their terms, foreign ones about half. */
function rows(): CalibrationRow[] {
  const out: CalibrationRow[] = [];
  const repos = ["a/x", "b/y", "c/z"];
  for (const index of repos) {
    for (const [r, repo] of repos.entries()) {
      for (let i = 0; i < 8; i++) {
        const real = repo === index;
        const jitter = ((i * 37 + r * 11) % 20) / 100;
        out.push({
          task: `${repo}-${i}`,
          index,
          real,
          f: {
            coverage: real ? 0.7 + jitter : 0.4 + jitter,
            anchored: real ? i % 2 === 0 : i % 5 === 0,
            files: 100 * (r + 1),
          },
        });
      }
    }
  }
  return out;
}

describe("fitting", () => {
  it("finds positive weights for coverage and anchors and separates held-out repositories", () => {
    const c = fitCalibration(rows().map((r) => ({ f: r.f, real: r.real })));
    expect(c.coverage).toBeGreaterThan(0);
    expect(c.anchored).toBeGreaterThan(0);
    expect(c.intercept).toBeLessThan(0);
    const report = calibrate(rows());
    expect(report).toMatchObject({ rows: 72, real: 24, foreign: 48, repos: ["a/x", "b/y", "c/z"] });
    expect(report.held_out.auc).toBeGreaterThan(0.9);
    expect(report.confidence.real[1]).toBeGreaterThan(report.confidence.foreign[1]);
  });

  it("stays finite on perfectly separable rows", () => {
    const sep = [0.1, 0.2, 0.8, 0.9].map((coverage) => ({
      f: { coverage, anchored: false, files: 50 },
      real: coverage > 0.5,
    }));
    const c = fitCalibration(sep);
    for (const v of Object.values(c)) expect(Number.isFinite(v)).toBe(true);
    expect(confidenceOf({ coverage: 0.9, anchored: false, files: 50 }, c)).toBeGreaterThan(0.5);
  });

  it("weighs the index size: where foreign tasks cover more in larger indexes, size lowers confidence", () => {
    // Real tasks cover 0.8 everywhere; foreign ones cover 0.3 in small indexes and 0.6 in large ones.
    const data = [10, 30, 1000, 3000].flatMap((files) =>
      [0, 1, 2, 3, 4, 5].flatMap((i) => [
        { f: { coverage: 0.8 + (i % 3) / 50, anchored: false, files }, real: true },
        { f: { coverage: (files > 100 ? 0.6 : 0.3) + (i % 3) / 50, anchored: false, files }, real: false },
      ]),
    );
    const c = fitCalibration(data);
    expect(c.log_files).toBeLessThan(0);
    expect(c.coverage).toBeGreaterThan(0);
    // The same coverage says more in a small index than in a large one.
    const at = (coverage: number, files: number) => confidenceOf({ coverage, anchored: false, files }, c);
    expect(at(0.55, 10)).toBeGreaterThan(at(0.55, 3000));
    expect(at(0.55, 10)).toBeGreaterThan(0.5);
    expect(at(0.62, 3000)).toBeLessThan(0.5);
    expect(at(0.8, 3000)).toBeGreaterThan(0.5);
  });
});
