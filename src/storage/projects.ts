// Projects and sessions: who owns the rows of every other table.
import { basename } from "node:path";

import type { Db } from "./db.js";
import { writeTx } from "./db.js";

export interface ProjectRow {
  id: number;
  key: string;
  root: string;
  name: string;
}

/** Finds or creates the project with this identity key (its git common directory, or its root path). */
export function upsertProject(db: Db, key: string, root: string): ProjectRow {
  const now = new Date().toISOString();
  return writeTx(db, () => {
    db.prepare(
      `INSERT INTO projects (key, root, name, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(key) DO UPDATE SET root = excluded.root, last_seen_at = excluded.last_seen_at`,
    ).run(key, root, basename(root) || root, now, now);
    return db.prepare("SELECT id, key, root, name FROM projects WHERE key = ?").get(key) as ProjectRow;
  });
}

/** The working-tree root a project was last opened at. */
export function projectRoot(db: Db, projectId: number): string | undefined {
  return (db.prepare("SELECT root FROM projects WHERE id = ?").get(projectId) as { root: string } | undefined)?.root;
}

/** Records (or touches) a session of a project, optionally with its transcript path. */
export function touchSession(
  db: Db,
  projectId: number,
  sessionId: string,
  fields: { client?: string; transcriptPath?: string } = {},
): void {
  const now = new Date().toISOString();
  writeTx(db, () => {
    db.prepare(
      `INSERT INTO sessions (id, project_id, client, transcript_path, started_at, last_seen_at)
       VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET last_seen_at = excluded.last_seen_at,
         client = COALESCE(excluded.client, sessions.client),
         transcript_path = COALESCE(excluded.transcript_path, sessions.transcript_path)`,
    ).run(sessionId, projectId, fields.client ?? null, fields.transcriptPath ?? null, now, now);
  });
}
