// Each channel of the ranker on the indexed polyglot fixture.
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/job.js";
import { createRanker, type Ranker, RUNGS } from "../../src/retrieval/rank.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

describe("ranker channels on the polyglot fixture", () => {
  let app: App;
  let ranker: Ranker;
  beforeAll(async () => {
    app = openTestApp(copyPolyglot());
    await buildGraph(app);
    ranker = createRanker(app.db, { embedder: app.embedding.embedder });
  });
  afterAll(async () => {
    await app.close();
  });

  it("bm25 finds a file by a split identifier and never returns tests, rules or docs", async () => {
    const r = await ranker.rank("diameter", "bm25");
    expect(r[0]?.path).toBe("pyproj/shapes/geometry.py");
    for (const x of r) expect(x.path).not.toMatch(/test|\.md$|\.mdc$/);
  });

  it("anchors: a stack frame's file wins over lexical noise", async () => {
    const q =
      'Traceback:\n  File "/home/u/proj/pyproj/shapes/util.py", line 3, in clamp\nValueError: circle radius diameter area';
    const an = await ranker.rank(q, "+anchors");
    expect(an[0]?.path).toBe("pyproj/shapes/util.py");
    expect(an[0]?.channels.anchors).toBe(1);
  });

  it("anchors: a test id points at the module the test covers", async () => {
    const r = await ranker.rank("pyproj/tests/test_geometry.py::test_area fails", "+anchors");
    expect(r.slice(0, 2).map((x) => x.path)).toContain("pyproj/shapes/geometry.py");
  });

  it("anchors: a Java class name and a Go identifier reach their files", async () => {
    expect((await ranker.rank("Circle.java throws in com.example.shapes.Circle", "+anchors"))[0]?.path).toBe(
      "java/src/main/java/com/example/shapes/Circle.java",
    );
  });

  it("every rung runs and reports per-channel ranks", async () => {
    for (const rung of RUNGS) {
      const r = await ranker.rank("clamp a value between bounds", rung);
      expect(r.length).toBeGreaterThan(0);
      expect(Object.keys(r[0]!.channels).length).toBeGreaterThan(0);
    }
    const full = await ranker.rank("clamp a value between bounds", "memcards");
    expect(full.some((x) => x.channels.symbols !== undefined)).toBe(true);
  });

  it("an empty query returns nothing rather than failing", async () => {
    expect(await ranker.rank("", "memcards")).toEqual([]);
  });
});
