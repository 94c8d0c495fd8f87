// A no-change index keeps the finished build, yet leaves the whole-file BM25 counts in step with the index: counts
// a newer store format dropped, or counts taken under another content than the one indexed (a save counted during
// a run, then undone with its old time kept), are counted again; the stored BM25 is otherwise bypassed for good.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterEach, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { readBuild } from "../../src/graph/build-state.js";
import { bm25SourceFiles, fileTermsOutOfStep } from "../../src/graph/file-terms.js";
import { indexRepository } from "../../src/graph/index-repository.js";
import { silentLogger } from "../../src/log.js";
import { storedBm25 } from "../../src/retrieval/bm25-stored.js";
import { fileTermRows } from "../../src/storage/graph/terms.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";

describe("a no-change index over counts out of step with the index", () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function indexed(): Promise<{ app: App; root: string; index: () => ReturnType<typeof indexRepository> }> {
    const root = tmpDir();
    writeFileSync(join(root, "a.py"), "def alpha(x):\n    return beta(x)\n");
    writeFileSync(join(root, "b.py"), "def beta(x):\n    return x + 1\n");
    app = openTestApp(root);
    const a = app;
    const index = () => indexRepository({ db: a.db, projectId: a.project.id, root, logger: silentLogger });
    await index();
    expect(fileTermsOutOfStep(a.db)).toBe(false);
    expect(storedBm25(a.db, bm25SourceFiles(a.db))).toBeDefined();
    return { app: a, root, index };
  }

  it("counts again the files whose counts were dropped (a store upgraded to a new counts format)", async () => {
    const { app, index } = await indexed();
    const build = readBuild(app.db);
    app.db.exec("DELETE FROM term_postings; DELETE FROM symbol_terms; DELETE FROM file_terms;");
    const r = await index();
    expect(r.files.parsed).toBe(0);
    expect(readBuild(app.db)).toEqual(build);
    expect(fileTermRows(app.db).map((t) => t.path)).toEqual(["a.py", "b.py"]);
    expect(storedBm25(app.db, bm25SourceFiles(app.db))).toBeDefined();
  });

  it("counts again a file counted under another content than the one indexed", async () => {
    const { app, index } = await indexed();
    app.db.prepare("UPDATE file_terms SET hash = 'counted-from-a-save' WHERE path = 'a.py'").run();
    const r = await index();
    expect(r.files.parsed).toBe(0);
    const files = new Map(bm25SourceFiles(app.db).map((s) => [s.path, s.hash]));
    for (const t of fileTermRows(app.db)) expect(t.hash).toBe(files.get(t.path));
    expect(storedBm25(app.db, bm25SourceFiles(app.db))).toBeDefined();
  });
});
