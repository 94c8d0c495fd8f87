// Fusion, roll-up and expansion as pure functions over tables of cases.
import { describe, expect, it } from "vitest";

import { expand, rankOf, rollUp, rrf, toRanked } from "../../src/retrieval/fuse.js";

const list = (...keys: string[]) => keys.map((key, i) => ({ key, score: keys.length - i }));

describe("reciprocal rank fusion", () => {
  it.each([
    { name: "agreement wins", a: list("x", "y", "z"), b: list("y", "x"), top: "x" },
    { name: "a heavier channel decides ties", a: list("x", "y"), b: list("y", "x"), wb: 2, top: "y" },
    { name: "a zero-weight channel is ignored", a: list("x", "y"), b: list("y"), wb: 0, top: "x" },
  ])("$name", ({ a, b, wb, top }) => {
    const fused = rrf([
      { list: a, weight: 1 },
      { list: b, weight: wb ?? 1 },
    ]);
    expect(fused[0]?.key).toBe(top);
  });

  it("computes Σ w / (k + rank) exactly", () => {
    const fused = rrf([{ list: list("a", "b"), weight: 1 }], 10);
    expect(fused[0]?.score).toBeCloseTo(1 / 11);
    expect(fused[1]?.score).toBeCloseTo(1 / 12);
  });

  it("a scaled channel passes on score gaps", () => {
    const anchors = [
      { key: "named.py", score: 1.5 },
      { key: "loose.py", score: 0.1 },
    ];
    const bm25 = list("loose.py", "other.py", "x.py", "y.py", "named.py");
    const plain = rrf([
      { list: bm25, weight: 1 },
      { list: anchors, weight: 2 },
    ]);
    const scaled = rrf([
      { list: bm25, weight: 1 },
      { list: anchors, weight: 2, scaled: true },
    ]);
    expect(rankOf(scaled, "named.py")).toBe(1);
    expect(scaled.find((x) => x.key === "loose.py")!.score).toBeLessThan(
      plain.find((x) => x.key === "loose.py")!.score,
    );
  });
});

describe("roll-up and expansion", () => {
  it("rolls symbol hits up to files: best hit plus a damped share of the next", () => {
    const r = rollUp([
      { key: "a.py", score: 3 },
      { key: "b.py", score: 2.5 },
      { key: "b.py", score: 2.5 },
      { key: "a.py", score: 0.1 },
    ]);
    expect(r.map((x) => x.key)).toEqual(["b.py", "a.py"]);
    expect(r[0]?.score).toBeCloseTo(2.5 + 0.3 * 2.5);
  });

  it("expands one hop from seeds, summing over seeds and never returning a seed to itself", () => {
    const graph: Record<string, { key: string; weight: number }[]> = {
      "a.py": [
        { key: "c.py", weight: 1 },
        { key: "a.py", weight: 1 },
      ],
      "b.py": [
        { key: "c.py", weight: 0.5 },
        { key: "d.py", weight: 1 },
      ],
    };
    const out = expand(list("a.py", "b.py"), (k) => graph[k] ?? [], 0.5);
    expect(out[0]).toEqual({ key: "c.py", score: 0.5 * 1 * 1 + 0.5 * 0.5 * 0.5 });
    expect(rankOf(out, "a.py")).toBeNull();
    expect(rankOf(out, "d.py")).toBe(2);
  });

  it("toRanked drops non-positive and non-finite scores and orders ties by key", () => {
    const r = toRanked(
      new Map([
        ["b", 1],
        ["a", 1],
        ["z", 0],
        ["n", Number.NaN],
      ]),
    );
    expect(r.map((x) => x.key)).toEqual(["a", "b"]);
  });
});
