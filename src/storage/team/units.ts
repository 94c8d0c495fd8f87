// SQL for the team store's units: idempotent insert by unit id, supersession and conflicts under a per-project
// lock, full-text search (tsvector + GIN), pull by sequence, forget with an audit row.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";

import type { ClientBase } from "pg";

import { AppError } from "../../errors.js";

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

/**
 * The project's row id. A team admin (superuser or the tables' owner) creates it on first use; a member sees only
 * the projects granted to its role (row-level security), so any other key, however it was computed, is
 * TEAM_NOT_GRANTED.
 */
export async function teamProjectId(c: ClientBase, key: string): Promise<number> {
  const found = await c.query<{ id: string }>("SELECT id FROM team_projects WHERE key = $1", [key]);
  if (found.rows[0]) return Number(found.rows[0].id);
  if (!(await isTeamAdmin(c)))
    throw new AppError(
      "TEAM_NOT_GRANTED",
      `the team store has not granted project ${key} to your role; ask the team admin to run: memcards team grant <your role> --project ${key}`,
    );
  const r = await c.query<{ id: string }>(
    `INSERT INTO team_projects (key) VALUES ($1) ON CONFLICT (key) DO UPDATE SET key = excluded.key RETURNING id`,
    [key],
  );
  return Number(r.rows[0]!.id);
}

/** Whether this connection's role administers the team store: a superuser, or a member of the tables' owner. */
export async function isTeamAdmin(c: ClientBase): Promise<boolean> {
  const r = await c.query<{ admin: boolean }>(
    `SELECT r.rolsuper OR pg_has_role(current_user, t.relowner, 'MEMBER') AS admin
     FROM pg_roles r, pg_class t WHERE r.rolname = current_user AND t.oid = 'team_projects'::regclass`,
  );
  return r.rows[0]?.admin ?? false;
}

/** Whether an existing role administers the team store: a superuser, a member of the tables' owner, or BYPASSRLS. */
export async function roleAdministers(c: ClientBase, role: string): Promise<boolean> {
  const r = await c.query<{ admin: boolean }>(
    `SELECT r.rolsuper OR r.rolbypassrls OR pg_has_role(r.oid, t.relowner, 'MEMBER') AS admin
     FROM pg_roles r, pg_class t WHERE r.rolname = $1 AND t.oid = 'team_projects'::regclass`,
    [role],
  );
  return r.rows[0]?.admin ?? false;
}

/** Grants a member's role one project (idempotent); true when the grant is new. */
export async function grantProject(c: ClientBase, member: string, projectId: number): Promise<boolean> {
  const r = await c.query(
    "INSERT INTO team_grants (project_id, member) VALUES ($1, $2) ON CONFLICT (project_id, member) DO NOTHING",
    [projectId, member],
  );
  return (r.rowCount ?? 0) > 0;
}

/** Takes a project back from a member's role; true when it held it. */
export async function revokeProject(c: ClientBase, member: string, projectId: number): Promise<boolean> {
  const r = await c.query("DELETE FROM team_grants WHERE project_id = $1 AND member = $2", [projectId, member]);
  return (r.rowCount ?? 0) > 0;
}

/** The projects granted to a role, by key. */
export async function grantedProjects(c: ClientBase, member: string): Promise<string[]> {
  const r = await c.query<{ key: string }>(
    `SELECT p.key FROM team_grants g JOIN team_projects p ON p.id = g.project_id WHERE g.member = $1 ORDER BY p.key`,
    [member],
  );
  return r.rows.map((x) => x.key);
}

/** The keys of the projects this connection's role can see (for a member: those granted to it). */
export async function visibleProjects(c: ClientBase, limit = 50): Promise<string[]> {
  const r = await c.query<{ key: string }>("SELECT key FROM team_projects ORDER BY key LIMIT $1", [limit]);
  return r.rows.map((x) => x.key);
}

/** Whether a login role of this name exists. */
export async function roleExists(c: ClientBase, role: string): Promise<boolean> {
  const r = await c.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role]);
  return (r.rowCount ?? 0) > 0;
}

/**
 * Rewrites the units table (VACUUM FULL: a new file, the old one removed, indexes rebuilt) so that deleted rows'
 * text is gone from the table and its full-text index. Only a team admin may; false when this role may not.
 */
export async function vacuumUnits(c: ClientBase): Promise<boolean> {
  if (!(await isTeamAdmin(c))) return false;
  await c.query("VACUUM FULL team_units");
  return true;
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
       ON CONFLICT (project_id, uid) DO NOTHING`,
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

/**
 * Creates (or updates) a member's login role and its table privileges, in one transaction. Without a password
 * an existing role keeps its own and only the privileges are applied again. What the role may see is decided by
 * its project grants (`grantProject`) and row-level security, not by these privileges.
 */
export async function createTeamRole(c: ClientBase, role: string, password?: string): Promise<void> {
  const ident = `"${role.replace(/"/g, '""')}"`;
  await c.query("BEGIN");
  try {
    const exists = await c.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [role]);
    // An admin's role (a superuser, the tables' owner or a member of it, or one that bypasses row-level security)
    // sees every project already; made a member's, it would lose superuser and its password.
    if (exists.rowCount && (await roleAdministers(c, role)))
      throw new AppError(
        "BAD_INPUT",
        `${role} is a team admin's role (superuser, owner of the team tables, or bypassing row-level security): it sees every project and is never made a member`,
      );
    if (password !== undefined || !exists.rowCount) {
      if (password === undefined) throw new AppError("BAD_INPUT", `a new role (${role}) needs a password`);
      // A verifier computed here, escaped by the server's own quote_literal, never interpolated raw.
      const lit = (await c.query<{ l: string }>("SELECT quote_literal($1) AS l", [scramVerifier(password)])).rows[0]!.l;
      await c.query(
        `${exists.rowCount ? "ALTER" : "CREATE"} ROLE ${ident} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT PASSWORD ${lit}`,
      );
    }
    for (const sql of TEAM_ROLE_GRANTS) await c.query(sql.replaceAll(":role", () => ident));
    await c.query("COMMIT");
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}

/**
 * What a team member's role may do: read its granted projects, read and write their units, history and forget
 * audit (row-level security keeps every other project's rows out of reach); no DDL, no new projects.
 */
export const TEAM_ROLE_GRANTS = [
  "GRANT SELECT ON team_projects TO :role",
  "GRANT SELECT, INSERT, UPDATE, DELETE ON team_units TO :role",
  "GRANT SELECT, INSERT ON team_history, team_forgotten TO :role",
  "GRANT SELECT ON team_schema_migrations, team_grants TO :role",
  "GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO :role",
];
