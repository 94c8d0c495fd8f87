// Background distillation: compress_context returns as soon as the summary is stored; a worker thread with
// its own connection writes the memory units, so no tool call waits on it. Jobs run one after another.
import { Worker } from "node:worker_threads";

import { type ErrorReply, fromErrorReply } from "../errors.js";
import type { Logger } from "../log.js";
import { count } from "../text/plural.js";
import { siblingWorkerFile, workerExecArgv } from "../worker-file.js";
import type { DistillResult } from "./distill.js";

/** What the worker sends back for each job: its result, or the error it threw with its code. */
export interface DistillReply {
  id: number;
  result?: DistillResult;
  error?: ErrorReply;
}

export interface Distiller {
  /** Hands a queued job (its id in the durable queue) to the worker; throws when no worker can take it. */
  enqueue(jobId: number): void;
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
  /** Jobs queued or running, with the worker each was sent to. */
  const inFlight = new Map<number, Worker>();
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
  const failAll = (w: Worker, message: string) => {
    for (const [id, sentTo] of [...inFlight]) {
      if (sentTo !== w) continue;
      totals.failed++;
      logger.error(`distillation ${id} failed: ${message} (its job stays queued for the next start)`);
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
        const e = fromErrorReply(m.error);
        logger.error(`distillation ${m.id} failed: ${e.code}: ${e.message}`);
      } else if (m.result) {
        totals.done++;
        totals.added += m.result.added;
        logger.debug(`distillation ${m.id}: ${count(m.result.added, "unit")} added, ${m.result.merged} merged`);
      }
      settle(m.id);
    });
    // Only this worker's jobs fail with it; a worker started after it is left alone.
    w.on("error", (err) => {
      failAll(w, err.message);
      if (worker === w) worker = undefined;
    });
    w.on("exit", (code) => {
      failAll(w, `distillation worker exited with code ${code}`);
      if (worker === w) worker = undefined;
    });
    worker = w;
    return w;
  };
  const idle = () => (inFlight.size === 0 ? Promise.resolve() : new Promise<void>((r) => waiters.push(r)));
  return {
    enqueue(jobId) {
      // Throws when no worker can take the job (the caller distils inline); nothing is left counted.
      const w = ensure();
      const id = next++;
      w.postMessage({ id, jobId });
      inFlight.set(id, w);
      w.ref();
      void idle().then(() => {
        if (inFlight.size === 0) worker?.unref();
      });
    },
    pending: () => inFlight.size,
    stats: () => ({ ...totals }),
    idle,
    async close(waitMs = 10_000) {
      if (inFlight.size) {
        await Promise.race([idle(), new Promise((r) => setTimeout(r, waitMs).unref())]);
        if (inFlight.size) logger.warn(`${count(inFlight.size, "distillation")} still running at exit were stopped`);
      }
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
