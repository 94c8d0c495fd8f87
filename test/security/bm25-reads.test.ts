// The whole-file BM25 reads indexed files under the scan's rules: a FIFO or a link to outside the project
// swapped in after indexing is never read (and never waited on).
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { readInsideRoot } from "../../src/repo/scan.js";
import { type Bm25Reader, createBm25Store, rootReader } from "../../src/retrieval/bm25-store.js";
import { type ChannelSet, createRanker } from "../../src/retrieval/rank.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";
import { copyPolyglot } from "../repo/fixture.js";

const BM25: ChannelSet = { anchors: false, symbols: false, vectors: false, expansion: false, path_prior: false };

describe("BM25 reads after indexing", () => {
  let app: App;
  let root: string;
  let outside: string;
  beforeAll(async () => {
    root = copyPolyglot();
    app = openTestApp(root);
    await buildGraph(app.scope, app);
    // Counts stored at index time are read without opening a file; a store without them (counted before they were
    // kept) reads the files, which is the path checked here.
    app.db.exec("DELETE FROM file_terms");
    outside = join(tmpDir("memcards-outside-"), "secret.txt");
    writeFileSync(outside, "zanzibar zanzibar exfiltrated_token\n");
    const fifo = join(root, "pyproj/shapes/geometry.py");
    rmSync(fifo);
    execFileSync("mkfifo", [fifo]);
    const link = join(root, "pyproj/shapes/util.py");
    rmSync(link);
    symlinkSync(outside, link);
  });
  afterAll(async () => {
    await app.close();
  });

  it("skips a FIFO and a link to outside the project without hanging", async () => {
    const seen: string[] = [];
    const base = rootReader(root);
    const reader: Bm25Reader = (p) => {
      const text = base(p);
      if (text !== undefined) seen.push(p);
      return text;
    };
    const ranker = createRanker(app.db, { embedder: app.embedding.embedder, root, bm25: createBm25Store(reader) });
    const r = await ranker.rankWith("zanzibar exfiltrated_token diameter", BM25);
    expect(r.map((x) => x.path)).not.toContain("pyproj/shapes/util.py");
    expect(r.map((x) => x.path)).not.toContain("pyproj/shapes/geometry.py");
    expect(seen).not.toContain("pyproj/shapes/util.py");
    expect(seen).not.toContain("pyproj/shapes/geometry.py");
    expect(seen.length).toBeGreaterThan(5);
  }, 20_000);

  it("readInsideRoot refuses escapes, special files and oversized files", () => {
    const dir = realpathSync(tmpDir("memcards-read-"));
    mkdirSync(join(dir, "a"));
    writeFileSync(join(dir, "a/ok.txt"), "fine");
    writeFileSync(join(dir, "a/big.txt"), "x".repeat(2048));
    execFileSync("mkfifo", [join(dir, "a/pipe")]);
    symlinkSync(outside, join(dir, "a/out.txt"));
    symlinkSync(join(dir, "a/ok.txt"), join(dir, "a/in.txt"));
    expect(readInsideRoot(dir, "a/ok.txt")).toBe("fine");
    expect(readInsideRoot(dir, "a/in.txt")).toBe("fine");
    expect(readInsideRoot(dir, "a/out.txt")).toBeUndefined();
    expect(readInsideRoot(dir, "a/pipe")).toBeUndefined();
    expect(readInsideRoot(dir, "a")).toBeUndefined();
    expect(readInsideRoot(dir, "../" + outside)).toBeUndefined();
    expect(readInsideRoot(dir, "a/big.txt", 1024)).toBeUndefined();
    expect(readInsideRoot(dir, "a/missing.txt")).toBeUndefined();
  });
});
