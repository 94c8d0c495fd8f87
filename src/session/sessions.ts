// A client's session as the hooks meet it: recorded on every hook call, and whether a summary was left before it.
import { touchSession } from "../storage/projects.js";
import type { ProjectScope } from "../storage/scope.js";
import { summarizedSessions } from "../storage/summaries.js";

type Scope = Pick<ProjectScope, "db" | "projectId">;

/** Records that `sessionId` is active now (created on first sight), with its client and transcript when known. */
export function recordSession(
  scope: Scope,
  sessionId: string,
  fields: { client?: string; transcriptPath?: string } = {},
): void {
  touchSession(scope.db, scope.projectId, sessionId, fields);
}

/** Whether the project's most recently summarized session is another one than `sessionId`. */
export function earlierSummaryExists(scope: Scope, sessionId: string | undefined): boolean {
  return summarizedSessions(scope.db, scope.projectId, 1).some((s) => s.id !== sessionId);
}
