// The context graph of the polyglot fixture: symbols, imports, tests, rules, FTS, vectors, incremental runs.
import { appendFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { indexRepository } from "../../src/graph/index-repository.js";
import { neighborhood } from "../../src/graph/neighborhood.js";
import { silentLogger } from "../../src/log.js";
import { getNodeByKey } from "../../src/storage/graph/nodes.js";
import { searchFts } from "../../src/storage/graph/search.js";
import { copyPolyglot } from "../repo/fixture.js";
import { openTestApp } from "./helpers.js";

const edgeTargets = (app: App, ref: string, type: string, dir: "out" | "in") =>
  neighborhood(app.db, ref, 100)
    .groups.filter((g) => g.edgeType === type && g.direction === dir)
    .flatMap((g) => g.nodes.map((n) => n.path));

describe("context graph of the polyglot fixture", () => {
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

  it("has file, test, symbol and rule nodes with spans", () => {
    const area = getNodeByKey(app.db, "sym:pyproj/shapes/geometry.py#Circle.area");
    expect(area).toMatchObject({ type: "symbol", kind: "method", start_line: 15, path: "pyproj/shapes/geometry.py" });
    expect(getNodeByKey(app.db, "file:pyproj/tests/test_geometry.py")?.type).toBe("test");
    expect(getNodeByKey(app.db, "file:AGENTS.md")?.type).toBe("rule");
    expect(getNodeByKey(app.db, "file:.cursor/rules/python-style.mdc")?.type).toBe("rule");
    expect(getNodeByKey(app.db, "sym:web/src/components/Button.tsx#Button")).toBeDefined();
    expect(getNodeByKey(app.db, "file:node_modules/leftpad/index.js")).toBeUndefined();
  });

  it("links imports to files, tests to what they cover, and rules to the paths they govern", () => {
    expect(edgeTargets(app, "pyproj/shapes/geometry.py", "imports", "out")).toContain("pyproj/shapes/util.py");
    expect(edgeTargets(app, "pyproj/shapes/geometry.py", "test_covers", "in")).toEqual([
      "pyproj/tests/test_geometry.py",
    ]);
    const governed = edgeTargets(app, "pyproj/AGENTS.md", "precondition", "out");
    expect(governed).toContain("pyproj/shapes/geometry.py");
    expect(governed.every((p) => p?.startsWith("pyproj/"))).toBe(true);
    const pyStyle = edgeTargets(app, ".cursor/rules/python-style.mdc", "precondition", "out");
    expect(pyStyle).toContain("pyproj/shapes/util.py");
    expect(pyStyle).not.toContain("web/src/math.ts");
    expect(edgeTargets(app, "pyproj/shapes/geometry.py", "contains", "out").length).toBeGreaterThanOrEqual(4);
  });

  it("finds files by identifier parts through FTS and has vectors with similar edges", () => {
    const hits = searchFts(app.db, '"diameter"', { types: ["file"], limit: 5, weights: [2, 3, 1] });
    expect(hits.length).toBeGreaterThan(0);
    const ids = hits.map((h) => h.id);
    expect(ids).toContain(getNodeByKey(app.db, "file:pyproj/shapes/geometry.py")?.id);
    const pending = app.db.prepare("SELECT COUNT(*) AS n FROM vector_items WHERE embedded = 0").get() as { n: number };
    expect(pending.n).toBe(0);
    const similar = app.db.prepare("SELECT COUNT(*) AS n FROM edges WHERE type = 'similar'").get() as { n: number };
    expect(similar.n).toBeGreaterThan(0);
  });

  it("re-indexes only what changed: modify, add, delete, rename", async () => {
    const keepId = getNodeByKey(app.db, "sym:pyproj/shapes/geometry.py#Circle.area")?.id;
    const noChange = await indexRepository({ db: app.db, projectId: app.project.id, root, logger: silentLogger });
    expect(noChange.files.parsed).toBe(0);

    appendFileSync(join(root, "pyproj/shapes/geometry.py"), "\n\ndef perimeter(c):\n    return 2 * c.radius\n");
    writeFileSync(
      join(root, "pyproj/shapes/extra.py"),
      "from .geometry import Circle\n\ndef unit():\n    return Circle(1)\n",
    );
    rmSync(join(root, "pyproj/shapes/sub/poly.py"));
    renameSync(join(root, "ruby/lib/greeter.rb"), join(root, "ruby/lib/hello.rb"));
    const r = await indexRepository({ db: app.db, projectId: app.project.id, root, logger: silentLogger });
    expect(r.files.parsed).toBe(3);
    expect(r.files.deleted).toBe(2);
    expect(getNodeByKey(app.db, "sym:pyproj/shapes/geometry.py#perimeter")).toBeDefined();
    expect(getNodeByKey(app.db, "sym:pyproj/shapes/geometry.py#Circle.area")?.id).toBe(keepId);
    expect(getNodeByKey(app.db, "file:pyproj/shapes/sub/poly.py")).toBeUndefined();
    expect(getNodeByKey(app.db, "file:ruby/lib/hello.rb")).toBeDefined();
    expect(getNodeByKey(app.db, "file:ruby/lib/greeter.rb")).toBeUndefined();
    expect(edgeTargets(app, "pyproj/shapes/extra.py", "imports", "out")).toContain("pyproj/shapes/geometry.py");
    // A modified file alone (nothing added or removed) re-resolves just its own edges.
    writeFileSync(
      join(root, "pyproj/shapes/extra.py"),
      "from . import util\n\ndef unit():\n    return util.clamp(1, 0, 2)\n",
    );
    const m = await indexRepository({ db: app.db, projectId: app.project.id, root, logger: silentLogger });
    expect(m.files.parsed).toBe(1);
    const now = edgeTargets(app, "pyproj/shapes/extra.py", "imports", "out");
    expect(now).toContain("pyproj/shapes/util.py");
    expect(now).not.toContain("pyproj/shapes/geometry.py");
    // Deleted nodes leave no FTS rows behind.
    const orphans = app.db
      .prepare(
        "SELECT COUNT(*) AS n FROM nodes_fts f WHERE f.rowid NOT IN (SELECT id FROM nodes) AND nodes_fts MATCH 'polygon OR poly'",
      )
      .get() as { n: number };
    expect(orphans.n).toBe(0);
  });
});
