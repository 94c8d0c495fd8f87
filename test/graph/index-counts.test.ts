// What an index run stores once instead of twice: each source file's whole-file counts, taken from the tokens its
// search rows were made of (in the parse worker for a large change), and each symbol's embed text, composed from its
// node's row. Both must equal what reading the files again, or storing the text, gives.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { refreshFileTerms } from "../../src/graph/file-terms.js";
import { clearFileTerms, fileTermRows, storedSymbolBodies, termPostings } from "../../src/storage/graph/terms.js";
import { nearestVectors, pendingVectorItems } from "../../src/storage/vectors.js";
import { decodeSymbolBodies } from "../../src/text/symbol-bodies.js";
import { openTestApp } from "./helpers.js";
import { syntheticRepo } from "./synthetic.js";

/** Every stored count by path: length, hash, term postings and symbol bodies (file ids read as paths). */
function storedCounts(app: App): unknown {
  const rows = fileTermRows(app.db);
  const pathOf = new Map(rows.map((r) => [r.id, r.path]));
  const terms = new Set<string>();
  const files: Record<string, unknown> = {};
  for (const r of rows) {
    const stored = storedSymbolBodies(app.db, r.path);
    for (const t of stored?.terms ?? []) terms.add(t);
    const bodies = stored && decodeSymbolBodies(stored.bodies, stored.terms, new Set(stored.terms));
    files[r.path] = {
      hash: r.hash,
      len: r.len,
      bodies: bodies && [...bodies].map(([span, b]) => [span, b.len, [...b.tf]]).sort(),
    };
  }
  const postings: Record<string, string[]> = {};
  for (const [term, pairs] of termPostings(app.db, terms)) {
    const list: string[] = [];
    for (let i = 0; i < pairs.length; i += 2) list.push(`${pathOf.get(pairs[i]!)}:${pairs[i + 1]}`);
    postings[term] = list.sort();
  }
  return { files, postings };
}

describe("an index run over a change large enough for the parse worker", () => {
  let root: string;
  let app: App;
  beforeAll(async () => {
    root = syntheticRepo(320, 4);
    app = openTestApp(root);
    await buildGraph(app.scope, app, { lexicalOnly: true });
  }, 240_000);
  afterAll(async () => {
    await app.close();
  });

  it("stores the whole-file counts that reading every file again stores", () => {
    const fromIndex = storedCounts(app);
    expect(fileTermRows(app.db).length).toBe(320);
    clearFileTerms(app.db);
    expect(refreshFileTerms(app.db, root).read).toBe(320);
    expect(storedCounts(app)).toEqual(fromIndex);
  });

  it("stores no text for a symbol's vector item, and the embedder reads the symbol's own words", () => {
    const copies = app.db
      .prepare(
        "SELECT count(*) AS n FROM vector_items i JOIN nodes n ON n.id = i.owner_id WHERE n.type = 'symbol' AND i.text <> ''",
      )
      .get() as { n: number };
    expect(copies.n).toBe(0);
    const pending = new Map(pendingVectorItems(app.db, 100_000).map((i) => [i.id, i.text]));
    const rows = app.db
      .prepare(
        `SELECT i.id AS id, n.kind AS kind, n.name AS name, n.path AS path, n.summary AS summary, n.meta AS meta
         FROM vector_items i JOIN nodes n ON n.id = i.owner_id WHERE n.type = 'symbol'`,
      )
      .all() as { id: number; kind: string; name: string; path: string; summary: string; meta: string | null }[];
    expect(rows.length).toBe(320 * 6);
    for (const r of rows) {
      const parent = r.meta ? (JSON.parse(r.meta) as { parent?: string }).parent : undefined;
      const qual = parent ? `${parent}.${r.name}` : r.name;
      expect(pending.get(r.id)).toBe(`${r.kind} ${qual} in ${r.path}: ${r.summary}`);
    }
    expect(pending.get(rows.find((r) => r.name === "render")!.id)).toMatch(/^method Widget\d+\.render in pkg/);
  });

  it("embeds each symbol by its words: a symbol's own text finds its vector first", async () => {
    await buildGraph(app.scope, app);
    const r = app.db
      .prepare(
        "SELECT n.id AS id, n.kind AS kind, n.name AS name, n.path AS path, n.summary AS summary FROM nodes n WHERE n.name = 'compute_value_17_2'",
      )
      .get() as { id: number; kind: string; name: string; path: string; summary: string };
    const [query] = await app.embedding.embedder.embed([`${r.kind} ${r.name} in ${r.path}: ${r.summary}`]);
    const hits = nearestVectors(app.db, query!, 3, "node");
    expect(hits[0]?.ownerId).toBe(r.id);
    expect(hits[0]?.distance).toBeLessThan(0.01);
  });
});

describe("a watcher's build of a few paths", () => {
  let root: string;
  let app: App;
  beforeAll(async () => {
    root = syntheticRepo(12, 3);
    app = openTestApp(root);
    await buildGraph(app.scope, app, { lexicalOnly: true });
  }, 120_000);
  afterAll(async () => {
    await app.close();
  });

  it("keeps the counts of the files it wrote or removed in step, as reading every file again does", async () => {
    // One file keeps its words with one count changed, one gains a word no other file has, one is removed.
    const same = join(root, "pkg1", "mod1.py");
    writeFileSync(same, readFileSync(same, "utf8").replace("return x * 0 + y", "return x * 0 + y + y"));
    const grown = join(root, "pkg2", "mod2.py");
    writeFileSync(grown, `${readFileSync(grown, "utf8")}\ndef quokka_marker(x):\n    return x\n`);
    rmSync(join(root, "pkg3", "mod3.py"));
    const r = await buildGraph(app.scope, app, {
      lexicalOnly: true,
      paths: ["pkg1/mod1.py", "pkg2/mod2.py", "pkg3/mod3.py"],
    });
    expect([r.files.parsed, r.files.deleted]).toEqual([2, 1]);
    const afterWatch = storedCounts(app);
    const quokka = termPostings(app.db, ["quokka_marker"]).get("quokka_marker");
    const ids = new Map(fileTermRows(app.db).map((f) => [f.id, f.path]));
    expect(quokka && [...quokka].filter((_, i) => i % 2 === 0).map((id) => ids.get(id))).toEqual(["pkg2/mod2.py"]);
    expect(fileTermRows(app.db).map((f) => f.path)).not.toContain("pkg3/mod3.py");
    clearFileTerms(app.db);
    expect(refreshFileTerms(app.db, root).read).toBe(11);
    expect(storedCounts(app)).toEqual(afterWatch);
  });
});

describe("a watcher's build after a run that did not finish its counts", () => {
  let root: string;
  let app: App;
  beforeAll(async () => {
    root = syntheticRepo(10, 3);
    app = openTestApp(root);
    await buildGraph(app.scope, app, { lexicalOnly: true });
  }, 120_000);
  afterAll(async () => {
    await app.close();
  });

  /** Edits `rel` so its words change, as a save does. */
  const edit = (rel: string, word: string) =>
    writeFileSync(join(root, rel), `${readFileSync(join(root, rel), "utf8")}\ndef ${word}(x):\n    return x\n`);

  /** The stored counts equal reading every indexed file again. */
  const expectInStep = () => {
    const afterWatch = storedCounts(app);
    clearFileTerms(app.db);
    refreshFileTerms(app.db, root);
    expect(afterWatch).toEqual(storedCounts(app));
  };

  it("takes out the counts of a file removed by a run stopped before its counts were written", async () => {
    rmSync(join(root, "pkg3", "mod3.py"));
    edit("pkg1/mod1.py", "numbat_first");
    const crash = new Error("stopped");
    await expect(
      buildGraph(app.scope, app, {
        lexicalOnly: true,
        paths: ["pkg1/mod1.py", "pkg3/mod3.py"],
        onProgress: (p) => {
          if (p.phase === "edges") throw crash;
        },
      }),
    ).rejects.toBe(crash);
    edit("pkg2/mod2.py", "numbat_second");
    await buildGraph(app.scope, app, { lexicalOnly: true, paths: ["pkg2/mod2.py"] });
    expect(fileTermRows(app.db).map((f) => f.path)).not.toContain("pkg3/mod3.py");
    expectInStep();
  });
});
