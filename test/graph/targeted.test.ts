// A build limited to the paths a watcher saw change: the same graph as a whole re-index, without scanning the rest.
import { appendFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { indexRepository } from "../../src/graph/index-repository.js";
import { silentLogger } from "../../src/log.js";
import { getNodeByKey } from "../../src/storage/graph/nodes.js";
import { copyPolyglot } from "../repo/fixture.js";
import { openTestApp } from "./helpers.js";

/** Every node (by key, with its span) and every edge but `similar` (by the keys it joins). */
function snapshot(app: App) {
  const nodes = app.db.prepare("SELECT key, type, name, start_line, end_line FROM nodes ORDER BY key").all();
  const edges = app.db
    .prepare(
      `SELECT a.key AS src, e.type AS type, b.key AS dst, e.weight AS weight FROM edges e
       JOIN nodes a ON a.id = e.src JOIN nodes b ON b.id = e.dst WHERE e.type != 'similar' ORDER BY 1, 2, 3`,
    )
    .all();
  const fts = app.db.prepare("SELECT COUNT(*) AS n FROM nodes_fts WHERE nodes_fts MATCH 'perimeter OR unit'").get();
  return { nodes, edges, fts };
}

/** Applies the same edits to a tree: a modified file, an added one, a deleted one and a renamed one. */
function edit(root: string): string[] {
  appendFileSync(join(root, "pyproj/shapes/geometry.py"), "\n\ndef perimeter(c):\n    return 2 * c.radius\n");
  writeFileSync(
    join(root, "pyproj/shapes/extra.py"),
    "from .geometry import Circle\n\ndef unit():\n    return Circle(1)\n",
  );
  rmSync(join(root, "pyproj/shapes/sub/poly.py"));
  renameSync(join(root, "ruby/lib/greeter.rb"), join(root, "ruby/lib/hello.rb"));
  return [
    "pyproj/shapes/geometry.py",
    "pyproj/shapes/extra.py",
    "pyproj/shapes/sub/poly.py",
    "ruby/lib/greeter.rb",
    "ruby/lib/hello.rb",
  ];
}

describe("a build of the changed paths", () => {
  it("leaves the graph a whole re-index leaves, and looks at nothing else", async () => {
    const whole = copyPolyglot();
    const targeted = copyPolyglot();
    const a = openTestApp(whole);
    const b = openTestApp(targeted);
    try {
      await buildGraph(a.scope, a);
      await buildGraph(b.scope, b);
      edit(whole);
      const paths = edit(targeted);
      // A change outside the given paths is not seen by the targeted build.
      appendFileSync(join(targeted, "pyproj/shapes/util.py"), "\n\ndef unseen():\n    return 0\n");
      const full = await indexRepository({ db: a.db, projectId: a.project.id, root: whole, logger: silentLogger });
      const some = await indexRepository({
        db: b.db,
        projectId: b.project.id,
        root: targeted,
        logger: silentLogger,
        paths,
      });
      expect(some.files.scanned).toBe(3);
      expect(some.files.parsed).toBe(full.files.parsed);
      expect(some.files.deleted).toBe(full.files.deleted);
      expect(getNodeByKey(b.db, "sym:pyproj/shapes/util.py#unseen")).toBeUndefined();
      expect(snapshot(b)).toEqual(snapshot(a));
      expect(some.counts).toEqual(full.counts);

      // The unseen change is picked up once its path is given; a folder stands for everything under it.
      const later = await indexRepository({
        db: b.db,
        projectId: b.project.id,
        root: targeted,
        logger: silentLogger,
        paths: ["pyproj/shapes"],
      });
      expect(later.files.parsed).toBe(1);
      expect(getNodeByKey(b.db, "sym:pyproj/shapes/util.py#unseen")).toBeDefined();

      // A removed folder removes every indexed file under it.
      rmSync(join(targeted, "ruby"), { recursive: true });
      const gone = await indexRepository({
        db: b.db,
        projectId: b.project.id,
        root: targeted,
        logger: silentLogger,
        paths: ["ruby"],
      });
      expect(gone.files.deleted).toBeGreaterThan(0);
      expect(b.db.prepare("SELECT COUNT(*) AS n FROM files WHERE path LIKE 'ruby/%'").get()).toEqual({ n: 0 });
    } finally {
      await a.close();
      await b.close();
    }
  });
});
