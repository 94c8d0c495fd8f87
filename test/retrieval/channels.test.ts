// Each channel of the ranker called alone on the indexed polyglot fixture, and the pure steps that combine them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { bm25SourceFiles } from "../../src/graph/file-terms.js";
import { bm25Tokens } from "../../src/retrieval/bm25.js";
import { storedBm25 } from "../../src/retrieval/bm25-stored.js";
import {
  anchorScores,
  bm25Channel,
  COMMON_TERMS,
  dropCommonTerms,
  expansionChannel,
  expansionNeighbours,
  ftsChannel,
  symbolChannel,
  vectorChannel,
} from "../../src/retrieval/channels.js";
import { createNearestVectors } from "../../src/retrieval/nearest.js";
import { extractAnchors, queryTerms } from "../../src/retrieval/query.js";
import { candidateSignals, fuseLists } from "../../src/retrieval/rank.js";
import { buildUniverse, isSource, type Universe } from "../../src/retrieval/universe.js";
import { LEARNED_WEIGHTS } from "../../src/retrieval/weights.js";
import { embedPending } from "../../src/vectors/embed-pending.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

const sourceOnly = (u: Universe, keys: readonly string[]) => keys.every((k) => isSource(u.byPath.get(k)));

describe("ranker channels, one at a time", () => {
  let app: App;
  let u: Universe;
  beforeAll(async () => {
    const root = copyPolyglot();
    app = openTestApp(root);
    await buildGraph(app.scope, app);
    await embedPending(app.db, app.embedding.embedder);
    u = buildUniverse(app.db);
  });
  afterAll(async () => {
    await app.close();
  });

  it("fts: the file whose body holds the term, source files only", () => {
    const r = ftsChannel(app.db, u, queryTerms("diameter").match);
    expect(r[0]?.key).toBe("pyproj/shapes/geometry.py");
    expect(
      sourceOnly(
        u,
        r.map((x) => x.key),
      ),
    ).toBe(true);
    expect(ftsChannel(app.db, u, "")).toEqual([]);
  });

  it("bm25: whole-file BM25 over the stored counts, or the fallback when there is no index", () => {
    const tokens = bm25Tokens("diameter");
    const index = storedBm25(app.db, bm25SourceFiles(app.db))!(tokens);
    const r = bm25Channel(index, tokens, () => [{ key: "never", score: 1 }]);
    expect(r[0]?.key).toBe("pyproj/shapes/geometry.py");
    expect(bm25Channel(undefined, tokens, () => [{ key: "fallback", score: 1 }])).toEqual([
      { key: "fallback", score: 1 },
    ]);
  });

  it("symbols: the file defining the named function", () => {
    const r = symbolChannel(app.db, u, queryTerms("clamp").match);
    expect(r[0]?.key).toBe("pyproj/shapes/util.py");
    expect(
      sourceOnly(
        u,
        r.map((x) => x.key),
      ),
    ).toBe(true);
  });

  it("vectors: source files by their nodes' similarity to the task, best first", async () => {
    const r = await vectorChannel(
      app.db,
      u,
      createNearestVectors(app.db),
      app.embedding.embedder,
      "circle radius diameter area",
    );
    expect(r.length).toBeGreaterThan(0);
    expect(
      sourceOnly(
        u,
        r.map((x) => x.key),
      ),
    ).toBe(true);
    for (let i = 1; i < r.length; i++) expect(r[i - 1]!.score).toBeGreaterThanOrEqual(r[i]!.score);
  });

  it("expansion: one hop from the seeds, to their graph neighbours", () => {
    const seed = "pyproj/shapes/geometry.py";
    const near = new Set(expansionNeighbours(app.db, u, seed).map((n) => n.key));
    expect(near.size).toBeGreaterThan(0);
    const r = expansionChannel(app.db, u, [{ path: seed, score: 1 }]);
    expect(r.length).toBeGreaterThan(0);
    for (const x of r) expect(near.has(x.key) || x.key === seed).toBe(true);
  });

  it("anchors: a named path, and a named test file passing to the file it covers", () => {
    expect(anchorScores(app.db, u, extractAnchors("see pyproj/shapes/util.py"))[0]?.key).toBe("pyproj/shapes/util.py");
    const viaTest = anchorScores(app.db, u, extractAnchors("pyproj/tests/test_geometry.py::test_area fails"));
    expect(viaTest.map((x) => x.key)).toContain("pyproj/shapes/geometry.py");
  });

  it("fusion: a file two channels agree on comes first; the path prior scales peripheral folders", () => {
    const lists = {
      bm25: [
        { key: "a.py", score: 2 },
        { key: "b.py", score: 1 },
      ],
      fts: [
        { key: "b.py", score: 3 },
        { key: "examples/c.py", score: 1 },
      ],
    };
    const signals = candidateSignals(lists, u);
    expect(signals.get("b.py")?.ranks).toEqual({ bm25: 2, fts: 1 });
    expect(signals.get("examples/c.py")?.peripheral).toBe(true);
    const use = new Set(["bm25", "fts"] as const);
    const fused = fuseLists(lists, use, LEARNED_WEIGHTS, true, u);
    expect(fused[0]?.path).toBe("b.py");
    const withoutPrior = fuseLists(lists, use, LEARNED_WEIGHTS, false, u);
    const c = (f: typeof fused) => f.find((x) => x.path === "examples/c.py")!.score;
    expect(c(fused)).toBeCloseTo(c(withoutPrior) * LEARNED_WEIGHTS.peripheral, 12);
  });
});

describe("common terms dropped from the FTS query", () => {
  const terms = queryTerms("the value clamp between bounds lo hi");
  const df: Record<string, number> = { value: 900, clamp: 2, between: 400, bounds: 3, lo: 10, hi: 12 };
  const count = (t: string) => df[t] ?? 0;

  it("keeps every term on a small index", () => {
    expect(dropCommonTerms(terms, COMMON_TERMS.minNodes - 1, count)).toBe(terms);
  });

  it("drops terms in a fifth or more of the nodes, keeping the rarest when too few are left", () => {
    const kept = dropCommonTerms(terms, 1000, count).tokens;
    expect(kept).not.toContain("value");
    expect(kept).toEqual(expect.arrayContaining(["clamp", "bounds", "lo", "hi"]));
    const allCommon = dropCommonTerms(terms, 1000, (t) => (t === "clamp" ? 2 : 900)).tokens;
    expect(allCommon).toHaveLength(COMMON_TERMS.keep);
    expect(allCommon).toContain("clamp");
  });
});
