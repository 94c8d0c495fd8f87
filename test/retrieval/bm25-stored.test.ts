// Whole-file BM25 from the counts the index stores: the same scores as counting the files in memory, kept in step by
// each index run (only changed files are read again), and a ranking over them reads no file at all.
import { linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { bm25SourceFiles, refreshFileTerms } from "../../src/graph/file-terms.js";
import { bm25Tokens, scoreBm25 } from "../../src/retrieval/bm25.js";
import { createBm25Store, rootReader } from "../../src/retrieval/bm25-store.js";
import { storedBm25 } from "../../src/retrieval/bm25-stored.js";
import { type ChannelSet, createRanker } from "../../src/retrieval/rank.js";
import { clearFileTerms, fileTermRows } from "../../src/storage/graph/terms.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";
import { copyPolyglot } from "../repo/fixture.js";

const BM25: ChannelSet = { anchors: false, symbols: false, vectors: false, expansion: false, path_prior: false };
const QUERIES = [
  "circle radius diameter",
  "parse the config file and return the handler",
  "store get put key value",
  "render the widget props",
];

/** BM25 of `query` over the stored counts and over the files counted in memory, for comparison. */
function bothWays(app: App, root: string, query: string) {
  const sources = bm25SourceFiles(app.db);
  const stored = storedBm25(app.db, sources);
  const memory = createBm25Store(rootReader(root)).index(sources);
  const tokens = bm25Tokens(query);
  return { stored: stored ? scoreBm25(stored(tokens), tokens, 50) : undefined, memory: scoreBm25(memory!, tokens, 50) };
}

describe("stored whole-file BM25", () => {
  let app: App;
  let root: string;
  beforeAll(async () => {
    root = copyPolyglot();
    app = openTestApp(root);
    await buildGraph(app.scope, app);
  });
  afterAll(async () => {
    await app.close();
  });

  it("is written by the index run and scores exactly as counting the files in memory", () => {
    expect(fileTermRows(app.db).length).toBe(bm25SourceFiles(app.db).length);
    for (const q of QUERIES) {
      const { stored, memory } = bothWays(app, root, q);
      expect(memory.length, q).toBeGreaterThan(0);
      expect(stored, q).toEqual(memory);
    }
  });

  it("follows an edit and a removal, reading only the edited file", async () => {
    const edited = join(root, "gosvc/store/store.go");
    writeFileSync(edited, readFileSync(edited, "utf8") + "\n// zebrafish zebrafish habitat\n");
    rmSync(join(root, "pyproj/shapes/geometry.py"));
    // The index run refreshes the counts itself; a second refresh finds nothing left to read.
    await buildGraph(app.scope, app);
    expect(refreshFileTerms(app.db, root)).toEqual({ read: 0, removed: 0 });
    const paths = fileTermRows(app.db).map((r) => r.path);
    expect(paths).not.toContain("pyproj/shapes/geometry.py");
    for (const q of [...QUERIES, "zebrafish habitat"]) {
      const { stored, memory } = bothWays(app, root, q);
      expect(stored, q).toEqual(memory);
    }
    const { stored } = bothWays(app, root, "zebrafish habitat");
    expect(stored?.[0]?.key).toBe("gosvc/store/store.go");
  });

  it("lets a ranker rank without reading any file", async () => {
    const reads: string[] = [];
    const base = rootReader(root);
    const store = createBm25Store((p) => {
      reads.push(p);
      return base(p);
    });
    const ranker = createRanker(app.db, { embedder: app.embedding.embedder, root, bm25: store });
    const r = await ranker.rankWith("zebrafish habitat", BM25);
    expect(r[0]?.path).toBe("gosvc/store/store.go");
    expect(r[0]?.channels.bm25).toBe(1);
    expect(reads).toEqual([]);
  });

  it("is not used when the files changed since it was counted: the ranker counts them itself", async () => {
    const before = fileTermRows(app.db).length;
    writeFileSync(join(root, "gosvc/store/extra.go"), "package store\n\n// okapi okapi giraffe\nfunc Okapi() {}\n");
    await buildGraph(app.scope, app);
    expect(fileTermRows(app.db).length).toBe(before + 1);
    const { stored, memory } = bothWays(app, root, "okapi giraffe");
    expect(stored).toEqual(memory);
    expect(stored?.[0]?.key).toBe("gosvc/store/extra.go");
    // Counts that no longer describe the files are refused.
    const sources = bm25SourceFiles(app.db).map((s) => (s.path.endsWith("extra.go") ? { ...s, hash: "changed" } : s));
    expect(storedBm25(app.db, sources)).toBeUndefined();
  });
});

describe("a file that could not be read when counted", () => {
  it("is counted at the next refresh once it reads again, as counting the files in a new process does", async () => {
    const root = copyPolyglot();
    const app = openTestApp(root);
    try {
      await buildGraph(app.scope, app);
      const path = "gosvc/store/store.go";
      // A second link makes the file one the reader refuses (as a file replaced mid-read is): counted as unread.
      const link = join(tmpDir(), "store-link.go");
      linkSync(join(root, path), link);
      clearFileTerms(app.db);
      refreshFileTerms(app.db, root);
      expect(fileTermRows(app.db).find((r) => r.path === path)?.len).toBe(-1);
      rmSync(link);
      refreshFileTerms(app.db, root);
      expect(fileTermRows(app.db).find((r) => r.path === path)?.len).toBeGreaterThan(0);
      const { stored, memory } = bothWays(app, root, "store get put key value");
      expect(stored).toEqual(memory);
    } finally {
      await app.close();
    }
  });
});

describe("a file that changed between the index's scan and the counting", () => {
  it("is counted again once it is back to what the index holds", async () => {
    const root = copyPolyglot();
    const app = openTestApp(root);
    try {
      await buildGraph(app.scope, app);
      const file = join(root, "gosvc/store/store.go");
      const original = readFileSync(file, "utf8");
      // An edit the index has not scanned yet when the counts are refreshed (a save during an index run)...
      writeFileSync(file, original + "\n// okapi okapi okapi\n");
      clearFileTerms(app.db);
      refreshFileTerms(app.db, root);
      // ...undone before the next run, which then finds the file as it indexed it.
      writeFileSync(file, original);
      await buildGraph(app.scope, app);
      const { stored, memory } = bothWays(app, root, "okapi store get put");
      expect(stored).toEqual(memory);
    } finally {
      await app.close();
    }
  });
});

describe("symbol ranking over stored counts", () => {
  it("scores a symbol the task names in words as counting the files does", async () => {
    const root = copyPolyglot();
    writeFileSync(
      join(root, "pyproj/shapes/rounds.py"),
      "def unitCircle():\n    return circle(1)\n\n\ndef circle(r):\n    return 3.14 * r * r\n",
    );
    const app = openTestApp(root);
    try {
      await buildGraph(app.scope, app);
      // "unit circle" names unitCircle: its idf is the whole-file one of the term `unitcircle`, absent from the task's
      // own tokens.
      const task = "the unit circle is wrong";
      const files = ["pyproj/shapes/rounds.py"];
      const stored = await createRanker(app.db, { root }).rankSymbols(task, 10, { files });
      expect(stored.find((s) => s.name === "unitCircle")?.features.named).toBeGreaterThan(0);
      clearFileTerms(app.db);
      const counted = await createRanker(app.db, { root }).rankSymbols(task, 10, { files });
      expect(stored).toEqual(counted);
    } finally {
      await app.close();
    }
  });
});

describe("a server's warm-up on a store without stored counts", () => {
  it("ends quietly when the store is closed while it is still reading", async () => {
    const root = copyPolyglot();
    const app = openTestApp(root);
    await buildGraph(app.scope, app);
    // A store indexed before the counts were kept: the warm-up reads the files in the background instead.
    clearFileTerms(app.db);
    const crashes: unknown[] = [];
    const onCrash = (err: unknown) => crashes.push(err);
    process.on("uncaughtException", onCrash);
    try {
      app.ranker.warm();
      await app.close();
      // Long enough for every background step and poll the warm-up scheduled to run against the closed store.
      for (let i = 0; i < 10; i++) await new Promise((r) => setTimeout(r, 60));
    } finally {
      process.off("uncaughtException", onCrash);
    }
    expect(crashes).toEqual([]);
  });
});
