// Metrics against hand-computed examples, and the paired bootstrap's determinism and intervals.
import { describe, expect, it } from "vitest";

import { pairedBootstrap, seededRandom } from "../../bench/localize/bootstrap.js";
import { aggregate, median, percentile, scoreTask } from "../../bench/localize/metrics.js";

const filler = (n: number, prefix = "f") => Array.from({ length: n }, (_, i) => `${prefix}${i}.py`);

describe("scoreTask", () => {
  it.each([
    // ranked, gold, rank, acc@1, acc@3, acc@5, acc@10, rr@10, all_gold@5, coverage@50
    [["a.py", "b.py"], ["a.py"], 1, 1, 1, 1, 1, 1, 1, 1],
    [["b.py", "x.py", "c.py", "d.py"], ["d.py", "x.py"], 2, 0, 1, 1, 1, 0.5, 1, 1],
    [["b.py", "z.py", "c.py", "d.py", "e.py", "y.py"], ["z.py", "y.py"], 2, 0, 1, 1, 1, 0.5, 0, 1],
    [[...filler(3), "g.py"], ["g.py"], 4, 0, 0, 1, 1, 0.25, 1, 1],
    [[...filler(10), "g.py"], ["g.py"], 11, 0, 0, 0, 0, 0, 0, 1],
    [[...filler(50), "g.py"], ["g.py"], 51, 0, 0, 0, 0, 0, 0, 0],
    [["b.py"], ["z.py"], null, 0, 0, 0, 0, 0, 0, 0],
    [[], ["z.py"], null, 0, 0, 0, 0, 0, 0, 0],
  ])("%j for gold %j", (ranked, gold, rank, a1, a3, a5, a10, rr, all5, cov) => {
    expect(scoreTask(ranked as string[], gold as string[])).toEqual({
      rank,
      "acc@1": a1,
      "acc@3": a3,
      "acc@5": a5,
      "acc@10": a10,
      "rr@10": rr,
      "all_gold@5": all5,
      "coverage@50": cov,
    });
  });

  it("drops a leading ./ and counts a repeated path once", () => {
    const s = scoreTask(["./a.py", "a.py", "b.py", "./b.py", "c.py"], ["c.py"]);
    expect(s.rank).toBe(3);
    expect(s["acc@3"]).toBe(1);
  });
});

describe("aggregate", () => {
  it("matches a hand-computed example of five tasks", () => {
    const scores = [
      scoreTask(["a.py", "b.py", "c.py"], ["a.py"]), // rank 1, all gold in top 5
      scoreTask(["b.py", "x.py", "c.py", "d.py", "e.py"], ["d.py", "x.py"]), // rank 2, all gold in top 5
      scoreTask(["b.py", "z.py", "c.py", "d.py", "e.py", "y.py"], ["z.py", "y.py"]), // rank 2, y beyond 5
      scoreTask([...filler(10), "g.py"], ["g.py"]), // rank 11: only coverage
      scoreTask(["b.py"], ["q.py"]), // not found
    ];
    expect(aggregate(scores, [5, 1, 3, 100, 2])).toEqual({
      "acc@1": 0.2, // 1/5
      "acc@3": 0.6, // 3/5
      "acc@5": 0.6,
      "acc@10": 0.6,
      "mrr@10": 0.4, // (1 + 1/2 + 1/2 + 0 + 0) / 5
      "all_gold@5": 0.4, // 2/5
      "coverage@50": 0.8, // 4/5
      p50_ms: 3,
      p95_ms: 100, // nearest rank: the 5th of 5
    });
  });

  it("rounds means to 3 decimals and is all zeros for no tasks", () => {
    const scores = [scoreTask(["a"], ["a"]), scoreTask(["b"], ["a"]), scoreTask(["b"], ["a"])];
    expect(aggregate(scores, [1.26, 1.24, 1.25])["acc@1"]).toBe(0.333);
    expect(aggregate(scores, [1.26, 1.24, 1.25]).p50_ms).toBe(1.3);
    expect(Object.values(aggregate([], [])).every((v) => v === 0)).toBe(true);
  });

  it("median and nearest-rank percentiles", () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    const hundred = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(hundred, 0.95)).toBe(95);
    expect(percentile(hundred, 0.5)).toBe(50);
    expect(percentile([3, 1, 2], 0.95)).toBe(3);
    expect(
      percentile(
        Array.from({ length: 20 }, (_, i) => i + 1),
        0.95,
      ),
    ).toBe(19);
  });
});

describe("pairedBootstrap", () => {
  const base = Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? 1 : 0));

  it("is deterministic for a seed and draws the same stream for the same seed", () => {
    const b = base.map((x, i) => (i % 4 === 1 ? 1 : x));
    expect(pairedBootstrap(base, b)).toEqual(pairedBootstrap(base, b));
    expect(pairedBootstrap(base, b, { seed: 7 })).toEqual(pairedBootstrap(base, b, { seed: 7 }));
    const r1 = seededRandom(42);
    const r2 = seededRandom(42);
    const draws = Array.from({ length: 5 }, () => r1());
    expect(draws).toEqual(Array.from({ length: 5 }, () => r2()));
    expect(draws.every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it("excludes 0 for a clear gain, close to the normal approximation", () => {
    // Half of the tasks gain 1, none lose: mean 0.5, sd 0.5, standard error 0.5/√60 ≈ 0.065.
    const a = Array.from({ length: 60 }, () => 0);
    const b = a.map((_, i) => (i % 2 === 0 ? 1 : 0));
    const ci = pairedBootstrap(a, b);
    expect(ci.mean_diff).toBe(0.5);
    expect(ci.lo).toBeGreaterThan(0);
    expect(ci.lo).toBeCloseTo(0.5 - 1.96 * 0.0645, 1);
    expect(ci.hi).toBeCloseTo(0.5 + 1.96 * 0.0645, 1);
    expect(ci.lo).toBeLessThan(ci.mean_diff);
    expect(ci.hi).toBeGreaterThan(ci.mean_diff);
  });

  it("includes 0 when gains and losses balance", () => {
    // Five tasks gain (0 → 1) and five lose (1 → 0): no difference on average.
    const up = new Set([1, 4, 7, 10, 13]);
    const down = new Set([0, 3, 6, 9, 12]);
    const balanced = base.map((x, i) => (up.has(i) ? 1 : down.has(i) ? 0 : x));
    expect(balanced.filter((x, i) => x !== base[i]).length).toBe(10);
    const ci = pairedBootstrap(base, balanced);
    expect(ci.mean_diff).toBe(0);
    expect(ci.lo).toBeLessThan(0);
    expect(ci.hi).toBeGreaterThan(0);
  });

  it("is a point for identical rungs and for no tasks; refuses unpaired input", () => {
    expect(pairedBootstrap(base, base)).toEqual({ mean_diff: 0, lo: 0, hi: 0 });
    expect(pairedBootstrap([], [])).toEqual({ mean_diff: 0, lo: 0, hi: 0 });
    expect(() => pairedBootstrap([1], [1, 0])).toThrow(/one value per task in both rungs/);
    expect(() => pairedBootstrap([1], [1], { resamples: 0 })).toThrow(/resamples/);
  });
});
