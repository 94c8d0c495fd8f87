// Opens the SQLite file: pragmas, sqlite-vec, an FTS5 check, migrations. The only place a connection is made.
import { mkdirSync, statSync } from "node:fs";
import { dirname } from "node:path";

import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";

import { AppError } from "../errors.js";
import { migrate } from "./migrate.js";

export type Db = Database.Database;

export interface OpenOptions {
  /** Read-only connections skip migrations and never create the file. */
  readonly?: boolean;
  /** Milliseconds a writer waits for a lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /** Directory of numbered .sql migrations (tests point this at a fixture folder). */
  migrationsDir?: string;
}

/** Opens (creating if needed) the database at `path`, ready for use: WAL, foreign keys, vec0, FTS5, migrated. */
export function openDatabase(path: string, opts: OpenOptions = {}): Db {
  let db: Db;
  try {
    if (path !== ":memory:" && !opts.readonly) ensureDir(dirname(path));
    db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  } catch (err) {
    throw new AppError(
      "DB_OPEN_FAILED",
      `cannot open database ${path}: ${(err as Error).message}. Check the path and its permissions, or pass --db.`,
      { cause: err },
    );
  }
  try {
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
    if (!opts.readonly) {
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
    }
    db.pragma("foreign_keys = ON");
    // Deleted content is overwritten, not left in free pages: `forget` must leave no trace in the file.
    db.pragma("secure_delete = ON");
    loadVec(db);
    checkFts5(db);
    if (!opts.readonly) migrate(db, opts.migrationsDir);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Creates `dir` and its missing parents one level at a time. (Node's recursive mkdir spins forever on some
 * pseudo file systems such as /proc; walking down from the nearest existing ancestor fails fast instead.)
 */
export function ensureDir(dir: string): void {
  const missing: string[] = [];
  let cur = dir;
  for (;;) {
    try {
      if (!statSync(cur).isDirectory()) throw new Error(`${cur} is not a directory`);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
      missing.push(cur);
      const up = dirname(cur);
      if (up === cur) break;
      cur = up;
    }
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}

function loadVec(db: Db): void {
  try {
    sqliteVec.load(db);
    db.prepare("SELECT vec_version()").get();
  } catch (err) {
    throw new AppError(
      "DB_MISSING_VEC",
      `the sqlite-vec extension could not be loaded (${(err as Error).message}). Reinstall with \`npm ci\` so the sqlite-vec platform package for ${process.platform}-${process.arch} is present.`,
      { cause: err },
    );
  }
}

function checkFts5(db: Db): void {
  try {
    db.exec("CREATE VIRTUAL TABLE temp.__fts5_probe USING fts5(x); DROP TABLE temp.__fts5_probe;");
  } catch (err) {
    throw new AppError(
      "DB_MISSING_FTS5",
      `this SQLite build has no FTS5 (${(err as Error).message}). Reinstall better-sqlite3 (\`npm rebuild better-sqlite3\`); its bundled SQLite includes FTS5.`,
      { cause: err },
    );
  }
}

/** Runs `fn` in an IMMEDIATE transaction: it takes the write lock up front, so it waits instead of failing mid-way. */
export function writeTx<T>(db: Db, fn: () => T): T {
  return db.transaction(fn).immediate();
}

const statements = new WeakMap<Db, Map<string, Database.Statement>>();

/** A prepared statement cached per connection: hot paths prepare each SQL string once. */
export function stmt(db: Db, sql: string): Database.Statement {
  let m = statements.get(db);
  if (!m) statements.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql)));
  return s;
}
