// A file whose content is unchanged under a new time gets that time recorded, for the content this run verified:
// when another run (the watcher) wrote the file's row between this run's scan and its restamp, the new time is not
// put on that other content, which would then be trusted for a content it never had.
import { createHash } from "node:crypto";
import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { indexRepository } from "../../src/graph/index-repository.js";
import { createLogger, type Logger, silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";

/** Longer than the index's racy-stamp window (RACY_STAMP_MS in src/graph/index-repository.ts). */
const RACY_WAIT_MS = 2100;

describe("a restamp racing another run's write of the same file", () => {
  it("leaves the other run's row unstamped, so the next run reads the file again", async () => {
    const root = tmpDir();
    const file = join(root, "a.py");
    writeFileSync(file, "def alpha():\n    return 1\n");
    writeFileSync(join(root, "b.py"), "def beta():\n    return 2\n");
    const app = openTestApp(root);
    const index = (logger: Logger = silentLogger) =>
      indexRepository({ db: app.db, projectId: app.project.id, root, logger });
    const row = () =>
      app.db.prepare("SELECT hash, size, mtime_ms FROM files WHERE path = 'a.py'").get() as {
        hash: string;
        size: number;
        mtime_ms: number;
      };
    try {
      await index();
      // The same content under a new time (a checkout): this run reads it, finds its hash, and restamps it.
      const later = new Date(Date.now() - 60_000);
      utimesSync(file, later, later);
      const stamped = () => row().mtime_ms === statSync(file).mtimeMs;
      // Meanwhile another run stores what it read of the file before it was put back: another content.
      const quiet = createLogger("silent");
      const racing: Logger = {
        ...quiet,
        debug: (msg) => {
          if (msg === "index.scan")
            app.db.prepare("UPDATE files SET hash = ?, size = size + 7 WHERE path = 'a.py'").run("f".repeat(40));
        },
      };
      await index(racing);
      expect(stamped()).toBe(false);
      await index();
      const onDisk = createHash("sha1").update(readFileSync(file)).digest("hex");
      expect(row().hash).toBe(onDisk);
    } finally {
      await app.close();
    }
  });

  it("records the new time of unchanged content once it is older than a clock tick, not sooner", async () => {
    const root = tmpDir();
    const file = join(root, "a.py");
    writeFileSync(file, "def alpha():\n    return 1\n");
    const app = openTestApp(root);
    const index = (logger: Logger = silentLogger) =>
      indexRepository({ db: app.db, projectId: app.project.id, root, logger });
    const mtime = () =>
      (app.db.prepare("SELECT mtime_ms FROM files WHERE path = 'a.py'").get() as { mtime_ms: number }).mtime_ms;
    try {
      await index();
      const before = new Date(Date.now() - 60_000);
      utimesSync(file, before, before);
      // Not sooner: the call that set the mtime moved the file's change time to now, and a stamp holds both.
      await index();
      expect(mtime()).not.toBe(statSync(file).mtimeMs);
      await new Promise((r) => setTimeout(r, RACY_WAIT_MS));
      await index();
      expect(mtime()).toBe(statSync(file).mtimeMs);

      // Touched just now (a checkout), and rewritten with other bytes of the same size within the same clock tick
      // once this run had read it: the time this run saw is also the new content's.
      const now = new Date();
      utimesSync(file, now, now);
      const racing: Logger = {
        ...createLogger("silent"),
        debug: (msg) => {
          if (msg !== "index.scan") return;
          writeFileSync(file, "def omega():\n    return 9\n");
          utimesSync(file, now, now);
        },
      };
      await index(racing);
      await index();
      const onDisk = createHash("sha1").update(readFileSync(file)).digest("hex");
      expect((app.db.prepare("SELECT hash FROM files WHERE path = 'a.py'").get() as { hash: string }).hash).toBe(
        onDisk,
      );
      expect(app.db.prepare("SELECT 1 FROM nodes WHERE path = 'a.py' AND name = 'omega'").get()).toBeDefined();
    } finally {
      await app.close();
    }
  });
});
