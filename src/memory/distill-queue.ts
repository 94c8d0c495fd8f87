// The durable distillation queue: a compression queues its span in the transaction that stores its summary; a run
// writes the units and archived turns and removes the job in one transaction, so a job is done exactly once
// whichever process (the server's worker, a later start, the CLI) gets to it first.
import { z } from "zod";

import { Sections, Turn } from "../conversation/schema.js";
import { crashPoint } from "../crash-point.js";
import { AppError } from "../errors.js";
import type { Db } from "../storage/db.js";
import { writeTx } from "../storage/db.js";
import { addDistillJob, deleteDistillJob, getDistillJob, queuedDistillJobs } from "../storage/distill-jobs.js";
import { isPaused } from "./admin.js";
import { distill, type DistillJob, type DistillResult } from "./distill.js";

const StoredJob = z.object({
  projectId: z.number().int(),
  sessionId: z.string(),
  span: z.array(Turn),
  sections: Sections,
});

/** Queues a job in the caller's transaction (its text is stored redacted); returns its id. */
export function queueDistillation(db: Db, job: DistillJob): number {
  return addDistillJob(db, job.projectId, job.sessionId, JSON.stringify(job));
}

/**
 * Runs a queued job: units, archived turns and the job's removal in one transaction. Undefined when the job is no
 * longer queued (another run did it), or when memory is paused for its project (it stays queued).
 */
export function runDistillJob(db: Db, id: number): DistillResult | undefined {
  return writeTx(db, () => {
    const row = getDistillJob(db, id);
    if (!row) return undefined;
    let job: DistillJob;
    try {
      job = StoredJob.parse(JSON.parse(row.job));
    } catch (err) {
      throw new AppError("DB_CORRUPT", `queued distillation ${id} is not a valid job: ${(err as Error).message}`, {
        cause: err,
      });
    }
    // While memory is paused nothing from a conversation is stored: the job waits for `memcards resume`.
    if (isPaused(db, job.projectId)) return undefined;
    const r = distill(db, job.projectId, job.sessionId, job.span, job.sections);
    crashPoint("distill-job-units");
    deleteDistillJob(db, id);
    return r;
  });
}

/** The ids of the project's queued jobs, oldest first (left by a process that stopped before running them). */
export function queuedDistillations(db: Db, projectId: number): number[] {
  return queuedDistillJobs(db, projectId);
}
