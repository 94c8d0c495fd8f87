// The per-category, tier and status counts the viewer reads are kept by the store as units are written, merged,
// superseded, put in conflict, approved, moved between tiers and forgotten, and an older store gets them counted
// when it is upgraded.
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";

import { approvePending, pinUnit } from "../../src/memory/curate.js";
import { setReviewMode } from "../../src/memory/review.js";
import { forget, recordMemory } from "../../src/session/memory.js";
import { type Db, openDatabase } from "../../src/storage/db.js";
import { memoryCounts } from "../../src/storage/memories.js";
import { migrate } from "../../src/storage/migrate.js";
import { upsertProject } from "../../src/storage/projects.js";
import { tmpDir } from "../helpers/tmp.js";

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), "../../src/storage/migrations");

/** The counts as a full GROUP BY over the units says they are. */
function counted(db: Db, projectId: number) {
  return db
    .prepare(
      "SELECT category, tier, status, COUNT(*) AS n FROM memories WHERE project_id = ? GROUP BY category, tier, status ORDER BY category, tier, status",
    )
    .all(projectId);
}

const kept = (db: Db, projectId: number) =>
  memoryCounts(db, projectId).sort((a, b) =>
    `${a.category} ${a.tier} ${a.status}`.localeCompare(`${b.category} ${b.tier} ${b.status}`),
  );

describe("kept unit counts", () => {
  it("follow every kind of write and deletion", () => {
    const dir = tmpDir();
    const db = openDatabase(join(dir, "m.db"));
    const deps = { db, projectId: upsertProject(db, "p1", dir).id, root: dir };
    const other = { ...deps, projectId: upsertProject(db, "p2", join(dir, "other")).id };
    recordMemory(deps, { category: "learning", text: "the parser caches its tables per grammar" });
    recordMemory(deps, { category: "learning", text: "the parser caches its tables per grammar!" }); // merged
    recordMemory(deps, { category: "performance", text: "p95 latency: 120 ms" });
    recordMemory(deps, { category: "performance", text: "p95 latency: 90 ms" }); // supersedes
    recordMemory(deps, { category: "commitment", text: "Always squash commits on the release branch" });
    const clash = recordMemory(deps, { category: "commitment", text: "Never squash commits on the release branch" });
    const cold = recordMemory(deps, {
      category: "reasoning",
      text: "chose the queue table over a file lock",
      confidence: 0.2,
    });
    recordMemory(other, { category: "learning", text: "another project's finding about its build" });
    setReviewMode(db, deps.projectId, true);
    const pending = recordMemory(deps, { category: "failure", text: "the build failed on a missing header" });
    expect(kept(db, deps.projectId)).toEqual(counted(db, deps.projectId));
    expect(memoryCounts(db, deps.projectId).find((r) => r.status === "superseded")?.n).toBe(1);
    expect(memoryCounts(db, deps.projectId).find((r) => r.status === "pending")?.n).toBe(1);
    expect(kept(db, other.projectId)).toEqual(counted(db, other.projectId));

    approvePending(deps, pending.id!);
    pinUnit(deps, cold.id!, true);
    expect(kept(db, deps.projectId)).toEqual(counted(db, deps.projectId));
    forget(deps, { id: clash.id! });
    expect(kept(db, deps.projectId)).toEqual(counted(db, deps.projectId));
    expect(memoryCounts(db, deps.projectId).some((r) => r.n <= 0)).toBe(false);
    forget(deps, { all: true });
    expect(memoryCounts(db, deps.projectId)).toEqual([]);
    expect(kept(db, other.projectId)).toEqual(counted(db, other.projectId));
    db.close();
  });

  it("are counted from the units already stored when an older store is upgraded", () => {
    const dir = tmpDir();
    const older = join(dir, "migrations");
    mkdirSync(older);
    for (const f of readdirSync(MIGRATIONS).filter((f) => /^00(0\d|1[0-2])_.*\.sql$/.test(f)))
      copyFileSync(join(MIGRATIONS, f), join(older, f));
    const db = new Database(join(dir, "old.db"));
    db.pragma("foreign_keys = ON");
    migrate(db, older);
    db.prepare(
      "INSERT INTO projects (id, key, root, name, created_at, last_seen_at) VALUES (1, 'p', ?, 'p', '2026-01-01', '2026-01-01')",
    ).run(dir);
    const ins = db.prepare(
      `INSERT INTO memories (project_id, category, text, merge_key, confidence, importance, tier, status, created_at, updated_at)
       VALUES (1, ?, ?, ?, 0.9, 0.6, ?, ?, '2026-01-01', '2026-01-01')`,
    );
    for (let i = 0; i < 30; i++)
      ins.run(
        i % 3 ? "learning" : "failure",
        `unit ${i}`,
        `k${i}`,
        i % 4 ? "warm" : "cold",
        i % 5 ? "active" : "superseded",
      );
    migrate(db, MIGRATIONS);
    expect(kept(db, 1)).toEqual(counted(db, 1));
    expect(kept(db, 1).reduce((n, r) => n + r.n, 0)).toBe(30);
    db.close();
  });
});
