// Runs graph builds in a worker thread and tracks them as jobs (id, progress, result, cancellation).
import { randomUUID } from "node:crypto";
import { Worker } from "node:worker_threads";

import { AppError, fromErrorReply } from "../errors.js";
import type { Logger } from "../log.js";
import { siblingWorkerFile, workerExecArgv } from "../worker-file.js";
import type { GraphBuildResult } from "./build-graph.js";
import type { WorkerInit, WorkerReply, WorkerRequest } from "./worker.js";

export type JobState = "running" | "done" | "failed" | "cancelled";

export interface JobProgress {
  phase: string;
  done: number;
  total: number;
  elapsedMs: number;
}

export interface GraphJob {
  id: string;
  state: JobState;
  startedAt: string;
  progress?: JobProgress;
  result?: GraphBuildResult;
  /** Why a failed job failed, with the code the worker threw. */
  error?: AppError;
  /** Resolves when the job ends (never rejects; read `state`). */
  finished: Promise<GraphJob>;
  cancel(): void;
}

export interface GraphHost {
  /**
   * Starts a build. `paths` (repo paths, files or folders) limits it to what changed there: the watcher's builds.
   */
  start(opts?: {
    path?: string;
    paths?: readonly string[];
    lexicalOnly?: boolean;
    onProgress?: (p: JobProgress) => void;
  }): GraphJob;
  /**
   * Starts the worker now and has it load what a build needs (the parser, the grammars of the indexed languages,
   * the embedder) and read what each build reads, so that the first build after this (a watcher's first edit) is as
   * quick as later ones. Resolves when the worker is through (never rejects: a failed warm-up only costs time).
   */
  warm(): Promise<void>;
  job(id: string): GraphJob | undefined;
  /** The running job, if any. */
  current(): GraphJob | undefined;
  close(): Promise<void>;
}

/** Callers waiting for the worker's warm-up: each gets a promise, all are released together. */
function waiters(): { add(): Promise<void>; release(): void } {
  let waiting: (() => void)[] = [];
  return {
    add: () => new Promise<void>((resolve) => waiting.push(resolve)),
    release() {
      const now = waiting;
      waiting = [];
      for (const r of now) r();
    },
  };
}

/** Starts a worker for the project `init` names (on the first job); jobs run one after another in it. */
export function createGraphHost(init: WorkerInit, logger: Logger): GraphHost {
  let worker: Worker | undefined;
  const jobs = new Map<string, GraphJob & { resolve: (j: GraphJob) => void; onProgress?: (p: JobProgress) => void }>();
  let running: string[] = [];
  const warming = waiters();
  const warmed = () => warming.release();

  const failAll = (message: string) => {
    for (const id of running) {
      const j = jobs.get(id);
      if (!j || j.state !== "running") continue;
      j.state = "failed";
      j.error = new AppError("INTERNAL", message);
      j.resolve(j);
    }
    running = [];
  };

  const ensureWorker = (): Worker => {
    if (worker) return worker;
    const w = new Worker(siblingWorkerFile(import.meta.url, "worker"), {
      workerData: init,
      execArgv: workerExecArgv(),
    });
    w.unref();
    w.on("message", (msg: WorkerReply) => {
      if (msg.type === "closed") return;
      if (msg.type === "warmed") return warmed();
      const j = jobs.get(msg.jobId);
      if (!j) return;
      if (msg.type === "progress") {
        j.progress = msg.progress;
        j.onProgress?.(msg.progress);
        return;
      }
      running = running.filter((id) => id !== j.id);
      if (msg.type === "done") {
        j.result = msg.result as GraphBuildResult;
        j.state = j.result.cancelled ? "cancelled" : "done";
      } else {
        j.state = "failed";
        j.error = fromErrorReply(msg.error);
      }
      j.resolve(j);
    });
    w.on("error", (err) => {
      logger.error(`graph worker failed: ${err.message}`);
      failAll(err.message);
      warmed();
      worker = undefined;
    });
    w.on("exit", (code) => {
      if (running.length) failAll(`graph worker exited with code ${code}`);
      warmed();
      worker = undefined;
    });
    worker = w;
    return w;
  };

  return {
    start(opts = {}) {
      const id = randomUUID().slice(0, 8);
      const cancelBuf = new SharedArrayBuffer(4);
      let resolve!: (j: GraphJob) => void;
      const finished = new Promise<GraphJob>((r) => (resolve = r));
      const job = {
        id,
        state: "running" as JobState,
        startedAt: new Date().toISOString(),
        finished,
        resolve,
        ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
        cancel: () => Atomics.store(new Int32Array(cancelBuf), 0, 1),
      };
      jobs.set(id, job);
      running.push(id);
      const req: WorkerRequest = {
        type: "build",
        jobId: id,
        lexicalOnly: opts.lexicalOnly ?? false,
        cancel: cancelBuf,
        ...(opts.path ? { path: opts.path } : {}),
        ...(opts.paths ? { paths: [...opts.paths] } : {}),
      };
      ensureWorker().postMessage(req);
      // Keep only the last few finished jobs.
      if (jobs.size > 20) {
        for (const [k, v] of jobs) if (v.state !== "running" && jobs.size > 20) jobs.delete(k);
      }
      return job;
    },
    warm() {
      const done = warming.add();
      ensureWorker().postMessage({ type: "warm" } satisfies WorkerRequest);
      return done;
    },
    job: (id) => jobs.get(id),
    current: () => {
      const id = running[0];
      return id ? jobs.get(id) : undefined;
    },
    async close() {
      const w = worker;
      if (!w) return;
      for (const id of running) jobs.get(id)?.cancel();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => void w.terminate().then(() => resolve()), 5000);
        w.once("exit", () => {
          clearTimeout(timer);
          resolve();
        });
        w.postMessage({ type: "close" } satisfies WorkerRequest);
      });
      worker = undefined;
    },
  };
}
