// What the resident hook worker keeps between calls: each store it served, open; the card ranker of each (rebuilt
// after an index run); and the project each folder resolved to. All of it is checked on every call (the store file
// the same and safe, the repository's folders as they were), so a store deleted, replaced or swapped for a link, or a
// folder that became another repository, is opened or resolved afresh, as a hook process would.
import { lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

import { type App, createApp } from "../app.js";
import type { Config } from "../config.js";
import { graphStamp } from "../graph/presence.js";
import { createLogger } from "../log.js";
import { checkStoreFiles, isOwnStoreFolder } from "../project/files.js";
import { type ProjectLocation, resolveProjectRoot, type RootInputs } from "../project/root.js";
import { createRanker, type Ranker } from "../retrieval/rank.js";

/** Stores, rankers and project roots a caller keeps across hook calls (the worker); a hook process keeps none. */
export interface WarmStores {
  /** resolveProjectRoot, remembered per folder while the repository's folders stay as they were. */
  locate(inputs: RootInputs): ProjectLocation;
  /** The open app for this store, opened on first use; the caller does not close it. */
  open(config: Config, location: ProjectLocation): App;
  /** The ranker a card hook uses on this app's store: the index's own channels, kept until the next index run. */
  ranker(app: App): Ranker;
  /** Closes every store (the worker is leaving). */
  closeAll(): Promise<void>;
}

/** A file's identity: a store replaced by another file (or a link) at its path has another. */
function identity(path: string): string | undefined {
  try {
    const st = lstatSync(path);
    return st.isFile() ? `${st.dev}:${st.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The identity of a store and of its write-ahead log, which the open store keeps (emptied in place, never removed,
 * while it is open): a log put there by another hand (a pull that brings a committed one) is checked as an open
 * checks it.
 */
const storeIdentity = (dbPath: string) => `${identity(dbPath) ?? ""}|${identity(`${dbPath}-wal`) ?? ""}`;

const realOf = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
};

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const exists = (p: string) => {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

/**
 * What the work tree's `.git` is: a folder, or a file naming the repository (a linked worktree, a separate git
 * folder), with that name; undefined when there is none. A folder whose `.git` file now names another repository
 * belongs to that repository.
 */
function gitMark(top: string | undefined): string | undefined {
  if (!top) return undefined;
  const dotGit = join(top, ".git");
  try {
    const st = lstatSync(dotGit);
    if (st.isDirectory()) return "dir";
    if (!st.isFile() || st.size > 4096) return undefined;
    return `file:${readFileSync(dotGit, "utf8")}`;
  } catch {
    return undefined;
  }
}

/**
 * Whether what git said of `from` still holds: with a work tree, its `.git` is as it was (`mark`), the common
 * directory is there and no folder between `from` and the top level has become a repository of its own (git would
 * stop there); without one, no folder from `from` up has become one.
 */
function sameGit(from: string, loc: ProjectLocation, mark: string | undefined): boolean {
  if (loc.gitTop && (!loc.gitCommonDir || !isDir(loc.gitCommonDir) || !mark || gitMark(loc.gitTop) !== mark))
    return false;
  let dir: string;
  try {
    dir = realpathSync(from);
  } catch {
    return false;
  }
  for (; dir !== loc.gitTop; dir = dirname(dir)) {
    if (exists(join(dir, ".git"))) return false;
    if (dir === dirname(dir)) return loc.gitTop === undefined; // reached `/`: no repository above `from`
  }
  return true;
}

/** Environment variables that change what git answers for a folder: a location found under others is not reused. */
const GIT_VARS = ["GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"] as const;

/** Stores a worker keeps open at most: each holds its descriptors, page cache and the ranker's copies (its vectors
 * among them); the one served longest ago is closed for another. */
export const MAX_WARM_STORES = 4;

/**
 * An empty set of warm stores; `env` is the worker's own environment (git runs with it); at most `maxStores` stay
 * open (the ones served last).
 */
export function createWarmStores(
  env: NodeJS.ProcessEnv = process.env,
  maxStores: number = MAX_WARM_STORES,
): WarmStores {
  const places = new Map<string, { loc: ProjectLocation; mark: string | undefined }>();
  const apps = new Map<string, { app: App; path: string; file: string }>();
  const rankers = new Map<App, { stamp: string | undefined; ranker: Ranker }>();
  const gitEnv = GIT_VARS.map((k) => env[k] ?? "");
  const letGo = (key: string, app: App) => {
    apps.delete(key);
    rankers.delete(app);
    void app.close().catch(() => undefined);
  };
  /** Closes the stores deleted or replaced on disk, whichever folder the call is for: an open descriptor would keep a
   * deleted store's text on the disk for as long as the worker serves other projects. */
  const sweep = () => {
    for (const [key, kept] of apps)
      if (!kept.app.db.open || storeIdentity(kept.path) !== kept.file) letGo(key, kept.app);
  };
  return {
    locate(inputs) {
      sweep();
      const key = JSON.stringify([inputs.explicit ?? "", resolve(inputs.cwd), resolve(inputs.userDir), gitEnv]);
      const known = places.get(key);
      if (known) {
        // An explicit root must still be that folder; git's answer is checked from where git was asked.
        const from = inputs.explicit ?? inputs.cwd;
        const same = !inputs.explicit || realOf(inputs.explicit) === known.loc.root;
        if (same && sameGit(from, known.loc, known.mark)) return known.loc;
        places.delete(key);
      }
      const loc = resolveProjectRoot(inputs);
      // The per-user store (no project found) is asked again each time: a hook there does nothing.
      if (loc.source !== "user-store" && !inputs.mcpRoots?.length) places.set(key, { loc, mark: gitMark(loc.gitTop) });
      return loc;
    },
    open(config, location) {
      const dbPath = resolve(config.db ?? location.defaultDbPath);
      const key = JSON.stringify([dbPath, location, config]);
      const kept = apps.get(key);
      if (kept) {
        // Checked as an open would: the store's files are still this user's plain files, and the same store.
        const dir = dirname(dbPath);
        checkStoreFiles(dbPath, dir, isOwnStoreFolder(dir, resolve(config.userDir)));
        if (kept.app.db.open && storeIdentity(dbPath) === kept.file) {
          // Served last now: the map's order is the order the stores were served in.
          apps.delete(key);
          apps.set(key, kept);
          return kept.app;
        }
        letGo(key, kept.app);
      }
      const app = createApp(config, location, createLogger("silent"));
      apps.set(key, { app, path: dbPath, file: storeIdentity(dbPath) });
      for (const [k, old] of apps) {
        if (apps.size <= Math.max(1, maxStores)) break;
        letGo(k, old.app);
      }
      return app;
    },
    ranker(app) {
      const stamp = graphStamp(app.db);
      const kept = rankers.get(app);
      if (kept && kept.stamp === stamp) return kept.ranker;
      const { embedder, vectorsEnabled } = app.embedding;
      const ranker = createRanker(app.db, { embedder, vectorsEnabled });
      // Kept for the next calls: the nearest-vector copy is read now, between calls, not during one.
      ranker.warm();
      rankers.set(app, { stamp, ranker });
      return ranker;
    },
    async closeAll() {
      const all = [...apps.values()];
      apps.clear();
      rankers.clear();
      places.clear();
      await Promise.all(all.map((k) => k.app.close().catch(() => undefined)));
    },
  };
}
