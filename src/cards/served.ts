// Cards already served in a project: read back by id (what the `memcards://cards/{id}` resource shows), and listed
// with their outcomes (what the viewer shows).
import { AppError } from "../errors.js";
import {
  outcomesByDay,
  servedCard,
  servedCardIds,
  type ServedWithOutcomes,
  servedWithOutcomes,
} from "../storage/cards.js";
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

export type { ServedWithOutcomes };

/** The most recently served cards (at most `limit`), each with the outcomes recorded for its unit. */
export function servedCardsWithOutcomes(
  scope: Pick<ProjectScope, "db" | "projectId">,
  limit: number,
): ServedWithOutcomes[] {
  return servedWithOutcomes(scope.db, scope.projectId, limit);
}

/** Outcomes recorded per day, oldest first: how many helped of how many. */
export function outcomesPerDay(scope: Pick<ProjectScope, "db" | "projectId">): {
  day: string;
  helped: number;
  total: number;
}[] {
  return outcomesByDay(scope.db, scope.projectId);
}
