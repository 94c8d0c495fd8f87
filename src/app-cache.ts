// One open App per database path, shared by every client connection of a process.
import { resolve } from "node:path";

import type { App } from "./app.js";
import { createApp } from "./app.js";
import type { Config } from "./config.js";
import type { Logger } from "./log.js";
import type { ProjectLocation } from "./project/root.js";
import { queuedDistillJobs } from "./storage/distill-jobs.js";
import { count } from "./text/plural.js";

export interface AppCache {
  /** Opens (once) the app for a location; embedder notes are logged once per database. */
  forLocation(location: ProjectLocation): App;
  closeAll(): Promise<void>;
}

/** Creates an empty cache. */
export function createAppCache(config: Config, logger: Logger): AppCache {
  const apps = new Map<string, App>();
  return {
    forLocation(location) {
      const key = resolve(config.db ?? location.defaultDbPath);
      let app = apps.get(key);
      if (!app) {
        app = createApp(config, location, logger);
        apps.set(key, app);
        const notice = app.takeEmbedderNotice();
        if (notice) logger.warn(notice);
        // Distillations a killed server left queued run again, in the background, as soon as the store is open. The
        // compression code loads only when there are some: opening a store for cards does not load it. A store closed
        // while that code loads leaves them queued for the next start.
        const opened = app;
        if (queuedDistillJobs(opened.db, opened.scope.projectId).length > 0)
          void import("./session/compress.js")
            .then(({ inBackground, resumeDistillation }) => {
              if (apps.get(key) !== opened) return;
              const resumed = resumeDistillation({
                ...opened.scope,
                distill: inBackground(opened.distiller, opened.db, logger),
              });
              if (resumed) logger.info(`resuming ${count(resumed, "queued distillation")}`);
            })
            .catch((err: unknown) => logger.warn(`resuming distillations failed: ${(err as Error).message}`));
      }
      return app;
    },
    async closeAll() {
      const all = [...apps.values()];
      apps.clear();
      await Promise.all(all.map((a) => a.close()));
    },
  };
}
