// The committed fusion weights: their values, and that the ranker uses them unless told otherwise. (That the
// committed development dumps reproduce them is test/eval/committed-fits.test.ts, in the integration tier.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { createRanker } from "../../src/retrieval/rank.js";
import { LEARNED_WEIGHTS } from "../../src/retrieval/weights.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

describe("LEARNED_WEIGHTS", () => {
  it("holds the committed fit", () => {
    expect(LEARNED_WEIGHTS).toEqual({
      channels: { bm25: 1, fts: 1, anchors: 1.5, symbols: 0.5, vectors: 1, expansion: 0 },
      scaled: ["bm25", "fts", "anchors", "symbols", "vectors", "expansion"],
      peripheral: 0.25,
      k: 10,
    });
  });
});

describe("the ranker's default weights", () => {
  let app: App;
  let root: string;
  beforeAll(async () => {
    root = copyPolyglot();
    app = openTestApp(root);
    await buildGraph(app.scope, app);
  });
  afterAll(async () => {
    await app.close();
  });

  it("are LEARNED_WEIGHTS", async () => {
    const q = "circle radius diameter area in the shapes package";
    const embedder = app.embedding.embedder;
    const byDefault = await createRanker(app.db, { embedder, root }).rank(q, 10);
    const explicit = await createRanker(app.db, { embedder, root, weights: LEARNED_WEIGHTS }).rank(q, 10);
    const other = await createRanker(app.db, {
      embedder,
      root,
      weights: { ...LEARNED_WEIGHTS, channels: { ...LEARNED_WEIGHTS.channels, bm25: 0, anchors: 0 } },
    }).rank(q, 10);
    expect(byDefault).toEqual(explicit);
    expect(other.map((r) => [r.path, r.score])).not.toEqual(byDefault.map((r) => [r.path, r.score]));
  });
});
