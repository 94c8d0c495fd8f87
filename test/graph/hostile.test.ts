// Hostile trees: symlink loops, dangling links, named pipes, and files that vanish or change between runs.
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { buildGraph } from "../../src/graph/build-graph.js";
import { getNodeByKey } from "../../src/storage/graph/nodes.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";

describe("indexing a hostile tree", () => {
  it("counts loops, dangling links and pipes as skips, never hangs or crashes, and follows later changes", async () => {
    const root = tmpDir();
    mkdirSync(join(root, "pkg"));
    writeFileSync(join(root, "pkg", "core.py"), "def core():\n    return 1\n");
    writeFileSync(join(root, "pkg", "gone.py"), "def gone():\n    return 2\n");
    symlinkSync(join(root, "pkg"), join(root, "pkg", "loop")); // a directory link back to its parent
    symlinkSync(join(root, "missing.py"), join(root, "dangling.py"));
    execFileSync("mkfifo", [join(root, "pipe.py")]); // reading it would block forever
    const app = openTestApp(root);
    try {
      const first = await buildGraph(app.scope, app, { lexicalOnly: true });
      expect(first.files.parsed).toBe(2);
      expect(first.skipped).toMatchObject({ symlink: 1, unreadable: 1, "not-a-file": 1 });
      expect(getNodeByKey(app.db, "sym:pkg/core.py#core")).toBeDefined();

      // Between runs: one file vanishes, one changes; the next run follows both.
      rmSync(join(root, "pkg", "gone.py"));
      writeFileSync(join(root, "pkg", "core.py"), "def core2():\n    return 3\n");
      const second = await buildGraph(app.scope, app, { lexicalOnly: true });
      expect(second.files.deleted).toBe(1);
      expect(second.files.parsed).toBe(1);
      expect(getNodeByKey(app.db, "sym:pkg/gone.py#gone")).toBeUndefined();
      expect(getNodeByKey(app.db, "sym:pkg/core.py#core2")).toBeDefined();
      expect(getNodeByKey(app.db, "sym:pkg/core.py#core")).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});
