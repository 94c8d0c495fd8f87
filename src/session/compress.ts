// compress_context as a step of the session: compress the transcript, store the summary, distil the same span
// into memory units. Composes transcript/ and memory/ so that neither imports the other.
import { crashPoint } from "../crash-point.js";
import type { Logger } from "../log.js";
import { isPaused } from "../memory/admin.js";
import { distill, type DistillResult } from "../memory/distill.js";
import { queuedDistillations, queueDistillation, runDistillJob } from "../memory/distill-queue.js";
import type { Distiller } from "../memory/distiller.js";
import type { Db } from "../storage/db.js";
import { writeTx } from "../storage/db.js";
import type { ProjectScope } from "../storage/scope.js";
import {
  type CompressInput,
  type Compression,
  type CompressTrace,
  compressTranscript,
  type TranscriptDeps,
} from "../transcript/compression/compress.js";
import { storeSummary } from "../transcript/compression/summaries.js";

export interface CompressDeps extends ProjectScope, Omit<TranscriptDeps, "projectId"> {
  /**
   * Distils a queued job (by its id in the durable queue) in the background instead of inline (the server's
   * worker); inline when absent. Returns the result when it had to distil inline after all.
   */
  distill?: (jobId: number) => DistillResult | undefined;
}

export type CompressResult = Compression & {
  /** Memory units written from this span: added, merged, superseded, in conflict, dropped; turns archived. */
  memories?: DistillResult;
  /** Turns handed to the background distiller (the units appear in search_memory when it is done). */
  memories_queued?: number;
  /** The stored summary's sequence number in its session (absent when nothing was stored). */
  seq?: number;
};

/** What distilling a span gave: the units written, or how many turns wait in the background. */
export type Distilled = Pick<CompressResult, "memories" | "memories_queued">;

/** Hands queued jobs to the background distiller; when no worker can take one, it runs inline (and is logged). */
export function inBackground(
  distiller: Pick<Distiller, "enqueue">,
  db: Db,
  logger: Pick<Logger, "warn">,
): (jobId: number) => DistillResult | undefined {
  return (jobId) => {
    try {
      distiller.enqueue(jobId);
      return undefined;
    } catch (err) {
      logger.warn(`background distillation unavailable (${(err as Error).message}); distilling inline`);
      return runDistillJob(db, jobId);
    }
  };
}

/**
 * Runs the distillations a stopped process left queued: through `deps.distill` (the background) when given, else
 * inline. Returns how many were queued.
 */
export function resumeDistillation(deps: Pick<CompressDeps, "db" | "projectId" | "distill">): number {
  const ids = queuedDistillations(deps.db, deps.projectId);
  for (const id of ids) {
    if (deps.distill) deps.distill(id);
    else runDistillJob(deps.db, id);
  }
  return ids.length;
}

/** Runs one compression: compress, then (unless nothing is new or memory is paused) store and distil. */
export function compressContext(deps: CompressDeps, raw: CompressInput): CompressResult {
  return compressTraced(deps, raw).result;
}

/** Runs one compression as compressContext does, and also returns how its summary came to be. */
export function compressTraced(
  deps: CompressDeps,
  raw: CompressInput,
): { result: CompressResult; trace: CompressTrace } {
  const { result: c, trace, tokensSummarized } = compressTranscript(deps, raw);
  const paused = isPaused(deps.db, deps.projectId);
  if (paused) c.notes.push("Memory is paused for this project (memcards resume): this summary was not stored.");
  if (c.span.length === 0 || paused) return { result: c, trace };
  // What outlives the session: typed memory units from the same span (CBDP). The summary (the session's
  // watermark) commits with its units and archived turns, or with its queued job: a crash never leaves one alone.
  const job = { projectId: deps.projectId, sessionId: c.session_id, span: c.span, sections: c.summary.sections };
  const stored = writeTx<{ seq: number; distilled?: Distilled; jobId?: number }>(deps.db, () => {
    const seq = storeSummary(deps.db, deps.projectId, c, tokensSummarized);
    crashPoint("after-summary");
    if (!deps.distill) {
      const memories = distill(deps.db, job.projectId, job.sessionId, job.span, job.sections);
      crashPoint("after-units");
      return { seq, distilled: { memories } };
    }
    const jobId = queueDistillation(deps.db, job);
    crashPoint("after-queue");
    return { seq, jobId };
  });
  crashPoint("after-commit");
  const { seq } = stored;
  let distilled: Distilled = stored.distilled ?? {};
  if (stored.jobId !== undefined && deps.distill) {
    const memories = deps.distill(stored.jobId);
    distilled = memories ? { memories } : c.span.length > 0 ? { memories_queued: c.span.length } : {};
  }
  // The same fields in the same order as ever: the stored parts before the probe list.
  const { probe_list, ...head } = c;
  return { result: { ...head, ...distilled, seq, probe_list }, trace };
}
