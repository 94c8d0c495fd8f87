// A re-index skips a file without reading it only when its whole stamp is the recorded one: size and mtime, and also
// its inode and change time. A content rewritten in place under its old size and mtime, or saved through another file
// renamed over it with the old mtime kept, is read and parsed again. A store written before the inode and change time
// were kept trusts size and mtime until a scan records both, without reading any file for it.
import { renameSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { indexRepository } from "../../src/graph/index-repository.js";
import { silentLogger } from "../../src/log.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";

/** Two contents of the same length: only the bytes differ. */
const ALPHA = "def alpha(x):\n    return x + 1\n";
const OMEGA = "def omega(x):\n    return x + 2\n";
/** Longer than the index's racy-stamp window (RACY_STAMP_MS in src/graph/index-repository.ts). */
const RACY_WAIT_MS = 2100;

describe("a file changed under its old size and mtime", () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function indexed() {
    const root = tmpDir();
    const file = join(root, "a.py");
    writeFileSync(file, ALPHA);
    writeFileSync(join(root, "b.py"), "def beta():\n    return 2\n");
    // An mtime well in the past, as a checkout leaves it: nothing about it is racy.
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(file, old, old);
    app = openTestApp(root);
    const a = app;
    const index = () => indexRepository({ db: a.db, projectId: a.project.id, root, logger: silentLogger });
    const symbols = () =>
      (
        a.db.prepare("SELECT name FROM nodes WHERE path = 'a.py' AND type = 'symbol' ORDER BY name").all() as {
          name: string;
        }[]
      ).map((r) => r.name);
    expect((await index()).files.parsed).toBe(2);
    expect(symbols()).toEqual(["alpha"]);
    return { a, root, file, old, index, symbols };
  }

  it("is parsed again when it was rewritten in place (its change time moved)", async () => {
    const { file, old, index, symbols } = await indexed();
    const before = statSync(file);
    writeFileSync(file, OMEGA);
    utimesSync(file, old, old);
    const after = statSync(file);
    expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    const r = await index();
    expect(r.files.parsed).toBe(1);
    expect(symbols()).toEqual(["omega"]);
  });

  it("is parsed again when another file with its old mtime was renamed over it (a new inode)", async () => {
    const { root, file, old, index, symbols } = await indexed();
    const before = statSync(file);
    const tmp = join(root, ".a.py.swp");
    writeFileSync(tmp, OMEGA);
    utimesSync(tmp, old, old);
    renameSync(tmp, file);
    const after = statSync(file);
    expect([after.size, after.mtimeMs]).toEqual([before.size, before.mtimeMs]);
    expect(after.ino).not.toBe(before.ino);
    const r = await index();
    expect(r.files.parsed).toBe(1);
    expect(symbols()).toEqual(["omega"]);
  });

  it("is left alone when nothing about it moved", async () => {
    const { index, symbols } = await indexed();
    const r = await index();
    expect(r.files.parsed).toBe(0);
    expect(r.files.unchanged).toBe(2);
    expect(symbols()).toEqual(["alpha"]);
  });

  it("over rows that never recorded inode and change time: trusted by size and mtime, then stamped in full", async () => {
    const { a, file, old, index, symbols } = await indexed();
    // A store written before the columns existed.
    a.db.exec("UPDATE files SET ino = NULL, ctime_ms = NULL");
    // A stamp is recorded only once it is older than a clock tick (a coarse file system's): a.py's change time is
    // that of the utimes call above.
    await new Promise((r) => setTimeout(r, RACY_WAIT_MS));
    const r = await index();
    expect(r.files.parsed).toBe(0);
    const st = statSync(file);
    expect(a.db.prepare("SELECT ino, ctime_ms FROM files WHERE path = 'a.py'").get()).toEqual({
      ino: st.ino,
      ctime_ms: st.ctimeMs,
    });
    // From then on the change time tells an in-place rewrite.
    writeFileSync(file, OMEGA);
    utimesSync(file, old, old);
    expect((await index()).files.parsed).toBe(1);
    expect(symbols()).toEqual(["omega"]);
  });
});
