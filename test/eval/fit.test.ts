// Fitting the fusion: coordinate ascent finds weights that are known to be right on a synthetic dump, and
// leave-one-repository-out folds never train on the repository they test.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { seededRandom } from "../../bench/localize/bootstrap.js";
import {
  crossValidatedRanks,
  type DumpTask,
  FIT_TERMS,
  fitReport,
  fitWeights,
  goldRank,
  loadDump,
  loroFolds,
  metricsOf,
  START,
} from "../../bench/localize/fit.js";
import { type Channel, CHANNELS, fusedScore } from "../../src/retrieval/weights.js";
import { tmpDir } from "../helpers/tmp.js";

/**
 * A synthetic dump: BM25 puts the gold file at rank 3, the anchor channel at rank 1 (and a decoy at rank 2),
 * the vector channel puts a decoy first and gold nowhere. The right fusion weights anchors, not vectors.
 */
function synthetic(nRepos = 4, perRepo = 5): DumpTask[] {
  const rnd = seededRandom(7);
  const tasks: DumpTask[] = [];
  for (let r = 0; r < nRepos; r++) {
    for (let i = 0; i < perRepo; i++) {
      const shift = Math.floor(rnd() * 2);
      tasks.push({
        id: `r${r}-t${i}`,
        repo: `o/r${r}`,
        candidates: [
          {
            path: "gold.c",
            ranks: { bm25: 3 + shift, anchors: 1 },
            shares: { anchors: 1 },
            peripheral: false,
            gold: true,
          },
          { path: "d1.c", ranks: { bm25: 1, vectors: 1 }, shares: { anchors: 1 }, peripheral: false, gold: false },
          { path: "d2.c", ranks: { bm25: 2, anchors: 2 }, shares: { anchors: 0.5 }, peripheral: false, gold: false },
          { path: "docs/d3.c", ranks: { bm25: 4 - shift, vectors: 2 }, shares: {}, peripheral: true, gold: false },
        ],
      });
    }
  }
  return tasks;
}

const ALL = new Set<Channel>(["bm25", "anchors", "vectors"]);

describe("goldRank", () => {
  it("is the rank of the best gold candidate, with ties counted against it", () => {
    const [t] = synthetic(1, 1);
    expect(goldRank(t!, START, new Set(["bm25"]))).toBeGreaterThanOrEqual(3);
    const tie: DumpTask = {
      id: "x",
      repo: "o/x",
      candidates: [
        { path: "a", ranks: { bm25: 1 }, shares: {}, peripheral: false, gold: false },
        { path: "b", ranks: { bm25: 1 }, shares: {}, peripheral: false, gold: true },
      ],
    };
    expect(goldRank(tie, START, new Set(["bm25"]))).toBe(2);
    expect(goldRank({ ...tie, candidates: [tie.candidates[0]!] }, START, new Set(["bm25"]))).toBeNull();
  });
});

describe("fitWeights", () => {
  it("raises the channel that puts gold first above the misleading one", () => {
    const tasks = synthetic();
    const w = fitWeights(tasks, ALL);
    expect(w.channels.anchors).toBeGreaterThan(w.channels.vectors);
    expect(w.channels.anchors).toBeGreaterThan(START.channels.anchors);
    expect(w.channels.bm25).toBe(1);
    expect(metricsOf(tasks.map((t) => goldRank(t, w, ALL)))["acc@1"]).toBe(1);
    expect(metricsOf(tasks.map((t) => goldRank(t, START, ALL)))["acc@1"]).toBe(0);
  });

  it("leaves channels outside the set at their start value", () => {
    const w = fitWeights(synthetic(), new Set<Channel>(["bm25", "vectors"]));
    expect(w.channels.anchors).toBe(START.channels.anchors);
    expect(w.channels.symbols).toBe(START.channels.symbols);
  });

  it("lowers the peripheral factor only when asked to fit it", () => {
    expect(fitWeights(synthetic(), new Set<Channel>(["bm25"]), { prior: false }).peripheral).toBe(1);
  });
});

describe("loroFolds", () => {
  it("holds out each repository once and never trains on it", () => {
    const tasks = synthetic(3, 2);
    const folds = loroFolds(tasks);
    expect(folds.map((f) => f.repo)).toEqual(["o/r0", "o/r1", "o/r2"]);
    for (const f of folds) {
      expect(f.test.every((t) => t.repo === f.repo)).toBe(true);
      expect(f.train.some((t) => t.repo === f.repo)).toBe(false);
      expect(f.train.length + f.test.length).toBe(tasks.length);
    }
    expect(folds.flatMap((f) => f.test.map((t) => t.id)).sort()).toEqual(tasks.map((t) => t.id).sort());
  });

  it("cross-validates every task exactly once", () => {
    const tasks = synthetic();
    const ranks = crossValidatedRanks(tasks, ALL);
    expect([...ranks.keys()].sort()).toEqual(tasks.map((t) => t.id).sort());
    expect([...ranks.values()].every((r) => r === 1)).toBe(true);
  });

  it("ranks each repository with weights fitted without it", () => {
    // Three repositories where the anchors find gold, and a larger one whose labels are flipped (the vector
    // channel's first file is gold). Fitted on every task the flipped repository wins (it has more tasks);
    // held out, its tasks are ranked with anchor-heavy weights and gold drops below first.
    const flipped = synthetic(1, 12).map((t) => ({
      ...t,
      id: `flip-${t.id}`,
      repo: "o/flip",
      candidates: t.candidates.map((c) => ({ ...c, gold: c.path === "d1.c" })),
    }));
    const tasks = [...synthetic(3, 3), ...flipped];
    const inSample = fitWeights(tasks, ALL);
    for (const t of flipped) expect(goldRank(t, inSample, ALL)).toBe(1);
    const cv = crossValidatedRanks(tasks, ALL);
    for (const t of flipped) expect(cv.get(t.id)).toBeGreaterThan(1);
  });
});

/**
 * Where ranks alone cannot tell: in half the tasks BM25 ranks gold first and the vector channel second, in the
 * other half the reverse, and a decoy always takes the other first place, so any rank-only weighting gets one
 * half wrong. The gold file's second place always comes close to the channel's top score, the decoy's does not.
 * A third kind of task (gold found only by vectors, BM25 third) makes the vector channel worth keeping.
 */
function sharesMatter(nRepos = 4, perRepo = 6): DumpTask[] {
  const tasks: DumpTask[] = [];
  for (let r = 0; r < nRepos; r++) {
    for (let i = 0; i < perRepo; i++) {
      const kind = i % 3;
      const id = `r${r}-t${i}`;
      const repo = `o/r${r}`;
      if (kind === 2) {
        tasks.push({
          id,
          repo,
          candidates: [
            {
              path: "gold.c",
              ranks: { bm25: 3, vectors: 1 },
              shares: { bm25: 0.5, vectors: 1 },
              peripheral: false,
              gold: true,
            },
            { path: "a.c", ranks: { bm25: 1 }, shares: { bm25: 1 }, peripheral: false, gold: false },
            { path: "b.c", ranks: { bm25: 2 }, shares: { bm25: 0.6 }, peripheral: false, gold: false },
          ],
        });
        continue;
      }
      const [g, d] = kind === 0 ? (["bm25", "vectors"] as const) : (["vectors", "bm25"] as const);
      tasks.push({
        id,
        repo,
        candidates: [
          { path: "gold.c", ranks: { [g]: 1, [d]: 2 }, shares: { [g]: 1, [d]: 0.9 }, peripheral: false, gold: true },
          { path: "decoy.c", ranks: { [g]: 2, [d]: 1 }, shares: { [g]: 0.3, [d]: 1 }, peripheral: false, gold: false },
        ],
      });
    }
  }
  return tasks;
}

describe("score shares", () => {
  const use = new Set<Channel>(["bm25", "vectors"]);

  it("scale a channel's contribution only for the channels the weights name", () => {
    const c = { ranks: { bm25: 1, vectors: 1 }, shares: { bm25: 0.5, vectors: 0.25 }, peripheral: false };
    expect(fusedScore(c, START, use)).toBeCloseTo(2 / 11);
    expect(fusedScore(c, { ...START, scaled: ["bm25"] }, use)).toBeCloseTo(1.5 / 11);
    expect(fusedScore(c, { ...START, scaled: ["bm25", "vectors"] }, use)).toBeCloseTo(0.75 / 11);
  });

  it("are learned where ranks alone cannot place gold first", () => {
    const tasks = sharesMatter();
    const acc1 = (w: ReturnType<typeof fitWeights>) => metricsOf(tasks.map((t) => goldRank(t, w, use)))["acc@1"];
    expect(acc1(fitWeights(tasks, use))).toBeLessThan(1);
    expect(acc1(fitWeights(tasks, use, { scaled: [...CHANNELS] }))).toBe(1);
  });

  it("are kept by the report when they raise the cross-validated score", () => {
    const r = fitReport(sharesMatter(), []);
    expect(r.rungs.map((x) => x.rung)).toEqual([
      "bm25",
      "+anchors",
      "+symbols",
      "+vectors",
      "+expansion",
      ...FIT_TERMS.map((t) => t.term),
    ]);
    const last = r.rungs[r.rungs.length - 1]!;
    expect(last.kept).toBe(true);
    expect(last.sets["dev (all)"]!["acc@1"]).toBe(1);
    expect(r.rungs.find((x) => x.rung === "+vectors")!.sets["dev (all)"]!["acc@1"]).toBeLessThan(1);
    expect(r.weights).toMatchObject({ scaled: [...CHANNELS], channels: { vectors: expect.any(Number) } });
    expect((r.weights as { channels: { vectors: number } }).channels.vectors).toBeGreaterThan(0);
  });
});

describe("dumps and the report", () => {
  it("reads JSONL dumps tagged by file name and reports CV and held-out rows per rung", () => {
    const dir = tmpDir();
    const dev = join(dir, "dev.jsonl");
    const held = join(dir, "held.jsonl");
    const tasks = synthetic();
    writeFileSync(dev, tasks.map((t) => JSON.stringify(t)).join("\n") + "\n");
    writeFileSync(
      held,
      tasks
        .slice(0, 3)
        .map((t) => JSON.stringify({ ...t, id: `h-${t.id}` }))
        .join("\n"),
    );
    const d = loadDump(dev);
    expect(d).toHaveLength(tasks.length);
    expect(d[0]!.set).toBe("dev");
    const r = fitReport(d, loadDump(held));
    expect(r.rungs.map((x) => x.rung)).toEqual([
      "bm25",
      "+anchors",
      "+symbols",
      "+vectors",
      "+expansion",
      "+score shares",
    ]);
    expect(r.rungs[0]!.sets.dev!["acc@1"]).toBe(0);
    expect(r.rungs[1]!.sets.dev).toMatchObject({ cv: true, "acc@1": 1 });
    expect(r.rungs[1]!.sets.held).toMatchObject({ cv: false, n: 3, "acc@1": 1 });
    // Anchors raise the cross-validated MRR and stay; the channels above add nothing and are left at 0.
    expect(r.rungs.map((x) => x.kept)).toEqual([true, true, false, false, false, false]);
    expect(r.weights).toMatchObject({
      channels: { anchors: expect.any(Number), symbols: 0, vectors: 0, expansion: 0 },
    });
    expect((r.weights as { channels: { anchors: number } }).channels.anchors).toBeGreaterThan(0);
  });

  it("names the file and line of a bad dump line", () => {
    const f = join(tmpDir(), "bad.jsonl");
    writeFileSync(f, '{"id":"x"}\n');
    expect(() => loadDump(f)).toThrow(/bad\.jsonl:1/);
  });
});
