// Keeps the graph fresh: chokidar events, debounced into one incremental build (a branch switch touching
// thousands of files is one batch). One watcher per project across processes, via a lease row.
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { relative, sep } from "node:path";

import type { FSWatcher } from "chokidar";

import { writeTx } from "../storage/db.js";
import { acquireLease, leaseHolder, releaseLease } from "../storage/leases.js";
import type { ProjectScope } from "../storage/scope.js";
import type { GraphBuildResult } from "./build-graph.js";
import type { GraphHost } from "./host.js";

const LEASE_TTL_MS = 30_000;
const RENEW_MS = 10_000;
/** Up to this many changed paths a build looks at just them; more (a branch switch) rescan the whole tree. */
const MAX_TARGETED_PATHS = 500;
const IGNORED = /(^|[/\\])(\.git|node_modules|\.memcards|__pycache__|\.venv|venv|target|dist|build)([/\\]|$)/;

export interface GraphWatcher {
  /** True while this process holds the project's watch lease. */
  readonly active: boolean;
  /**
   * Resolves once the file system watch is set up and the graph worker has warmed up, so an edit from then on is
   * indexed as quickly as any later one (or immediately when another process watches).
   */
  readonly ready: Promise<void>;
  /** Who holds the lease when this process does not. */
  holder(): { holder: string; pid: number } | undefined;
  close(): Promise<void>;
}

export interface WatchOptions {
  /** Names the lease (the project's key): one watcher per project across processes. */
  leaseKey: string;
  /** Runs the incremental builds. */
  host: GraphHost;
  debounceMs?: number;
  onIndexed?: (result: GraphBuildResult, changedPaths: string[]) => void;
  onError?: (message: string) => void;
}

/** Starts watching the project root (if no other process does) and re-indexes on change. */
export function startWatcher(scope: ProjectScope, opts: WatchOptions): GraphWatcher {
  const { db, root } = scope;
  const leaseName = `watch:${opts.leaseKey}`;
  const me = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const host = opts.host;
  const debounceMs = opts.debounceMs ?? 150;
  let fsw: FSWatcher | undefined;
  let active = false;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let pending = new Set<string>();
  let building = false;
  let readyResolve!: () => void;
  const watching = new Promise<void>((r) => (readyResolve = r));
  let warming: Promise<void> = Promise.resolve();
  const ready = watching.then(() => warming);

  const tryLease = () => {
    if (closed) return;
    try {
      const got = writeTx(db, () => acquireLease(db, leaseName, me, LEASE_TTL_MS));
      if (got && !active) begin();
      if (!got && active) stopWatching();
    } catch (err) {
      opts.onError?.(`watch lease: ${(err as Error).message}`);
    }
  };

  const flush = async () => {
    timer = undefined;
    if (building || pending.size === 0 || closed) return;
    const changed = [...pending];
    pending = new Set();
    building = true;
    try {
      const job = host.start(changed.length <= MAX_TARGETED_PATHS ? { paths: changed } : {});
      const done = await job.finished;
      if (done.result) opts.onIndexed?.(done.result, changed);
      else if (done.error) opts.onError?.(`re-index failed: ${done.error.message}`);
    } finally {
      building = false;
      if (pending.size && !closed) timer = setTimeout(() => void flush(), debounceMs);
    }
  };

  const onEvent = (path: string) => {
    const rel = relative(root, path).split(sep).join("/");
    if (!rel || rel.startsWith("..")) return;
    pending.add(rel);
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void flush(), debounceMs);
  };

  const begin = () => {
    active = true;
    // The file system watcher's code loads only in a process that watches (not in every one that opens the graph).
    void import("chokidar").then(
      ({ watch }) => {
        if (!active || closed || fsw) return readyResolve();
        fsw = watch(root, {
          ignored: (p: string) => IGNORED.test(relative(root, p)),
          ignoreInitial: true,
          followSymlinks: false,
          persistent: true,
        });
        fsw.on("add", onEvent).on("change", onEvent).on("unlink", onEvent).on("unlinkDir", onEvent);
        fsw.on("error", (err) => opts.onError?.(`watcher: ${(err as Error).message}`));
        fsw.on("ready", () => readyResolve());
      },
      (err: unknown) => {
        opts.onError?.(`watcher: ${(err as Error).message}`);
        readyResolve();
      },
    );
    // The first edit should not pay for starting the worker, loading grammars and reading the index cold.
    warming = host.warm();
  };

  const stopWatching = () => {
    active = false;
    void fsw?.close();
    fsw = undefined;
  };

  tryLease();
  if (!active) readyResolve();
  const renew = setInterval(tryLease, RENEW_MS);
  renew.unref();

  return {
    get active() {
      return active;
    },
    ready,
    holder() {
      const h = leaseHolder(db, leaseName);
      return h && h.holder !== me ? { holder: h.holder, pid: h.pid } : undefined;
    },
    async close() {
      closed = true;
      clearInterval(renew);
      if (timer) clearTimeout(timer);
      await fsw?.close();
      fsw = undefined;
      if (active && db.open) writeTx(db, () => releaseLease(db, leaseName, me));
      active = false;
    },
  };
}
