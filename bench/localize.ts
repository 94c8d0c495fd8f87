// `memcards eval localize`: the harness in localize/ driving the real ranker, one fresh store per task.
// The ranker sees only the tree and the query; gold stays in the harness (see localize/audit.ts).
import { rmSync } from "node:fs";
import { join } from "node:path";

import { type App, createApp } from "../src/app.js";
import { rankFilesByUtility } from "../src/cards/service.js";
import type { Config } from "../src/config.js";
import { buildGraph } from "../src/graph/build-graph.js";
import type { Logger } from "../src/log.js";
import { resolveProjectRoot } from "../src/project/root.js";
import { createBm25Store, rootReader } from "../src/retrieval/bm25-store.js";
import { createRanker, type Ranker } from "../src/retrieval/rank.js";
import { LEARNED_SYMBOL_WEIGHTS } from "../src/retrieval/symbols.js";
import { SYMBOL_FILE_GRID } from "./localize/fit-symbols.js";
import { rankAtRung, Rung, RUNGS } from "./localize/ladder.js";
import { type LocalizeReport, runLocalizeEval } from "./localize/run.js";
import type { Task } from "./localize/tasks.js";

export { Rung, RUNGS } from "./localize/ladder.js";
export { renderLocalizeReport as renderLocalize } from "./localize/report.js";
export { LocalizeReport } from "./localize/run.js";
export { loadTasks, Task } from "./localize/tasks.js";

/** How many ranked files each rung returns: enough for coverage@50. */
const DEPTH = 50;

/** Opens the index of one task's tree: a fresh store per task, or one per tree kept between runs. */
export async function openTaskStore(
  tree: string,
  task: { id: string; repo: string; commit: string },
  opts: { cacheDir: string; config: Config; logger: Logger; keepStores?: boolean },
): Promise<{ app: App; storeDir: string }> {
  const key = opts.keepStores ? `${task.repo.replace("/", "+")}@${task.commit.slice(0, 12)}` : task.id;
  const storeDir = join(opts.cacheDir, "stores", key.replace(/[^\w.@+-]/g, "_"));
  if (!opts.keepStores) rmSync(storeDir, { recursive: true, force: true });
  const config: Config = { ...opts.config, root: tree, db: join(storeDir, "memcards.db") };
  const location = resolveProjectRoot({ explicit: tree, cwd: tree, userDir: config.userDir });
  const app = createApp(config, location, opts.logger);
  try {
    await buildGraph(app.scope, app);
    return { app, storeDir };
  } catch (err) {
    await app.close();
    rmSync(storeDir, { recursive: true, force: true });
    throw err;
  }
}

interface Prepared {
  app: App;
  ranker: Ranker;
  storeDir: string;
}

/**
 * Runs every rung on every task: trees under `<cacheDir>/trees`, a fresh store per task under
 * `<cacheDir>/stores` (removed afterwards), the graph built from the tree alone.
 */
export async function runLocalize(opts: {
  tasks: Task[];
  reposDir?: string;
  cacheDir: string;
  config: Config;
  logger: Logger;
  rungs?: readonly Rung[];
  /**
   * Keep one store per tree (repo@commit) between runs instead of a fresh one per task. It holds only what
   * was indexed from that tree, so nothing leaks; it makes re-running the ranker while tuning fast.
   */
  keepStores?: boolean;
  /** Write every task's candidate files with their per-channel features here (JSONL), for `eval fit-weights`. */
  dumpFile?: string;
  onTask?: (i: number, n: number, id: string, note: string) => void;
}): Promise<LocalizeReport> {
  return runLocalizeEval<Prepared>({
    tasks: opts.tasks,
    reposDir: opts.reposDir,
    cacheDir: join(opts.cacheDir, "trees"),
    logger: opts.logger,
    rungs: opts.rungs ?? RUNGS,
    prepare: async (tree, task) => {
      const { app, storeDir } = await openTaskStore(tree, task, opts);
      const ranker = createRanker(app.db, {
        embedder: app.embedding.embedder,
        vectorsEnabled: app.embedding.vectorsEnabled,
        root: tree,
        // The whole index is read before the first query, however large the repository.
        bm25: createBm25Store(rootReader(tree), { sliceFiles: Infinity, sliceBytes: Infinity }),
      });
      return { app, ranker, storeDir };
    },
    rank: async ({ app, ranker }, rung, query) =>
      rung === "memcards"
        ? rankFilesByUtility({ db: app.db, projectId: app.project.id, root: app.location.root, ranker }, query, DEPTH)
        : (await rankAtRung(ranker, query, Rung.parse(rung), DEPTH)).map((r) => r.path),
    rankSymbols: async ({ ranker }, query) => (await ranker.rankSymbols(query, 10)).map((s) => s.id),
    signals: async ({ ranker }, query) => ranker.signals(query),
    // Every symbol of the files any fitted weights could rank, with its features (for `eval fit-symbols`).
    symbolSignals: async ({ ranker }, query) =>
      (
        await ranker.rankSymbols(query, Infinity, {
          weights: { ...LEARNED_SYMBOL_WEIGHTS, files: Math.max(...SYMBOL_FILE_GRID) },
        })
      ).map((s) => ({ id: s.id, file: s.fileIndex, ...s.features })),
    dumpFile: opts.dumpFile,
    dispose: async ({ app, storeDir }) => {
      await app.close();
      if (!opts.keepStores) rmSync(storeDir, { recursive: true, force: true });
    },
    onProgress: (e) => {
      if (e.stage === "done" || e.stage === "error") opts.onTask?.(e.index, e.total, e.id, e.message);
    },
  });
}
