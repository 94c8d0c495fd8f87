// A long task full of dotted names or stack frames ranks (anchors are looked up by path suffix, not by scanning
// every file for each) and the files it names are the ones ranked.
import { describe, expect, it } from "vitest";

import { buildGraph } from "../../src/graph/build-graph.js";
import { createRanker } from "../../src/retrieval/rank.js";

/** The lexical floor plus the anchor channel: the channel a task full of names exercises. */
const ANCHORS = { anchors: true, symbols: false, vectors: false, expansion: false, path_prior: true };
import { openTestApp } from "../graph/helpers.js";
import { syntheticRepo } from "../graph/synthetic.js";

describe("ranking a hostile task", () => {
  it("2,000 dotted module names and 300 stack frames over 1,500 files rank, and still find a named file", async () => {
    const app = openTestApp(syntheticRepo(1500, 2));
    try {
      await buildGraph(app.scope, app, { lexicalOnly: true });
      const ranker = createRanker(app.db, { embedder: app.embedding.embedder });
      const plain = await ranker.rankWith("Widget12 render returns the wrong value in pkg12.mod12", ANCHORS);
      expect(plain.map((f) => f.path)).toContain("pkg12/mod12.py");
      const dotted = Array.from({ length: 2000 }, (_, i) => `pkg${i % 20}.mod${i}.Widget.render.x.y`).join(" ");
      const frames = Array.from(
        { length: 300 },
        (_, i) => `  at pkg${i % 20}.mod${i}.Widget${i}.render(mod${i}.py:${i})`,
      ).join("\n");
      // Each dotted name is looked up by suffix, never by scanning every file; speed is measured by benchmarks.
      for (const task of [dotted, frames]) {
        const ranked = await ranker.rankWith(task, ANCHORS);
        expect(ranked.length).toBeGreaterThan(0);
        expect(ranked.every((f) => /^pkg\d+\/mod\d+\.py$/.test(f.path))).toBe(true);
      }
    } finally {
      await app.close();
    }
  }, 120_000);
});
