// Served cards and reported outcomes. A served card and its task are stored redacted.
import { z } from "zod";

import { snakeKeysDeep } from "../text/case.js";
import { redact, redactJson } from "../text/redact.js";
import type { Db } from "./db.js";
import { stmt, writeTx } from "./db.js";
import { decodeJson, decodeJsonOrFail } from "./json.js";

/**
 * A stored card: the card's own JSON object (its shape is the scoring schema's, checked where it is made), stored and
 * read back with its keys in snake_case, as stores have always held it (the card resource and the viewer show it so).
 */
const StoredCard = z.record(z.string(), z.unknown());

export interface ServedCard {
  id: string;
  unitKey: string;
  /** The card as memcards names it inside (camelCase keys); stored in snake_case. */
  card: object;
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
  const storedTask = redact(task.slice(0, 2000));
  writeTx(db, () => {
    for (const c of cards)
      ins.run(
        c.id,
        projectId,
        sessionId ?? null,
        c.unitKey,
        storedTask,
        redactJson(JSON.stringify(snakeKeysDeep(c.card))),
        now,
      );
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

/** A served card as the viewer lists it, with the outcomes recorded for its unit. */
export interface ServedWithOutcomes {
  id: string;
  session_id: string | null;
  unit_key: string;
  task: string;
  card: Record<string, unknown>;
  served_at: string;
  helped: number;
  not_helped: number;
}

/** The project's served cards, newest first, each with its unit's outcomes; a damaged card reads as empty. */
export function servedWithOutcomes(db: Db, projectId: number, limit: number): ServedWithOutcomes[] {
  const rows = stmt(
    db,
    `SELECT c.id, c.session_id, c.unit_key, c.task, c.card, c.served_at,
       (SELECT COUNT(*) FROM outcomes o WHERE o.project_id = c.project_id AND o.unit_key = c.unit_key AND o.helped = 1) AS helped,
       (SELECT COUNT(*) FROM outcomes o WHERE o.project_id = c.project_id AND o.unit_key = c.unit_key AND o.helped = 0) AS not_helped
     FROM cards_served c WHERE c.project_id = ? ORDER BY c.served_at DESC, c.id LIMIT ?`,
  ).all(projectId, limit) as (Omit<ServedWithOutcomes, "card"> & { card: string })[];
  return rows.map((r) => ({ ...r, card: decodeJson(StoredCard, r.card) ?? {} }));
}

/** Outcomes per day: how many helped and how many were reported. */
export function outcomesByDay(db: Db, projectId: number): { day: string; helped: number; total: number }[] {
  return stmt(
    db,
    `SELECT substr(created_at, 1, 10) AS day, SUM(helped) AS helped, COUNT(*) AS total FROM outcomes
     WHERE project_id = ? GROUP BY day ORDER BY day`,
  ).all(projectId) as { day: string; helped: number; total: number }[];
}
