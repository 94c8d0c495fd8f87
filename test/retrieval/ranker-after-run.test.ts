// A server's ranker after an index run: the app makes a new one (its caches belong to the run before), and the new
// one compares vectors in memory as the warmed one did, not against sqlite-vec for its first queries.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

const calls = vi.hoisted(() => ({ sqliteVec: 0 }));
vi.mock("../../src/storage/vectors.js", async (importOriginal) => {
  const mod = await importOriginal<typeof import("../../src/storage/vectors.js")>();
  return {
    ...mod,
    nearestVectors: (...args: Parameters<typeof mod.nearestVectors>) => {
      calls.sqliteVec++;
      return mod.nearestVectors(...args);
    },
  };
});

describe("a server's ranker after an index run", () => {
  let root: string;
  let app: App;
  beforeAll(async () => {
    root = copyPolyglot();
    app = openTestApp(root);
    await buildGraph(app.scope, app);
  });
  afterAll(async () => {
    await app.close();
  });

  it("compares vectors in memory from its first query, as the warmed ranker before it did", async () => {
    const task = "Circle.area returns a negative value when the radius is negative";
    // As the server starts: the ranker is warmed, then answers from memory.
    app.ranker.warm();
    const before = await app.ranker.rank(task);
    calls.sqliteVec = 0;
    await app.ranker.rank(task);
    expect(calls.sqliteVec).toBe(0);

    // The watcher re-indexes an edited file: a new index run, so a new ranker.
    const first = app.ranker;
    writeFileSync(join(root, "pyproj/shapes/notes.py"), "# notes on shapes\nNOTE = 1\n");
    await buildGraph(app.scope, app, { paths: ["pyproj/shapes/notes.py"] });
    expect(app.ranker).not.toBe(first);
    calls.sqliteVec = 0;
    const after = await app.ranker.rank(task);
    expect(calls.sqliteVec).toBe(0);
    expect(after.slice(0, 3).map((r) => r.path)).toEqual(before.slice(0, 3).map((r) => r.path));
  });
});
