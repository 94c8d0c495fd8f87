// Pause and resume, the memory audit, and export/import round trips.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { auditMemory, exportMemory, importMemory, isPaused, setPaused } from "../../src/memory/admin.js";
import { compressContext } from "../../src/session/compress.js";
import { recordMemory } from "../../src/session/memory.js";
import { openDatabase } from "../../src/storage/db.js";
import { listMemories } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { latestSummary } from "../../src/storage/summaries.js";
import { tmpDir } from "../helpers/tmp.js";

function store(key = "p") {
  const dir = tmpDir();
  const db = openDatabase(join(dir, "m.db"));
  const projectId = upsertProject(db, key, dir).id;
  return { db, projectId, dir, deps: { db, projectId, root: dir } };
}

describe("pause", () => {
  it("stores nothing from conversations while paused, and again after resume", () => {
    const { db, projectId, deps } = store();
    setPaused(db, projectId, true);
    expect(isPaused(db, projectId)).toBe(true);
    const r = compressContext(deps, {
      sessionId: "s",
      keepRecent: 0,
      messages: [{ role: "user", content: "Never log tokens." }],
    });
    expect(r.notes.join(" ")).toMatch(/paused/);
    expect(latestSummary(db, "s")).toBeUndefined();
    expect(recordMemory(deps, { category: "preference", text: "Prefer tabs" }).outcome).toMatch(/paused/);
    expect(listMemories(db, projectId, { includeInactive: true })).toHaveLength(0);
    setPaused(db, projectId, false);
    compressContext(deps, {
      sessionId: "s",
      keepRecent: 0,
      messages: [{ role: "user", content: "Never log tokens." }],
    });
    expect(latestSummary(db, "s")).toBeDefined();
    expect(listMemories(db, projectId).length).toBeGreaterThan(0);
  });
});

describe("audit", () => {
  it("counts superseded units, conflicts and units without evidence, with examples", () => {
    const { db, projectId, deps } = store();
    recordMemory(deps, { category: "performance", text: "build time: 90 s" });
    recordMemory(deps, { category: "performance", text: "build time: 70 s" });
    recordMemory(deps, { category: "commitment", text: "Always squash commits before merging branches" });
    recordMemory(deps, { category: "commitment", text: "Never squash commits before merging branches" });
    db.prepare("UPDATE memories SET evidence = '[]' WHERE text LIKE 'Always%'").run();
    const a = auditMemory(db, projectId);
    expect(a.units).toBe(4);
    expect(a.superseded.count).toBe(1);
    expect(a.superseded.examples[0]).toContain("build time: 90 s");
    expect(a.conflicts.count).toBe(1);
    expect(a.without_evidence.count).toBe(1);
    expect(a.duplicates.count).toBe(0);
  });
});

describe("export and import", () => {
  it("moves a project's memory to another store, merging what is already there, counting bad lines", () => {
    const a = store("a");
    recordMemory(a.deps, {
      category: "learning",
      text: "Migrations run inside one transaction",
      files: ["db/migrate.ts"],
    });
    recordMemory(a.deps, { category: "preference", text: "Prefer small pull requests" });
    const file = join(a.dir, "export.jsonl");
    writeFileSync(file, `${exportMemory(a.db, a.projectId)}\n{"broken": true}\nnot json\n`);
    const b = store("b");
    recordMemory(b.deps, { category: "preference", text: "Prefer small pull requests" });
    const r = importMemory(b.db, b.projectId, file);
    expect(r).toEqual({ imported: 1, merged: 1, skipped: 2 });
    const texts = listMemories(b.db, b.projectId)
      .map((m) => m.text)
      .sort();
    expect(texts).toEqual(["Migrations run inside one transaction", "Prefer small pull requests"]);
    expect(listMemories(b.db, b.projectId, { category: "learning" })[0]!.files).toEqual(["db/migrate.ts"]);
    expect(() => importMemory(b.db, b.projectId, join(a.dir, "missing.jsonl"))).toThrow(/cannot read/);
  });
});
