// The hot paths' queries use an index: every statement that cards, recall and memory writes prepare is checked with
// EXPLAIN QUERY PLAN on an indexed repository, with the planner's statistics and without them.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { getMemoryCards, warmCards } from "../../src/cards/service.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { recall, searchMemory } from "../../src/memory/service.js";
import { createNearestVectors } from "../../src/retrieval/nearest.js";
import { recordMemory } from "../../src/session/memory.js";
import { type Db, preparedSql } from "../../src/storage/db.js";
import { symbolsOfFile } from "../../src/storage/graph/nodes.js";
import { memoryCounts } from "../../src/storage/memories.js";
import { browseMemories as browseUnits, memoryCounts as unitFacets } from "../../src/storage/memories.js";
import { openTestApp } from "../graph/helpers.js";
import { tmpDir } from "../helpers/tmp.js";

/** A repository where nearly every node is a symbol, as in real code: 60 modules of 40 functions, tests beside. */
function writeRepo(root: string): void {
  for (let m = 0; m < 60; m++) {
    const dir = join(root, `pkg${m % 6}`);
    mkdirSync(dir, { recursive: true });
    const body = Array.from(
      { length: 40 },
      (_, f) => `def compute_${m}_${f}(value):\n    return helper_${(f + 1) % 40}(value) + ${f}\n`,
    ).join("\n");
    writeFileSync(join(dir, `mod${m}.py`), `import os\n\n${body}`);
    if (m % 5 === 0) writeFileSync(join(dir, `test_mod${m}.py`), `from pkg${m % 6}.mod${m} import compute_${m}_0\n`);
  }
}

/** Binds a statement's parameters to NULL (EXPLAIN needs them bound, not their values). */
function nullArgs(sql: string): unknown[] {
  const named = [...sql.matchAll(/[@:$]([A-Za-z_]\w*)/g)].map((m) => m[1]!);
  if (named.length) return [Object.fromEntries(named.map((n) => [n, null]))];
  return Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null);
}

/** What is wrong with a statement's plan: a full scan of a table, or a temporary B-tree. */
function planProblems(db: Db, sql: string): string[] {
  const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...nullArgs(sql)) as { detail: string }[];
  const details = plan.map((p) => p.detail);
  // Ranking FTS5 or vector matches sorts the matched rows only: that sort is the query's work, not a scan.
  const matches = details.some((d) => /VIRTUAL TABLE INDEX/.test(d));
  return details.filter(
    (d) =>
      (/USE TEMP B-TREE FOR ORDER BY/.test(d) && !matches) ||
      /USE TEMP B-TREE FOR (GROUP BY|DISTINCT)/.test(d) ||
      // A subquery's own rows (bounded by its LIMIT) are not a table.
      (/^SCAN /.test(d) && !/VIRTUAL TABLE|CONSTANT ROW|^SCAN \(subquery-\d+\)/.test(d)),
  );
}

/**
 * Statements allowed a scan or a sort, each for a reason that keeps it off the per-call cost: read once per process
 * (the ranker keeps the result), counted once per state of the store (`perStoreState`), or sorting rows already
 * narrowed to one file or one project's sessions.
 */
const ALLOWED: [RegExp, string][] = [
  [/^SELECT 1 FROM sqlite_master/, "the schema table, a few dozen rows"],
  [/^SELECT 1 FROM files LIMIT 1$/, "whether the graph was built: the first row the scan meets ends it"],
  [/FROM files$/, "the file list of the whole-file BM25 index, read once per ranker"],
  [
    /^SELECT COUNT\(\*\) AS n FROM nodes$/,
    "the node total: its smallest index's page count, once per state of the store",
  ],
  [/FROM file_terms ORDER BY id$/, "the stored BM25 documents' lengths, read once per ranker"],
  [/FROM vector_items WHERE embedded = 1$/, "the vectors' fingerprint, only after another connection committed"],
  [/^SELECT count\(\*\) AS n FROM sqlite_master/, "the schema table, a few dozen rows"],
  [/FROM vectors_chunks c JOIN vectors_vector_chunks00/, "the vectors read into memory, once per change of them"],
  [
    /^SELECT coalesce\(sum\(size\), 0\) AS n FROM vectors_chunks$/,
    "the vec0 table's chunk list, once per change of the vectors",
  ],
  [/^SELECT sum\(type IN/, "code and other node counts, once per state of the store"],
  [/^SELECT count\(\*\) AS n FROM nodes WHERE type IN \('file', 'test'\)/, "file count, once per state of the store"],
  [/FROM sessions s JOIN summaries m/, "groups one project's summarized sessions"],
];

describe("query plans of the hot paths", () => {
  let app: App;
  let hot: string[];
  beforeAll(async () => {
    const root = join(tmpDir(), "repo");
    writeRepo(root);
    const db = join(tmpDir(), "graph.db");
    const builder = openTestApp(root, db);
    await buildGraph(builder.scope, builder);
    await builder.close();
    // A new connection: its statement cache holds only what the hot paths below prepare.
    app = openTestApp(root, db);
    const deps = { ...app.scope, ranker: app.ranker };
    // A server's warm-up runs the same path once before the calls.
    await warmCards(deps);
    for (const task of ["compute_3_7 returns the wrong value", "fix helper_2 in pkg1/mod7.py"])
      await getMemoryCards(deps, { task });
    for (let i = 0; i < 12; i++) {
      recordMemory(app.scope, { category: "learning", text: `compute_${i}_1 needs helper_${i} called first (${i})` });
      recordMemory(app.scope, { category: "commitment", text: `never rename compute_${i}_2 in pkg${i % 6}` });
    }
    recall(app.scope, { budgetTokens: 1500 });
    searchMemory(app.scope, { query: "helper called first" });
    symbolsOfFile(app.db, "pkg1/mod7.py");
    // Nearest vectors from the in-memory copy (what a server answers with once it is read).
    const near = createNearestVectors(app.db);
    near.warm();
    for (let i = 0; i < 250 && !near.ready(); i++) await new Promise((r) => setTimeout(r, 20));
    const [q] = await app.embedding.embedder.embed(["compute the helper value"]);
    near.nearest(q!, 20, "node");
    // The viewer's Memory page: the filter bar's counts and one page of units per filter, first and deeper pages.
    const pid = app.project.id;
    unitFacets(app.db, pid);
    memoryCounts(app.db, pid);
    const filters = [
      {},
      { category: "learning" },
      { status: "pending" },
      { status: "active" },
      { tier: "cold" },
      { category: "commitment", tier: "warm", status: "active" },
      { since: "2026-01-01" },
    ];
    for (const f of filters)
      for (const cursor of [{ offset: 0 }, { before: 1_000_000 }, { after: 0 }])
        browseUnits(app.db, pid, f, 50, cursor);
    hot = preparedSql(app.db).filter((s) => /^\s*(SELECT|WITH|UPDATE|DELETE)/i.test(s));
  }, 120_000);
  afterAll(async () => {
    await app.close();
  });

  it("a file's symbols are read through the path index, not the type index", () => {
    const sql = hot.find((s) => /FROM nodes WHERE path = \? AND type = 'symbol'/.test(s))!;
    const plan = app.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all("pkg1/mod7.py") as { detail: string }[];
    expect(plan.map((p) => p.detail).join("\n")).toMatch(/USING INDEX nodes_path_type/);
  });

  it("the cards count the store's other nodes over the type index's ranges, never every symbol's entry", () => {
    const sql = hot.find((s) => /^SELECT count\(\*\) AS n FROM nodes WHERE type < /.test(s));
    expect(sql).toBeDefined();
    const plan = (app.db.prepare(`EXPLAIN QUERY PLAN ${sql!}`).all() as { detail: string }[]).map((p) => p.detail);
    const searches = plan.filter((d) => /^SEARCH nodes USING COVERING INDEX nodes_type \(type[<>]/.test(d));
    expect(searches).toHaveLength(5);
    expect(planProblems(app.db, sql!)).toEqual([]);
    expect(hot.some((s) => /FROM nodes WHERE type = \?/.test(s))).toBe(false);
  });

  it("a card's file node and its named symbols are read through the path and key indexes", () => {
    const plan = (re: RegExp, ...args: unknown[]) => {
      const sql = hot.find((s) => re.test(s));
      expect(sql, String(re)).toBeDefined();
      return (app.db.prepare(`EXPLAIN QUERY PLAN ${sql!}`).all(...args) as { detail: string }[])
        .map((p) => p.detail)
        .join("\n");
    };
    expect(plan(/FROM nodes WHERE path = \? AND type IN \('file','test'\)/, "pkg1/mod7.py")).toMatch(
      /SEARCH nodes USING INDEX nodes_path_type \(path=\? AND type=\?\)/,
    );
    expect(plan(/^SELECT \* FROM nodes WHERE key = \?$/, "x")).toMatch(
      /SEARCH nodes USING INDEX sqlite_autoindex_nodes_1 \(key=\?\)/,
    );
  });

  it("the FTS channels walk the full-text matches and read each matched node by primary key, typed after the join", () => {
    const ranked = hot.filter((s) =>
      /FROM nodes_fts f JOIN nodes n ON n\.id = f\.rowid\s+WHERE nodes_fts MATCH \?/.test(s),
    );
    // The file and symbol channels share one statement (the rare terms' query and the rescoring share it too): one
    // walk of the matches scores each row for both lists.
    expect(ranked.length).toBe(1);
    expect(ranked[0]).toMatch(/AND n\.type IN \(\?,\?\)/);
    for (const sql of ranked) {
      const plan = (app.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...nullArgs(sql)) as { detail: string }[]).map(
        (p) => p.detail,
      );
      expect(plan[0]).toMatch(/^SCAN f VIRTUAL TABLE INDEX/);
      expect(plan.join("\n")).toMatch(/SEARCH n USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      expect(plan.some((d) => /^SCAN n\b|USING INDEX nodes_type/.test(d))).toBe(false);
    }
  });

  it("the warm-up's symbol is read through the type index, the first row it meets", () => {
    const sql = hot.find((s) =>
      /FROM nodes WHERE type = 'symbol' AND name IS NOT NULL AND path IS NOT NULL LIMIT 1/.test(s),
    );
    expect(sql).toBeDefined();
    const plan = (app.db.prepare(`EXPLAIN QUERY PLAN ${sql!}`).all() as { detail: string }[]).map((p) => p.detail);
    expect(plan.join("\n")).toMatch(/SEARCH nodes USING INDEX nodes_type \(type=\?\)/);
    expect(planProblems(app.db, sql!)).toEqual([]);
  });

  it("the nearest vectors' owners are read by primary key, never with every vector", () => {
    const sql = hot.find((s) => /FROM vector_items\s+WHERE id IN \(SELECT value FROM json_each\(\?\)\)/.test(s));
    expect(sql).toBeDefined();
    const plan = (app.db.prepare(`EXPLAIN QUERY PLAN ${sql!}`).all("[]") as { detail: string }[]).map((p) => p.detail);
    expect(plan.join("\n")).toMatch(/SEARCH vector_items USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(hot.some((s) => /owner_id AS ownerId FROM vector_items$/.test(s.trim()))).toBe(false);
  });

  it("a file's stored symbol bodies are read by the cards, through the path and primary-key indexes", () => {
    const sql = hot.find((s) => /JOIN symbol_terms s ON s\.file_id = t\.id WHERE f\.path = \?/.test(s));
    expect(sql).toBeDefined();
    expect(planProblems(app.db, sql!)).toEqual([]);
  });

  it("the viewer's unit pages and counts, and the duplicate checks' candidates, are read through an index", () => {
    const plan = (sql: string) =>
      (app.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...nullArgs(sql)) as { detail: string }[])
        .map((p) => p.detail)
        .join("\n");
    const pages = hot.filter((s) => /^SELECT \* FROM memories WHERE project_id = \?.* ORDER BY id/.test(s));
    expect(pages.length).toBeGreaterThanOrEqual(18);
    for (const sql of pages) {
      const p = plan(sql);
      expect(p, sql).toMatch(/SEARCH memories USING (COVERING )?INDEX memories_(project|recent|status|tier|key)/);
      expect(p, sql).not.toMatch(/TEMP B-TREE|^SCAN memories/m);
    }
    const counts = hot.filter((s) => /FROM memory_counts/.test(s));
    expect(counts.length).toBeGreaterThanOrEqual(1);
    for (const sql of counts) expect(plan(sql)).toMatch(/SEARCH memory_counts USING PRIMARY KEY \(project_id=\?\)/);
    const candidates = hot.find((s) => /FROM memories_fts f JOIN memories m ON m\.id = f\.rowid/.test(s));
    // The index's matches newest first, as the full-text index keeps them (no sort), each looked up by its id.
    const p = plan(candidates!);
    expect(p).toMatch(/^SCAN f VIRTUAL TABLE INDEX \d+:M/m);
    expect(p).toMatch(/SEARCH m USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    expect(p).not.toMatch(/TEMP B-TREE/);
  });

  it("no hot statement scans a table or sorts in a temporary B-tree, with the statistics of a build", () => {
    expect(hot.length).toBeGreaterThan(20);
    const bad = hot
      .filter((s) => !ALLOWED.some(([re]) => re.test(s.replace(/\s+/g, " ").trim())))
      .map((s) => ({ sql: s.replace(/\s+/g, " ").slice(0, 160), problems: planProblems(app.db, s) }))
      .filter((r) => r.problems.length);
    expect(bad).toEqual([]);
  });

  it("a build leaves the planner's statistics, and the plans hold without them too", () => {
    const stats = app.db.prepare("SELECT tbl, idx FROM sqlite_stat1 WHERE tbl = 'nodes'").all() as { idx: string }[];
    expect(stats.map((r) => r.idx)).toEqual(expect.arrayContaining(["nodes_path_type", "nodes_type"]));
    app.db.exec("DELETE FROM sqlite_stat1; ANALYZE sqlite_schema;");
    const bad = hot
      .filter((s) => !ALLOWED.some(([re]) => re.test(s.replace(/\s+/g, " ").trim())))
      .map((s) => ({ sql: s.replace(/\s+/g, " ").slice(0, 160), problems: planProblems(app.db, s) }))
      .filter((r) => r.problems.length);
    expect(bad).toEqual([]);
  });
});
