// Score shares and the fused score: a channel's share of its top score stays in [0, 1], so no channel lowers a
// file, and a channel whose top is not positive carries no signal.
import { describe, expect, it } from "vitest";

import { rrf } from "../../src/retrieval/fuse.js";
import { type Channel, fusedScore, LEARNED_WEIGHTS, scoreShare } from "../../src/retrieval/weights.js";

describe("scoreShare", () => {
  it.each([
    { score: 0.05, top: 0.1, share: 0.5 },
    { score: 0.1, top: 0.1, share: 1 },
    { score: 0.3, top: 0.1, share: 1 }, // above the top (an unsorted list) is held to 1
    { score: -0.4, top: 0.05, share: 0 }, // 1 − cosine distance below zero: no strength, not a penalty
    { score: 0.2, top: 0, share: 0 }, // a channel without a positive top: no signal
    { score: -0.1, top: -0.05, share: 0 },
    { score: Number.NaN, top: 1, share: 0 },
  ])("is $share for $score against a top of $top", ({ score, top, share }) => {
    expect(scoreShare(score, top)).toBe(share);
  });
});

describe("fusedScore with a negative vector score", () => {
  const use = new Set<Channel>(["bm25", "fts", "anchors", "vectors"]);
  const w = LEARNED_WEIGHTS; // every channel scaled by its share
  // First on BM25, full-text and anchors; on the vector channel a similarity of −0.4 against a top of 0.05.
  const first = (vectorShare: number) => ({
    ranks: { bm25: 1, fts: 1, anchors: 1, vectors: 2 },
    shares: { bm25: 1, fts: 1, anchors: 1, vectors: vectorShare },
    peripheral: false,
  });
  const lexical = (w.channels.bm25 + w.channels.fts + w.channels.anchors) / (w.k + 1);

  it("counts the vector channel as nothing rather than pushing the file below zero", () => {
    const runtime = fusedScore(first(scoreShare(-0.4, 0.05)), w, use);
    expect(runtime).toBeCloseTo(lexical);
    // A share of −8 read back from a dump is held to 0 the same way.
    expect(fusedScore(first(-0.4 / 0.05), w, use)).toBe(runtime);
    expect(runtime).toBeGreaterThan(0);
  });

  it("keeps such a file ahead of one found by the vector channel alone", () => {
    const vectorOnly = { ranks: { vectors: 1 }, shares: { vectors: 1 }, peripheral: false };
    expect(fusedScore(first(-8), w, use)).toBeGreaterThan(fusedScore(vectorOnly, w, use));
  });

  it("gives nothing to any file of a channel whose top score is not positive", () => {
    const c = { ranks: { vectors: 1 }, shares: { vectors: scoreShare(-0.2, -0.1) }, peripheral: false };
    expect(fusedScore(c, w, use)).toBe(0);
  });
});

describe("rrf with a scaled channel holding a negative score", () => {
  it("keeps the file the other channel ranks, at that channel's contribution", () => {
    const fused = rrf(
      [
        {
          list: [
            { key: "b.py", score: 2 },
            { key: "a.py", score: 1 },
          ],
          weight: 1,
        },
        {
          list: [
            { key: "a.py", score: 0.05 },
            { key: "b.py", score: -0.4 },
          ],
          weight: 1,
          scaled: true,
        },
      ],
      10,
    );
    expect(fused.find((x) => x.key === "b.py")?.score).toBeCloseTo(1 / 11);
    expect(fused.find((x) => x.key === "a.py")?.score).toBeCloseTo(1 / 12 + 1 / 11);
  });
});
