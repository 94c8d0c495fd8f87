import { realpathSync } from "node:fs";
import { join } from "node:path";

import { describe, expect, it } from "vitest";

import { Status } from "../../src/status.js";
import { runCli } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";
import { fixture } from "../transcript/data.js";

const home = () => ({ MEMCARDS_HOME: tmpDir() });

describe("memcards CLI", () => {
  it("status --json reports the project and creates the store with its .gitignore", () => {
    const root = realpathSync(tmpDir());
    const res = runCli(["--root", root, "status", "--json"], { env: home() });
    expect(res.code).toBe(0);
    const status = Status.parse(JSON.parse(res.stdout));
    expect(status.root).toBe(root);
    expect(status.rootSource).toBe("flag");
    expect(status.db.path).toBe(join(root, ".memcards", "memcards.db"));
    expect(status.db.schemaVersion).toBeGreaterThanOrEqual(1);
    expect(status.counts.projects).toBe(1);
    expect(status.embedder.mode).toBe("offline");
    expect(res.stderr).toMatch(/offline embedder/);
    const again = runCli(["--root", root, "status", "--json"], { env: home() });
    expect(Status.parse(JSON.parse(again.stdout)).counts.projects).toBe(1);
  });

  it("honours --db and MEMCARDS_DB", () => {
    const db = join(tmpDir(), "elsewhere", "x.db");
    const res = runCli(["--root", tmpDir(), "status", "--json"], { env: { ...home(), MEMCARDS_DB: db } });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).db.path).toBe(db);
  });

  it("doctor exits 0 here, with the offline embedder as a warning", () => {
    const res = runCli(["--root", tmpDir(), "doctor"], { env: home() });
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^ok\s+node: Node/m);
    expect(res.stdout).toMatch(/^ok\s+sqlite-vec: sqlite-vec v0\.1\.9/m);
    expect(res.stdout).toMatch(/^ok\s+fts5/m);
    expect(res.stdout).toMatch(/^warn\s+embedder: no model cached/m);
    expect(res.stdout).toMatch(/fix: with a network, run `memcards models pull/);
    expect(res.stdout).toMatch(/^ok\s+write access/m);
  });

  it("doctor fails with a fix when the database cannot be written", () => {
    const res = runCli(["--root", tmpDir(), "--db", "/proc/nope/x.db", "doctor", "--json"], { env: home() });
    expect(res.code).toBe(1);
    const checks = JSON.parse(res.stdout) as { name: string; level: string; fix?: string }[];
    expect(checks.find((c) => c.name === "write access")).toMatchObject({ level: "fail" });
  });

  it("gives clear errors for bad flags and bad values", () => {
    const unknown = runCli(["status", "--bogus"], { env: home() });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown option '--bogus'/);
    const missing = runCli(["--root", "/no/such/dir", "status"], { env: home() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/NOT_FOUND: the project root .*\/no\/such\/dir does not exist/);
    const level = runCli(["--log-level", "loud", "status"], { env: home() });
    expect(level.code).toBe(1);
    expect(level.stderr).toMatch(/Allowed choices are debug, info, warn, error, silent/);
    const port = runCli(["serve", "--http", "--port", "99999"], { env: home() });
    expect(port.code).toBe(1);
    expect(port.stderr).toMatch(/BAD_INPUT: invalid setting http.port/);
    const both = runCli(["--root", tmpDir(), "reembed"], { env: home() });
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/exactly one of --model <id> or --offline/);
  });

  it("prints help for every command", () => {
    for (const args of [["--help"], ["serve", "--help"], ["status", "--help"], ["models", "pull", "--help"]]) {
      const res = runCli(args, { env: home() });
      expect(res.code).toBe(0);
      expect(res.stdout).toMatch(/Usage: memcards/);
    }
  });

  it("reembed --offline rebinds the database and reports it", () => {
    const root = tmpDir();
    const res = runCli(["--root", root, "reembed", "--offline", "--json"], { env: home() });
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ to: "offline:hash-v1:256" });
  });

  it("distill stores typed units from a real transcript and says what it did", () => {
    const root = tmpDir();
    const res = runCli(["--root", root, "distill", fixture("specstory-copilot-old.md"), "--json"], { env: home() });
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout) as { memories: { added: number; archived: number } };
    expect(out.memories.added).toBeGreaterThan(0);
    expect(out.memories.archived).toBeGreaterThan(0);
    const again = runCli(["--root", root, "distill", fixture("specstory-copilot-old.md")], { env: home() });
    expect(again.stdout).toMatch(/^Nothing distilled for session .*Nothing new to summarize/);
    const list = runCli(["--root", root, "memories", "--json"], { env: home() });
    const rows = JSON.parse(list.stdout) as Record<string, unknown>[];
    expect(rows.length).toBeGreaterThan(0);
    // The JSON columns print in their stored form: JSON text.
    for (const k of ["record", "evidence", "files"]) expect(typeof rows[0]![k], k).toBe("string");
    expect(Array.isArray(JSON.parse(rows[0]!.evidence as string))).toBe(true);
  });
});
