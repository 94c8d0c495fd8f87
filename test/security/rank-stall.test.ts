// A long task full of dotted names or stack frames ranks in time linear in its anchors, not anchors × files.
import { describe, expect, it } from "vitest";

import { buildGraph } from "../../src/graph/build-graph.js";
import { createRanker } from "../../src/retrieval/rank.js";

/** The lexical floor plus the anchor channel: the channel a task full of names exercises. */
const ANCHORS = { anchors: true, symbols: false, vectors: false, expansion: false, path_prior: true };
import { openTestApp } from "../graph/helpers.js";
import { syntheticRepo } from "../graph/synthetic.js";

describe("ranking a hostile task", () => {
  it("2,000 dotted module names over 1,500 files rank within a few times a plain task", async () => {
    const app = openTestApp(syntheticRepo(1500, 2));
    try {
      await buildGraph(app.scope, app, { lexicalOnly: true });
      const ranker = createRanker(app.db, { embedder: app.embedding.embedder });
      const time = async (q: string) => {
        const t = performance.now();
        await ranker.rankWith(q, ANCHORS);
        return performance.now() - t;
      };
      await time("warm the file universe"); // built once per ranker
      const plain = await time("Widget12 render returns the wrong value in pkg12.mod12");
      const dotted = Array.from({ length: 2000 }, (_, i) => `pkg${i % 20}.mod${i}.Widget.render.x.y`).join(" ");
      const frames = Array.from(
        { length: 300 },
        (_, i) => `  at pkg${i % 20}.mod${i}.Widget${i}.render(mod${i}.py:${i})`,
      ).join("\n");
      const slow = Math.max(await time(dotted), await time(frames));
      // Before suffix maps each dotted name scanned every file up to seven times (tens of seconds at this size).
      expect(slow).toBeLessThan(Math.max(3000, plain * 200));
    } finally {
      await app.close();
    }
  }, 120_000);
});
