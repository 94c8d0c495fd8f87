// Each channel of the ranker on the indexed polyglot fixture.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { ALL_CHANNELS, type ChannelSet, createRanker, pathPrior, type Ranker } from "../../src/retrieval/rank.js";
import { LEARNED_WEIGHTS } from "../../src/retrieval/weights.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

const BM25: ChannelSet = { anchors: false, symbols: false, vectors: false, expansion: false, path_prior: false };
const ANCHORS: ChannelSet = { ...BM25, anchors: true, path_prior: true };

describe("ranker channels on the polyglot fixture", () => {
  let app: App;
  let ranker: Ranker;
  let withRoot: Ranker;
  beforeAll(async () => {
    const root = copyPolyglot();
    app = openTestApp(root);
    await buildGraph(app.scope, app);
    ranker = createRanker(app.db, { embedder: app.embedding.embedder });
    // As a server's: the vectors are read into memory once, so every ranking compares them in the same place (a
    // ranker never warmed answers its first query from sqlite-vec, equal up to float rounding).
    ranker.warm();
    withRoot = createRanker(app.db, { embedder: app.embedding.embedder, root });
  });
  afterAll(async () => {
    await app.close();
  });

  it("bm25 finds a file by a split identifier and never returns tests, rules or docs", async () => {
    const r = await ranker.rankWith("diameter", BM25);
    expect(r[0]?.path).toBe("pyproj/shapes/geometry.py");
    for (const x of r) expect(x.path).not.toMatch(/test|\.md$|\.mdc$/);
  });

  it("anchors: a stack frame's file wins over lexical noise", async () => {
    const q =
      'Traceback:\n  File "/home/u/proj/pyproj/shapes/util.py", line 3, in clamp\nValueError: circle radius diameter area';
    const an = await ranker.rankWith(q, ANCHORS);
    expect(an[0]?.path).toBe("pyproj/shapes/util.py");
    expect(an[0]?.channels.anchors).toBe(1);
  });

  it("anchors: a test id points at the module the test covers", async () => {
    const r = await ranker.rankWith("pyproj/tests/test_geometry.py::test_area fails", ANCHORS);
    expect(r.slice(0, 2).map((x) => x.path)).toContain("pyproj/shapes/geometry.py");
  });

  it("anchors: a Java class name and a Go identifier reach their files", async () => {
    expect((await ranker.rankWith("Circle.java throws in com.example.shapes.Circle", ANCHORS))[0]?.path).toBe(
      "java/src/main/java/com/example/shapes/Circle.java",
    );
  });

  it("each channel reports its rank per file, and rank() fuses them all", async () => {
    const q = "clamp a value between bounds";
    const bm25 = await ranker.rankWith(q, BM25);
    expect(bm25.length).toBeGreaterThan(0);
    expect(bm25.every((x) => Object.keys(x.channels).every((c) => c === "bm25"))).toBe(true);
    const full = await ranker.rank(q);
    expect(full.some((x) => x.channels.symbols !== undefined)).toBe(true);
    expect(full).toEqual(await ranker.rankWith(q, ALL_CHANNELS));
  });

  it("with the tree at hand, bm25 scores whole files and keeps only source files", async () => {
    const r = await withRoot.rankWith("circle diameter wrong", BM25);
    expect(r[0]?.path).toBe("pyproj/shapes/geometry.py");
    expect(r[0]?.channels).toEqual({ bm25: 1 });
    for (const x of r) expect(x.path).not.toMatch(/test|\.md$|\.mdc$/);
  });

  it("signals list every channel's rank per candidate, and rankSymbols names methods with their lines", async () => {
    const q = "Circle.diameter returns the radius doubled; fix diameter";
    const sig = await withRoot.signals(q);
    const geo = sig.find((c) => c.path === "pyproj/shapes/geometry.py");
    expect(geo?.ranks.bm25).toBe(1);
    expect(geo?.ranks.anchors).toBeDefined();
    expect(geo?.language).toBe("python");
    const syms = await withRoot.rankSymbols(q, 5);
    expect(syms[0]?.id).toBe("pyproj/shapes/geometry.py::Circle.diameter");
    expect(syms[0]?.startLine).toBeLessThan(syms[0]!.endLine!);
    expect(syms[0]?.features.body).toBeGreaterThan(0);
    // The cards rank the symbols of the files they list with the same scores.
    const listed = await withRoot.rankSymbols(q, Infinity, { files: ["pyproj/shapes/geometry.py"] });
    expect(new Set(listed.map((s) => s.path))).toEqual(new Set(["pyproj/shapes/geometry.py"]));
    expect(listed[0]).toEqual(syms[0]);
  });

  it("an empty query returns nothing rather than failing", async () => {
    expect(await ranker.rank("")).toEqual([]);
  });
});

describe("the peripheral factor", () => {
  let app: App;
  let root: string;
  beforeAll(async () => {
    root = copyPolyglot();
    mkdirSync(join(root, "examples"), { recursive: true });
    writeFileSync(join(root, "examples", "circle_demo.py"), "def circle_demo():\n    return 'circle diameter demo'\n");
    app = openTestApp(root);
    await buildGraph(app.scope, app);
  });
  afterAll(async () => {
    await app.close();
  });

  it("is the ranker's own weights' factor, for pathPrior and for the fused scores", async () => {
    expect(pathPrior("examples/circle_demo.py", { peripheral: 0.5 })).toBe(0.5);
    expect(pathPrior("examples/circle_demo.py")).toBe(LEARNED_WEIGHTS.peripheral);
    expect(pathPrior("pyproj/shapes/geometry.py", { peripheral: 0.5 })).toBe(1);
    const scoreWith = async (peripheral: number) => {
      const ranker = createRanker(app.db, { root, weights: { ...LEARNED_WEIGHTS, peripheral } });
      const r = await ranker.rankWith("circle demo", ANCHORS);
      return r.find((x) => x.path === "examples/circle_demo.py")?.score ?? 0;
    };
    const full = await scoreWith(1);
    expect(full).toBeGreaterThan(0);
    expect(await scoreWith(0.5)).toBeCloseTo(full * 0.5, 9);
  });
});
