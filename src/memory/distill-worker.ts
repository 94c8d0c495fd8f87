// The distillation worker: one connection to the store, one job at a time (see distiller.ts).
import { parentPort, workerData } from "node:worker_threads";

import { toErrorReply } from "../errors.js";
import { type Db, openDatabase } from "../storage/db.js";
import { emptyResult } from "./distill.js";
import { runDistillJob } from "./distill-queue.js";
import type { DistillReply } from "./distiller.js";

const { dbPath } = workerData as { dbPath: string };
let db: Db | undefined;

parentPort!.on("message", (m: { id: number; jobId: number }) => {
  try {
    db ??= openDatabase(dbPath);
    // Undefined: another process ran the job first (it is done exactly once).
    const result = runDistillJob(db, m.jobId) ?? emptyResult();
    parentPort!.postMessage({ id: m.id, result } satisfies DistillReply);
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: toErrorReply(err) } satisfies DistillReply);
  }
});
