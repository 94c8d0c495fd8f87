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
        // Distillations a killed server left queued run again, in the background, as soon as the store is open: handed
        // to the distiller's worker now, so that they count as pending from the first call on. The compression code
        // loads only when that worker cannot take them and they are distilled inline: opening a store does not load it.
        const opened = app;
        const queued = queuedDistillJobs(opened.db, opened.scope.projectId);
        const inline: number[] = [];
        for (const id of queued) {
          try {
            opened.distiller.enqueue(id);
          } catch (err) {
            if (inline.length === 0)
              logger.warn(`background distillation unavailable (${(err as Error).message}); distilling inline`);
            inline.push(id);
          }
        }
        if (queued.length) logger.info(`resuming ${count(queued.length, "queued distillation")}`);
        // A store closed while that code loads leaves them queued for the next start.
        if (inline.length)
          void import("./memory/distill-queue.js")
            .then(({ runDistillJob }) => {
              if (apps.get(key) !== opened) return;
              for (const id of inline) runDistillJob(opened.db, id);
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
