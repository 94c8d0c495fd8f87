// Each channel of the ranker called alone on the indexed polyglot fixture, and the pure steps that combine them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { bm25SourceFiles } from "../../src/graph/file-terms.js";
import { bm25Tokens } from "../../src/retrieval/bm25.js";
import { storedBm25 } from "../../src/retrieval/bm25-stored.js";
import {
  allRare,
  anchorScores,
  bm25Channel,
  COMMON_TERMS,
  dropCommonTerms,
  expansionChannel,
  expansionNeighbours,
  FILE_FTS_WEIGHTS,
  fileAndSymbolChannels,
  ftsChannel,
  rareFirst,
  symbolChannel,
  vectorChannel,
} from "../../src/retrieval/channels.js";
import { createNearestVectors } from "../../src/retrieval/nearest.js";
import { extractAnchors, matchOf, queryTerms } from "../../src/retrieval/query.js";
import { candidateSignals, fuseLists } from "../../src/retrieval/rank.js";
import { buildUniverse, isSource, type Universe } from "../../src/retrieval/universe.js";
import { LEARNED_WEIGHTS } from "../../src/retrieval/weights.js";
import { searchFts, searchFtsRareFirst, termDocFrequency } from "../../src/storage/graph/search.js";
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
    const r = ftsChannel(app.db, u, allRare(queryTerms("diameter").tokens));
    expect(r[0]?.key).toBe("pyproj/shapes/geometry.py");
    expect(
      sourceOnly(
        u,
        r.map((x) => x.key),
      ),
    ).toBe(true);
    expect(ftsChannel(app.db, u, allRare([]))).toEqual([]);
  });

  it("rare-first search: the rows the rare terms match, each scored as the one query over every term scores it", () => {
    const tokens = queryTerms("clamp the value between bounds of the shape and its diameter area width").tokens;
    const df = (t: string) => termDocFrequency(app.db, t);
    const found = tokens.filter((t) => df(t) > 0);
    // A budget of the rarest term's count: that term alone searches, the others only rescore its rows.
    const terms = rareFirst(found, df, Math.min(...found.map(df)));
    expect(terms.rare.length).toBeGreaterThan(0);
    expect(terms.common.length).toBeGreaterThan(0);
    const opts = { limit: 1000, weights: FILE_FTS_WEIGHTS };
    const quote = (ts: readonly string[]) => ts.map((t) => `"${t}"`).join(" OR ");
    const one = new Map(searchFts(app.db, quote(found), opts).map((h) => [h.id, h.score]));
    const rareOnly = searchFts(app.db, quote(terms.rare), opts);
    const hits = searchFtsRareFirst(app.db, terms, { ...opts, cap: 1000 });
    // Exactly the rows a rare term matches, best first, each with the score of the query over all terms.
    expect(hits.map((h) => h.id).sort()).toEqual(rareOnly.map((h) => h.id).sort());
    for (const h of hits) expect(h.score).toBeCloseTo(one.get(h.id)!, 9);
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
    // Some row holds a common term too, so the second query changed its score.
    expect(hits.some((h) => Math.abs(h.score - rareOnly.find((r) => r.id === h.id)!.score) > 1e-9)).toBe(true);
    expect(searchFtsRareFirst(app.db, { rare: [], common: found }, { ...opts, cap: 10 })).toEqual([]);
  });

  it("file and symbol channels from one shared search: the lists each channel makes alone", () => {
    const tokens = queryTerms("clamp the value between bounds of the shape and its diameter area width").tokens;
    const df = (t: string) => termDocFrequency(app.db, t);
    const found = tokens.filter((t) => df(t) > 0);
    // Every term matching, then only the rarest matching and the rest rescoring (the two queries of a ranking).
    for (const terms of [allRare(found), rareFirst(found, df, Math.min(...found.map(df)))]) {
      const both = fileAndSymbolChannels(app.db, u, terms, df);
      expect(both.files.length).toBeGreaterThan(0);
      expect(both.symbols.length).toBeGreaterThan(0);
      expect(both.files).toEqual(ftsChannel(app.db, u, terms));
      expect(both.symbols).toEqual(symbolChannel(app.db, u, terms));
    }
    expect(fileAndSymbolChannels(app.db, u, { rare: [], common: found }, df)).toEqual({ files: [], symbols: [] });
  });

  it("rare-first search: a term no node holds does not stand in for the rarest term the index holds", () => {
    const df = (t: string) => termDocFrequency(app.db, t);
    const held = ["circle", "radius"];
    expect(held.every((t) => df(t) > 0)).toBe(true);
    // A misspelt or foreign word next to words the index holds, with a budget below the held words' counts.
    const tokens = ["circlle", ...held];
    expect(df("circlle")).toBe(0);
    const terms = rareFirst(tokens, df, Math.min(...held.map(df)) - 1);
    const opts = { types: ["file", "symbol"], limit: 1000, weights: FILE_FTS_WEIGHTS };
    const one = new Map(searchFts(app.db, matchOf(tokens).match, opts).map((h) => [h.id, h.score]));
    const hits = searchFtsRareFirst(app.db, terms, { ...opts, cap: 1000 });
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) expect(h.score).toBeCloseTo(one.get(h.id)!, 9);
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
    const r = symbolChannel(app.db, u, allRare(queryTerms("clamp").tokens));
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

describe("FTS terms split by how many rows they match", () => {
  const df: Record<string, number> = { value: 900, clamp: 2, between: 400, bounds: 3, lo: 10, hi: 12, nowhere: 0 };
  const count = (t: string) => df[t] ?? 0;
  const tokens = ["value", "clamp", "between", "bounds", "lo", "hi", "nowhere"];

  it("the rarest terms match while their counts fit the budget; the rest only rescore, in the query's order", () => {
    expect(rareFirst(tokens, count, 30)).toEqual({
      rare: ["clamp", "bounds", "lo", "hi", "nowhere"],
      common: ["value", "between"],
    });
    expect(rareFirst(tokens, count, 500)).toEqual({
      rare: ["clamp", "between", "bounds", "lo", "hi", "nowhere"],
      common: ["value"],
    });
    expect(rareFirst(tokens, count, 10_000).common).toEqual([]);
  });

  it("the rarest term always matches, even past the budget", () => {
    expect(rareFirst(["value", "between"], count, 5)).toEqual({ rare: ["between"], common: ["value"] });
  });

  it("terms no node holds match without taking the place of the rarest term some node holds", () => {
    expect(rareFirst(["value", "nowhere"], count, 5)).toEqual({ rare: ["value", "nowhere"], common: [] });
    expect(rareFirst(["value", "nowhere", "between"], count, 5)).toEqual({
      rare: ["nowhere", "between"],
      common: ["value"],
    });
  });
});
