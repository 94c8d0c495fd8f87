// The synchronous side of team memory, called where units are recorded and forgotten: queue what is shared.
import { createHash, randomUUID } from "node:crypto";

import type { Db } from "../storage/db.js";
import { getMemory } from "../storage/memories.js";
import { getMeta, setMeta } from "../storage/meta.js";
import type { ProjectScope } from "../storage/scope.js";
import { latestSummary, summarizedSessions } from "../storage/summaries.js";
import {
  clearQueuedPut,
  detachLocal,
  enqueue,
  requeuePut,
  uidForLocal,
  unqueuedUnitIds,
} from "../storage/team/outbox.js";
import { redact } from "../text/redact.js";

/** Project-level categories shared with the team; preferences stay personal. */
export const SHARED_CATEGORIES: readonly string[] = ["commitment", "reasoning", "failure", "learning", "performance"];

const linkKey = (projectId: number) => `team_link:${projectId}`;

/** Marks this project as sharing with a team (set by `team init` / `team push`): recorded units queue from now on. */
export function linkTeam(db: Db, projectId: number, projectKey: string): void {
  if (!getMeta(db, `${linkKey(projectId)}:since`)) setMeta(db, `${linkKey(projectId)}:since`, new Date().toISOString());
  setMeta(db, linkKey(projectId), projectKey);
}

/**
 * Queues the project-level units distillation stored since the project was linked (warm, active, never queued),
 * oldest first; `remember` and `record_memory` queue theirs at once.
 */
export function queueDistilledForTeam(scope: ProjectScope): number {
  const since = getMeta(scope.db, `${linkKey(scope.projectId)}:since`);
  if (!since || !linkedTeam(scope.db, scope.projectId)) return 0;
  const ids = unqueuedUnitIds(scope.db, scope.projectId, SHARED_CATEGORIES, since);
  for (const id of ids) queueUnitForTeam(scope, id);
  return ids.length;
}

/** The team project key this project shares under, if it is linked. */
export function linkedTeam(db: Db, projectId: number): string | undefined {
  return getMeta(db, linkKey(projectId));
}

/**
 * Queues a newly stored local unit for the team store when the project is linked and the unit is project-level.
 * Its text, record and evidence are redacted again here: nothing leaves the machine unredacted.
 */
export function queueUnitForTeam(scope: ProjectScope, localId: number): void {
  if (!linkedTeam(scope.db, scope.projectId)) return;
  const m = getMemory(scope.db, localId);
  // A unit waiting for review is not shared until a person approves it (approval queues it).
  if (!m || !SHARED_CATEGORIES.includes(m.category) || m.status === "pending" || uidForLocal(scope.db, localId)) return;
  enqueue(scope.db, scope.projectId, { uid: randomUUID(), op: "put", localId, payload: payloadOf(m) });
}

/**
 * Rewrites the queued copy of an edited unit: an unsent put carries the new wording, and a unit already sent is
 * queued again so the team store's copy is updated. The old wording is kept nowhere in the queue.
 */
export function requeueEditedForTeam(scope: ProjectScope, localId: number): void {
  if (!linkedTeam(scope.db, scope.projectId)) return;
  const m = getMemory(scope.db, localId);
  const uid = uidForLocal(scope.db, localId);
  if (!m || !uid) return queueUnitForTeam(scope, localId);
  requeuePut(scope.db, uid, payloadOf(m));
}

function payloadOf(m: NonNullable<ReturnType<typeof getMemory>>): Record<string, unknown> {
  const deep = (v: unknown): unknown =>
    typeof v === "string"
      ? redact(v)
      : Array.isArray(v)
        ? v.map(deep)
        : v && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x)]))
          : v;
  return {
    category: m.category,
    text: redact(m.text),
    record: deep(m.record),
    merge_key: redact(m.merge_key),
    confidence: m.confidence,
    tier: m.tier,
    evidence: deep(m.evidence),
    files: m.files.map((f) => redact(f)),
    created_at: m.created_at,
  };
}

/** Queues the removal, for everyone, of the shared copies of these local units (before they are deleted here). */
export function queueForgetForTeam(scope: ProjectScope, localIds: readonly number[]): void {
  if (!linkedTeam(scope.db, scope.projectId)) return;
  for (const id of localIds) {
    const uid = uidForLocal(scope.db, id);
    if (!uid) continue;
    clearQueuedPut(scope.db, uid);
    enqueue(scope.db, scope.projectId, { uid, op: "forget" });
    detachLocal(scope.db, uid);
  }
}

/**
 * Queues the latest summary of the project's recent sessions (only with `--share-summaries`): redacted, under an
 * id derived from the project, session and summary number, so queuing again never sends one twice.
 */
export function queueSummariesForTeam(scope: ProjectScope, teamProject: string, limit = 20): number {
  let queued = 0;
  for (const s of summarizedSessions(scope.db, scope.projectId, limit)) {
    const row = latestSummary(scope.db, s.id);
    if (!row) continue;
    const h = createHash("sha256").update(`${teamProject}\0${s.id}\0${row.seq}`).digest("hex");
    const uid = `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
    const text = redact(row.markdown).slice(0, 8000);
    if (!text.trim()) continue;
    enqueue(scope.db, scope.projectId, {
      uid,
      op: "put",
      payload: {
        category: "summary",
        text,
        record: { session: redact(s.id) },
        merge_key: `summary:${uid}`,
        confidence: 1,
        tier: "cold",
        evidence: [],
        files: [],
        created_at: row.created_at,
      },
    });
    queued++;
  }
  return queued;
}
