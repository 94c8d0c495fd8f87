// Memory units and the raw turn archive.
import type { Db } from "./db.js";
import { stmt } from "./db.js";

export interface MemoryRow {
  id: number;
  project_id: number;
  session_id: string | null;
  category: string;
  text: string;
  record: string;
  merge_key: string;
  confidence: number;
  importance: number;
  tier: string;
  status: string;
  superseded_by: number | null;
  conflicts_with: number | null;
  evidence: string;
  files: string;
  created_at: string;
  updated_at: string;
}

/** Units of a category with this merge key that are still in force (active or in conflict). */
export function memoriesByKey(db: Db, projectId: number, category: string, key: string): MemoryRow[] {
  return stmt(
    db,
    "SELECT * FROM memories WHERE project_id = ? AND category = ? AND merge_key = ? AND status != 'superseded' ORDER BY id DESC",
  ).all(projectId, category, key) as MemoryRow[];
}

/** The most recent units of a category still in force. */
export function recentMemories(db: Db, projectId: number, category: string, limit = 500): MemoryRow[] {
  return stmt(
    db,
    "SELECT * FROM memories WHERE project_id = ? AND category = ? AND status != 'superseded' ORDER BY id DESC LIMIT ?",
  ).all(projectId, category, limit) as MemoryRow[];
}

export function insertMemory(db: Db, m: Omit<MemoryRow, "id">): number {
  return Number(
    stmt(
      db,
      `INSERT INTO memories (project_id, session_id, category, text, record, merge_key, confidence, importance, tier, status,
         superseded_by, conflicts_with, evidence, files, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      m.project_id,
      m.session_id,
      m.category,
      m.text,
      m.record,
      m.merge_key,
      m.confidence,
      m.importance,
      m.tier,
      m.status,
      m.superseded_by,
      m.conflicts_with,
      m.evidence,
      m.files,
      m.created_at,
      m.updated_at,
    ).lastInsertRowid,
  );
}

export function updateMemory(
  db: Db,
  id: number,
  f: Partial<
    Pick<
      MemoryRow,
      | "status"
      | "superseded_by"
      | "conflicts_with"
      | "evidence"
      | "confidence"
      | "record"
      | "importance"
      | "tier"
      | "updated_at"
    >
  >,
): void {
  const cols = Object.keys(f);
  if (cols.length === 0) return;
  stmt(db, `UPDATE memories SET ${cols.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`).run(
    ...cols.map((c) => f[c as keyof typeof f] ?? null),
    id,
  );
}

export function listMemories(
  db: Db,
  projectId: number,
  opts: { category?: string; tier?: string; session?: string; includeInactive?: boolean; limit?: number } = {},
): MemoryRow[] {
  const where = ["project_id = ?"];
  const args: unknown[] = [projectId];
  const add = (clause: string, value: unknown) => {
    where.push(clause);
    args.push(value);
  };
  if (opts.category) add("category = ?", opts.category);
  if (opts.tier) add("tier = ?", opts.tier);
  if (opts.session) add("session_id = ?", opts.session);
  if (!opts.includeInactive) where.push("status = 'active'");
  return stmt(db, `SELECT * FROM memories WHERE ${where.join(" AND ")} ORDER BY importance DESC, id DESC LIMIT ?`).all(
    ...args,
    opts.limit ?? 100,
  ) as MemoryRow[];
}

export function memoryCounts(
  db: Db,
  projectId: number,
): { category: string; tier: string; status: string; n: number }[] {
  return stmt(
    db,
    "SELECT category, tier, status, COUNT(*) AS n FROM memories WHERE project_id = ? GROUP BY category, tier, status ORDER BY category",
  ).all(projectId) as { category: string; tier: string; status: string; n: number }[];
}

/** Keeps turns (already redacted) in the cold archive; a turn already archived is left as it was. */
export function archiveTurns(
  db: Db,
  projectId: number,
  sessionId: string,
  turns: { id: string; role: string; text: string }[],
): number {
  const now = new Date().toISOString();
  const ins = stmt(
    db,
    "INSERT OR IGNORE INTO raw_turns (project_id, session_id, turn_id, role, text, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  let n = 0;
  for (const t of turns) n += ins.run(projectId, sessionId, t.id, t.role, t.text, now).changes;
  return n;
}
