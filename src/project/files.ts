// Files memcards writes and reads without following links: new files are created exclusively (O_EXCL), existing
// ones opened with O_NOFOLLOW and checked on the descriptor, and what is read is read from the descriptor that
// was checked, so a file swapped for a link after the check is never read or written.
import {
  closeSync,
  constants as fsConstants,
  fstatSync,
  ftruncateSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
  writeSync,
} from "node:fs";
import { basename } from "node:path";

import { AppError } from "../errors.js";

const NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;
const NONBLOCK = fsConstants.O_NONBLOCK ?? 0;

/** The current user's id, or undefined where there is none (Windows). */
const myUid = (): number | undefined => (typeof process.getuid === "function" ? process.getuid() : undefined);

function unsafe(path: string, why: string): AppError {
  return new AppError(
    "UNSAFE_FILE",
    `refusing to use ${path}: ${why}. memcards never follows links or writes files of another user in its store folder; remove it (a cloned repository may have brought it) and run again.`,
  );
}

/** lstat, or undefined when nothing is there. */
function lstatOrNone(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** Why `st` (of `path`) may not be used as something memcards writes, or undefined when it may. */
function ownProblem(st: Stats, want: "file" | "dir"): string | undefined {
  if (st.isSymbolicLink()) return "it is a symbolic link";
  if (want === "dir" && !st.isDirectory()) return "it is not a folder";
  if (want === "file" && !st.isFile()) return "it is not a regular file";
  const uid = myUid();
  if (uid !== undefined && st.uid !== uid) return `it belongs to user ${st.uid}, not to you (${uid})`;
  if (want === "file" && st.nlink > 1) return `it has ${st.nlink} hard links`;
  return undefined;
}

/**
 * Checks a store before it is opened: its folder (when it is a `.memcards` folder or the per-user folder) must be a
 * real folder of the current user, and the database and its `-wal`, `-shm` and `-journal` files, where they exist,
 * regular files of the current user with one link. Throws UNSAFE_FILE naming the file.
 */
export function checkStoreFiles(dbPath: string, storeDir: string, ownFolder: boolean): void {
  if (ownFolder) {
    const st = lstatOrNone(storeDir);
    const why = st && ownProblem(st, "dir");
    if (why) throw unsafe(storeDir, why);
  }
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    const st = lstatOrNone(dbPath + suffix);
    // A folder or other non-file in the store's place is the store health check's to name (DB_CORRUPT).
    const why = st && (st.isFile() || st.isSymbolicLink()) ? ownProblem(st, "file") : undefined;
    if (why) throw unsafe(dbPath + suffix, why);
  }
}

/** Opens `path` for writing without following a link; the descriptor must be a regular file of this user. */
function openOwn(path: string, flags: number): number {
  let fd: number;
  try {
    fd = openSync(path, flags | NOFOLLOW | NONBLOCK, 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK") throw unsafe(path, "it is a symbolic link");
    throw err;
  }
  const why = ownProblem(fstatSync(fd), "file");
  if (why) {
    closeSync(fd);
    throw unsafe(path, why);
  }
  return fd;
}

/** Creates `path` with `data` only if nothing (not even a dangling link) is there; false when something is. */
export function createNewFile(path: string, data: string | Buffer): boolean {
  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | NOFOLLOW, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  try {
    writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Appends `text` to `path` (created if missing), never through a link or into another user's file. */
export function appendOwnFile(path: string, text: string): void {
  const fd = openOwn(path, fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * The content of `path`, read without following a link and only from a regular file of this user with one link
 * (UNSAFE_FILE otherwise); undefined when nothing is there.
 */
export function readOwnFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openOwn(path, fsConstants.O_RDONLY);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  try {
    return readCapped(fd, Number.MAX_SAFE_INTEGER) ?? Buffer.alloc(0);
  } finally {
    closeSync(fd);
  }
}

/** Replaces the content of `path` (created if missing), never through a link or into another user's file. */
export function writeOwnFile(path: string, data: string | Buffer): void {
  const fd = openOwn(path, fsConstants.O_WRONLY | fsConstants.O_CREAT);
  try {
    ftruncateSync(fd, 0);
    writeSync(fd, typeof data === "string" ? Buffer.from(data) : data);
  } finally {
    closeSync(fd);
  }
}

/**
 * The path the open descriptor `fd` really names: on Linux the kernel's own answer (/proc/self/fd), elsewhere the
 * real path of `opened`, accepted only when it names the same device and inode as the descriptor.
 */
export function descriptorPath(fd: number, opened: string): string | undefined {
  const st = fstatSync(fd);
  let real: string | undefined;
  try {
    real = readlinkSync(`/proc/self/fd/${fd}`);
    if (!real.startsWith("/") || real.endsWith(" (deleted)")) real = undefined;
  } catch {
    try {
      real = realpathSync(opened);
    } catch {
      return undefined;
    }
  }
  if (real === undefined) return undefined;
  try {
    const now = statSync(real);
    return now.dev === st.dev && now.ino === st.ino ? real : undefined;
  } catch {
    return undefined;
  }
}

export interface CheckedRead {
  /** The real path of the file that was read. */
  path: string;
  data: Buffer;
  stats: Stats;
}

export interface ReadRules {
  /** Throws (or returns a reason) when the file at this real path may not be read. */
  allow: (realPath: string) => void;
  /** Files larger than this are refused before reading. */
  maxBytes: number;
  /** Refuse files with more than one hard link (another name may lie outside what is allowed). */
  singleLink: boolean;
}

/** Why a read through `readChecked` was refused. */
export class ReadRefused extends Error {
  constructor(
    readonly reason: "not-a-file" | "hard-link" | "oversized" | "moved" | "outside",
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads `path` through one descriptor: resolves it, opens the real path without following a link (non-blocking,
 * so a FIFO is never waited on), checks the descriptor (a regular file, its size, its link count), checks the
 * descriptor's own path with `rules.allow`, and reads from that descriptor. Throws ReadRefused, or what `allow`
 * throws, or the system error.
 */
export function readChecked(path: string, rules: ReadRules): CheckedRead {
  const real = realpathSync(path);
  rules.allow(real);
  const fd = openSync(real, fsConstants.O_RDONLY | NOFOLLOW | NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile())
      throw new ReadRefused("not-a-file", `${path} is ${st.isDirectory() ? "a directory" : "not a regular file"}`);
    if (rules.singleLink && st.nlink > 1)
      throw new ReadRefused(
        "hard-link",
        `${path} has ${st.nlink} hard links; memcards does not read a file that may also lie outside what it may read`,
      );
    if (st.size > rules.maxBytes) throw new ReadRefused("oversized", `${path} is larger than ${rules.maxBytes} bytes`);
    const at = descriptorPath(fd, real);
    if (at === undefined) throw new ReadRefused("moved", `${path} changed while it was opened`);
    rules.allow(at);
    const data = readCapped(fd, rules.maxBytes);
    if (data === undefined)
      throw new ReadRefused("oversized", `${path} grew larger than ${rules.maxBytes} bytes while it was read`);
    return { path: at, data, stats: st };
  } finally {
    closeSync(fd);
  }
}

/** The bytes of `fd` up to EOF, or undefined when there are more than `max` (a file that grows while it is read). */
function readCapped(fd: number, max: number): Buffer | undefined {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(Math.min(1 << 20, max + 1 - total));
    const n = readSync(fd, buf, 0, buf.length, null);
    if (n === 0) return Buffer.concat(chunks, total);
    chunks.push(n === buf.length ? buf : buf.subarray(0, n));
    total += n;
    if (total > max) return undefined;
  }
}

/** True when `dir` is a store folder whose ownership memcards checks (a `.memcards` folder or the per-user one). */
export function isOwnStoreFolder(dir: string, userDir: string): boolean {
  return basename(dir) === ".memcards" || dir === userDir;
}
