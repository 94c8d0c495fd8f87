// The ablation ladder: each rung keeps the channels before it and adds one; the last rungs are the product's.
import { describe, expect, it } from "vitest";

import { RUNG_CHANNELS, RUNGS } from "../../bench/localize/ladder.js";
import { ALL_CHANNELS } from "../../src/retrieval/rank.js";

const on = (r: (typeof RUNGS)[number]) =>
  Object.entries(RUNG_CHANNELS[r])
    .filter(([, v]) => v)
    .map(([k]) => k);

describe("the rung ladder", () => {
  it("is in ladder order and each rung adds channels to the one before", () => {
    expect(RUNGS).toEqual(["bm25", "+anchors", "+symbols", "+vectors", "+expansion", "memcards"]);
    expect(on("bm25")).toEqual([]);
    for (let i = 1; i < RUNGS.length - 1; i++) {
      const before = on(RUNGS[i - 1]!);
      const now = on(RUNGS[i]!);
      expect(now).toEqual(expect.arrayContaining(before));
      expect(now.length).toBeGreaterThan(before.length);
    }
  });

  it("ends with every channel the product ranks with", () => {
    expect(RUNG_CHANNELS["+expansion"]).toEqual(ALL_CHANNELS);
    expect(RUNG_CHANNELS.memcards).toEqual(ALL_CHANNELS);
    expect(Object.values(ALL_CHANNELS).every(Boolean)).toBe(true);
  });
});
