// The project's compressions as the viewer shows them: every compression with its stats, one session's summaries,
// and the files the sessions' latest summaries record the most operations on.
import type { ProjectScope } from "../storage/scope.js";
import {
  type CompressionRow,
  compressions,
  mostEditedFiles,
  sessionSummaries,
  type SummaryRow,
} from "../storage/summaries.js";

export type { CompressionRow };

type Scope = Pick<ProjectScope, "db" | "projectId">;

/** The project's compressions, newest first, at most `limit`. */
export function compressionHistory(scope: Scope, limit: number): CompressionRow[] {
  return compressions(scope.db, scope.projectId, limit);
}

/** One session's summaries, oldest first (none when the session is not the project's). */
export function summariesOfSession(
  scope: Scope,
  sessionId: string,
): Pick<SummaryRow, "seq" | "markdown" | "sections" | "stats" | "created_at">[] {
  return sessionSummaries(scope.db, scope.projectId, sessionId);
}

/** The files with the most recorded operations across each session's latest summary, most first. */
export function mostEditedInSessions(scope: Scope, limit: number): { path: string; ops: number }[] {
  return mostEditedFiles(scope.db, scope.projectId, limit);
}
