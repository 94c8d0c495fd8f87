// Worker thread that runs graph builds with its own database connection and a long-lived parser,
// so the server's event loop keeps answering tool calls while a repository is indexed.
import { realpathSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";

import { chooseEmbedder } from "../embeddings/select.js";
import { type ErrorReply, toErrorReply } from "../errors.js";
import { createLogger, type LogLevel } from "../log.js";
import { LanguageId } from "../repo/languages.js";
import { createParser } from "../repo/parse.js";
import { readInsideRootHashed } from "../repo/scan.js";
import { checkpointWal, openDatabase } from "../storage/db.js";
import { fileOfLanguageNear, indexedLanguages } from "../storage/graph/files.js";
import { getEmbedderBinding } from "../storage/meta.js";
import type { ProjectScope } from "../storage/scope.js";
import { buildGraph } from "./build-graph.js";

/** What the worker opens: the app's database and project, and the settings that pick the same embedder. */
export interface WorkerInit {
  dbPath: string;
  projectId: number;
  root: string;
  /** The embedder setting (`auto`, `offline` or a model): a bound database keeps its own, as in the app. */
  embedder: string;
  modelsDir: string;
  logLevel: string;
  /** The per-user store serves (no project was found): builds of the whole root stop with NO_PROJECT. */
  userStore?: boolean;
}

export type WorkerRequest =
  | {
      type: "build";
      jobId: string;
      path?: string;
      /** Only these repo paths (what a watcher saw change). */
      paths?: string[];
      lexicalOnly: boolean;
      cancel: SharedArrayBuffer;
    }
  | { type: "warm" }
  | { type: "close" };

export type WorkerReply =
  | { type: "progress"; jobId: string; progress: { phase: string; done: number; total: number; elapsedMs: number } }
  | { type: "done"; jobId: string; result: unknown }
  | { type: "error"; jobId: string; error: ErrorReply }
  | { type: "warmed" }
  | { type: "closed" };

const port = parentPort;
if (!port) throw new Error("graph/worker.js must run in a worker thread");
const init = workerData as WorkerInit;
const logger = createLogger(init.logLevel as LogLevel);
const db = openDatabase(init.dbPath, { onWarning: (m) => logger.warn(m) });
const embedding = chooseEmbedder(init.embedder, getEmbedderBinding(db), init.modelsDir, logger);
const scope: ProjectScope = {
  db,
  projectId: init.projectId,
  root: init.root,
  ...(init.userStore ? { userStore: true as const } : {}),
};
const parser = createParser();
let queue: Promise<void> = Promise.resolve();

/** Bytes of the indexed file a warm-up parses per language: a typical source file's size. */
const REHEARSAL_BYTES = 16_384;

/** The text a warm-up parses for `language`: an indexed file of about the typical size, or one line. */
function rehearsalText(language: LanguageId): string {
  const path = fileOfLanguageNear(db, language, REHEARSAL_BYTES);
  // Read as the index reads files (inside the root, no link out of it); gone or unreadable since it was indexed, the
  // one line still loads the grammar.
  let read: { text: string } | undefined;
  try {
    if (path !== undefined) read = readInsideRootHashed(realpathSync(init.root), path, 4 * REHEARSAL_BYTES);
  } catch {
    read = undefined;
  }
  return read?.text ?? "x\n";
}

/** Loads the grammars of the languages indexed so far and the embedder (a first embedding loads a model). */
async function warm(): Promise<void> {
  try {
    const languages = indexedLanguages(db).filter((l): l is LanguageId => LanguageId.safeParse(l).success);
    await parser.preload(languages);
    // One parse per language of a typical file of the index compiles the parse path (the grammar's WebAssembly
    // included, which is optimized only once it has run on some real text) before the first edit needs it.
    for (const l of languages) await parser.parseFile("warm", rehearsalText(l), l);
    // The writing side of an index run loads only when a run has something to write: here, before the first edit,
    // with the reads each edit's build makes over the whole index.
    const changes = await import("./index-changes.js");
    changes.warmEditPath(db, init.root);
    if (embedding.vectorsEnabled) await embedding.embedder.embed(["warm"]);
  } catch (err) {
    logger.debug("graph worker warm-up failed", { message: (err as Error).message });
  }
}

port.on("message", (msg: WorkerRequest) => {
  if (msg.type === "close") {
    queue = queue.then(async () => {
      parser.dispose();
      await embedding.embedder.close?.();
      if (db.open) {
        checkpointWal(db, "PASSIVE");
        db.close();
      }
      port.postMessage({ type: "closed" } satisfies WorkerReply);
      port.close();
    });
    return;
  }
  if (msg.type === "warm") {
    queue = queue.then(async () => {
      await warm();
      port.postMessage({ type: "warmed" } satisfies WorkerReply);
    });
    return;
  }
  const flag = new Int32Array(msg.cancel);
  queue = queue.then(async () => {
    try {
      const result = await buildGraph(
        scope,
        { embedding, logger },
        {
          ...(msg.path ? { path: msg.path } : {}),
          ...(msg.paths ? { paths: msg.paths } : {}),
          lexicalOnly: msg.lexicalOnly,
          parser,
          isCancelled: () => Atomics.load(flag, 0) === 1,
          onProgress: (p) =>
            port.postMessage({
              type: "progress",
              jobId: msg.jobId,
              progress: { phase: p.phase, done: p.done, total: p.total, elapsedMs: p.elapsedMs },
            } satisfies WorkerReply),
        },
      );
      port.postMessage({ type: "done", jobId: msg.jobId, result } satisfies WorkerReply);
    } catch (err) {
      port.postMessage({ type: "error", jobId: msg.jobId, error: toErrorReply(err) } satisfies WorkerReply);
    }
  });
});
