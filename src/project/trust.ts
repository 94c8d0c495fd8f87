// Which stores memcards reads: a store a repository commits (`.memcards/memcards.db` in git) came with a clone and
// may carry memory written to steer the agent, so it is refused until the user trusts it. A store is trusted when it
// is in the user's registry (`trusted-stores` in the per-user folder: one line per store, its file identity and real
// path) or when git does not track it; an untracked store is registered, so later opens need no git call.
import { existsSync, lstatSync, mkdirSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

import { AppError } from "../errors.js";
import { git } from "../git.js";
import type { Logger } from "../log.js";
import { appendOwnFile, readOwnFile } from "./files.js";

/** The registry's file name in the per-user folder. */
export const TRUSTED_STORES = "trusted-stores";

/** A store file as the registry names it: device, inode and birth time (so a reused inode is not the same file). */
export interface StoreIdentity {
  id: string;
  path: string;
}

/** The identity of the store at `dbPath`, or undefined when no file is there. */
export function storeIdentity(dbPath: string): StoreIdentity | undefined {
  let st;
  try {
    st = statSync(dbPath, { bigint: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  return { id: `${st.dev}:${st.ino}:${st.birthtimeNs}`, path: realpathSync(dbPath) };
}

function registryLine(s: StoreIdentity): string {
  return `${s.id} ${s.path}`;
}

/** True when the registry in `userDir` lists this store (the registry read without following a link). */
export function isRegistered(userDir: string, store: StoreIdentity): boolean {
  const data = readOwnFile(join(userDir, TRUSTED_STORES));
  if (!data) return false;
  const want = registryLine(store);
  return data.toString("utf8").split("\n").includes(want);
}

/** Adds the store at `dbPath` to the registry in `userDir` (one appended line; nothing when it is listed already). */
export function registerStore(userDir: string, dbPath: string): void {
  const store = storeIdentity(dbPath);
  if (!store || isRegistered(userDir, store)) return;
  mkdirSync(userDir, { recursive: true, mode: 0o700 });
  // One short write with O_APPEND: concurrent registrations each land as a whole line.
  appendOwnFile(join(userDir, TRUSTED_STORES), `${registryLine(store)}\n`);
}

/** The store's files git tracks (the database and its WAL, shared-memory and journal files), or undefined when git
 * could not answer (git missing, not a repository). */
export function trackedStoreFiles(dbPath: string): string[] | undefined {
  const name = basename(dbPath);
  const out = git(dirname(dbPath), ["ls-files", "-z", "--", ...["", "-wal", "-shm", "-journal"].map((s) => name + s)], {
    trim: false,
  });
  return out === undefined ? undefined : out.split("\0").filter(Boolean);
}

function isDir(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The folder, from the store's own up to the first that holds `.git`, that has what git takes for a repository of its
 * own (HEAD, objects/, refs/): committed there, it makes git run in the store's folder answer for that repository
 * (which tracks nothing) instead of the clone's, or refuse. Undefined when there is none.
 */
export function posingGitDir(dbPath: string): string | undefined {
  let dir = dirname(dbPath);
  for (;;) {
    if (existsSync(join(dir, ".git"))) return undefined;
    if (existsSync(join(dir, "HEAD")) && isDir(join(dir, "objects")) && isDir(join(dir, "refs"))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

export function untrusted(dbPath: string, root: string, tracked: readonly string[]): AppError {
  return new AppError(
    "STORE_UNTRUSTED",
    `refusing to read the store ${dbPath}: the repository commits it (${tracked.join(", ")}), so it came with the clone and its memory may be written to steer the agent. Remove it from the repository (\`git rm -r --cached .memcards\`) and delete it, or run \`memcards trust\` in ${root} to use it as is.`,
  );
}

export interface TrustOptions {
  userDir: string;
  /** The project root, named in the refusal. */
  root: string;
  /** The per-user store (outside any repository): always trusted. */
  userStore: boolean;
  logger: Logger;
}

/** STORE_UNTRUSTED when a folder above the store poses as a git repository (see posingGitDir). */
function refusePosing(dbPath: string, root: string): void {
  const posing = posingGitDir(dbPath);
  if (posing !== undefined)
    throw new AppError(
      "STORE_UNTRUSTED",
      `refusing to read the store ${dbPath}: ${posing} holds HEAD, objects/ and refs/ as a git repository does, so git cannot say whether the clone commits the store. Delete the store (and those files), or run \`memcards trust\` in ${root} to use it as is.`,
    );
}

/** The log files SQLite reads along with a store: a write-ahead log is replayed into it, a hot journal rolled back. */
const LOGS = ["-wal", "-journal"];

/**
 * A trusted store's logs are its own unless git tracks them: a pull can bring a committed `memcards.db-wal` next to
 * it, and SQLite would replay every page it holds. Asks git only when such a file is there (STORE_UNTRUSTED when
 * git tracks it).
 */
function checkCompanions(dbPath: string, root: string): void {
  if (!LOGS.some((s) => existsSync(dbPath + s))) return;
  refusePosing(dbPath, root);
  const name = basename(dbPath);
  const logs = (trackedStoreFiles(dbPath) ?? []).filter((f) => LOGS.some((s) => basename(f) === name + s));
  if (logs.length)
    throw new AppError(
      "STORE_UNTRUSTED",
      `refusing to read the store ${dbPath}: the repository commits its log (${logs.join(", ")}), which SQLite would replay into it, so memory someone else wrote would be read as this store's. Remove it from the repository (\`git rm --cached\` it) and delete it; trusting the store does not cover a log that came with the repository.`,
    );
}

/**
 * Checks the store at `dbPath` before it is opened. Throws STORE_UNTRUSTED when git tracks it and the user has not
 * trusted it. Returns true when the store should be registered once it is open (a store about to be created, or an
 * untracked one not yet listed).
 */
export function checkStoreTrust(dbPath: string, opts: TrustOptions): boolean {
  if (opts.userStore) return false;
  const store = storeIdentity(dbPath);
  if (!store) return true;
  if (isRegistered(opts.userDir, store)) {
    checkCompanions(dbPath, opts.root);
    return false;
  }
  refusePosing(dbPath, opts.root);
  const tracked = trackedStoreFiles(dbPath);
  if (tracked === undefined) {
    // Git missing or the folder is no repository: nothing was cloned that git knows of; asked again next time.
    opts.logger.debug(`git could not say whether ${dbPath} is committed; using it as an untracked store`);
    return false;
  }
  if (tracked.length) throw untrusted(dbPath, opts.root, tracked);
  return true;
}
