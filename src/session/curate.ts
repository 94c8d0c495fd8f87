// Curation that the team shares: an edited unit's queued copy follows the edit, an approved unit is queued for the
// team store as a unit written active is, and a rejected one is forgotten as forget does. memory/ curates, team/
// queues; this composes them.
import { approvePending, rejectPending, rewordUnit } from "../memory/curate.js";
import type { ProjectScope } from "../storage/scope.js";
import { queueForgetForTeam, queueUnitForTeam, requeueEditedForTeam } from "../team/queue.js";

/**
 * Rewrites a unit's text (see `rewordUnit`: redacted, merge key, record, evidence and indexes follow, the old
 * wording leaves the store) and, when the project is linked to a team, the copy queued for or sent to the team, in
 * the same transaction: the queue's old wording leaves the store too.
 */
export function editUnit(scope: ProjectScope, id: number, text: string): void {
  rewordUnit(scope, id, text, () => requeueEditedForTeam(scope, id));
}

/** Approves a unit waiting for review (see `approvePending`) and queues it for the team when the project is linked. */
export function approveUnit(scope: ProjectScope, id: number): { superseded?: number; conflictsWith?: number } {
  const settled = approvePending(scope, id);
  queueUnitForTeam(scope, id);
  return settled;
}

/** Rejects a unit waiting for review (see `rejectPending`: deleted for real), through the team queue as `forget`. */
export function rejectUnit(scope: ProjectScope, id: number): void {
  rejectPending(scope, id, (ids) => queueForgetForTeam(scope, ids));
}
