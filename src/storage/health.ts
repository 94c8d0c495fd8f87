// Store health: file checks run before SQLite touches a store, the corrupt-store error, and moving a bad store aside.
import { closeSync, existsSync, openSync, readSync, renameSync, statSync } from "node:fs";
import { basename } from "node:path";

import { AppError } from "../errors.js";
import type { Db } from "./db.js";

const MAGIC = "SQLite format 3\0";
/** Files SQLite keeps beside a database; they move with it. */
const COMPANIONS = ["-wal", "-shm", "-journal"] as const;

/** What the bytes of a store file say before it is opened. */
export interface StoreFileCheck {
  /** Why the file cannot be a sound store; undefined when it looks fine (or does not exist). */
  problem?: string;
  /** The file exists with 0 bytes and no write-ahead log: SQLite would start an empty store in it. */
  empty: boolean;
  /** No file at the path yet: a new store will be created there. */
  missing?: boolean;
  /** Bytes in the write-ahead log beside the store (0 when there is none). */
  walBytes?: number;
}

function fileSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}

/**
 * Checks a store file without SQLite: the header's magic string and page size, and that the file is as long as
 * its header says (a truncated copy). A 0-byte file is empty, unless a non-empty write-ahead log beside it shows
 * that it held data. Reads at most 100 bytes; never writes.
 */
export function checkStoreFile(path: string): StoreFileCheck {
  let stat;
  try {
    stat = statSync(path);
  } catch {
    return { empty: false, missing: true };
  }
  if (!stat.isFile())
    return { problem: "the path is a directory or a special file, not a database file", empty: false };
  const size = stat.size;
  const walBytes = fileSize(path + "-wal") ?? 0;
  if (size === 0) {
    return walBytes > 0
      ? { problem: `the file is 0 bytes but its write-ahead log holds ${walBytes} bytes`, empty: false }
      : { empty: true };
  }
  if (size < 100) return { problem: `the file is ${size} bytes, shorter than a database header`, empty: false };
  const head = Buffer.alloc(100);
  const fd = openSync(path, "r");
  try {
    readSync(fd, head, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString("latin1", 0, 16) !== MAGIC) {
    return { problem: "file is not a database: its header is overwritten", empty: false };
  }
  const raw = head.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    return { problem: `the header names an impossible page size (${raw})`, empty: false };
  }
  // The page count in the header is valid only when its version stamp matches the change counter. With a
  // non-empty WAL the file may legitimately lag behind (SQLite finishes the checkpoint on open).
  const pages = head.readUInt32BE(28);
  const valid = pages > 0 && head.readUInt32BE(92) === head.readUInt32BE(24);
  if (valid && walBytes === 0 && size < pages * pageSize) {
    return {
      problem: `the file is truncated: ${size} bytes of the ${pages * pageSize} its header records`,
      empty: false,
    };
  }
  return { empty: false, walBytes };
}

/** The DB_CORRUPT error for the store at `path`, naming both ways out. */
export function corruptStoreError(path: string, detail: string, cause?: unknown): AppError {
  return new AppError(
    "DB_CORRUPT",
    `the store ${path} is corrupt (${detail}). Restore it from a backup, or run \`memcards doctor --fix\` (with the same --root/--db) to move it aside as ${basename(path)}.corrupt-<time> and start a fresh store.`,
    cause === undefined ? undefined : { cause },
  );
}

/** Runs SQLite's quick check (every page and index, no cross-checks): [] when sound, else its first findings. */
export function quickCheck(db: Db, max = 5): string[] {
  const rows = db.pragma(`quick_check(${Math.trunc(max)})`) as { quick_check: string }[];
  const found = rows.map((r) => r.quick_check);
  return found.length === 1 && found[0] === "ok" ? [] : found;
}

/**
 * Renames a store and its -wal/-shm/-journal files to `<path>.corrupt-<time>` (same suffixes), keeping every byte
 * for a later rescue; the next open creates a fresh store at `path`. Returns the new name of the store file.
 */
export function moveStoreAside(path: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:.]/g, "-");
  let target = `${path}.corrupt-${stamp}`;
  for (let n = 2; existsSync(target); n++) target = `${path}.corrupt-${stamp}-${n}`;
  renameSync(path, target);
  for (const suffix of COMPANIONS) {
    if (existsSync(path + suffix)) renameSync(path + suffix, target + suffix);
  }
  return target;
}
