// Cards already served in a project, read back by id: what the `memcards://cards/{id}` resource shows.
import { AppError } from "../errors.js";
import { servedCard, servedCardIds } from "../storage/cards.js";
import type { ProjectScope } from "../storage/scope.js";

/** A served card with the task it was served for and when, as JSON; NOT_FOUND when this project served no such card. */
export function readServedCard(scope: Pick<ProjectScope, "db" | "projectId">, id: string): string {
  const row = servedCard(scope.db, scope.projectId, id);
  if (!row) throw new AppError("NOT_FOUND", `no card ${id} was served in this project`);
  return JSON.stringify({ ...row.card, task: row.task, served_at: row.served_at }, null, 2);
}

/** Ids of the most recently served cards that start with `prefix`, for completion. */
export function servedCardIdsLike(scope: Pick<ProjectScope, "db" | "projectId">, prefix: string): string[] {
  return servedCardIds(scope.db, scope.projectId, prefix);
}
