// An index killed (SIGKILL) or crashed at any phase heals on the next run: the graph then equals a clean build's.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";

import { buildGraph } from "../../src/graph/build-graph.js";
import { cliPath, repoRoot, runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";
import { openTestApp } from "./helpers.js";
import { syntheticRepo } from "./synthetic.js";

/** The synthetic repository plus tests (test_covers edges) and an AGENTS.md (precondition edges). */
function richRepo(files: number, fns: number): string {
  const root = syntheticRepo(files, fns);
  mkdirSync(join(root, "tests"));
  for (let i = 0; i < 20; i++) {
    writeFileSync(
      join(root, "tests", `test_mod${i}.py`),
      `from pkg${i % 20} import mod${i}\n\ndef test_mod${i}():\n    assert mod${i}\n`,
    );
  }
  writeFileSync(join(root, "AGENTS.md"), "# Rules\n\nKeep functions pure.\n");
  return root;
}

interface GraphSnapshot {
  nodes: string[];
  edges: Record<string, string[]>;
  files: number;
  /** Whole-file counts by path: the content they were taken from, their length and their words. */
  counts: string[];
  vectorItems: { total: number; embedded: number };
}

/** Everything a build leaves, keyed by stable node keys (row ids may differ between stores). */
function snapshot(dbPath: string): GraphSnapshot {
  const db = new Database(dbPath, { readonly: true });
  try {
    const nodes = (
      db.prepare("SELECT key, type, kind, start_line, end_line, content_hash FROM nodes ORDER BY key").all() as Record<
        string,
        unknown
      >[]
    ).map((r) => Object.values(r).join("|"));
    const edges: Record<string, string[]> = {};
    const rows = db
      .prepare(
        `SELECT e.type AS type, s.key AS src, d.key AS dst, e.weight AS weight FROM edges e
         JOIN nodes s ON s.id = e.src JOIN nodes d ON d.id = e.dst ORDER BY e.type, s.key, d.key`,
      )
      .all() as { type: string; src: string; dst: string; weight: number }[];
    for (const r of rows) (edges[r.type] ??= []).push(`${r.src} -> ${r.dst} ${r.weight.toFixed(4)}`);
    const files = (db.prepare("SELECT COUNT(*) AS n FROM files").get() as { n: number }).n;
    const counts = (
      db.prepare("SELECT path, hash, len, hex(terms) AS terms FROM file_terms ORDER BY path").all() as Record<
        string,
        unknown
      >[]
    ).map((r) => Object.values(r).join("|"));
    const vectorItems = db
      .prepare("SELECT COUNT(*) AS total, COALESCE(SUM(embedded), 0) AS embedded FROM vector_items")
      .get() as { total: number; embedded: number };
    return { nodes, edges, files, counts, vectorItems };
  } finally {
    db.close();
  }
}

function buildRecord(dbPath: string): { complete: string[] } | undefined {
  const db = new Database(dbPath, { readonly: true });
  try {
    const row = db.prepare("SELECT value FROM meta WHERE key = 'graph.build'").get() as { value: string } | undefined;
    return row ? (JSON.parse(row.value) as { complete: string[] }) : undefined;
  } finally {
    db.close();
  }
}

const env = () => ({ MEMCARDS_HOME: tmpDir(), MEMCARDS_LOG_LEVEL: "warn" });
const indexArgs = (root: string, db: string) => ["--root", root, "--db", db, "--embedder", "offline", "index"];

/**
 * Runs `memcards index` and SIGKILLs it once its progress on stderr names `trigger`. Before the kill this
 * process takes the store's write lock, so the child is caught inside that phase rather than past it.
 */
async function indexKilledAt(root: string, db: string, trigger: RegExp): Promise<string> {
  const child = spawn(process.execPath, [cliPath, ...indexArgs(root, db)], {
    cwd: repoRoot,
    env: { ...process.env, ...env() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let killed = false;
  const exited = new Promise<void>((resolve, reject) => {
    child.on("exit", () => resolve());
    child.on("error", reject);
  });
  child.stdout.resume();
  child.stderr.on("data", (d: Buffer) => {
    stderr += d.toString();
    if (killed || !trigger.test(stderr)) return;
    killed = true;
    const lock = new Database(db, { timeout: 20_000 });
    lock.exec("BEGIN IMMEDIATE");
    child.kill("SIGKILL");
    void exited.finally(() => {
      lock.exec("ROLLBACK");
      lock.close();
    });
  });
  await exited;
  expect(killed, `never saw ${String(trigger)} in:\n${stderr}`).toBe(true);
  return stderr;
}

describe("kill -9 at each phase of `memcards index`, then a re-run", () => {
  const root = richRepo(240, 6);
  let clean: GraphSnapshot;

  it("a clean build has every derived edge kind", () => {
    const db = join(tmpDir(), "clean.db");
    const res = runCli(indexArgs(root, db), { env: env() });
    expect(res.code, res.stderr).toBe(0);
    clean = snapshot(db);
    expect(clean.files).toBe(261);
    expect(clean.counts.length).toBeGreaterThan(200);
    for (const kind of ["contains", "imports", "test_covers", "precondition", "similar"]) {
      expect(clean.edges[kind]?.length ?? 0, kind).toBeGreaterThan(0);
    }
    expect(clean.vectorItems.embedded).toBe(clean.vectorItems.total);
    expect(buildRecord(db)?.complete.sort()).toEqual(["edges", "parse", "vectors"]);
  });

  const phases: [string, RegExp][] = [
    ["scan", /^scan…/m],
    ["parse", /files, \d+ symbols/],
    ["edges", /^edges…/m],
    ["vectors", /^vectors: \d+ embedded/m],
  ];
  for (const [phase, trigger] of phases) {
    it(`killed in ${phase}: the store stays sound and the re-run equals the clean build`, async () => {
      const db = join(tmpDir(), `${phase}.db`);
      await indexKilledAt(root, db, trigger);
      const raw = new Database(db);
      expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
      raw.close();
      const left = buildRecord(db);
      expect(left === undefined || left.complete.length < 3, JSON.stringify(left)).toBe(true);

      const again = runCli([...indexArgs(root, db), "--json"], { env: env() });
      expect(again.code, again.stderr).toBe(0);
      expect(snapshot(db)).toEqual(clean);
      expect(buildRecord(db)?.complete.sort()).toEqual(["edges", "parse", "vectors"]);
    });
  }
});

describe("a build that crashes at a phase boundary heals on the next run", () => {
  const root = richRepo(60, 3);
  const cleanDb = join(tmpDir(), "clean.db");
  let clean: GraphSnapshot;

  it("clean build", async () => {
    const app = openTestApp(root, cleanDb);
    try {
      await buildGraph(app.scope, app);
    } finally {
      await app.close();
    }
    clean = snapshot(cleanDb);
    expect(clean.edges.imports?.length ?? 0).toBeGreaterThan(0);
  });

  type Progress = { phase: string; done: number };
  // Each crash point: where it happens, and whether every file is parsed by then (the re-run parses none).
  const crashes: [string, (p: Progress) => boolean, boolean][] = [
    ["when the scan begins", (p) => p.phase === "scan", false],
    ["after the parse batches commit", (p) => p.phase === "parse", true],
    ["when the edge phase begins", (p) => p.phase === "edges", true],
    ["after the edges, before vectors", (p) => p.phase === "done", true],
    ["after the first vectors", (p) => p.phase === "embed", true],
    // Every vector stored, none pending, but no similar edge built yet.
    ["after the last vectors", (p) => p.phase === "embed" && p.done >= clean.vectorItems.total, true],
  ];
  for (const [when, at, allParsed] of crashes) {
    it(`crash ${when}`, async () => {
      const db = join(tmpDir(), "crash.db");
      const app = openTestApp(root, db);
      try {
        const crash = new Error(`crash ${when}`);
        await expect(
          buildGraph(app.scope, app, {
            onProgress: (p) => {
              if (at(p)) throw crash;
            },
          }),
        ).rejects.toBe(crash);
        const again = await buildGraph(app.scope, app);
        if (allParsed) expect(again.files.parsed).toBe(0);
      } finally {
        await app.close();
      }
      expect(snapshot(db)).toEqual(clean);
    });
  }
});
