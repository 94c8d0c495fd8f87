// The synchronous side of team memory, called where units are recorded and forgotten: queue what is shared.
import { randomUUID } from "node:crypto";

import type { ProjectScope } from "../project/scope.js";
import type { Db } from "../storage/db.js";
import { getMemory } from "../storage/memories.js";
import { getMeta, setMeta } from "../storage/meta.js";
import { clearQueuedPut, enqueue, uidForLocal } from "../storage/team/outbox.js";
import { redact } from "../text/redact.js";

/** Project-level categories shared with the team; preferences stay personal. */
export const SHARED_CATEGORIES: readonly string[] = ["commitment", "reasoning", "failure", "learning", "performance"];

const linkKey = (projectId: number) => `team_link:${projectId}`;

/** Marks this project as sharing with a team (set by `team init` / `team push`): recorded units queue from now on. */
export function linkTeam(db: Db, projectId: number, projectKey: string): void {
  setMeta(db, linkKey(projectId), projectKey);
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
  if (!m || !SHARED_CATEGORIES.includes(m.category) || uidForLocal(scope.db, localId)) return;
  const deep = (v: unknown): unknown =>
    typeof v === "string"
      ? redact(v)
      : Array.isArray(v)
        ? v.map(deep)
        : v && typeof v === "object"
          ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x)]))
          : v;
  enqueue(scope.db, scope.projectId, {
    uid: randomUUID(),
    op: "put",
    localId,
    payload: {
      category: m.category,
      text: redact(m.text),
      record: deep(m.record),
      merge_key: redact(m.merge_key),
      confidence: m.confidence,
      tier: m.tier,
      evidence: deep(m.evidence),
      files: m.files,
      created_at: m.created_at,
    },
  });
}

/** Queues the removal, for everyone, of the shared copies of these local units (before they are deleted here). */
export function queueForgetForTeam(scope: ProjectScope, localIds: readonly number[]): void {
  if (!linkedTeam(scope.db, scope.projectId)) return;
  for (const id of localIds) {
    const uid = uidForLocal(scope.db, id);
    if (!uid) continue;
    clearQueuedPut(scope.db, uid);
    enqueue(scope.db, scope.projectId, { uid, op: "forget", localId: id });
  }
}
