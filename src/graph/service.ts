// Per-app graph services: the worker host (jobs) and the optional watcher, created on first use.
import type { App } from "../app.js";
import { createGraphHost, type GraphHost } from "./host.js";
import { type GraphWatcher, startWatcher } from "./watch.js";

export interface GraphService {
  host: GraphHost;
  /** Starts the watcher once; later calls return the same one. */
  watch(): GraphWatcher;
  watcher(): GraphWatcher | undefined;
}

const services = new WeakMap<App, GraphService>();

export function graphService(app: App): GraphService {
  let s = services.get(app);
  if (s) return s;
  const host = createGraphHost(app);
  let watcher: GraphWatcher | undefined;
  s = {
    host,
    watch() {
      watcher ??= startWatcher(app, {
        host,
        onIndexed: (r, changed) =>
          app.logger.info(
            `graph refreshed: ${r.files.parsed} changed, ${r.files.deleted} deleted in ${r.ms.total} ms`,
            {
              paths: changed.slice(0, 5),
            },
          ),
        onError: (m) => app.logger.warn(m),
      });
      return watcher;
    },
    watcher: () => watcher,
  };
  services.set(app, s);
  app.onClose(async () => {
    await watcher?.close();
    await host.close();
  });
  return s;
}
