// Incremental whole-file BM25 in memory (what a ranker counts itself when the store holds no counts for the current
// files): only changed files are read again after a re-index, removed files drop out, a large first build is read in
// slices while the ranker falls back to the index's own full-text search.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { bm25Tokens, buildBm25Index, scoreBm25 } from "../../src/retrieval/bm25.js";
import { type Bm25Reader, createBm25Store, rootReader } from "../../src/retrieval/bm25-store.js";
import { type ChannelSet, createRanker } from "../../src/retrieval/rank.js";
import { clearFileTerms } from "../../src/storage/graph/terms.js";
import { openTestApp } from "../graph/helpers.js";
import { copyPolyglot, POLYGLOT } from "../repo/fixture.js";

const BM25: ChannelSet = { anchors: false, symbols: false, vectors: false, expansion: false, path_prior: false };

describe("incremental BM25 over an indexed tree", () => {
  let app: App;
  let root: string;
  const readPaths: string[] = [];
  let reader: Bm25Reader;
  beforeAll(async () => {
    root = copyPolyglot();
    app = openTestApp(root);
    await buildGraph(app.scope, app);
    clearFileTerms(app.db);
    const base = rootReader(root);
    reader = (p) => {
      readPaths.push(p);
      return base(p);
    };
  });
  afterAll(async () => {
    await app.close();
  });

  it("re-reads only the edited file after a re-index, and ranks by its new text", async () => {
    const store = createBm25Store(reader);
    const first = createRanker(app.db, { embedder: app.embedding.embedder, root, bm25: store });
    expect((await first.rankWith("circle radius diameter", BM25))[0]?.path).toBe("pyproj/shapes/geometry.py");
    const initial = store.reads;
    expect(initial).toBeGreaterThan(10);

    const edited = join(root, "gosvc/store/store.go");
    writeFileSync(edited, readFileSync(edited, "utf8") + "\n// zebrafish zebrafish habitat\n");
    rmSync(join(root, "pyproj/shapes/geometry.py"));
    await buildGraph(app.scope, app);
    clearFileTerms(app.db);
    readPaths.length = 0;

    const second = createRanker(app.db, { embedder: app.embedding.embedder, root, bm25: store });
    const r = await second.rankWith("zebrafish habitat", BM25);
    expect(r[0]?.path).toBe("gosvc/store/store.go");
    expect(readPaths).toEqual(["gosvc/store/store.go"]);
    expect(store.reads).toBe(initial + 1);
    const d = await second.rankWith("circle radius diameter", BM25);
    expect(d.map((x) => x.path)).not.toContain("pyproj/shapes/geometry.py");
  });
});

describe("a large first build", () => {
  it("is read in slices in the background; the index is complete once the slices are done", async () => {
    const texts = new Map<string, string>();
    for (let i = 0; i < 9; i++) texts.set(`src/m${i}.py`, `def handler${i}(): return ${i}`);
    let reads = 0;
    const store = createBm25Store(
      (p) => {
        reads++;
        return texts.get(p);
      },
      { sliceFiles: 2 },
    );
    const files = [...texts.keys()].map((path) => ({ path, hash: `h-${path}` }));
    expect(store.index(files)).toBeUndefined();
    expect(reads).toBe(2);
    // The slices run on timers, between whatever else the process does.
    for (let i = 0; i < 200 && reads < 9; i++) await new Promise((r) => setTimeout(r, 2));
    expect(reads).toBe(9);
    const index = store.index(files);
    expect(index?.keys.length).toBe(9);
    expect(reads).toBe(9);
    expect(scoreBm25(index!, bm25Tokens("handler4"))[0]?.key).toBe("src/m4.py");
  });

  it("falls back to full-text search while the build is reading", async () => {
    const root = copyPolyglot();
    const app = openTestApp(root);
    try {
      await buildGraph(app.scope, app);
      clearFileTerms(app.db);
      const store = createBm25Store(rootReader(root), { sliceFiles: 1 });
      const ranker = createRanker(app.db, { embedder: app.embedding.embedder, root, bm25: store });
      const r = await ranker.rankWith("diameter", BM25);
      expect(r[0]?.path).toBe("pyproj/shapes/geometry.py");
      expect(store.reads).toBeLessThan(5);
    } finally {
      await app.close();
    }
  });
});

describe("ASCII text", () => {
  it("scores the polyglot fixture exactly as the ASCII tokenizer did", () => {
    const pinned = JSON.parse(
      readFileSync(join(dirname(fileURLToPath(import.meta.url)), "bm25-polyglot-pinned.json"), "utf8"),
    ) as {
      files: string[];
      out: Record<string, [string, number][]>;
    };
    const index = buildBm25Index(pinned.files.map((key) => ({ key, text: readFileSync(join(POLYGLOT, key), "utf8") })));
    for (const [q, want] of Object.entries(pinned.out)) {
      const got = scoreBm25(index, bm25Tokens(q), 8).map((x) => [x.key, Number(x.score.toFixed(9))]);
      expect(got, q).toEqual(want);
    }
  });
});
