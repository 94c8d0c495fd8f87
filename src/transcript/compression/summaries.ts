// Stored summaries: appending a compression's summary to its session; reading the latest of a session, or the
// newest of the project.
import { Sections } from "../../conversation/schema.js";
import { AppError } from "../../errors.js";
import type { Db } from "../../storage/db.js";
import { appendSummary, latestSummary, summarizedSessions } from "../../storage/summaries.js";
import type { Compression, CompressStats } from "./compress.js";

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

/**
 * Appends a compression's summary to its session (recording where the transcript is) and returns its sequence
 * number. `tokensSummarized` counts every token the session's compressions have summarized, this one included.
 */
export function storeSummary(db: Db, projectId: number, c: Compression, tokensSummarized: number): number {
  const last = c.span[c.span.length - 1];
  if (!last) throw new AppError("INTERNAL", "a compression that summarized no turn has no summary to store");
  const row = {
    session_id: c.session_id,
    markdown: c.summary.markdown,
    sections: JSON.stringify(c.summary.sections),
    last_turn_id: last.id,
    last_turn_index: last.index,
    format: c.source.format,
    stats: JSON.stringify({ ...c.stats, tokens_summarized: tokensSummarized }),
  };
  return appendSummary(db, projectId, row, c.source.path);
}
