// The cards' term counts are kept per index run: a later run that adds or removes a term's files is counted afresh.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { buildGraph } from "../../src/graph/build-graph.js";
import { codeNodeCounts, codeTermFrequency, termDocFrequency } from "../../src/storage/graph/search.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot } from "../repo/fixture.js";

describe("term counts kept per index run", () => {
  it("match a fresh count, and follow the next index run", async () => {
    const root = copyPolyglot();
    const app = openTestApp(root);
    try {
      await buildGraph(app.scope, app);
      const count = (t: string) => codeTermFrequency(app.db, t, codeNodeCounts(app.db).other);
      const before = count("okapiwombat");
      expect(before).toBe(0);
      expect(count("circle")).toBe(termDocFrequency(app.db, "circle"));
      writeFileSync(
        join(root, "pyproj", "okapi.py"),
        "def okapiwombat_one():\n    return 1\n\n\ndef okapiwombat_two():\n    return 2\n",
      );
      await buildGraph(app.scope, app);
      expect(count("okapiwombat")).toBe(termDocFrequency(app.db, "okapiwombat"));
      expect(count("okapiwombat")).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });

  it("are counted afresh while no index run has finished (one killed before it recorded its end)", async () => {
    const root = copyPolyglot();
    const app = openTestApp(root);
    const unfinished = () => app.db.prepare("DELETE FROM meta WHERE key = 'graph.last_run'").run();
    try {
      await buildGraph(app.scope, app);
      unfinished();
      const count = (t: string) => codeTermFrequency(app.db, t, codeNodeCounts(app.db).other);
      expect(count("okapiwombat")).toBe(0);
      writeFileSync(join(root, "pyproj", "okapi.py"), "def okapiwombat_one():\n    return 1\n");
      await buildGraph(app.scope, app);
      unfinished();
      expect(count("okapiwombat")).toBe(termDocFrequency(app.db, "okapiwombat"));
      expect(count("okapiwombat")).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
  });
});
