// A duplicate or contradiction check visits a bounded number of the index's matches, newest first, whatever the
// store holds: units of other projects count towards that bound, while superseded units leave the walk altogether
// (they are indexed under another first word than their category) and stay searchable.
import { copyFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { expect, it } from "vitest";

import { rewordUnit } from "../../src/memory/curate.js";
import { searchMemory } from "../../src/memory/service.js";
import { openDatabase, preparedSql } from "../../src/storage/db.js";
import { indexMemory, insertMemory, similarMemories, updateMemory } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { identifierTokens } from "../../src/text/identifiers.js";
import { tmpDir } from "../helpers/tmp.js";

const TEXT = "The billing cache is keyed by tenant id and invoice period, refreshed nightly";
const WORDS = identifierTokens(TEXT);
const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), "../../src/storage/migrations");

function store() {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  const p = upsertProject(db, "p1", dir).id;
  const other = upsertProject(db, "p2", join(dir, "other")).id;
  const now = new Date().toISOString();
  const add = (project: number, text: string, category = "learning") => {
    const id = insertMemory(db, {
      project_id: project,
      session_id: null,
      category,
      text,
      record: {},
      merge_key: text,
      confidence: 0.5,
      importance: 0.5,
      tier: "warm",
      status: "active",
      superseded_by: null,
      conflicts_with: null,
      evidence: [],
      files: [],
      created_at: now,
      updated_at: now,
    });
    indexMemory(db, id, identifierTokens(`${category} ${text}`).join(" "));
    return id;
  };
  return { db, p, other, add, root: dir };
}

it("stops after a bounded number of matches: 600 newer copies in another project hide an older unit", () => {
  const s = store();
  const first = s.add(s.p, TEXT);
  for (let i = 0; i < 600; i++) s.add(s.other, `${TEXT} in region_${i}`);
  // The default bound (128 candidates, 4 visits each) ends the walk among the other project's units.
  expect(similarMemories(s.db, s.p, "learning", WORDS, 0.5).map((u) => u.id)).not.toContain(first);
  // A larger allowance walks past them to the unit.
  expect(similarMemories(s.db, s.p, "learning", WORDS, 0.5, { newest: 200 }).map((u) => u.id)).toContain(first);
});

it("finds an older unit behind 600 newer superseded copies: superseded units are not walked", () => {
  const s = store();
  const first = s.add(s.p, TEXT);
  const newer: number[] = [];
  for (let i = 0; i < 600; i++) newer.push(s.add(s.p, `${TEXT} in region_${i}`));
  const last = s.add(s.p, "an unrelated finding about the release notes");
  for (const id of newer) updateMemory(s.db, id, { status: "superseded", superseded_by: last });
  const got = similarMemories(s.db, s.p, "learning", WORDS, 0.5).map((u) => u.id);
  expect(got).toEqual([first]);
  // Still searchable by their words, and by a word only one of them holds.
  const hits = searchMemory(
    { db: s.db, projectId: s.p, root: s.root },
    { query: "region_17 billing", includeInactive: true, limit: 5 },
  ).hits;
  expect(hits[0]).toMatchObject({ id: newer[17], status: "superseded" });
});

it("keeps the memory index in few segments: it merges them two at a time", () => {
  const s = store();
  const config = s.db.prepare("SELECT k, v FROM memories_fts_config WHERE k = 'automerge'").get();
  expect(config).toEqual({ k: "automerge", v: 2 });
});

it("reads through the index: the walk newest first without a sort, each unit and each superseded one by its id", () => {
  const s = store();
  const ids = [s.add(s.p, TEXT), s.add(s.p, `${TEXT} again`), s.add(s.p, `${TEXT} once more`)];
  updateMemory(s.db, ids[0]!, { status: "superseded", superseded_by: ids[2]! });
  expect(similarMemories(s.db, s.p, "learning", WORDS, 0.5)).toHaveLength(2);
  const plan = (sql: string) =>
    (
      s.db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...Array.from({ length: (sql.match(/\?/g) ?? []).length }, () => null)) as { detail: string }[]
    )
      .map((p) => p.detail)
      .join("\n");
  const sqls = preparedSql(s.db);
  const walk = sqls.find((q) => /FROM memories_fts f JOIN memories m ON m\.id = f\.rowid/.test(q));
  expect(plan(walk!)).toMatch(/^SCAN f VIRTUAL TABLE INDEX \d+:M/m);
  expect(plan(walk!)).toMatch(/SEARCH m USING INTEGER PRIMARY KEY \(rowid=\?\)/);
  expect(plan(walk!)).not.toMatch(/TEMP B-TREE/);
  const status = sqls.find((q) =>
    /^SELECT status, category, text, json_extract\(record, .\$\.request.\) AS request FROM memories WHERE id = \?$/.test(
      q,
    ),
  );
  expect(plan(status!)).toMatch(/SEARCH memories USING INTEGER PRIMARY KEY \(rowid=\?\)/);
  const rank = sqls.find((q) => /ORDER BY bm25\(memories_fts\), rowid DESC/.test(q));
  expect(plan(rank!)).toMatch(/^SCAN memories_fts VIRTUAL TABLE INDEX \d+:M/m);
});

it("finds an older unit behind 600 superseded copies in a store written before they were indexed apart", () => {
  // A store at migration 0017: superseded units were indexed under their category word, as every unit was.
  const older = tmpDir("memcards-old-migrations-");
  for (const f of readdirSync(MIGRATIONS))
    if (/^(\d{4})_/.test(f) && Number(f.slice(0, 4)) <= 17) copyFileSync(join(MIGRATIONS, f), join(older, f));
  const dir = tmpDir();
  const path = join(dir, "m.db");
  let db = openDatabase(path, { migrationsDir: older });
  const p = upsertProject(db, "p1", dir).id;
  const now = new Date().toISOString();
  const add = (text: string, status: string) => {
    const id = insertMemory(db, {
      project_id: p,
      session_id: null,
      category: "learning",
      text,
      record: {},
      merge_key: text,
      confidence: 0.5,
      importance: 0.5,
      tier: "warm",
      status,
      superseded_by: null,
      conflicts_with: null,
      evidence: [],
      files: [],
      created_at: now,
      updated_at: now,
    });
    indexMemory(db, id, identifierTokens(`learning ${text}`).join(" "));
    return id;
  };
  const first = add(TEXT, "active");
  const stale: number[] = [];
  for (let i = 0; i < 600; i++) stale.push(add(`${TEXT} in region_${i}`, "superseded"));
  db.close();
  db = openDatabase(path);
  expect(similarMemories(db, p, "learning", WORDS, 0.5).map((u) => u.id)).toEqual([first]);
  // Still found by their words.
  const hits = searchMemory(
    { db, projectId: p, root: dir },
    { query: "region_17 billing", includeInactive: true, limit: 5 },
  ).hits;
  expect(hits[0]).toMatchObject({ id: stale[17], status: "superseded" });
  db.close();
});

it("keeps a superseded unit out of the checks' walk when its text is reworded", () => {
  const s = store();
  const first = s.add(s.p, TEXT);
  const newer: number[] = [];
  for (let i = 0; i < 40; i++) newer.push(s.add(s.p, `${TEXT} in region_${i}`));
  const last = s.add(s.p, "an unrelated finding about the release notes");
  for (const id of newer) updateMemory(s.db, id, { status: "superseded", superseded_by: last });
  const deps = { db: s.db, projectId: s.p, root: s.root };
  for (const id of newer) rewordUnit(deps, id, `${TEXT} in zone_${id}`);
  // A walk of at most 8 candidates (32 visits) reaches the unit behind the 40 reworded ones.
  expect(similarMemories(s.db, s.p, "learning", WORDS, 0.5, { newest: 8 }).map((u) => u.id)).toEqual([first]);
  const hits = searchMemory(deps, { query: `zone_${newer[17]} billing`, includeInactive: true, limit: 5 }).hits;
  expect(hits[0]).toMatchObject({ id: newer[17], status: "superseded" });
});

it("finds an older unit behind 600 newer units holding the category word: superseded or of another category", () => {
  const s = store();
  const first = s.add(s.p, TEXT);
  const newer: number[] = [];
  for (let i = 0; i < 300; i++) newer.push(s.add(s.p, `${TEXT}, learning from region_${i}`));
  for (let i = 0; i < 300; i++) s.add(s.p, `${TEXT}, a learning about region_${i}`, "decision");
  const last = s.add(s.p, "an unrelated finding about the release notes");
  for (const id of newer) updateMemory(s.db, id, { status: "superseded", superseded_by: last });
  expect(similarMemories(s.db, s.p, "learning", WORDS, 0.5).map((u) => u.id)).toEqual([first]);
});
