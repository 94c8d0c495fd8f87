// The distillation worker: one connection to the store, one job at a time (see distiller.ts).
import { parentPort, workerData } from "node:worker_threads";

import { toErrorReply } from "../errors.js";
import { type Db, openDatabase } from "../storage/db.js";
import { distill, type DistillJob } from "./distill.js";
import type { DistillReply } from "./distiller.js";

const { dbPath } = workerData as { dbPath: string };
let db: Db | undefined;

parentPort!.on("message", (m: { id: number; job: DistillJob }) => {
  try {
    db ??= openDatabase(dbPath);
    const result = distill(db, m.job.projectId, m.job.sessionId, m.job.span, m.job.sections);
    parentPort!.postMessage({ id: m.id, result } satisfies DistillReply);
  } catch (err) {
    parentPort!.postMessage({ id: m.id, error: toErrorReply(err) } satisfies DistillReply);
  }
});
