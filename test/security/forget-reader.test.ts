// Forget against another connection's open read, and ids after forget: while a reader in another process holds a
// snapshot, forget says the text is still in the file (and a purge it reports done leaves none); once the read
// ends the purge finishes and no byte of the text is left in the database or its WAL. An id is never reused.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { NOT_PURGED, purgeNote } from "../../src/memory/service.js";
import { forget, recordMemory } from "../../src/session/memory.js";
import { type Db, openDatabase } from "../../src/storage/db.js";
import { finishPurge, insertMemory, type PurgeResult } from "../../src/storage/memories.js";
import { upsertProject } from "../../src/storage/projects.js";
import { repoRoot } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";
import { leaked } from "./canaries.js";

const CANARY = "quokkazanzibar";

function store(busyTimeoutMs = 5000) {
  const dbPath = join(tmpDir("memcards-reader-"), "memcards.db");
  const db = openDatabase(dbPath, { busyTimeoutMs });
  const project = upsertProject(db, "/p", "/p");
  const scope = { db, projectId: project.id, root: "/p" };
  const rec = (text: string) => recordMemory(scope, { category: "decision", text }).id!;
  return { dbPath, db, scope, rec };
}

/** A reader in another process: it opens the store, starts a read and holds it until it gets a line on stdin. */
async function reader(dbPath: string): Promise<{ child: ChildProcess; release: () => Promise<void> }> {
  const sqlite = createRequire(join(repoRoot, "package.json")).resolve("better-sqlite3");
  const script = `
    const Database = require(${JSON.stringify(sqlite)});
    const db = new Database(process.argv[1]);
    db.exec("BEGIN");
    db.prepare("SELECT count(*) FROM memories").get();
    process.stdout.write("ready\\n");
    process.stdin.once("data", () => { db.exec("COMMIT"); db.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ["-e", script, dbPath], { stdio: ["pipe", "pipe", "inherit"] });
  await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return {
    child,
    release: async () => {
      child.stdin!.write("go\n");
      await exited;
    },
  };
}

describe("forget while another connection reads", () => {
  it("says the text is still in the file while the read is open, and leaves none once it ends", async () => {
    const s = store(200);
    const gone = s.rec(`Deploy only from the ${CANARY} branch`);
    s.rec("Keep the marmalade tests green");
    s.db.pragma("wal_checkpoint(TRUNCATE)");
    expect(leaked(s.dbPath, [CANARY])).toEqual([CANARY]);
    const r = await reader(s.dbPath);
    try {
      const f = forget(s.scope, { id: gone });
      expect(f.memories).toBe(1);
      // The reader's snapshot still needs the old pages: forget must not claim a purge it could not do.
      expect(f.purged).toBe(false);
      expect(leaked(s.dbPath, [CANARY])).toEqual([CANARY]);
    } finally {
      await r.release();
    }
    // The read has ended: the pending purge finishes (what the next open or close of the store does).
    expect(finishPurge(s.db)).toEqual({ purged: true });
    expect(leaked(s.dbPath, [CANARY])).toEqual([]);
    expect(leaked(s.dbPath, ["marmalade"])).toEqual(["marmalade"]);
    s.db.close();
  });

  it("retries of a delayed purge do not grow the log while the read stays open", async () => {
    const s = store(200);
    for (let i = 0; i < 200; i++) s.rec(`Decision ${i}: module m${i} keeps approach a${i * 7} for the parser`);
    const gone = s.rec(`Deploy only from the ${CANARY} branch`);
    s.db.pragma("wal_checkpoint(TRUNCATE)");
    const r = await reader(s.dbPath);
    try {
      expect(forget(s.scope, { id: gone }).purged).toBe(false);
      const wal = statSync(`${s.dbPath}-wal`).size;
      // Each open and close of the store retries the purge: none may add another copy of the store to the log.
      for (let i = 0; i < 4; i++) expect(finishPurge(s.db, { wait: false })).toEqual({ purged: false });
      expect(statSync(`${s.dbPath}-wal`).size).toBe(wal);
    } finally {
      await r.release();
    }
    expect(finishPurge(s.db)).toEqual({ purged: true });
    expect(leaked(s.dbPath, [CANARY])).toEqual([]);
    s.db.close();
  });

  it("a forget with no other reader purges at once", () => {
    const s = store();
    const gone = s.rec(`Deploy only from the ${CANARY} branch`);
    const f = forget(s.scope, { id: gone });
    expect(f.purged).toBe(true);
    expect(leaked(s.dbPath, [CANARY])).toEqual([]);
    s.db.close();
  });
});

describe("ids after forget", () => {
  it("are never reused: the next unit gets a new id, even after the newest was forgotten", () => {
    const s = store();
    const a = s.rec("First decision about the parser");
    const b = s.rec("Second decision about the lexer");
    forget(s.scope, { id: b });
    const c = s.rec("Third decision about the printer");
    expect(c).toBeGreaterThan(b);
    forget(s.scope, { all: true });
    const d = s.rec("Fourth decision about the linker");
    expect(d).toBeGreaterThan(c);
    expect(a).toBeLessThan(b);
    s.db.close();
  });

  it("a store from before keeps its units and links, and ids continue above every one handed out", () => {
    const dir = tmpDir("memcards-mig-");
    const old = join(dir, "migrations");
    mkdirSync(old);
    const all = join(repoRoot, "src", "storage", "migrations");
    for (const f of readdirSync(all)) if (/^000[1-9]_/.test(f)) copyFileSync(join(all, f), join(old, f));
    const dbPath = join(dir, "memcards.db");
    let db: Db = openDatabase(dbPath, { migrationsDir: old });
    const p = upsertProject(db, "/p", "/p");
    const unit = (text: string) =>
      insertMemory(db, {
        project_id: p.id,
        session_id: null,
        category: "decision",
        text,
        record: {},
        merge_key: text,
        confidence: 0.9,
        importance: 0.5,
        tier: "warm",
        status: "active",
        superseded_by: null,
        conflicts_with: null,
        evidence: [],
        files: [],
        created_at: "2026-01-01T00:00:00Z",
        updated_at: "2026-01-01T00:00:00Z",
      });
    const first = unit("the old rule");
    const second = unit("the new rule");
    const third = unit("a unit served as a card, then deleted");
    db.prepare("UPDATE memories SET superseded_by = ? WHERE id = ?").run(second, first);
    db.prepare("INSERT INTO outcomes (project_id, unit_key, helped, created_at) VALUES (?, ?, 1, ?)").run(
      p.id,
      `memory:${third}`,
      "2026-01-01T00:00:00Z",
    );
    db.prepare("DELETE FROM memories WHERE id = ?").run(third);
    db.close();

    db = openDatabase(dbPath);
    const sql = (db.prepare("SELECT sql FROM sqlite_master WHERE name = 'memories'").get() as { sql: string }).sql;
    expect(sql).toMatch(/AUTOINCREMENT/);
    expect(sql).toMatch(/STRICT\s*$/);
    expect(db.prepare("SELECT superseded_by FROM memories WHERE id = ?").get(first)).toEqual({ superseded_by: second });
    expect(db.pragma("foreign_key_check")).toEqual([]);
    const next = unit("a unit after the upgrade");
    expect(next).toBeGreaterThan(third);
    db.close();
  });
});

/** Makes the store's rewrite fail as SQLite fails it (the disk full, or another connection's lock). */
function failVacuum(db: Db, message: string, code: string): void {
  const SqliteError = (
    createRequire(join(repoRoot, "package.json"))("better-sqlite3") as {
      SqliteError: new (m: string, c: string) => Error;
    }
  ).SqliteError;
  const exec = db.exec.bind(db);
  db.exec = (sql: string) => {
    if (sql.trim().toUpperCase() === "VACUUM") throw new SqliteError(message, code);
    return exec(sql);
  };
}

/**
 * Finishes a pending purge in another process whose files may not grow past `bytes` (`ulimit -f`, 512-byte blocks):
 * its result, and the size of the log while that process still has the store open.
 */
function purgeWithFileLimit(dbPath: string, bytes: number): PurgeResult & { wal: number } {
  const sqlite = createRequire(join(repoRoot, "package.json")).resolve("better-sqlite3");
  const memories = join(repoRoot, "dist", "src", "storage", "memories.js");
  const script = `
    import { createRequire } from "node:module";
    import { existsSync, statSync } from "node:fs";
    import { finishPurge } from ${JSON.stringify(memories)};
    const Database = createRequire(import.meta.url)(${JSON.stringify(sqlite)});
    const path = ${JSON.stringify(dbPath)};
    const db = new Database(path);
    const r = finishPurge(db);
    const wal = existsSync(path + "-wal") ? statSync(path + "-wal").size : 0;
    process.stdout.write(JSON.stringify({ ...r, wal }));`;
  const child = spawnSync(
    "sh",
    ["-c", `ulimit -f ${bytes / 512} && exec "$0" --input-type=module -e "$1"`, process.execPath, script],
    { encoding: "utf8" },
  );
  expect(child.stderr).toBe("");
  return JSON.parse(child.stdout) as PurgeResult & { wal: number };
}

describe("a forget whose rewrite of the store fails", () => {
  it("says why, instead of blaming another reader, and finishes the purge once the rewrite can run", () => {
    const s = store();
    const gone = s.rec(`Deploy only from the ${CANARY} branch`);
    const exec = s.db.exec.bind(s.db);
    failVacuum(s.db, "database or disk is full", "SQLITE_FULL");
    const f = forget(s.scope, { id: gone });
    expect(f.memories).toBe(1);
    expect(f.purged).toBe(false);
    expect(f.purgeProblem).toBe("database or disk is full");
    const note = purgeNote(f);
    expect(note).toContain("database or disk is full");
    expect(note).not.toBe(NOT_PURGED);
    // The unit itself is gone; only its bytes may linger until the rewrite runs.
    expect(forget(s.scope, { all: true }).memories).toBe(0);
    s.db.exec = exec;
    expect(finishPurge(s.db)).toEqual({ purged: true });
    expect(leaked(s.dbPath, [CANARY])).toEqual([]);
    s.db.close();
  });

  it("gives back the disk it took: a rewrite stopped part-way leaves nothing in the log", async () => {
    const s = store(200);
    const gone = s.rec(`Deploy only from the ${CANARY} branch`);
    for (let i = 0; i < 60; i++) s.rec(`Rule ${i}: release trains leave on ${i % 7} with ${"notes ".repeat(40)}`);
    // A purge left pending: forgotten while another connection read, then the read ended and the store closed.
    const r = await reader(s.dbPath);
    try {
      expect(forget(s.scope, { id: gone }).purged).toBe(false);
    } finally {
      await r.release();
    }
    s.db.close();
    const limit = 64 * 1024;
    expect(statSync(s.dbPath).size).toBeGreaterThan(4 * limit);
    // Another process finishes it where no file may grow past 64 KiB: its rewrite stops part-way, as on a full disk.
    const f = purgeWithFileLimit(s.dbPath, limit);
    expect(f.purged).toBe(false);
    expect(f.purgeProblem).toMatch(/\w/);
    expect(purgeNote(f)).toContain(f.purgeProblem);
    // What the stopped rewrite had written does not stay in the log, holding the disk's last free space.
    expect(f.wal).toBe(0);
    // With room again, the purge finishes and the text is gone.
    const db = openDatabase(s.dbPath);
    expect(finishPurge(db)).toEqual({ purged: true });
    db.close();
    expect(leaked(s.dbPath, [CANARY])).toEqual([]);
  });

  it("a lock held by another connection is not a problem to report: the next open or close retries", () => {
    const s = store();
    const gone = s.rec(`Deploy only from the ${CANARY} branch`);
    failVacuum(s.db, "database is locked", "SQLITE_BUSY");
    const f = forget(s.scope, { id: gone });
    expect(f).toMatchObject({ memories: 1, purged: false });
    expect(f.purgeProblem).toBeUndefined();
    expect(purgeNote(f)).toBe(NOT_PURGED);
    s.db.close();
  });
});
