// `scripts/store-tables.mjs`: where a store's bytes go, its tables largest first, however its options are ordered.
import { spawnSync } from "node:child_process";
import { join } from "node:path";

import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";

import { repoRoot } from "../helpers/cli.js";
import { tmpDir } from "../helpers/tmp.js";

const script = join(repoRoot, "scripts", "store-tables.mjs");
const run = (args: string[]) => spawnSync(process.execPath, [script, ...args], { encoding: "utf8" });

function store(): string {
  const path = join(tmpDir("memcards-store-tables-"), "store.db");
  const db = new Database(path);
  db.exec("CREATE TABLE big (x TEXT); CREATE TABLE small (x TEXT);");
  const put = db.prepare("INSERT INTO big (x) VALUES (?)");
  for (let i = 0; i < 200; i++) put.run("x".repeat(1000));
  db.prepare("INSERT INTO small (x) VALUES ('y')").run();
  db.close();
  return path;
}

describe("store-tables", () => {
  it("lists the largest tables first, with --top before or after the store", () => {
    const path = store();
    for (const args of [
      [path, "--top", "1"],
      ["--top", "1", path],
    ]) {
      const res = run(args);
      expect(res.status, res.stderr).toBe(0);
      const lines = res.stdout.trim().split("\n");
      expect(lines[0]).toMatch(/^store [\d.]+ MB in \d+ pages$/);
      expect(lines.slice(1)).toHaveLength(1);
      expect(lines[1]).toMatch(/ big$/);
    }
  });

  it("refuses a --top that is not a positive count, saying how to call it", () => {
    const res = run([store(), "--top"]);
    expect(res.status).toBe(2);
    expect(res.stderr).toContain("usage:");
  });
});
