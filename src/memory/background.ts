// Background distillation: compress_context returns as soon as the summary is stored; a worker thread with
// its own connection writes the memory units, so no tool call waits on it. Jobs run one after another.
import { Worker } from "node:worker_threads";

import { siblingWorkerFile, workerExecArgv } from "../graph/worker-file.js";
import type { Logger } from "../log.js";
import type { DistillJob } from "../transcript/compress.js";
import type { DistillResult } from "./distill.js";

export interface DistillReply {
  id: number;
  result?: DistillResult;
  error?: string;
}

export interface Distiller {
  enqueue(job: DistillJob): void;
  /** Jobs queued or running. */
  pending(): number;
  /** Totals since start: finished and failed jobs, units added. */
  stats(): { done: number; failed: number; added: number };
  /** Resolves when nothing is queued or running. */
  idle(): Promise<void>;
  /** Waits up to `waitMs` for queued work, then stops the worker. */
  close(waitMs?: number): Promise<void>;
}

export function createDistiller(dbPath: string, logger: Logger): Distiller {
  let worker: Worker | undefined;
  let next = 1;
  const inFlight = new Set<number>();
  const totals = { done: 0, failed: 0, added: 0 };
  let waiters: (() => void)[] = [];
  const settle = (id: number) => {
    inFlight.delete(id);
    if (inFlight.size === 0) {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    }
  };
  const failAll = (message: string) => {
    for (const id of [...inFlight]) {
      totals.failed++;
      logger.error(`distillation ${id} failed: ${message} (the summary is stored; run compress again to retry)`);
      settle(id);
    }
  };
  const ensure = (): Worker => {
    if (worker) return worker;
    const w = new Worker(siblingWorkerFile(import.meta.url, "distill-worker"), {
      workerData: { dbPath },
      execArgv: workerExecArgv(),
    });
    w.unref();
    w.on("message", (m: DistillReply) => {
      if (m.error) {
        totals.failed++;
        logger.error(`distillation ${m.id} failed: ${m.error}`);
      } else if (m.result) {
        totals.done++;
        totals.added += m.result.added;
        logger.debug(`distillation ${m.id}: ${m.result.added} unit(s) added, ${m.result.merged} merged`);
      }
      settle(m.id);
    });
    w.on("error", (err) => {
      failAll(err.message);
      worker = undefined;
    });
    w.on("exit", (code) => {
      if (inFlight.size) failAll(`distillation worker exited with code ${code}`);
      worker = undefined;
    });
    worker = w;
    return w;
  };
  const idle = () => (inFlight.size === 0 ? Promise.resolve() : new Promise<void>((r) => waiters.push(r)));
  return {
    enqueue(job) {
      const id = next++;
      inFlight.add(id);
      const w = ensure();
      w.ref();
      w.postMessage({ id, job });
      void idle().then(() => worker?.unref());
    },
    pending: () => inFlight.size,
    stats: () => ({ ...totals }),
    idle,
    async close(waitMs = 10_000) {
      if (inFlight.size) {
        await Promise.race([idle(), new Promise((r) => setTimeout(r, waitMs).unref())]);
        if (inFlight.size) logger.warn(`${inFlight.size} distillation(s) still running at exit were stopped`);
      }
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}

const perApp = new WeakMap<object, Distiller>();

/** The app's distiller, started on first use and stopped (after its queue drains) when the app closes. */
export function distillerFor(app: {
  dbPath: string;
  logger: Logger;
  onClose(fn: () => Promise<void> | void): void;
}): Distiller {
  let d = perApp.get(app);
  if (!d) {
    d = createDistiller(app.dbPath, app.logger);
    perApp.set(app, d);
    const created = d;
    app.onClose(() => created.close());
  }
  return d;
}
