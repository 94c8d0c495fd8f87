// What the local viewer reads and changes: paged unit listings, compressions, served cards, outcomes, index facts,
// and the unit edits (text, pin, approval). Texts written here are redacted first, as everywhere in storage.
import { z } from "zod";

import { redact, redactJson } from "../text/redact.js";
import type { Db } from "./db.js";
import { checkpointWal, stmt, writeTx } from "./db.js";
import { decodeJson } from "./json.js";
import { Evidence } from "./memory-columns.js";
import { upsertVectorItem } from "./vectors.js";

const JsonObject = z.record(z.string(), z.unknown());
const EvidenceList = z.array(Evidence);
const Paths = z.array(z.string());

/** A unit as the viewer lists it; JSON columns read leniently (a bad column shows as empty, never fails a page). */
export interface UnitView {
  id: number;
  session_id: string | null;
  category: string;
  text: string;
  record: Record<string, unknown>;
  confidence: number;
  importance: number;
  tier: string;
  status: string;
  superseded_by: number | null;
  conflicts_with: number | null;
  evidence: Evidence[];
  files: string[];
  created_at: string;
  updated_at: string;
}

type StoredUnit = Omit<UnitView, "record" | "evidence" | "files"> & { record: string; evidence: string; files: string };

const COLUMNS =
  "id, session_id, category, text, record, confidence, importance, tier, status, superseded_by, conflicts_with, evidence, files, created_at, updated_at";

function decodeUnit(r: StoredUnit): UnitView {
  return {
    ...r,
    record: decodeJson(JsonObject, r.record) ?? {},
    evidence: decodeJson(EvidenceList, r.evidence) ?? [],
    files: decodeJson(Paths, r.files) ?? [],
  };
}

export interface UnitFilter {
  category?: string | undefined;
  tier?: string | undefined;
  status?: string | undefined;
  /** Only units created at or after this ISO time. */
  since?: string | undefined;
}

/** Where a page of units starts: after the unit last shown (keyset), or, for a link to a page number, an offset. */
export type UnitCursor = { before: number } | { after: number } | { offset: number };

/**
 * The WHERE clause of a unit listing. Its one indexed column is the rarest the filter names (a status other than
 * active, then the category, the tier, active); the others are unary-plus filters, so the walk newest first goes
 * down that index in id order, stopped at the page's size, whatever the planner's statistics.
 */
function unitWhere(projectId: number, f: UnitFilter): { sql: string; args: unknown[] } {
  const lead: [string, string | undefined][] = [
    ["status", f.status && f.status !== "active" ? f.status : undefined],
    ["category", f.category],
    ["tier", f.tier],
    ["status", f.status],
  ];
  const driver = lead.find(([, v]) => v)?.[0];
  const where = ["project_id = ?"];
  const args: unknown[] = [projectId];
  const add = (column: string, value: string | undefined) => {
    if (value === undefined || value === "") return;
    where.push(`${column === driver ? "" : "+"}${column} = ?`);
    args.push(value);
  };
  add("category", f.category);
  add("tier", f.tier);
  add("status", f.status);
  if (f.since) {
    // Every unit created since has an id at least the lowest of them: the walk stops there, not at the oldest unit.
    where.push(
      "+created_at >= ?",
      "id >= (SELECT coalesce(min(id), 0) FROM memories INDEXED BY memories_created WHERE project_id = ? AND created_at >= ?)",
    );
    args.push(f.since, projectId, f.since);
  }
  return { sql: where.join(" AND "), args };
}

/** How many units match a filter: from the kept counts, or, for a time since, from that range of its index. */
function unitTotal(db: Db, projectId: number, f: UnitFilter): number {
  if (f.since) {
    const where = ["project_id = ?", "created_at >= ?"];
    const args: unknown[] = [projectId, f.since];
    for (const [column, value] of [
      ["category", f.category],
      ["tier", f.tier],
      ["status", f.status],
    ] as const) {
      if (!value) continue;
      where.push(`${column} = ?`);
      args.push(value);
    }
    return (
      stmt(db, `SELECT COUNT(*) AS n FROM memories INDEXED BY memories_created WHERE ${where.join(" AND ")}`).get(
        ...args,
      ) as { n: number }
    ).n;
  }
  return unitFacets(db, projectId)
    .filter(
      (r) =>
        (!f.category || r.category === f.category) &&
        (!f.tier || r.tier === f.tier) &&
        (!f.status || r.status === f.status),
    )
    .reduce((n, r) => n + r.n, 0);
}

/**
 * One page of a project's units, newest first, and how many match in all. A page starts after the unit last shown
 * (`before`: older ones; `after`: newer ones), so it costs the same however deep it is.
 */
export function browseUnits(
  db: Db,
  projectId: number,
  f: UnitFilter,
  limit: number,
  cursor: UnitCursor = { offset: 0 },
): { units: UnitView[]; total: number } {
  const w = unitWhere(projectId, f);
  const total = unitTotal(db, projectId, f);
  let rows: StoredUnit[];
  if ("after" in cursor) {
    rows = (
      stmt(db, `SELECT ${COLUMNS} FROM memories WHERE ${w.sql} AND id > ? ORDER BY id LIMIT ?`).all(
        ...w.args,
        cursor.after,
        limit,
      ) as StoredUnit[]
    ).reverse();
  } else if ("before" in cursor) {
    rows = stmt(db, `SELECT ${COLUMNS} FROM memories WHERE ${w.sql} AND id < ? ORDER BY id DESC LIMIT ?`).all(
      ...w.args,
      cursor.before,
      limit,
    ) as StoredUnit[];
  } else {
    rows = stmt(db, `SELECT ${COLUMNS} FROM memories WHERE ${w.sql} ORDER BY id DESC LIMIT ? OFFSET ?`).all(
      ...w.args,
      limit,
      cursor.offset,
    ) as StoredUnit[];
  }
  return { units: rows.map(decodeUnit), total };
}

/** Units by id (in the order asked), within a project. */
export function unitsById(db: Db, projectId: number, ids: readonly number[]): UnitView[] {
  if (ids.length === 0) return [];
  const rows = stmt(
    db,
    `SELECT ${COLUMNS} FROM memories WHERE project_id = ? AND id IN (SELECT value FROM json_each(?))`,
  ).all(projectId, JSON.stringify(ids)) as StoredUnit[];
  const byId = new Map(rows.map((r) => [r.id, decodeUnit(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Counts per category, tier and status: the filter bar's numbers, kept by the store's triggers as units change. */
export function unitFacets(db: Db, projectId: number): { category: string; tier: string; status: string; n: number }[] {
  return stmt(db, "SELECT category, tier, status, n FROM memory_counts WHERE project_id = ? AND n > 0").all(
    projectId,
  ) as { category: string; tier: string; status: string; n: number }[];
}

/** A unit's new wording and everything derived from it. */
export interface UnitText {
  text: string;
  /** Its search tokens. */
  tokens: string;
  mergeKey: string;
  record: Record<string, unknown>;
  evidence: Evidence[];
}

/**
 * Replaces a unit's text (redacted), its merge key, record and evidence, and every index of it: its full-text row,
 * its graph node and its vector text. The old wording is then gone from the file and the WAL, as forget leaves it.
 */
export function replaceUnitText(db: Db, projectId: number, id: number, t: UnitText, now: string): boolean {
  const safe = redact(t.text);
  const done = writeTx(db, () => {
    const r = stmt(
      db,
      "UPDATE memories SET text = ?, merge_key = ?, record = ?, evidence = ?, updated_at = ? WHERE id = ? AND project_id = ?",
    ).run(
      safe,
      redact(t.mergeKey),
      redactJson(JSON.stringify(t.record)),
      redactJson(JSON.stringify(t.evidence)),
      now,
      id,
      projectId,
    );
    if (r.changes === 0) return false;
    stmt(db, "DELETE FROM memories_fts WHERE rowid = ?").run(id);
    stmt(db, "INSERT INTO memories_fts (rowid, body) VALUES (?, ?)").run(id, t.tokens);
    const node = stmt(db, "SELECT id, name FROM nodes WHERE key = ?").get(`memory:${id}`) as
      { id: number; name: string | null } | undefined;
    if (node) {
      stmt(db, "UPDATE nodes SET summary = ? WHERE id = ?").run(safe.slice(0, 300), node.id);
      stmt(db, "DELETE FROM nodes_fts WHERE rowid = ?").run(node.id);
      stmt(db, "INSERT INTO nodes_fts (rowid, name, path, body) VALUES (?, ?, '', ?)").run(
        node.id,
        node.name ?? "",
        t.tokens,
      );
      // Re-queued for a vector with the new text; the old vector is dropped now.
      upsertVectorItem(db, projectId, "node", node.id, `${node.name ?? ""}: ${safe}`.slice(0, 2000));
    }
    // The old wording must not linger in the index's pages.
    db.exec("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')");
    if (node) db.exec("INSERT INTO nodes_fts (nodes_fts) VALUES ('optimize')");
    return true;
  });
  // Freed pages are zeroed (secure_delete); the log that still holds the old pages is emptied.
  if (done) checkpointWal(db, "TRUNCATE");
  return done;
}

/** Pins (always warm, highest importance, `pinned` in its record) or unpins a unit. */
export function setUnitPinned(db: Db, projectId: number, id: number, pinned: boolean, now: string): boolean {
  const sql = pinned
    ? "UPDATE memories SET tier = 'warm', importance = 1, record = json_set(record, '$.pinned', json('true')), updated_at = ? WHERE id = ? AND project_id = ?"
    : "UPDATE memories SET record = json_remove(record, '$.pinned'), updated_at = ? WHERE id = ? AND project_id = ?";
  return stmt(db, sql).run(now, id, projectId).changes > 0;
}

/** Sets a unit's status from `from` to `to`; false when no such unit has that status. */
export function moveUnitStatus(db: Db, projectId: number, id: number, from: string, to: string, now: string): boolean {
  return (
    stmt(db, "UPDATE memories SET status = ?, updated_at = ? WHERE id = ? AND project_id = ? AND status = ?").run(
      to,
      now,
      id,
      projectId,
      from,
    ).changes > 0
  );
}

/** One compression as the Sessions page lists it. */
export interface CompressionView {
  session_id: string;
  seq: number;
  format: string | null;
  transcript_path: string | null;
  client: string | null;
  stats: Record<string, unknown>;
  created_at: string;
}

/** Every compression of the project's sessions, newest first. */
export function compressions(db: Db, projectId: number, limit: number): CompressionView[] {
  const rows = stmt(
    db,
    `SELECT s.session_id, s.seq, s.format, x.transcript_path, x.client, s.stats, s.created_at
     FROM summaries s JOIN sessions x ON x.id = s.session_id
     WHERE x.project_id = ? ORDER BY s.created_at DESC, s.seq DESC LIMIT ?`,
  ).all(projectId, limit) as (Omit<CompressionView, "stats"> & { stats: string })[];
  return rows.map((r) => ({ ...r, stats: decodeJson(JsonObject, r.stats) ?? {} }));
}

/** The summaries of one session of the project, oldest first, with their markdown and sections. */
export function sessionSummaries(
  db: Db,
  projectId: number,
  sessionId: string,
): {
  seq: number;
  markdown: string;
  sections: Record<string, unknown>;
  stats: Record<string, unknown>;
  created_at: string;
}[] {
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

/** A served card with the outcomes recorded for its unit. */
export interface ServedView {
  id: string;
  session_id: string | null;
  unit_key: string;
  task: string;
  card: Record<string, unknown>;
  served_at: string;
  helped: number;
  not_helped: number;
}

export function servedCards(db: Db, projectId: number, limit: number): ServedView[] {
  const rows = stmt(
    db,
    `SELECT c.id, c.session_id, c.unit_key, c.task, c.card, c.served_at,
       (SELECT COUNT(*) FROM outcomes o WHERE o.project_id = c.project_id AND o.unit_key = c.unit_key AND o.helped = 1) AS helped,
       (SELECT COUNT(*) FROM outcomes o WHERE o.project_id = c.project_id AND o.unit_key = c.unit_key AND o.helped = 0) AS not_helped
     FROM cards_served c WHERE c.project_id = ? ORDER BY c.served_at DESC, c.id LIMIT ?`,
  ).all(projectId, limit) as (Omit<ServedView, "card"> & { card: string })[];
  return rows.map((r) => ({ ...r, card: decodeJson(JsonObject, r.card) ?? {} }));
}

/** Outcomes per day: how many helped and how many did not. */
export function outcomesByDay(db: Db, projectId: number): { day: string; helped: number; total: number }[] {
  return stmt(
    db,
    `SELECT substr(created_at, 1, 10) AS day, SUM(helped) AS helped, COUNT(*) AS total FROM outcomes
     WHERE project_id = ? GROUP BY day ORDER BY day`,
  ).all(projectId) as { day: string; helped: number; total: number }[];
}

/** Files by language, for the index summary. */
export function languageCounts(db: Db): { language: string; n: number }[] {
  return stmt(
    db,
    "SELECT COALESCE(language, 'other') AS language, COUNT(*) AS n FROM files GROUP BY 1 ORDER BY n DESC, language",
  ).all() as { language: string; n: number }[];
}

export function largestFiles(db: Db, limit: number): { path: string; size: number; language: string | null }[] {
  return stmt(db, "SELECT path, size, language FROM files ORDER BY size DESC, path LIMIT ?").all(limit) as {
    path: string;
    size: number;
    language: string | null;
  }[];
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

/** Symbol count of the index (the graph's symbol nodes). */
export function symbolCount(db: Db): number {
  return (stmt(db, "SELECT COUNT(*) AS n FROM nodes WHERE type = 'symbol'").get() as { n: number }).n;
}
