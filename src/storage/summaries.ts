// Summaries of sessions: append one per compression, read the latest. Markdown and sections are redacted here.
import { z } from "zod";

import { redact, redactJson } from "../text/redact.js";
import type { Db } from "./db.js";
import { stmt, writeTx } from "./db.js";
import { decodeJson, decodeJsonOrFail } from "./json.js";

/**
 * The JSON columns of a summary, read as JSON objects: the structured sections (checked against their schema by
 * the transcript code that merges into them) and the compression's stats with `tokens_summarized`, the running
 * total of tokens summarized in the session.
 */
const JsonObject = z.record(z.string(), z.unknown());

/** A stored summary, its JSON columns decoded. */
export interface SummaryRow {
  session_id: string;
  seq: number;
  markdown: string;
  sections: Record<string, unknown>;
  last_turn_id: string | null;
  last_turn_index: number | null;
  format: string | null;
  stats: Record<string, unknown>;
  created_at: string;
}

/** A summary to append: sections and stats as JSON text. */
export type NewSummary = Omit<SummaryRow, "seq" | "created_at" | "sections" | "stats"> & {
  sections: string;
  stats: string;
};

/**
 * The newest summary of a session (of one project when given), if any. A sections or stats value that is not a JSON
 * object is DB_CORRUPT.
 */
export function latestSummary(db: Db, sessionId: string, projectId?: number): SummaryRow | undefined {
  const cols = "session_id, seq, markdown, sections, last_turn_id, last_turn_index, format, stats, created_at";
  const r = (
    projectId === undefined
      ? stmt(db, `SELECT ${cols} FROM summaries WHERE session_id = ? ORDER BY seq DESC LIMIT 1`).get(sessionId)
      : stmt(
          db,
          `SELECT ${cols} FROM summaries
           WHERE session_id = ? AND session_id IN (SELECT id FROM sessions WHERE project_id = ?)
           ORDER BY seq DESC LIMIT 1`,
        ).get(sessionId, projectId)
  ) as (Omit<SummaryRow, "sections" | "stats"> & { sections: string; stats: string }) | undefined;
  if (!r) return undefined;
  const where = (column: string) => ({ table: "summaries", column, id: `${r.session_id}#${r.seq}` });
  return {
    ...r,
    sections: decodeJsonOrFail(JsonObject, r.sections, where("sections")),
    stats: decodeJsonOrFail(JsonObject, r.stats, where("stats")),
  };
}

/** Appends a summary (and creates or touches its session row) in one transaction; returns its sequence number. */
export function appendSummary(db: Db, projectId: number, row: NewSummary, transcriptPath: string | undefined): number {
  const now = new Date().toISOString();
  return writeTx(db, () => {
    stmt(
      db,
      `INSERT INTO sessions (id, project_id, transcript_path, started_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET last_seen_at = excluded.last_seen_at,
         transcript_path = COALESCE(excluded.transcript_path, sessions.transcript_path)`,
    ).run(row.session_id, projectId, transcriptPath ?? null, now, now);
    const seq =
      ((
        stmt(db, "SELECT MAX(seq) AS m FROM summaries WHERE session_id = ?").get(row.session_id) as { m: number | null }
      ).m ?? 0) + 1;
    stmt(
      db,
      `INSERT INTO summaries (session_id, seq, markdown, sections, last_turn_id, last_turn_index, format, stats, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      row.session_id,
      seq,
      redact(row.markdown),
      redactJson(row.sections),
      row.last_turn_id,
      row.last_turn_index,
      row.format,
      row.stats,
      now,
    );
    return seq;
  });
}

/** The transcript path recorded for a session (by hooks or an earlier compression). */
export function sessionTranscript(db: Db, sessionId: string, projectId?: number): string | undefined {
  const r = (
    projectId === undefined
      ? stmt(db, "SELECT transcript_path FROM sessions WHERE id = ?").get(sessionId)
      : stmt(db, "SELECT transcript_path FROM sessions WHERE id = ? AND project_id = ?").get(sessionId, projectId)
  ) as { transcript_path: string | null } | undefined;
  return r?.transcript_path ?? undefined;
}

/** Whether a session is known (recorded by a hook or an earlier compression), in one project when given. */
export function sessionExists(db: Db, sessionId: string, projectId?: number): boolean {
  const row =
    projectId === undefined
      ? stmt(db, "SELECT 1 FROM sessions WHERE id = ?").get(sessionId)
      : stmt(db, "SELECT 1 FROM sessions WHERE id = ? AND project_id = ?").get(sessionId, projectId);
  return row !== undefined;
}

/** The ids of the most recently seen sessions (of one project when given), newest first. */
export function recentSessionIds(db: Db, projectId: number | undefined, limit = 10): string[] {
  const rows = (
    projectId === undefined
      ? stmt(db, "SELECT id FROM sessions ORDER BY last_seen_at DESC LIMIT ?").all(limit)
      : stmt(db, "SELECT id FROM sessions WHERE project_id = ? ORDER BY last_seen_at DESC LIMIT ?").all(
          projectId,
          limit,
        )
  ) as { id: string }[];
  return rows.map((r) => r.id);
}

/** Sessions of a project with a summary, newest first. */
export function summarizedSessions(
  db: Db,
  projectId: number,
  limit = 20,
): { id: string; seq: number; created_at: string }[] {
  return stmt(
    db,
    `SELECT s.id AS id, MAX(m.seq) AS seq, MAX(m.created_at) AS created_at FROM sessions s JOIN summaries m ON m.session_id = s.id
     WHERE s.project_id = ? GROUP BY s.id ORDER BY created_at DESC LIMIT ?`,
  ).all(projectId, limit) as { id: string; seq: number; created_at: string }[];
}

/** Replaces the markdown of one stored summary (the client-model route rewrites its narrative sections). */
export function replaceSummaryMarkdown(db: Db, sessionId: string, seq: number, markdown: string): void {
  stmt(db, "UPDATE summaries SET markdown = ? WHERE session_id = ? AND seq = ?").run(redact(markdown), sessionId, seq);
}

/** A compression as the viewer lists it: its summary's row with where its session came from. */
export type CompressionRow = Pick<SummaryRow, "session_id" | "seq" | "format" | "stats" | "created_at"> & {
  transcript_path: string | null;
  client: string | null;
};

/** Every compression of the project's sessions, newest first; a damaged stats value reads as empty. */
export function compressions(db: Db, projectId: number, limit: number): CompressionRow[] {
  const rows = stmt(
    db,
    `SELECT s.session_id, s.seq, s.format, x.transcript_path, x.client, s.stats, s.created_at
     FROM summaries s JOIN sessions x ON x.id = s.session_id
     WHERE x.project_id = ? ORDER BY s.created_at DESC, s.seq DESC LIMIT ?`,
  ).all(projectId, limit) as (Omit<CompressionRow, "stats"> & { stats: string })[];
  return rows.map((r) => ({ ...r, stats: decodeJson(JsonObject, r.stats) ?? {} }));
}

/**
 * The summaries of one session of the project, oldest first, with their markdown and sections; a damaged JSON
 * value reads as empty (the viewer shows what it can).
 */
export function sessionSummaries(
  db: Db,
  projectId: number,
  sessionId: string,
): Pick<SummaryRow, "seq" | "markdown" | "sections" | "stats" | "created_at">[] {
  const rows = stmt(
    db,
    `SELECT s.seq, s.markdown, s.sections, s.stats, s.created_at FROM summaries s JOIN sessions x ON x.id = s.session_id
     WHERE x.project_id = ? AND s.session_id = ? ORDER BY s.seq`,
  ).all(projectId, sessionId) as {
    seq: number;
    markdown: string;
    sections: string;
    stats: string;
    created_at: string;
  }[];
  return rows.map((r) => ({
    ...r,
    sections: decodeJson(JsonObject, r.sections) ?? {},
    stats: decodeJson(JsonObject, r.stats) ?? {},
  }));
}

/** Files with the most recorded operations across the latest summary of each of the project's sessions. */
export function mostEditedFiles(db: Db, projectId: number, limit: number): { path: string; ops: number }[] {
  return stmt(
    db,
    `SELECT f.key AS path, SUM(json_array_length(f.value)) AS ops
     FROM summaries s JOIN sessions x ON x.id = s.session_id, json_each(s.sections, '$.files') f
     WHERE x.project_id = ? AND json_valid(s.sections)
       AND s.seq = (SELECT MAX(seq) FROM summaries t WHERE t.session_id = s.session_id)
     GROUP BY f.key ORDER BY ops DESC, path LIMIT ?`,
  ).all(projectId, limit) as { path: string; ops: number }[];
}
