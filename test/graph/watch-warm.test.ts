// A watcher is ready once its worker has warmed up: the grammars loaded, a typical file of the index parsed and the
// index's reads made. An edit after that is indexed.
import { appendFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { symbolsNamed } from "../../src/storage/graph/nodes.js";
import { openTestApp } from "./helpers.js";
import { syntheticRepo } from "./synthetic.js";

describe("a watcher's warm-up", () => {
  let root: string;
  let app: App;
  beforeAll(async () => {
    root = syntheticRepo(8, 3);
    app = openTestApp(root);
    await buildGraph(app.scope, app, { lexicalOnly: true });
  }, 120_000);
  afterAll(async () => {
    await app.close();
  });

  it("is over when the watcher is ready, and the first edit after it reaches the store", async () => {
    let indexed: (() => void) | undefined;
    const watcher = app.graph.watch({ debounceMs: 20, onIndexed: () => indexed?.() });
    try {
      await watcher.ready;
      expect(watcher.active).toBe(true);
      const done = new Promise<void>((r) => (indexed = r));
      appendFileSync(join(root, "pkg4", "mod4.py"), "\ndef wombat_after_warm(x):\n    return x\n");
      await done;
      expect(symbolsNamed(app.db, "wombat_after_warm").map((s) => s.path)).toEqual(["pkg4/mod4.py"]);
    } finally {
      await watcher.close();
    }
  });
});
