// Reading stored summaries: the latest of a session, or the newest of the project.
import { AppError } from "../errors.js";
import type { Db } from "../storage/db.js";
import { latestSummary, summarizedSessions } from "../storage/summaries.js";
import type { CompressStats } from "./compress.js";
import { Sections } from "./schema.js";

export interface StoredSummary {
  session_id: string;
  compression: number;
  created_at: string;
  markdown: string;
  sections: Sections;
  stats: CompressStats;
  /** Other sessions of the project with a summary, newest first. */
  sessions: { id: string; compressions: number; created_at: string }[];
}

/** The latest summary of `sessionId`, or of the project's most recently compressed session. */
export function getSummary(db: Db, projectId: number, sessionId?: string): StoredSummary {
  const sessions = summarizedSessions(db, projectId).map((s) => ({
    id: s.id,
    compressions: s.seq,
    created_at: s.created_at,
  }));
  const id = sessionId ?? sessions[0]?.id;
  if (!id) throw new AppError("NOT_FOUND", "no summary stored for this project yet; call compress_context first");
  const row = latestSummary(db, id);
  if (!row) {
    const known = sessions
      .map((s) => s.id)
      .slice(0, 5)
      .join(", ");
    throw new AppError("NOT_FOUND", `no summary for session ${id}${known ? `; sessions with one: ${known}` : ""}`);
  }
  return {
    session_id: id,
    compression: row.seq,
    created_at: row.created_at,
    markdown: row.markdown,
    sections: Sections.parse(row.sections),
    stats: row.stats as CompressStats,
    sessions,
  };
}
