// Memory writes that the team shares: a unit recorded by hand (`remember`, `record_memory`) is queued for the team
// store at once, and forgetting units queues their removal for everyone. memory/ stores and deletes, team/ queues;
// this composes them, as curate.ts does for edits, approvals and rejections. (Units distillation stores are queued
// by the team's push and sync, `queueDistilledForTeam`.)
import { type ForgetInput, forgetUnits, type RecordInput, recordUnit } from "../memory/service.js";
import type { PurgeResult } from "../storage/memories.js";
import type { ProjectScope } from "../storage/scope.js";
import { queueForgetForTeam, queueUnitForTeam } from "../team/queue.js";

/**
 * Stores one unit (see `recordUnit`: merge, supersession, conflicts) and, when the project is linked to a team and
 * the unit is a new project-level row, queues it for the team store.
 */
export function recordMemory(
  scope: ProjectScope,
  raw: RecordInput,
): { id: number | undefined; merged: boolean; outcome: string } {
  return recordUnit(scope, raw, (id) => queueUnitForTeam(scope, id));
}

/**
 * Deletes for real (see `forgetUnits`) and, when the project is linked to a team, queues the removal of the shared
 * copies of the units it deletes, in the delete's transaction: a delete that fails leaves nothing queued.
 */
export function forget(
  scope: ProjectScope,
  raw: ForgetInput,
): { memories: number; rawTurns: number; summaries: number } & PurgeResult {
  return forgetUnits(scope, raw, (ids) => queueForgetForTeam(scope, ids));
}
