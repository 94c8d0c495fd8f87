// Served cards and reported outcomes. A served card and its task are stored redacted.
import { z } from "zod";

import { redact, redactJson } from "../text/redact.js";
import type { Db } from "./db.js";
import { stmt, writeTx } from "./db.js";
import { decodeJsonOrFail } from "./json.js";

/** A stored card: the card's own JSON object (its shape is the scoring schema's, checked where it is made). */
const StoredCard = z.record(z.string(), z.unknown());

export interface ServedCard {
  id: string;
  unitKey: string;
  card: string;
}

/** Records the cards of one answer (replacing earlier rows with the same card id). */
export function recordServed(
  db: Db,
  projectId: number,
  sessionId: string | undefined,
  task: string,
  cards: ServedCard[],
): void {
  const now = new Date().toISOString();
  const ins = stmt(
    db,
    `INSERT INTO cards_served (id, project_id, session_id, unit_key, task, card, served_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(project_id, id) DO UPDATE SET session_id = excluded.session_id, task = excluded.task,
       card = excluded.card, served_at = excluded.served_at`,
  );
  writeTx(db, () => {
    for (const c of cards)
      ins.run(c.id, projectId, sessionId ?? null, c.unitKey, redact(task.slice(0, 2000)), redactJson(c.card), now);
  });
}

/** A served card by id, its JSON decoded (a row that is not a JSON object fails with DB_CORRUPT). */
export function servedCard(
  db: Db,
  projectId: number,
  id: string,
): { unit_key: string; task: string; card: Record<string, unknown>; served_at: string } | undefined {
  const row = stmt(db, "SELECT unit_key, task, card, served_at FROM cards_served WHERE project_id = ? AND id = ?").get(
    projectId,
    id,
  ) as { unit_key: string; task: string; card: string; served_at: string } | undefined;
  if (!row) return undefined;
  return { ...row, card: decodeJsonOrFail(StoredCard, row.card, { table: "cards_served", column: "card", id }) };
}

export function recordOutcomes(
  db: Db,
  projectId: number,
  sessionId: string | undefined,
  units: { unitKey: string; helped: boolean }[],
): number {
  const now = new Date().toISOString();
  const ins = stmt(
    db,
    "INSERT INTO outcomes (project_id, unit_key, helped, session_id, created_at) VALUES (?, ?, ?, ?, ?)",
  );
  return writeTx(db, () => {
    for (const u of units) ins.run(projectId, u.unitKey, u.helped ? 1 : 0, sessionId ?? null, now);
    return units.length;
  });
}

/** Helped / reported counts per unit key. */
export function outcomeCounts(
  db: Db,
  projectId: number,
  unitKeys: readonly string[],
): Map<string, { helped: number; total: number }> {
  const out = new Map<string, { helped: number; total: number }>();
  const st = stmt(
    db,
    "SELECT SUM(helped) AS helped, COUNT(*) AS total FROM outcomes WHERE project_id = ? AND unit_key = ?",
  );
  for (const k of unitKeys) {
    const r = st.get(projectId, k) as { helped: number | null; total: number };
    if (r.total > 0) out.set(k, { helped: r.helped ?? 0, total: r.total });
  }
  return out;
}

/** Ids of served cards starting with `prefix`, newest first (resource completion). */
export function servedCardIds(db: Db, projectId: number, prefix: string, limit = 20): string[] {
  return (
    stmt(db, "SELECT id FROM cards_served WHERE project_id = ? AND id LIKE ? ORDER BY served_at DESC LIMIT ?").all(
      projectId,
      `${prefix.replace(/[%_]/g, "")}%`,
      limit,
    ) as { id: string }[]
  ).map((r) => r.id);
}
