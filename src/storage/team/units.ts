// SQL for the team store's units: idempotent insert by unit id, supersession and conflicts under a per-project
// lock, full-text search (tsvector + GIN), pull by sequence, forget with an audit row.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";

import type { ClientBase } from "pg";

/** A unit as it travels to the team store (text already redacted on the sending machine). */
export interface TeamUnitIn {
  uid: string;
  category: string;
  text: string;
  record: Record<string, unknown>;
  merge_key: string;
  confidence: number;
  tier: string;
  evidence: unknown[];
  files: string[];
  author: string;
  machine: string;
  created_at: string;
}

/** A unit as the team store holds it. */
export interface TeamUnitRow {
  uid: string;
  seq: number;
  category: string;
  text: string;
  status: string;
  tier: string;
  author: string;
  machine: string;
  superseded_by: string | null;
  conflicts_with: string | null;
  created_at: string;
  score?: number;
}

const COLUMNS = `uid, seq::int AS seq, category, text, status, tier, author, machine, superseded_by, conflicts_with,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at`;

/** The project's row id, created on first use. */
export async function teamProjectId(c: ClientBase, key: string): Promise<number> {
  const r = await c.query<{ id: string }>(
    `INSERT INTO team_projects (key) VALUES ($1) ON CONFLICT (key) DO UPDATE SET key = excluded.key RETURNING id`,
    [key],
  );
  return Number(r.rows[0]!.id);
}

/** Serializes the writers of one project inside the caller's transaction (merge, supersession, conflicts). */
export async function lockProject(c: ClientBase, projectId: number): Promise<void> {
  await c.query("SELECT pg_advisory_xact_lock(7201422, $1::int)", [projectId]);
}

export async function unitExists(c: ClientBase, uid: string): Promise<boolean> {
  const r = await c.query(
    "SELECT 1 FROM team_units WHERE uid = $1 UNION ALL SELECT 1 FROM team_forgotten WHERE uid = $1",
    [uid],
  );
  return (r.rowCount ?? 0) > 0;
}

/**
 * Rewrites a unit its own author edited (same id, same author): the new wording replaces the old one. Returns
 * whether a unit was updated.
 */
export async function updateOwnUnit(c: ClientBase, projectId: number, u: TeamUnitIn): Promise<boolean> {
  const r = await c.query(
    `UPDATE team_units SET text = $3, record = $4, merge_key = $5, evidence = $6, files = $7
     WHERE project_id = $1 AND uid = $2 AND author = $8 AND text IS DISTINCT FROM $3`,
    [
      projectId,
      u.uid,
      u.text,
      JSON.stringify(u.record ?? {}),
      u.merge_key,
      JSON.stringify(u.evidence ?? []),
      JSON.stringify(u.files ?? []),
      u.author,
    ],
  );
  return (r.rowCount ?? 0) > 0;
}

/** Active units of the project with this category and key (what a new unit merges into or supersedes). */
export async function activeByKey(
  c: ClientBase,
  projectId: number,
  category: string,
  key: string,
): Promise<TeamUnitRow[]> {
  const r = await c.query<TeamUnitRow>(
    `SELECT ${COLUMNS} FROM team_units WHERE project_id = $1 AND category = $2 AND merge_key = $3 AND status = 'active'
     ORDER BY created_at DESC, seq DESC`,
    [projectId, category, key],
  );
  return r.rows;
}

/** The project's most recent active units of a category (what a commitment is checked against for conflicts). */
export async function recentActive(
  c: ClientBase,
  projectId: number,
  category: string,
  limit: number,
): Promise<TeamUnitRow[]> {
  const r = await c.query<TeamUnitRow>(
    `SELECT ${COLUMNS} FROM team_units WHERE project_id = $1 AND category = $2 AND status = 'active'
     ORDER BY seq DESC LIMIT $3`,
    [projectId, category, limit],
  );
  return r.rows;
}

export async function insertTeamUnit(
  c: ClientBase,
  projectId: number,
  u: TeamUnitIn,
  status = "active",
): Promise<void> {
  await c.query(
    `INSERT INTO team_units (uid, project_id, category, text, record, merge_key, confidence, tier, status, evidence,
       files, author, machine, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      u.uid,
      projectId,
      u.category,
      u.text,
      JSON.stringify(u.record),
      u.merge_key,
      u.confidence,
      u.tier,
      status,
      JSON.stringify(u.evidence),
      JSON.stringify(u.files),
      u.author,
      u.machine,
      u.created_at,
    ],
  );
}

/** Marks `uid` superseded by `by`. */
export async function supersede(c: ClientBase, uid: string, by: string): Promise<void> {
  await c.query("UPDATE team_units SET status = 'superseded', superseded_by = $2 WHERE uid = $1", [uid, by]);
}

/** Flags two units as conflicting with each other; both stay. */
export async function flagConflict(c: ClientBase, a: string, b: string): Promise<void> {
  await c.query("UPDATE team_units SET status = 'conflict', conflicts_with = $2 WHERE uid = $1", [a, b]);
  await c.query("UPDATE team_units SET status = 'conflict', conflicts_with = $2 WHERE uid = $1", [b, a]);
}

export async function addHistory(
  c: ClientBase,
  projectId: number,
  uid: string,
  event: string,
  other: string | null,
  author: string,
): Promise<void> {
  await c.query("INSERT INTO team_history (project_id, uid, event, other_uid, author) VALUES ($1, $2, $3, $4, $5)", [
    projectId,
    uid,
    event,
    other,
    author,
  ]);
}

/** Full-text candidates: any of the query's english lexemes, ranked by ts_rank over the GIN-indexed tsvector. */
export async function searchTeamUnits(
  c: ClientBase,
  projectId: number,
  query: string,
  opts: { limit: number; includeInactive: boolean },
): Promise<TeamUnitRow[]> {
  const r = await c.query<TeamUnitRow>(
    `WITH q AS (SELECT string_agg(quote_literal(lexeme), ' | ')::tsquery AS q
                FROM unnest(to_tsvector('english', $2)) AS t(lexeme, positions, weights))
     SELECT ${COLUMNS}, ts_rank(tsv, q.q) AS score
     FROM team_units, q
     WHERE project_id = $1 AND q.q IS NOT NULL AND tsv @@ q.q AND ($4 OR status = 'active')
     ORDER BY score DESC, seq DESC LIMIT $3`,
    [projectId, query, opts.limit, opts.includeInactive],
  );
  return r.rows.map((row) => ({ ...row, score: Number(row.score) }));
}

/** The project's newest active units of these categories (what recall shows from the team). */
export async function recentTeamUnits(
  c: ClientBase,
  projectId: number,
  categories: string[],
  limit: number,
): Promise<TeamUnitRow[]> {
  const r = await c.query<TeamUnitRow>(
    `SELECT ${COLUMNS} FROM team_units WHERE project_id = $1 AND category = ANY($2) AND status = 'active'
     ORDER BY seq DESC LIMIT $3`,
    [projectId, categories, limit],
  );
  return r.rows;
}

/** Units after `seq`, oldest first (what `team pull` copies). */
export async function unitsAfter(c: ClientBase, projectId: number, seq: number, limit: number): Promise<TeamUnitRow[]> {
  const r = await c.query<TeamUnitRow>(
    `SELECT ${COLUMNS} FROM team_units WHERE project_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
    [projectId, seq, limit],
  );
  return r.rows;
}

/** The project's unit ids that were forgotten (so copies elsewhere drop them). */
export async function forgottenUids(c: ClientBase, projectId: number): Promise<string[]> {
  const r = await c.query<{ uid: string }>("SELECT uid FROM team_forgotten WHERE project_id = $1", [projectId]);
  return r.rows.map((x) => x.uid);
}

/** Deletes a unit for everyone and records who forgot it; true when it existed. Idempotent. */
export async function forgetTeamUnit(
  c: ClientBase,
  projectId: number,
  uid: string,
  who: string,
  machine: string,
): Promise<boolean> {
  await c.query("BEGIN");
  let d: { rowCount: number | null };
  try {
    // The unit it conflicted with, or the unit it superseded, is the team's word again.
    await c.query(
      `UPDATE team_units SET status = 'active', conflicts_with = NULL
       WHERE project_id = $1 AND conflicts_with = $2 AND status = 'conflict'`,
      [projectId, uid],
    );
    await c.query(
      `UPDATE team_units SET status = 'active', superseded_by = NULL
       WHERE project_id = $1 AND superseded_by = $2 AND status = 'superseded'`,
      [projectId, uid],
    );
    d = await c.query("DELETE FROM team_units WHERE project_id = $1 AND uid = $2", [projectId, uid]);
    await c.query(
      `INSERT INTO team_forgotten (project_id, uid, forgotten_by, machine) VALUES ($1, $2, $3, $4)
       ON CONFLICT (uid) DO NOTHING`,
      [projectId, uid, who, machine],
    );
    await c.query("COMMIT");
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
  return (d.rowCount ?? 0) > 0;
}

/** Counts for `team status`. */
export async function teamCounts(
  c: ClientBase,
  projectId: number,
): Promise<{ units: number; active: number; conflicts: number; authors: number; forgotten: number }> {
  const r = await c.query<Record<string, string>>(
    `SELECT COUNT(*) AS units, COUNT(*) FILTER (WHERE status = 'active') AS active,
       COUNT(*) FILTER (WHERE status = 'conflict') AS conflicts, COUNT(DISTINCT author) AS authors,
       (SELECT COUNT(*) FROM team_forgotten WHERE project_id = $1) AS forgotten
     FROM team_units WHERE project_id = $1`,
    [projectId],
  );
  const row = r.rows[0]!;
  return {
    units: Number(row.units),
    active: Number(row.active),
    conflicts: Number(row.conflicts),
    authors: Number(row.authors),
    forgotten: Number(row.forgotten),
  };
}

/** Whether the server has pgvector installed (then similarity could run in the server). */
export async function hasPgvector(c: ClientBase): Promise<boolean> {
  const r = await c.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'");
  return (r.rowCount ?? 0) > 0;
}

/**
 * A SCRAM-SHA-256 verifier for `password`, as PostgreSQL stores it: the server never receives the password
 * itself, so it cannot reach the server's statement log.
 */
export function scramVerifier(password: string, iterations = 4096): string {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password.normalize("NFKC"), salt, iterations, 32, "sha256");
  const hmac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest();
  const stored = createHash("sha256").update(hmac(salted, "Client Key")).digest();
  const server = hmac(salted, "Server Key");
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${stored.toString("base64")}:${server.toString("base64")}`;
}

/** Creates (or updates) the members' login role and its grants, in one transaction. */
export async function createTeamRole(c: ClientBase, role: string, password: string): Promise<void> {
  const ident = `"${role.replace(/"/g, '""')}"`;
  await c.query("BEGIN");
  try {
    const exists = await c.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role]);
    // A verifier computed here, escaped by the server's own quote_literal, never interpolated raw.
    const lit = (await c.query<{ l: string }>("SELECT quote_literal($1) AS l", [scramVerifier(password)])).rows[0]!.l;
    await c.query(
      `${exists.rowCount ? "ALTER" : "CREATE"} ROLE ${ident} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT PASSWORD ${lit}`,
    );
    for (const sql of TEAM_ROLE_GRANTS) await c.query(sql.replaceAll(":role", () => ident));
    await c.query("COMMIT");
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}

/** What a team member's role may do: read and write units, history and the forget audit; no DDL. */
export const TEAM_ROLE_GRANTS = [
  "GRANT SELECT, INSERT, UPDATE ON team_projects TO :role",
  "GRANT SELECT, INSERT, UPDATE, DELETE ON team_units TO :role",
  "GRANT SELECT, INSERT ON team_history, team_forgotten TO :role",
  "GRANT SELECT ON team_schema_migrations TO :role",
  "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO :role",
];
