// A damaged store that still has a write-ahead log, and a store path that is a folder: refused with DB_CORRUPT,
// and neither the store's bytes nor its log are changed (a writable connection's close would fold the log in).
import { createHash } from "node:crypto";
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";

import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";

import { runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

const env = () => ({ MEMCARDS_HOME: tmpDir(), HOME: tmpDir() });
const sha = (p: string) => createHash("sha256").update(readFileSync(p)).digest("hex");

describe("a damaged store with a write-ahead log", () => {
  it("is refused and neither the file nor its log changes", () => {
    const root = tmpDir();
    expect(runCli(["--root", root, "remember", "rule", "Keep the API stable"], { env: env() }).code).toBe(0);
    const db = join(root, ".memcards", "memcards.db");
    // A copy taken while a connection holds frames in the write-ahead log (a changed meta row, not page 1).
    const live = new Database(db);
    live.pragma("wal_autocheckpoint = 0");
    const row = live.prepare("SELECT key, value FROM meta LIMIT 1").get() as { key: string; value: string };
    // A value that differs for sure (reversing a one-character value would write nothing).
    live.prepare("UPDATE meta SET value = ? WHERE key = ?").run(`${row.value}.`, row.key);
    const copyDir = tmpDir();
    const copy = join(copyDir, "memcards.db");
    copyFileSync(db, copy);
    copyFileSync(db + "-wal", copy + "-wal");
    live.close();
    expect(statSync(copy + "-wal").size).toBeGreaterThan(0);
    // Overwrite part of page 1 after the header.
    const fd = openSync(copy, "r+");
    writeSync(fd, Buffer.alloc(200, 0xab), 0, 200, 100);
    closeSync(fd);
    const before = [sha(copy), sha(copy + "-wal")];
    const res = runCli(["--db", copy, "--root", root, "status"], { env: env() });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/DB_CORRUPT/);
    expect(res.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(existsSync(copy + "-wal")).toBe(true);
    expect([sha(copy), sha(copy + "-wal")]).toEqual(before);
  });

  it("a store path that is a folder is DB_CORRUPT from status and named by doctor, without a crash", () => {
    const root = tmpDir();
    mkdirSync(join(root, ".memcards", "memcards.db"), { recursive: true });
    const status = runCli(["--root", root, "status"], { env: env() });
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(/DB_CORRUPT: .*not a database file/);
    const doctor = runCli(["--root", root, "doctor"], { env: env() });
    expect(doctor.stdout + doctor.stderr).toMatch(/store.*DB_CORRUPT/);
    expect(doctor.stderr).not.toMatch(/\n\s+at /);
  });
});
