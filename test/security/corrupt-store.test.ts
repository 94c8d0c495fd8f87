// Damaged and newer-schema stores: every entry point refuses with a clear code and leaves the file's bytes alone;
// doctor names the problem and its fix, and --fix moves a corrupt store aside so a fresh one starts.
import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";

import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";

import { toAppError } from "../../src/errors.js";
import { indexRepository } from "../../src/graph/index-repository.js";
import { silentLogger } from "../../src/log.js";
import { openTestApp } from "../graph/helpers.js";
import { syntheticRepo } from "../graph/synthetic.js";
import { runCli } from "../helpers/cli.js";
import { connect, textOf } from "../helpers/mcp.js";
import { tmpDir } from "../helpers/tmp.js";

const env = () => ({ MEMCARDS_HOME: tmpDir(), HOME: tmpDir() });

/** sha256 of the store and of any -wal beside it. */
function fingerprint(path: string): string {
  const h = createHash("sha256").update(readFileSync(path));
  if (existsSync(path + "-wal")) h.update(readFileSync(path + "-wal"));
  return h.digest("hex");
}

function overwrite(path: string, at: number, bytes: Buffer): void {
  const fd = openSync(path, "r+");
  try {
    writeSync(fd, bytes, 0, bytes.length, at);
  } finally {
    closeSync(fd);
  }
}

interface Damage {
  name: string;
  damage(path: string): void;
  code: "DB_CORRUPT" | "DB_NEWER_SCHEMA";
  detail: RegExp;
}

const damages: Damage[] = [
  {
    name: "a truncated file",
    damage: (p) => truncateSync(p, Math.floor(statSync(p).size / 2)),
    code: "DB_CORRUPT",
    detail: /truncated/,
  },
  {
    name: "a header overwritten with random bytes",
    damage: (p) => overwrite(p, 0, randomBytes(4096)),
    code: "DB_CORRUPT",
    detail: /not a database/,
  },
  {
    name: "a 0-byte file beside a non-empty write-ahead log",
    damage: (p) => {
      truncateSync(p, 0);
      writeFileSync(p + "-wal", randomBytes(8192));
    },
    code: "DB_CORRUPT",
    detail: /0 bytes but its write-ahead log/,
  },
  {
    name: "a newer user_version",
    damage: (p) => {
      const raw = new Database(p);
      raw.pragma("user_version = 999");
      raw.close();
    },
    code: "DB_NEWER_SCHEMA",
    detail: /schema 999/,
  },
  {
    name: "a newer migration recorded",
    damage: (p) => {
      const raw = new Database(p);
      raw.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (998, 'future', 'x')").run();
      raw.close();
    },
    code: "DB_NEWER_SCHEMA",
    detail: /schema 998/,
  },
];

let root: string;
let sound: string;

beforeAll(async () => {
  root = syntheticRepo(40, 3);
  sound = join(tmpDir(), "sound.db");
  const app = openTestApp(root, sound);
  try {
    await indexRepository({ db: app.db, projectId: app.project.id, root, logger: silentLogger });
  } finally {
    await app.close();
  }
});

/** A copy of the sound store, damaged. */
function damagedStore(d: Damage): string {
  const path = join(tmpDir(), "memcards.db");
  copyFileSync(sound, path);
  d.damage(path);
  return path;
}

const cli = (db: string, args: string[], input?: string) =>
  runCli(["--root", root, "--db", db, "--embedder", "offline", ...args], {
    env: env(),
    ...(input ? { input } : {}),
  });

describe.each(damages)("a store with $name", (d) => {
  it("CLI status and index refuse in one line with the code and path, exit 1, and write nothing", () => {
    const db = damagedStore(d);
    const before = fingerprint(db);
    for (const args of [["status"], ["index", "--json"]]) {
      const res = cli(db, args);
      expect(res.code, args.join(" ")).toBe(1);
      const lines = res.stderr.trim().split("\n");
      expect(lines, res.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^memcards: ${d.code}: `));
      expect(lines[0]).toMatch(d.detail);
      if (d.code === "DB_CORRUPT") expect(lines[0]).toContain(db);
      expect(res.stderr).not.toMatch(/^\s+at /m);
      expect(res.stdout).toBe("");
      expect(fingerprint(db)).toBe(before);
    }
    expect(readdirSync(dirname(db)).sort()).toEqual(
      [basename(db), ...(existsSync(db + "-wal") ? [basename(db) + "-wal"] : [])].sort(),
    );
  });

  it("MCP tools return isError with the code (not INTERNAL) and write nothing", async () => {
    const db = damagedStore(d);
    const before = fingerprint(db);
    const c = await connect({ flags: { root, db, embedder: "offline" }, env: env() });
    try {
      const calls = [
        { name: "status", arguments: {} },
        { name: "record_memory", arguments: { category: "decision", text: "Use SQLite for the store" } },
        { name: "build_context_graph", arguments: {} },
      ];
      for (const call of calls) {
        const res = await c.client.callTool(call);
        expect(res.isError, call.name).toBe(true);
        expect(textOf(res)).toMatch(new RegExp(`^${d.code}: `));
        expect(textOf(res)).toMatch(d.detail);
      }
    } finally {
      await c.close();
    }
    expect(fingerprint(db)).toBe(before);
  });

  it("a hook exits 0 and writes nothing", () => {
    const db = damagedStore(d);
    const before = fingerprint(db);
    const input = JSON.stringify({ session_id: "s1", cwd: root, hook_event_name: "SessionStart", source: "startup" });
    const res = cli(db, ["hook", "SessionStart"], input);
    expect(res.code).toBe(0);
    expect(res.stdout).toBe("");
    expect(fingerprint(db)).toBe(before);
  });

  it("doctor names the problem and its fix; doctor --fix moves only a corrupt store aside", () => {
    const db = damagedStore(d);
    const before = fingerprint(db);
    const hadWal = existsSync(db + "-wal");
    const doctor = cli(db, ["doctor", "--json"]);
    expect(doctor.code).toBe(1);
    const checks = JSON.parse(doctor.stdout) as { name: string; level: string; detail: string; fix?: string }[];
    const store = checks.find((c) => c.name === "store");
    expect(store).toMatchObject({ level: "fail" });
    expect(store?.detail).toMatch(new RegExp(`^${d.code}: `));
    expect(store?.fix).toMatch(d.code === "DB_CORRUPT" ? /doctor --fix/ : /upgrade memcards/);
    expect(store?.fix).not.toMatch(/permissions/);
    expect(checks.find((c) => c.name === "write access")).toBeUndefined();
    expect(fingerprint(db)).toBe(before);

    const fixed = cli(db, ["doctor", "--fix", "--json"]);
    if (d.code === "DB_NEWER_SCHEMA") {
      expect(fixed.code).toBe(1);
      expect(fingerprint(db)).toBe(before);
      return;
    }
    expect(fixed.code, fixed.stdout).toBe(0);
    const kept = readdirSync(dirname(db)).filter((f) => /^memcards\.db\.corrupt-[0-9TZ-]+$/.test(f));
    expect(kept).toHaveLength(1);
    const moved = join(dirname(db), kept[0]!);
    expect(fingerprint(moved)).toBe(before);
    expect(existsSync(moved + "-wal")).toBe(hadWal);
    const status = cli(db, ["status", "--json"]);
    expect(status.code, status.stderr).toBe(0);
    expect((JSON.parse(status.stdout) as { counts: { projects: number } }).counts.projects).toBe(1);
    const index = cli(db, ["index", "--json", "--lexical-only"]);
    expect(index.code, index.stderr).toBe(0);
    expect((JSON.parse(index.stdout) as { files: { parsed: number } }).files.parsed).toBe(40);
  });
});

describe("other store states", () => {
  it("a 0-byte store file is initialized in place, with a warning on stderr and from doctor", () => {
    const db = join(tmpDir(), "memcards.db");
    writeFileSync(db, "");
    const doctor = cli(db, ["doctor"]);
    expect(doctor.stdout).toMatch(/^warn\s+store: .*empty \(0-byte\) file/m);
    writeFileSync(db, "");
    const res = cli(db, ["status", "--json"]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toMatch(/memcards warn: the store .* is an empty \(0-byte\) file; a new store is initialized/);
    expect(statSync(db).size).toBeGreaterThan(0);
    const again = cli(db, ["status"]);
    expect(again.stderr).not.toMatch(/0-byte/);
  });

  it("damage past the header: commands fail with DB_CORRUPT (no stack), doctor's quick check finds it", () => {
    const db = join(tmpDir(), "memcards.db");
    copyFileSync(sound, db);
    const pageSize = new Database(sound, { readonly: true }).pragma("page_size", { simple: true }) as number;
    const pages = statSync(db).size / pageSize;
    for (let p = 2; p < pages; p++) overwrite(db, p * pageSize, Buffer.alloc(pageSize, 0x5a));
    // What SQLite throws on reaching a damaged page maps to DB_CORRUPT, wherever it surfaces.
    const raw = new Database(db, { readonly: true });
    let thrown: unknown;
    try {
      raw.prepare("SELECT * FROM nodes").all();
    } catch (err) {
      thrown = err;
    } finally {
      raw.close();
    }
    expect(toAppError(thrown).code).toBe("DB_CORRUPT");
    expect(toAppError(thrown).message).toMatch(/doctor --fix/);
    const status = cli(db, ["status"]);
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(/^memcards: DB_CORRUPT: /m);
    expect(status.stderr).not.toMatch(/^\s+at /m);
    const doctor = cli(db, ["doctor", "--json"]);
    expect(doctor.code).toBe(1);
    const store = (JSON.parse(doctor.stdout) as { name: string; detail: string }[]).find((c) => c.name === "store");
    expect(store?.detail).toMatch(/^DB_CORRUPT: /);
  });

  it("doctor reports a sound store as such", () => {
    const db = join(tmpDir(), "memcards.db");
    copyFileSync(sound, db);
    const res = cli(db, ["doctor"]);
    expect(res.code, res.stdout).toBe(0);
    expect(res.stdout).toMatch(/^ok\s+store: .* passes SQLite's quick check/m);
    expect(res.stdout).toMatch(/^ok\s+write access/m);
  });
});
