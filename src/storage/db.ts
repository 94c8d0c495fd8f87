// Opens the SQLite file: pragmas, sqlite-vec, an FTS5 check, migrations. The only place a connection is made.
import { dirname } from "node:path";

import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";

import { AppError, isCorruptionError } from "../errors.js";
import { ensureDir } from "../project/dirs.js";
import { checkStoreFile, corruptStoreError, quickCheck } from "./health.js";
import { finishSupersededIndex } from "./memories.js";
import { assertKnownSchema, migrate } from "./migrate.js";

export type Db = Database.Database;

export interface OpenOptions {
  /** Read-only connections skip migrations and never create the file. */
  readonly?: boolean;
  /** Milliseconds a writer waits for a lock before SQLITE_BUSY. */
  busyTimeoutMs?: number;
  /** Directory of numbered .sql migrations (tests point this at a fixture folder). */
  migrationsDir?: string;
  /** Receives warnings about the store (an empty file initialized in place). */
  onWarning?: (message: string) => void;
}

/**
 * Opens (creating if needed) the database at `path`, ready for use: WAL, foreign keys, vec0, FTS5, migrated.
 * A damaged file fails with DB_CORRUPT and a store from a newer memcards with DB_NEWER_SCHEMA, both before
 * anything is written to it. An existing 0-byte file (no WAL beside it) holds nothing to lose: SQLite treats it
 * as empty, so a new store is initialized in it, with a warning.
 */
export function openDatabase(path: string, opts: OpenOptions = {}): Db {
  const onDisk = path !== ":memory:" && path !== "";
  if (onDisk) {
    const file = checkStoreFile(path);
    if (file.problem) throw corruptStoreError(path, file.problem);
    if (file.empty && !opts.readonly) {
      opts.onWarning?.(
        `the store ${path} is an empty (0-byte) file; a new store is initialized in it. If it held data, restore it from a backup.`,
      );
    }
    // A store with a write-ahead log is read first on a read-only connection: closing a writable connection after
    // an error would fold the log into a damaged file (and delete the log). Without a log there is nothing to fold.
    if ((file.walBytes ?? 0) > 0 && !opts.readonly) inspectStore(path, opts.migrationsDir, { pages: false });
  }
  let db: Db;
  try {
    if (path !== ":memory:" && !opts.readonly) ensureDir(dirname(path));
    db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  } catch (err) {
    if (isCorruptionError(err)) throw corruptStoreError(path, (err as Error).message, err);
    throw new AppError(
      "DB_OPEN_FAILED",
      `cannot open database ${path}: ${(err as Error).message}. Check the path and its permissions, or pass --db.`,
      { cause: err },
    );
  }
  try {
    db.pragma(`busy_timeout = ${opts.busyTimeoutMs ?? 5000}`);
    // Read the schema and its version before any pragma or migration can write to the file.
    db.prepare("SELECT COUNT(*) FROM sqlite_master").get();
    assertKnownSchema(db, opts.migrationsDir);
    if (!opts.readonly) {
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
    }
    db.pragma("foreign_keys = ON");
    // Deleted content is overwritten, not left in free pages: `forget` must leave no trace in the file.
    db.pragma("secure_delete = ON");
    loadVec(db);
    checkFts5(db);
    if (!opts.readonly) {
      migrate(db, opts.migrationsDir);
      finishSupersededIndex(db);
      // Statistics that are missing or far from the tables' sizes are refreshed (bounded) before the first query.
      optimizePlanner(db);
    }
    return db;
  } catch (err) {
    db.close();
    throw isCorruptionError(err) ? corruptStoreError(path, (err as Error).message, err) : err;
  }
}

/**
 * Checks an existing store without changing it: the file's header, its schema and version, then SQLite's quick
 * check of every page (seconds on a very large store, so only `doctor` runs it). Throws DB_CORRUPT or
 * DB_NEWER_SCHEMA. The connection is read-only, so a write-ahead log is never checkpointed into a damaged file.
 * `pages: false` skips the page check (what every open does before its writable connection).
 */
export function inspectStore(path: string, migrationsDir?: string, opts: { pages?: boolean } = {}): void {
  const file = checkStoreFile(path);
  if (file.problem) throw corruptStoreError(path, file.problem);
  let db: Db;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (err) {
    if (isCorruptionError(err)) throw corruptStoreError(path, (err as Error).message, err);
    throw new AppError("DB_OPEN_FAILED", `cannot open database ${path}: ${(err as Error).message}.`, { cause: err });
  }
  try {
    db.pragma("busy_timeout = 5000");
    db.prepare("SELECT COUNT(*) FROM sqlite_master").get();
    assertKnownSchema(db, migrationsDir);
    const found = opts.pages === false ? [] : quickCheck(db, 1);
    if (found.length) {
      const first = found.flatMap((f) => f.split("\n")).find((line) => line && !line.startsWith("***"));
      throw corruptStoreError(path, `quick check: ${first ?? found[0]}`);
    }
  } catch (err) {
    throw isCorruptionError(err) ? corruptStoreError(path, (err as Error).message, err) : err;
  } finally {
    // The empty -wal/-shm a read-only connection may leave stay: another process may be using them already, and
    // removing a live write-ahead log loses that process's writes.
    db.close();
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

/** Rows each index samples when statistics are gathered: enough for the planner, bounded on any store. */
const ANALYSIS_LIMIT = 1000;

/**
 * Gathers the query planner's statistics (bounded sampling). Run after a bulk change such as an index build: without
 * them SQLite may pick an index that matches nearly every row.
 */
export function refreshPlannerStats(db: Db): void {
  db.pragma(`analysis_limit = ${ANALYSIS_LIMIT}`);
  db.exec("ANALYZE");
}

/** Refreshes only statistics that are missing or stale (SQLite's own check; usually no work). */
export function optimizePlanner(db: Db): void {
  db.pragma(`analysis_limit = ${ANALYSIS_LIMIT}`);
  db.pragma("optimize = 0x10002");
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

const versioned = new WeakMap<Db, Map<string, { version: string; value: unknown }>>();

/**
 * `compute()` once per state of the store: kept until this connection or another one commits a change. For
 * whole-table figures (counts) that every call needs and few writes change.
 */
export function perStoreState<T>(db: Db, name: string, compute: () => T): T {
  const changes = (stmt(db, "SELECT total_changes() AS n").get() as { n: number }).n;
  const version = `${String(db.pragma("data_version", { simple: true }))}:${changes}`;
  let m = versioned.get(db);
  if (!m) versioned.set(db, (m = new Map()));
  const hit = m.get(name);
  if (hit?.version === version) return hit.value as T;
  const value = compute();
  m.set(name, { version, value });
  return value;
}

/** The SQL of every statement prepared through `stmt` on this connection so far (what the hot paths ran). */
export function preparedSql(db: Db): string[] {
  return [...(statements.get(db)?.keys() ?? [])];
}

/**
 * Copies the write-ahead log into the database file: PASSIVE never waits for readers; TRUNCATE also empties it,
 * waiting (up to the busy timeout) for readers. `busy` is true when a reader kept it from finishing.
 */
export function checkpointWal(db: Db, mode: "PASSIVE" | "TRUNCATE"): { busy: boolean } {
  const row = db.pragma(`wal_checkpoint(${mode})`) as { busy: number }[];
  return { busy: (row[0]?.busy ?? 0) !== 0 };
}

/** The SQLite library's version and the loaded sqlite-vec extension's version. */
export function sqliteVersions(db: Db): { sqlite: string; vec: string } {
  return stmt(db, "SELECT sqlite_version() AS sqlite, vec_version() AS vec").get() as { sqlite: string; vec: string };
}

/** The full-text indexes whose pages must lose a replaced or deleted text. */
export type FtsTable = "memories_fts" | "nodes_fts" | "raw_turns_fts";

/** Merges an FTS5 index into one segment: the terms of replaced or deleted rows leave its pages for good. */
export function optimizeFts(db: Db, table: FtsTable): void {
  db.exec(`INSERT INTO ${table} (${table}) VALUES ('optimize')`);
}
