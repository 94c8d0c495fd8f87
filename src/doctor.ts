// `memcards doctor`: checks the runtime, native modules, SQLite features, embedder, the store's health and write access.
import { accessSync, constants, existsSync } from "node:fs";
import { dirname, resolve } from "node:path";

import { z } from "zod";

import { createApp } from "./app.js";
import type { Config } from "./config.js";
import { DEFAULT_MODEL, isModelCached } from "./embeddings/transformers.js";
import { toAppError } from "./errors.js";
import { silentLogger } from "./log.js";
import { type ProjectLocation, resolveProjectRoot } from "./project/root.js";
import { inspectStore, openDatabase, sqliteVersions } from "./storage/db.js";
import { checkStoreFile, moveStoreAside } from "./storage/health.js";

export const CheckLevel = z.enum(["ok", "warn", "fail"]);
export const Check = z.object({
  name: z.string(),
  level: CheckLevel,
  detail: z.string(),
  fix: z.string().optional(),
});
export type Check = z.infer<typeof Check>;

const MIN_NODE = [20, 12] as const;

function nodeCheck(): Check {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const okVersion = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return okVersion
    ? { name: "node", level: "ok", detail: `Node ${process.versions.node}` }
    : {
        name: "node",
        level: "fail",
        detail: `Node ${process.versions.node} is older than ${MIN_NODE.join(".")}`,
        fix: "install Node 20.12 or newer",
      };
}

function sqliteChecks(): Check[] {
  try {
    const db = openDatabase(":memory:");
    const v = sqliteVersions(db);
    db.close();
    return [
      { name: "better-sqlite3", level: "ok", detail: `SQLite ${v.sqlite} (native module loads)` },
      { name: "fts5", level: "ok", detail: "FTS5 available" },
      { name: "sqlite-vec", level: "ok", detail: `sqlite-vec ${v.vec}` },
    ];
  } catch (err) {
    const e = err as Error & { code?: string };
    const name = e.code === "DB_MISSING_FTS5" ? "fts5" : e.code === "DB_MISSING_VEC" ? "sqlite-vec" : "better-sqlite3";
    return [
      {
        name,
        level: "fail",
        detail: e.message,
        fix: "run `npm rebuild better-sqlite3` (or `npm ci`) in memcards' folder",
      },
    ];
  }
}

async function transformersCheck(config: Config): Promise<Check> {
  const model = config.embedder === "auto" || config.embedder === "offline" ? DEFAULT_MODEL : config.embedder;
  try {
    await import("@huggingface/transformers");
  } catch (err) {
    return {
      name: "embedder",
      level: "warn",
      detail: `transformers.js does not load (${(err as Error).message}); the offline embedder serves`,
      fix: "reinstall with `npm ci`",
    };
  }
  if (config.embedder === "offline") {
    return { name: "embedder", level: "ok", detail: "offline embedder chosen explicitly (--embedder offline)" };
  }
  if (isModelCached(model, config.modelsDir)) {
    return { name: "embedder", level: "ok", detail: `model ${model} cached in ${config.modelsDir}` };
  }
  return {
    name: "embedder",
    level: "warn",
    detail: `no model cached in ${config.modelsDir}: the built-in offline embedder serves (lexical and anchor search are unaffected)`,
    fix: `with a network, run \`memcards models pull ${model}\` then \`memcards reembed --model ${model}\``,
  };
}

const CORRUPT_FIX =
  "restore the store from a backup, or run `memcards doctor --fix` to move it aside (the old file is kept) and start a fresh store";
const NEWER_FIX =
  "upgrade memcards (`npm install -g memcards@latest`), or pass --db with another file; --fix leaves this store alone";
const PERMISSION_FIX = "pass --db with a writable path, or fix the folder's permissions";

/** The store's health, then write access; a corrupt store is moved aside first when `fix` is set. */
function storeChecks(config: Config, cwd: string, fix: boolean): Check[] {
  let dbPath: string;
  let location: ProjectLocation;
  const out: Check[] = [];
  try {
    location = resolveProjectRoot({ explicit: config.root, cwd, userDir: config.userDir });
    dbPath = resolve(config.db ?? location.defaultDbPath);
  } catch (err) {
    return [
      { name: "project root", level: "fail", detail: (err as Error).message, fix: "pass --root with a directory" },
    ];
  }
  out.push(
    location.source === "user-store"
      ? {
          name: "project root",
          level: "warn",
          detail: `no project found from ${cwd}; the per-user store ${location.root} is used`,
          fix: "run inside a git repository, or pass --root",
        }
      : { name: "project root", level: "ok", detail: `${location.root} (from ${location.source})` },
  );
  if (checkStoreFile(dbPath).empty) {
    out.push({
      name: "store",
      level: "warn",
      detail: `${dbPath} is an empty (0-byte) file: a new store is initialized in it`,
      fix: "if it held data, restore it from a backup before the next memcards command",
    });
  } else if (existsSync(dbPath)) {
    try {
      inspectStore(dbPath);
      out.push({ name: "store", level: "ok", detail: `${dbPath} passes SQLite's quick check` });
    } catch (err) {
      const e = toAppError(err);
      if (e.code === "DB_CORRUPT" && fix) {
        const kept = moveStoreAside(dbPath);
        out.push({
          name: "store",
          level: "ok",
          detail: `the corrupt store was moved aside to ${kept} (kept with its -wal/-shm files); a fresh store is created at ${dbPath}`,
        });
      } else {
        const fixText =
          e.code === "DB_CORRUPT" ? CORRUPT_FIX : e.code === "DB_NEWER_SCHEMA" ? NEWER_FIX : PERMISSION_FIX;
        // Nothing more is tried: a store that cannot be read safely must not be written.
        return [...out, { name: "store", level: "fail", detail: `${e.code}: ${e.message}`, fix: fixText }];
      }
    }
  }
  try {
    const dir = dirname(dbPath);
    if (existsSync(dir)) accessSync(dir, constants.W_OK);
    const app = createApp(config, location, silentLogger);
    void app.close();
    out.push({ name: "write access", level: "ok", detail: `database ${dbPath} opens for writing` });
  } catch (err) {
    // A store the repository commits is not opened: the message names both ways out.
    if (toAppError(err).code === "STORE_UNTRUSTED")
      out.push({ name: "store trust", level: "fail", detail: `STORE_UNTRUSTED: ${toAppError(err).message}` });
    else out.push({ name: "write access", level: "fail", detail: (err as Error).message, fix: PERMISSION_FIX });
  }
  return out;
}

/**
 * Runs every check. Failing checks mean memcards cannot work; warnings mean it works with less. With `fix`, a
 * corrupt store is renamed to `<file>.corrupt-<time>` (never deleted) so the next use starts a fresh one.
 */
export async function runDoctor(config: Config, cwd: string, opts: { fix?: boolean } = {}): Promise<Check[]> {
  return [
    nodeCheck(),
    ...sqliteChecks(),
    await transformersCheck(config),
    ...storeChecks(config, cwd, opts.fix ?? false),
  ];
}

/** One line a check, with its fix indented below. */
export function renderChecks(checks: Check[]): string {
  const lines: string[] = [];
  for (const c of checks) {
    lines.push(`${c.level.padEnd(4)}  ${c.name}: ${c.detail}`);
    if (c.fix && c.level !== "ok") lines.push(`      fix: ${c.fix}`);
  }
  return lines.join("\n");
}
