// The full-text channels read a bounded number of rows per statement, however many nodes the task's rarest term
// matches: a repository where every file and symbol holds the task's words.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import type Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import type { App } from "../../src/app.js";
import { buildGraph } from "../../src/graph/build-graph.js";
import { FTS_POSTINGS } from "../../src/retrieval/channels.js";
import { termDocFrequency } from "../../src/storage/graph/search.js";
import { openTestApp } from "../graph/helpers.js";

const FILES = 1100;

describe("full-text channels on a term most nodes hold", () => {
  let app: App;
  /** Rows each full-text ranking statement returned. */
  const returned: number[] = [];
  beforeAll(async () => {
    const root = mkdtempSync(join(tmpdir(), "memcards-fts-rows-"));
    mkdirSync(join(root, "pkg"));
    for (let i = 0; i < FILES; i++)
      writeFileSync(
        join(root, "pkg", `mod${String(i).padStart(4, "0")}.py`),
        `def clamp_value(x):\n    return bound(x)\n\n\ndef helper_${i}(y):\n    return clamp_value(y) + bound(y)\n`,
      );
    app = openTestApp(root);
    await buildGraph(app.scope, app);
    // Every full-text statement the ranking prepares from here on counts the rows it hands back.
    const prepare = app.db.prepare.bind(app.db);
    app.db.prepare = ((sql: string) => {
      const s = prepare(sql);
      if (!/FROM nodes_fts f JOIN nodes n/.test(sql)) return s;
      const all = s.all.bind(s);
      s.all = ((...args: unknown[]) => {
        const rows = all(...args);
        returned.push(rows.length);
        return rows;
      }) as typeof s.all;
      return s;
    }) as Database.Database["prepare"];
  }, 600_000);
  afterAll(async () => {
    await app.close();
  });

  it("reads at most the channels' postings per statement, and still ranks the files", async () => {
    expect(termDocFrequency(app.db, "clamp")).toBeGreaterThan(FTS_POSTINGS);
    const ranked = await app.ranker.rank("clamp_value is wrong");
    expect(ranked.length).toBeGreaterThan(0);
    expect(ranked.every((f) => f.path.startsWith("pkg/mod"))).toBe(true);
    expect(returned.length).toBeGreaterThan(0);
    expect(Math.max(...returned)).toBeLessThanOrEqual(FTS_POSTINGS);
  });
});
