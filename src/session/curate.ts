// Curation that the team shares: an edited unit's queued copy follows the edit, and an approved unit is queued
// for the team store as a unit written active is. memory/ curates, team/ queues; this composes them.
import { approvePending, rewordUnit } from "../memory/curate.js";
import type { ProjectScope } from "../storage/scope.js";
import { queueUnitForTeam, requeueEditedForTeam } from "../team/queue.js";

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
