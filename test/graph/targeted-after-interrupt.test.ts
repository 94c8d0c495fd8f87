// A build of changed paths after a build that stopped before it had parsed everything (cancelled, killed, or
// overtaken by another run) finishes that work: it scans the whole tree, as a whole build would.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { indexCompleteness } from "../../src/graph/build-state.js";
import { indexRepository } from "../../src/graph/index-repository.js";
import { silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";

describe("a path-limited build after an unfinished build", () => {
  it("indexes the files the unfinished build left out", async () => {
    const root = tmpDir();
    const names = ["a.py", "b.py", "c.py", "d.py"];
    for (const [i, n] of names.entries()) writeFileSync(join(root, n), `def f${i}():\n    return ${i}\n`);
    const app = openTestApp(root);
    const paths = () =>
      (app.db.prepare("SELECT path FROM files ORDER BY path").all() as { path: string }[]).map((r) => r.path);
    try {
      // Stopped after its first batch (a cancel, or a kill).
      let batches = 0;
      await indexRepository({
        db: app.db,
        projectId: app.project.id,
        root,
        logger: silentLogger,
        batchFiles: 1,
        isCancelled: () => batches++ >= 1,
      });
      expect(paths().length).toBeLessThan(names.length);

      // Then the watcher sees one file change.
      writeFileSync(join(root, "a.py"), "def f0():\n    return 10\n");
      await indexRepository({ db: app.db, projectId: app.project.id, root, logger: silentLogger, paths: ["a.py"] });
      expect(paths()).toEqual(names);
      expect(indexCompleteness(app.db)).toEqual({ partial: false, indexed: names.length, total: names.length });
    } finally {
      await app.close();
    }
  });
});
