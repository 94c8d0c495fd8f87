// The graph service of one project: the worker host (jobs) and the optional watcher, the watcher started on demand.
import type { Logger } from "../log.js";
import type { ProjectScope } from "../storage/scope.js";
import { createGraphHost, type GraphHost } from "./host.js";
import { type GraphWatcher, startWatcher, type WatchOptions } from "./watch.js";
import type { WorkerInit } from "./worker.js";

export interface GraphServiceDeps {
  scope: ProjectScope;
  /** The project's key: names the watch lease shared across processes. */
  leaseKey: string;
  /** What the build worker opens. */
  worker: WorkerInit;
  logger: Logger;
}

export interface GraphService {
  host: GraphHost;
  /**
   * Starts the watcher once (by default each refresh is logged); later calls return the same one and ignore
   * their options.
   */
  watch(opts?: Pick<WatchOptions, "debounceMs" | "onIndexed" | "onError">): GraphWatcher;
  watcher(): GraphWatcher | undefined;
  /** Stops the watcher, then the worker. */
  close(): Promise<void>;
}

/** Creates the service; the worker thread starts with the first job, the watcher with `watch()`. */
export function createGraphService(deps: GraphServiceDeps): GraphService {
  const { logger } = deps;
  const host = createGraphHost(deps.worker, logger);
  let watcher: GraphWatcher | undefined;
  return {
    host,
    watch(opts = {}) {
      watcher ??= startWatcher(deps.scope, {
        leaseKey: deps.leaseKey,
        host,
        onIndexed: (r, changed) =>
          logger.info(`graph refreshed: ${r.files.parsed} changed, ${r.files.deleted} deleted in ${r.ms.total} ms`, {
            paths: changed.slice(0, 5),
          }),
        onError: (m) => logger.warn(m),
        ...opts,
      });
      return watcher;
    },
    watcher: () => watcher,
    async close() {
      await watcher?.close();
      await host.close();
    },
  };
}

/** `memcards index --watch`: watch until Ctrl-C / SIGTERM, logging each refresh on stderr. */
export async function watchUntilSignal(graph: GraphService, logger: Logger, root: string): Promise<void> {
  const w = graph.watch({
    onIndexed: (r, changed) =>
      logger.info(
        `re-indexed ${r.files.parsed} changed, ${r.files.deleted} deleted in ${r.ms.total} ms (${changed.slice(0, 3).join(", ")}${changed.length > 3 ? ", …" : ""})`,
      ),
    onError: (m) => logger.warn(m),
  });
  await w.ready;
  if (!w.active) logger.warn(`another memcards process (${w.holder()?.holder ?? "?"}) is watching this project`);
  else logger.info(`watching ${root} (Ctrl-C to stop)`);
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await w.close();
}
