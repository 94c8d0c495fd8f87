// The background distillation queue (distill_jobs): a job is added in the transaction that stores its summary and
// deleted in the transaction that writes its units, so a crash leaves either both undone or the job still queued.
import { redactJson } from "../text/redact.js";
import type { Db } from "./db.js";
import { stmt } from "./db.js";

/** A queued job: its id and its JSON (project, session, span, sections), stored redacted. */
export interface DistillJobRow {
  id: number;
  session_id: string;
  job: string;
}

/** Queues a job (its JSON is redacted here, as every stored text is); returns its id. */
export function addDistillJob(db: Db, projectId: number, sessionId: string, job: string): number {
  const r = stmt(db, "INSERT INTO distill_jobs (project_id, session_id, job, created_at) VALUES (?, ?, ?, ?)").run(
    projectId,
    sessionId,
    redactJson(job),
    new Date().toISOString(),
  );
  return Number(r.lastInsertRowid);
}

/** One queued job, if it is still queued. */
export function getDistillJob(db: Db, id: number): DistillJobRow | undefined {
  return stmt(db, "SELECT id, session_id, job FROM distill_jobs WHERE id = ?").get(id) as DistillJobRow | undefined;
}

/** Removes a job; true when this call removed it (false: another run already did). */
export function deleteDistillJob(db: Db, id: number): boolean {
  return stmt(db, "DELETE FROM distill_jobs WHERE id = ?").run(id).changes > 0;
}

/** The ids of a project's queued jobs, oldest first. */
export function queuedDistillJobs(db: Db, projectId: number): number[] {
  return (
    stmt(db, "SELECT id FROM distill_jobs WHERE project_id = ? ORDER BY id").all(projectId) as { id: number }[]
  ).map((r) => r.id);
}
