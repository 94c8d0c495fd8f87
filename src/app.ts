// createApp: opens the project's database and picks its embedder; owns the project's services (graph worker and
// watcher, background distiller, ranker), each created on first use. Shared by the CLI and the MCP server.
import { basename, dirname, join, resolve } from "node:path";

import type { Config } from "./config.js";
import type { Embedder } from "./embeddings/provider.js";
import type { EmbedderChoice } from "./embeddings/select.js";
import { chooseEmbedder } from "./embeddings/select.js";
import { AppError } from "./errors.js";
import { createGraphService, type GraphService } from "./graph/service.js";
import type { Logger } from "./log.js";
import { createDistiller, type Distiller } from "./memory/distiller.js";
import { ensureDir } from "./project/dirs.js";
import { checkStoreFiles, createNewFile, isOwnStoreFolder } from "./project/files.js";
import type { ProjectLocation } from "./project/root.js";
import { checkStoreDir } from "./project/store.js";
import { checkStoreTrust, registerStore } from "./project/trust.js";
import { createBm25Store, rootReader } from "./retrieval/bm25-store.js";
import { createRanker, type Ranker } from "./retrieval/rank.js";
import type { Db } from "./storage/db.js";
import { checkpointWal, openDatabase } from "./storage/db.js";
import { finishPurge } from "./storage/memories.js";
import { bindEmbedder, getEmbedderBinding, getMeta, setMeta } from "./storage/meta.js";
import type { ProjectRow } from "./storage/projects.js";
import { upsertProject } from "./storage/projects.js";
import type { ProjectScope } from "./storage/scope.js";

/** Everything a command or tool needs: resolved once per process (or per client connection). */
export interface App {
  config: Config;
  location: ProjectLocation;
  dbPath: string;
  db: Db;
  project: ProjectRow;
  /** The embedder in use; `useEmbedder` switches it. */
  readonly embedding: EmbedderChoice;
  /**
   * The embedder's note when it is due on stderr (every open while vectors are off, else once per store), marked
   * shown by this call: only a caller that prints it takes it, so a silent open (a hook, doctor) leaves it due.
   */
  takeEmbedderNotice(): string | undefined;
  logger: Logger;
  /** The project every domain call works on: the database, the project's id and its root. */
  readonly scope: ProjectScope;
  /** The graph's build worker and watcher, created on first use and stopped when the app closes. */
  readonly graph: GraphService;
  /** The background distiller, started on first use; its queue drains before the app closes. */
  readonly distiller: Distiller;
  /** The ranker, rebuilt only after the graph changed (its caches hold the file universe and term counts). */
  readonly ranker: Ranker;
  /** Takes another embedder into use (after a re-embed); the previous one is closed. */
  useEmbedder(embedder: Embedder): Promise<void>;
  /** Registers cleanup (workers, watchers) run before the database closes. */
  onClose(fn: () => Promise<void> | void): void;
  close(): Promise<void>;
}

/** Creates the store folder (never in a system folder) with a `.gitignore` so it stays out of the user's commits. */
function ensureStoreDir(dbPath: string, userDir: string): void {
  const dir = dirname(dbPath);
  checkStoreDir(dir, userDir);
  // A `.memcards` folder, store or log that is a link (a cloned repository may carry one) is refused, not followed.
  const own = isOwnStoreFolder(dir, resolve(userDir));
  checkStoreFiles(dbPath, dir, own);
  try {
    ensureDir(dir);
    checkStoreFiles(dbPath, dir, own);
    // Created only where nothing is, not even a dangling link.
    if (basename(dir) === ".memcards") createNewFile(join(dir, ".gitignore"), "# memcards local store\n*\n");
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError(
      "DB_OPEN_FAILED",
      `cannot create the store folder ${dir}: ${(err as Error).message}. Pass --db with a writable path.`,
      { cause: err },
    );
  }
}

/** Meta key: the embedder whose advice this store has shown (the note is not repeated for it). */
const EMBEDDER_NOTICE_KEY = "embedder.notice";

/** STORE_UNTRUSTED for a committed store the user has not trusted; true when the store is to be registered once
 * open. The per-user store is always trusted. */
function checkTrust(dbPath: string, config: Config, location: ProjectLocation, logger: Logger): boolean {
  const userStore = dirname(dbPath) === resolve(config.userDir);
  return checkStoreTrust(dbPath, { userDir: config.userDir, root: location.root, userStore, logger });
}

export interface CreateAppOptions {
  /** Open a store git tracks that the user has not trusted yet (only `memcards trust`, which then registers it). */
  untrusted?: "allow";
}

/** The graph service of one opened store: builds run in a worker that opens the same database. */
function openGraphService(
  config: Config,
  location: ProjectLocation,
  scope: ProjectScope,
  dbPath: string,
  logger: Logger,
): GraphService {
  return createGraphService({
    scope,
    leaseKey: location.key,
    worker: {
      dbPath,
      projectId: scope.projectId,
      root: location.root,
      embedder: config.embedder,
      modelsDir: config.modelsDir,
      logLevel: config.logLevel,
      ...(scope.userStore ? { userStore: true } : {}),
    },
    logger,
  });
}

/** Opens the app for a resolved project location. A store a repository commits is refused (STORE_UNTRUSTED). */
export function createApp(config: Config, location: ProjectLocation, logger: Logger, opts: CreateAppOptions = {}): App {
  const dbPath = resolve(config.db ?? location.defaultDbPath);
  ensureStoreDir(dbPath, config.userDir);
  const register = opts.untrusted !== "allow" && checkTrust(dbPath, config, location, logger);
  const db = openDatabase(dbPath, { onWarning: (m) => logger.warn(m) });
  try {
    if (register) registerStore(config.userDir, dbPath);
    // A forget whose text another connection's read kept in the file: empty the log now if that read has ended.
    const purge = finishPurge(db, { wait: false });
    if (purge.purgeProblem)
      logger.warn(`the rewrite of the store that a forget left pending failed: ${purge.purgeProblem}`);
    const project = upsertProject(db, location.key, location.root);
    let embedding = chooseEmbedder(config.embedder, getEmbedderBinding(db), config.modelsDir, logger);
    if (embedding.vectorsEnabled) {
      bindEmbedder(db, { id: embedding.embedder.id, dimension: embedding.embedder.dimension });
    }
    // A note that vectors are off is repeated at every open; the offline embedder's advice once per store.
    const takeEmbedderNotice = (): string | undefined => {
      const advisedFor = embedding.embedder.id;
      if (!embedding.note || (embedding.vectorsEnabled && getMeta(db, EMBEDDER_NOTICE_KEY) === advisedFor)) return;
      if (embedding.vectorsEnabled) setMeta(db, EMBEDDER_NOTICE_KEY, advisedFor);
      return embedding.note;
    };
    let closed = false;
    const closers: (() => Promise<void> | void)[] = [];
    const scope: ProjectScope = {
      db,
      projectId: project.id,
      root: location.root,
      ...(location.source === "user-store" ? { userStore: true as const } : {}),
    };
    let graph: GraphService | undefined;
    let distiller: Distiller | undefined;
    let ranked: { stamp: string | undefined; embedder: Embedder; ranker: Ranker } | undefined;
    // Whole-file BM25 term counts outlive each ranker: a re-index re-reads only the files it changed.
    const bm25 = createBm25Store(rootReader(location.root));
    return {
      config,
      location,
      dbPath,
      db,
      project,
      get embedding() {
        return embedding;
      },
      takeEmbedderNotice,
      logger,
      scope,
      get graph() {
        if (!graph) {
          const created = openGraphService(config, location, scope, dbPath, logger);
          closers.push(() => created.close());
          graph = created;
        }
        return graph;
      },
      get distiller() {
        if (!distiller) {
          const created = createDistiller(dbPath, logger);
          closers.push(() => created.close());
          distiller = created;
        }
        return distiller;
      },
      get ranker() {
        const stamp = getMeta(db, "graph.last_run");
        if (!ranked || ranked.stamp !== stamp || ranked.embedder !== embedding.embedder) {
          const { embedder, vectorsEnabled } = embedding;
          const replaced = ranked !== undefined;
          ranked = {
            stamp,
            embedder,
            ranker: createRanker(db, { embedder, vectorsEnabled, root: location.root, bm25 }),
          };
          // A ranker replaced after an index run serves an app that ranks again and again (a server): it reads its
          // copies at once, as a warmed one does, rather than answering its first queries from sqlite-vec.
          if (replaced) ranked.ranker.warm();
        }
        return ranked.ranker;
      },
      async useEmbedder(next) {
        await embedding.embedder.close?.();
        embedding = { embedder: next, vectorsEnabled: true };
      },
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
          finishPurge(db, { wait: false });
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
