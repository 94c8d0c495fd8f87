// Cross-session memory: record, search with evidence and history, recall, projects kept apart, forget for real,
// and two processes writing at once.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { createOfflineEmbedder } from "../../src/embeddings/offline.js";
import { recall, searchMemory } from "../../src/memory/service.js";
import { compressContext } from "../../src/session/compress.js";
import { forget, recordMemory } from "../../src/session/memory.js";
import { openDatabase } from "../../src/storage/db.js";
import { listMemories } from "../../src/storage/memories.js";
import { bindEmbedder } from "../../src/storage/meta.js";
import { upsertProject } from "../../src/storage/projects.js";
import { embedPending } from "../../src/vectors/embed-pending.js";
import { cliPath } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

function store(dir = tmpDir(), file = "m.db", key = "p1") {
  const db = openDatabase(join(dir, file));
  const project = upsertProject(db, key, dir);
  return { db, deps: { db, projectId: project.id, root: dir }, dir, path: join(dir, file) };
}

describe("record and search", () => {
  it("finds units with their evidence and history; supersession chains and conflicts are visible", () => {
    const { deps } = store();
    recordMemory(deps, { category: "performance", text: "test suite time: 41 s" });
    recordMemory(deps, { category: "performance", text: "test suite time: 38 s" });
    const third = recordMemory(deps, { category: "performance", text: "test suite time: 35 s" });
    expect(third.outcome).toMatch(/supersedes/);
    recordMemory(deps, { category: "commitment", text: "Always run the linter before committing changes" });
    const clash = recordMemory(deps, {
      category: "commitment",
      text: "Never run the linter before committing changes",
    });
    expect(clash.outcome).toMatch(/conflicts/);
    const dup = recordMemory(deps, { category: "learning", text: "The cache is keyed by tenant id" });
    expect(recordMemory(deps, { category: "learning", text: "The cache is keyed by tenant id" }).outcome).toMatch(
      /merged/,
    );
    expect(dup.id).toBeDefined();

    const t = searchMemory(deps, { query: "how long does the test suite take" });
    expect(t.hits[0]!.text).toBe("test suite time: 35 s");
    expect(t.hits[0]!.history.supersedes.map((x) => x.text)).toEqual(["test suite time: 38 s"]);
    const all = searchMemory(deps, { query: "test suite time", includeInactive: true });
    expect(all.hits.map((h) => h.status).sort()).toEqual(["active", "superseded", "superseded"]);
    const lint = searchMemory(deps, { query: "linter before committing", includeInactive: true });
    const conflicted = lint.hits.find((h) => h.status === "conflict")!;
    expect(conflicted.history.conflicts_with?.text).toBe("Never run the linter before committing changes");
    expect(searchMemory(deps, { query: "linter", category: "learning" }).hits).toHaveLength(0);
  });

  it("never crosses projects sharing one database", () => {
    const dir = tmpDir();
    const a = store(dir, "shared.db", "project-a");
    const db2 = openDatabase(join(dir, "shared.db"));
    const b = { db: db2, projectId: upsertProject(db2, "project-b", dir).id, root: dir };
    recordMemory(a.deps, { category: "preference", text: "Prefer pnpm over npm in project A" });
    recordMemory(b, { category: "preference", text: "Prefer yarn over npm in project B" });
    expect(searchMemory(a.deps, { query: "prefer npm" }).hits.map((h) => h.text)).toEqual([
      "Prefer pnpm over npm in project A",
    ]);
    expect(searchMemory(b, { query: "prefer npm" }).hits.map((h) => h.text)).toEqual([
      "Prefer yarn over npm in project B",
    ]);
    forget(b, { all: true });
    expect(listMemories(a.db, a.deps.projectId)).toHaveLength(1);
  });

  it("recalls the last session's next steps, constraints and what concerns the changed files", () => {
    const dir = tmpDir();
    execFileSync("git", ["init", "-q", "-b", "feature/retry"], { cwd: dir });
    writeFileSync(join(dir, "fetcher.py"), "x = 1\n");
    const { deps } = store(dir);
    recordMemory(deps, {
      category: "commitment",
      text: "Keep the public API of fetcher.py stable",
      files: ["fetcher.py"],
    });
    recordMemory(deps, {
      category: "failure",
      text: "fetcher.py timed out against the staging API",
      files: ["fetcher.py"],
    });
    compressContext(deps, {
      sessionId: "s1",
      keepRecent: 0,
      messages: [
        { role: "user", content: "Add retries to the fetcher." },
        { role: "assistant", content: "Next I will add a backoff test." },
      ],
    });
    const r = recall(deps, { budgetTokens: 800 });
    expect(r.markdown).toContain("## User constraints and rules");
    expect(r.markdown).toContain("Keep the public API of fetcher.py stable");
    expect(r.markdown).toContain("fetcher.py timed out");
    expect(r.tokens).toBeLessThanOrEqual(800);
    expect(recall(deps, { budgetTokens: 100 }).tokens).toBeLessThanOrEqual(100);
  });
});

describe("forget", () => {
  it("leaves no trace of a forgotten canary in the database file or its WAL", () => {
    const { db, deps, path } = store();
    const canary = "CANARYzq7x9w2";
    recordMemory(deps, {
      category: "learning",
      text: `The deploy key is named ${canary} in the vault`,
      files: ["deploy.sh"],
    });
    compressContext(deps, {
      sessionId: "s9",
      keepRecent: 0,
      messages: [
        { role: "user", content: `Never print ${canary} in logs.` },
        { role: "assistant", content: "Noted." },
      ],
    });
    const bytes = () =>
      Buffer.concat([readFileSync(path), existsSync(`${path}-wal`) ? readFileSync(`${path}-wal`) : Buffer.alloc(0)]);
    expect(bytes().includes(canary)).toBe(true);
    const r = forget(deps, { all: true });
    expect(r.memories).toBeGreaterThan(1);
    expect(r.rawTurns).toBe(2);
    expect(listMemories(db, deps.projectId, { includeInactive: true })).toHaveLength(0);
    expect(bytes().includes(canary)).toBe(false);
    expect(bytes().includes(canary.toLowerCase())).toBe(false);
    expect(() => forget(deps, {})).toThrow(/exactly one of/);
    expect(() => forget(deps, { id: 999 })).toThrow(/no memory unit #999/);
  });
});

describe("two processes writing at once", () => {
  it("loses no write", async () => {
    const root = tmpDir();
    const home = tmpDir();
    const run = (tag: string) =>
      new Promise<number | null>((resolve) => {
        const script = Array.from({ length: 12 }, (_, i) => i)
          .map(
            (i) =>
              `"${process.execPath}" "${cliPath}" remember learning "writer ${tag} fact number ${i} about module${i}" --root "${root}" --log-level silent`,
          )
          .join(" && ");
        const child = spawn("sh", ["-c", script], { env: { ...process.env, MEMCARDS_HOME: home }, stdio: "ignore" });
        child.on("exit", resolve);
      });
    const codes = await Promise.all([run("alpha"), run("beta")]);
    expect(codes).toEqual([0, 0]);
    const { db, deps } = store(root, join(".memcards", "memcards.db"), root);
    const units = listMemories(db, deps.projectId, { category: "learning", limit: 100 });
    expect(units.length).toBe(24);
  }, 120_000);
});

describe("hybrid search and time filters", () => {
  it("finds a unit by meaning through its vector when no word matches, and filters by time", async () => {
    const { db, deps } = store();
    const embedder = createOfflineEmbedder();
    bindEmbedder(db, { id: embedder.id, dimension: embedder.dimension });
    recordMemory(deps, { category: "learning", text: "The caching layer must be invalidated on every deploy" });
    recordMemory(deps, { category: "preference", text: "Prefer small pull requests" });
    await embedPending(db, embedder, { projectId: deps.projectId });
    const query = "invalidation of caches";
    expect(searchMemory(deps, { query }).hits).toHaveLength(0);
    const [vector] = await embedder.embed([query]);
    const hybrid = searchMemory(deps, { query }, vector);
    expect(hybrid.hits[0]?.text).toBe("The caching layer must be invalidated on every deploy");
    expect(searchMemory(deps, { query: "pull requests", since: "2000-01-01" }).hits).toHaveLength(1);
    expect(searchMemory(deps, { query: "pull requests", until: "2000-01-01" }).hits).toHaveLength(0);
    expect(() => searchMemory(deps, { query: "x", since: "yesterday-ish" })).toThrow(/not a date/);
  });
});
