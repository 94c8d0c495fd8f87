// createApp: opens the project's database and picks its embedder; shared by the CLI and the MCP server.
import { existsSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

import type { Config } from "./config.js";
import type { EmbedderChoice } from "./embeddings/select.js";
import { chooseEmbedder } from "./embeddings/select.js";
import { AppError } from "./errors.js";
import type { Logger } from "./log.js";
import type { ProjectLocation } from "./project/root.js";
import { checkStoreDir } from "./project/store.js";
import type { Db } from "./storage/db.js";
import { checkpointWal, ensureDir, openDatabase } from "./storage/db.js";
import { bindEmbedder, getEmbedderBinding } from "./storage/meta.js";
import type { ProjectRow } from "./storage/projects.js";
import { upsertProject } from "./storage/projects.js";

/** Everything a command or tool needs: resolved once per process (or per client connection). */
export interface App {
  config: Config;
  location: ProjectLocation;
  dbPath: string;
  db: Db;
  project: ProjectRow;
  embedding: EmbedderChoice;
  logger: Logger;
  /** Registers cleanup (workers, watchers) run before the database closes. */
  onClose(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
}

/** Creates the store folder (never in a system folder) with a `.gitignore` so it stays out of the user's commits. */
function ensureStoreDir(dbPath: string, userDir: string): void {
  const dir = dirname(dbPath);
  checkStoreDir(dir, userDir);
  try {
    ensureDir(dir);
    const ignore = join(dir, ".gitignore");
    if (basename(dir) === ".memcards" && !existsSync(ignore)) writeFileSync(ignore, "# memcards local store\n*\n");
  } catch (err) {
    throw new AppError(
      "DB_OPEN_FAILED",
      `cannot create the store folder ${dir}: ${(err as Error).message}. Pass --db with a writable path.`,
      { cause: err },
    );
  }
}

/** Opens the app for a resolved project location. */
export function createApp(config: Config, location: ProjectLocation, logger: Logger): App {
  const dbPath = resolve(config.db ?? location.defaultDbPath);
  ensureStoreDir(dbPath, config.userDir);
  const db = openDatabase(dbPath, { onWarning: (m) => logger.warn(m) });
  try {
    const project = upsertProject(db, location.key, location.root);
    const embedding = chooseEmbedder(config.embedder, getEmbedderBinding(db), config.modelsDir, logger);
    if (embedding.vectorsEnabled) {
      bindEmbedder(db, { id: embedding.embedder.id, dimension: embedding.embedder.dimension });
    }
    let closed = false;
    const closers: (() => Promise<void> | void)[] = [];
    return {
      config,
      location,
      dbPath,
      db,
      project,
      embedding,
      logger,
      onClose(fn) {
        closers.push(fn);
      },
      async close() {
        if (closed) return;
        closed = true;
        for (const fn of closers.reverse()) {
          try {
            await fn();
          } catch (err) {
            logger.warn(`cleanup failed: ${(err as Error).message}`);
          }
        }
        await embedding.embedder.close?.();
        if (db.open) {
          checkpointWal(db, "PASSIVE");
          db.close();
        }
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}
