// Team memory: init (schema, role), push the outbound queue in order, pull a local copy, search with author,
// forget for everyone, status. Reads fall back to the local copy when the team store is unreachable.
import type pg from "pg";

import type { Embedder } from "../embeddings/provider.js";
import { AppError } from "../errors.js";
import type { ProjectScope } from "../storage/scope.js";
import { migrateTeam, teamSchemaVersion } from "../storage/team/migrate.js";
import {
  cachedSeq,
  cachedUnits,
  cacheTeamUnits,
  markSent,
  type OutboxRow,
  pendingCount,
  pendingOps,
  queueTeamForget,
} from "../storage/team/outbox.js";
import {
  activeByKey,
  addHistory,
  createTeamRole,
  flagConflict,
  forgetTeamUnit,
  forgottenUids,
  grantedProjects,
  grantProject,
  hasPgvector,
  insertTeamUnit,
  isTeamAdmin,
  lockProject,
  recentActive,
  recentTeamUnits,
  revokeProject,
  roleExists,
  searchTeamUnits,
  supersede,
  teamCounts,
  teamProjectId,
  type TeamUnitIn,
  unitExists,
  unitsAfter,
  updateOwnUnit,
  vacuumUnits,
  visibleProjects,
} from "../storage/team/units.js";
import { redact } from "../text/redact.js";
import { connectTeam, displayUrl, isUnreachable, teamError } from "./connect.js";
import { linkTeam, queueDistilledForTeam } from "./queue.js";

/** What every team operation needs: the local project, the team URL and the project key. */
export interface TeamDeps {
  scope: ProjectScope;
  url: string;
  projectKey: string;
  who: { author: string; machine: string };
}

/** Runs `fn` on a fresh connection, closed afterwards; driver errors come back without the password. */
export async function withTeam<T>(
  url: string,
  fn: (c: pg.Client) => Promise<T>,
  opts: { interactive?: boolean } = {},
): Promise<T> {
  const c = await connectTeam(url, 5000, opts);
  try {
    return await fn(c);
  } catch (err) {
    throw teamError(err, url);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/**
 * Prepares the team store: migrations (tables, row-level security), the project row, optionally a member's
 * least-privilege role granted this project. A member's own `init` only links the project, which must have been
 * granted to its role (else TEAM_NOT_GRANTED).
 */
export async function initTeam(
  deps: TeamDeps,
  role?: { name: string; password: string },
): Promise<{ version: number; applied: number[]; project: string; role?: string }> {
  const out = await withTeam(deps.url, async (c) => {
    const m = await migrateTeam(c);
    const projectId = await teamProjectId(c, deps.projectKey);
    if (role) {
      await createTeamRole(c, role.name, role.password);
      await grantProject(c, role.name, projectId);
    }
    return m;
  });
  linkTeam(deps.scope.db, deps.scope.projectId, deps.projectKey);
  return { ...out, project: deps.projectKey, ...(role ? { role: role.name } : {}) };
}

/**
 * A team admin grants (or with `revoke`, takes back) a member's role a project: the clone's own project, or
 * `project` (a key as `team status` shows it, e.g. `github.com/o/r` or `name:demo`). A role that does not exist
 * yet is created with `password`; an existing one keeps its password unless one is given.
 */
export async function grantTeam(
  deps: Pick<TeamDeps, "url" | "projectKey">,
  member: string,
  opts: { project?: string; password?: string; revoke?: boolean } = {},
): Promise<{ member: string; project: string; created: boolean; changed: boolean; projects: string[] }> {
  const key = opts.project?.trim() || deps.projectKey;
  // PostgreSQL cuts a longer name to 63 bytes: the role made would not be the one the grant names.
  if (!member.trim() || member !== member.trim() || Buffer.byteLength(member, "utf8") > 63)
    throw new AppError(
      "BAD_INPUT",
      "a member role name has 1 to 63 bytes (UTF-8) and no spaces at either end, as PostgreSQL stores it",
    );
  return withTeam(deps.url, async (c) => {
    if (!(await isTeamAdmin(c)))
      throw new AppError(
        "TEAM_NOT_GRANTED",
        "only a team admin (a superuser or the team tables' owner) grants projects; use the admin's MEMCARDS_TEAM_URL",
      );
    if ((await teamSchemaVersion(c)) < 2)
      throw new AppError(
        "TEAM_NOT_CONFIGURED",
        "the team store is not set up: run memcards team init as the admin first",
      );
    const exists = await roleExists(c, member);
    if (!exists && !opts.password && !opts.revoke)
      throw new AppError(
        "BAD_INPUT",
        `role ${member} does not exist: give its password in MEMCARDS_TEAM_ROLE_PASSWORD to create it`,
      );
    let changed: boolean;
    if (opts.revoke) {
      const found = await c.query<{ id: string }>("SELECT id FROM team_projects WHERE key = $1", [key]);
      changed = found.rows[0] ? await revokeProject(c, member, Number(found.rows[0].id)) : false;
    } else {
      await createTeamRole(c, member, opts.password);
      changed = await grantProject(c, member, await teamProjectId(c, key));
    }
    return {
      member,
      project: key,
      created: !exists && !opts.revoke,
      changed,
      projects: await grantedProjects(c, member),
    };
  });
}

/** What forget for all cannot reach, said after every forget. */
export function forgetRemains(vacuumed: boolean): string {
  return [
    vacuumed
      ? "The units table was rewritten (VACUUM FULL): the text is gone from its file and its full-text index, unless a transaction that began before the forget was still open (the rewrite keeps a row version such a transaction may read; run `memcards team vacuum` again once it has ended)."
      : "The row is deleted; its old version stays in the table's file until a team admin runs `memcards team vacuum` (autovacuum only marks the space free).",
    "It may remain in the server's WAL until those segments are recycled, in archived WAL and replicas, in backups or dumps taken before now, and in disk blocks the file system has not reused.",
  ].join(" ");
}

/** A team admin rewrites the units table so forgotten text leaves its file (VACUUM FULL; locks the table briefly). */
export async function vacuumTeam(deps: Pick<TeamDeps, "url">): Promise<{ vacuumed: boolean; remains: string }> {
  const vacuumed = await withTeam(deps.url, (c) => vacuumUnits(c));
  if (!vacuumed)
    throw new AppError(
      "TEAM_NOT_GRANTED",
      "only a team admin (a superuser or the team tables' owner) can vacuum the team store; use the admin's MEMCARDS_TEAM_URL",
    );
  return { vacuumed, remains: forgetRemains(true) };
}

const NEGATION = /\b(not|never|no|don'?t|do not|without|avoid|stop|instead)\b/i;
const words = (t: string) => new Set(t.toLowerCase().match(/[a-z0-9_]{3,}/g) ?? []);
function jaccard(a: Set<string>, b: Set<string>): number {
  let n = 0;
  for (const w of a) if (b.has(w)) n++;
  return n / Math.max(1, a.size + b.size - n);
}

/** What sending one unit did on the server. */
export type SendOutcome = "added" | "updated" | "duplicate" | "merged" | "superseded" | "supersedes" | "conflict";

/**
 * Sends one unit in one transaction under the project's lock: a known or forgotten id is skipped (so a replay
 * sends once), the same text again is merged, the same key with other text is a conflict, a metric supersedes the older value whoever wrote it, and a
 * commitment contradicting another author's is stored and both are flagged as a conflict.
 */
export async function sendUnit(c: pg.ClientBase, projectId: number, u: TeamUnitIn): Promise<SendOutcome> {
  await c.query("BEGIN");
  try {
    await lockProject(c, projectId);
    let outcome: SendOutcome = "added";
    if (await unitExists(c, u.uid)) outcome = (await updateOwnUnit(c, projectId, u)) ? "updated" : "duplicate";
    else {
      const same = await activeByKey(c, projectId, u.category, u.merge_key);
      const prev = same[0];
      if (u.category === "performance" && prev) {
        const newer = Date.parse(u.created_at) >= Date.parse(prev.created_at);
        await insertTeamUnit(c, projectId, u);
        if (newer) await supersede(c, prev.uid, u.uid);
        else await supersede(c, u.uid, prev.uid);
        await addHistory(c, projectId, newer ? u.uid : prev.uid, "supersedes", newer ? prev.uid : u.uid, u.author);
        outcome = newer ? "supersedes" : "superseded";
      } else if (prev && prev.text.trim() === u.text.trim()) {
        await addHistory(c, projectId, prev.uid, "merged", u.uid, u.author);
        outcome = "merged";
      } else if (prev) {
        // Same shape, different wording or value (the key masks numbers): both kept, flagged for a person.
        await insertTeamUnit(c, projectId, u);
        await flagConflict(c, u.uid, prev.uid);
        await addHistory(c, projectId, u.uid, "conflict", prev.uid, u.author);
        outcome = "conflict";
      } else {
        await insertTeamUnit(c, projectId, u);
        if (u.category === "commitment" || u.category === "reasoning") {
          const w = words(u.text);
          const neg = NEGATION.test(u.text);
          const clash = (await recentActive(c, projectId, u.category, 300)).find(
            (m) => m.uid !== u.uid && NEGATION.test(m.text) !== neg && jaccard(w, words(m.text)) >= 0.5,
          );
          if (clash) {
            await flagConflict(c, u.uid, clash.uid);
            await addHistory(c, projectId, u.uid, "conflict", clash.uid, u.author);
            outcome = "conflict";
          }
        }
      }
    }
    await c.query("COMMIT");
    return outcome;
  } catch (err) {
    await c.query("ROLLBACK").catch(() => undefined);
    throw err;
  }
}

/** The queued unit, redacted once more right before it leaves, with this machine's author. */
function unitOf(row: OutboxRow, who: TeamDeps["who"]): TeamUnitIn {
  const p = JSON.parse(row.payload) as Omit<TeamUnitIn, "uid" | "author" | "machine">;
  return { ...p, uid: row.uid, text: redact(p.text), merge_key: redact(p.merge_key), ...who };
}

/**
 * Sends the queued operations in order, each once: stops at the first unreachable moment and leaves the rest
 * queued. Returns what was sent and what is left.
 */
export async function pushTeam(
  deps: TeamDeps,
  opts: { interactive?: boolean; maxOps?: number } = {},
): Promise<{
  sent: number;
  pending: number;
  outcomes: Partial<Record<SendOutcome | "forgotten", number>>;
  /** Whether forgotten rows were vacuumed out of the table file (only an admin's connection may). */
  vacuumed: boolean;
}> {
  const maxOps = opts.maxOps ?? 5000;
  const outcomes: Partial<Record<SendOutcome | "forgotten", number>> = {};
  let sent = 0;
  let vacuumed = false;
  await withTeam(
    deps.url,
    async (c) => {
      const projectId = await teamProjectId(c, deps.projectKey);
      linkTeam(deps.scope.db, deps.scope.projectId, deps.projectKey);
      queueDistilledForTeam(deps.scope);
      while (sent < maxOps) {
        const batch = pendingOps(deps.scope.db, deps.scope.projectId, Math.min(200, maxOps - sent));
        if (batch.length === 0) break;
        for (const op of batch) {
          if (op.op === "put") {
            const o = await sendUnit(c, projectId, unitOf(op, deps.who));
            outcomes[o] = (outcomes[o] ?? 0) + 1;
          } else {
            await forgetTeamUnit(c, projectId, op.uid, deps.who.author, deps.who.machine);
            outcomes.forgotten = (outcomes.forgotten ?? 0) + 1;
          }
          markSent(deps.scope.db, op.seq);
          sent++;
        }
      }
      if (outcomes.forgotten) vacuumed = await vacuumUnits(c);
    },
    opts,
  );
  return { sent, pending: pendingCount(deps.scope.db, deps.scope.projectId), outcomes, vacuumed };
}

/**
 * Pushes when the team store is reachable; otherwise the queue waits. Never throws for an unreachable server.
 * `interactive` (a unit just recorded): a short connect timeout, no retry of a store found unreachable in the
 * last minute, and at most 200 operations sent (the rest go with the next call or `team push`).
 */
export async function pushIfReachable(
  deps: TeamDeps,
  opts: { interactive?: boolean } = {},
): Promise<{ sent: number; pending: number; offline: boolean; vacuumed: boolean }> {
  try {
    const r = await pushTeam(deps, opts.interactive ? { interactive: true, maxOps: 200 } : {});
    return { sent: r.sent, pending: r.pending, offline: false, vacuumed: r.vacuumed };
  } catch (err) {
    if (!isUnreachable(err)) throw err;
    return { sent: 0, pending: pendingCount(deps.scope.db, deps.scope.projectId), offline: true, vacuumed: false };
  }
}

/** Copies the team's units into the local copy (read when the server is unreachable); forgotten ones are dropped. */
export async function pullTeam(deps: TeamDeps): Promise<{ units: number; forgotten: number; seq: number }> {
  const { units, forgotten } = await withTeam(deps.url, async (c) => {
    const projectId = await teamProjectId(c, deps.projectKey);
    return { units: await unitsAfter(c, projectId, 0, 20_000), forgotten: await forgottenUids(c, projectId) };
  });
  cacheTeamUnits(deps.scope.db, deps.scope.projectId, units, forgotten);
  return { units: units.length, forgotten: forgotten.length, seq: cachedSeq(deps.scope.db, deps.scope.projectId) };
}

/** One team unit in search results, marked with its author. */
export interface TeamHit {
  uid: string;
  category: string;
  text: string;
  status: string;
  author: string;
  machine: string;
  score: number;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

/**
 * Searches the team's units: PostgreSQL full-text candidates, re-ranked in process by vector similarity when an
 * embedder is given (the server has no pgvector requirement). Unreachable: the local copy, matched by terms.
 */
export async function searchTeam(
  deps: TeamDeps,
  query: string,
  opts: { limit?: number; includeInactive?: boolean; embedder?: Embedder } = {},
): Promise<{ source: "team" | "local copy"; hits: TeamHit[] }> {
  const limit = opts.limit ?? 10;
  let rows: TeamHit[];
  let source: "team" | "local copy" = "team";
  try {
    rows = await withTeam(
      deps.url,
      async (c) => {
        const projectId = await teamProjectId(c, deps.projectKey);
        const found = await searchTeamUnits(c, projectId, query, {
          limit: opts.embedder ? limit * 5 : limit,
          includeInactive: opts.includeInactive ?? false,
        });
        return found.map((r) => ({ ...r, score: r.score ?? 0 }));
      },
      { interactive: true },
    );
  } catch (err) {
    if (!isUnreachable(err)) throw err;
    source = "local copy";
    const q = words(query);
    rows = cachedUnits(deps.scope.db, deps.scope.projectId)
      .filter((u) => opts.includeInactive || u.status === "active")
      .map((u) => ({ ...u, score: jaccard(q, words(`${u.category} ${u.text}`)) }))
      .filter((u) => u.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, limit * 5);
  }
  if (opts.embedder && rows.length > 1) {
    const vecs = await opts.embedder.embed([query, ...rows.map((r) => `${r.category}: ${r.text}`)]).catch(() => []);
    const qv = vecs[0];
    if (qv) {
      // Reciprocal-rank fusion of the text rank and the in-process vector rank.
      const byVec = rows.map((r, i) => ({ r, s: cosine(qv, vecs[i + 1]!) })).sort((a, b) => b.s - a.s);
      const fused = new Map(rows.map((r, i) => [r.uid, 1 / (10 + i + 1)]));
      byVec.forEach((x, i) => fused.set(x.r.uid, (fused.get(x.r.uid) ?? 0) + 1 / (10 + i + 1)));
      rows = rows.map((r) => ({ ...r, score: fused.get(r.uid)! })).sort((a, b) => b.score - a.score);
    }
  }
  const hits = rows.slice(0, limit).map((r) => ({
    uid: r.uid,
    category: r.category,
    text: r.text,
    status: r.status,
    author: r.author,
    machine: r.machine,
    score: Math.round(r.score * 1000) / 1000,
  }));
  return { source, hits };
}

/**
 * The team's standing rules, decisions and failures for recall, newest first, each with its author; from the
 * local copy when the team store is unreachable.
 */
export async function teamRecall(
  deps: TeamDeps,
  limit = 12,
): Promise<{ source: "team" | "local copy"; hits: TeamHit[] }> {
  const categories = ["commitment", "reasoning", "failure"];
  try {
    const rows = await withTeam(
      deps.url,
      async (c) => recentTeamUnits(c, await teamProjectId(c, deps.projectKey), categories, limit),
      { interactive: true },
    );
    return { source: "team", hits: rows.map((r) => ({ ...r, score: 0 })) };
  } catch (err) {
    if (!isUnreachable(err)) throw err;
    const rows = cachedUnits(deps.scope.db, deps.scope.projectId)
      .filter((u) => u.status === "active" && categories.includes(u.category))
      .slice(0, limit);
    return { source: "local copy", hits: rows.map((r) => ({ ...r, score: 0 })) };
  }
}

/** Forgets a shared unit for everyone: queued (so it is sent even after an outage), dropped from the local copy. */
export async function forgetForTeam(
  deps: TeamDeps,
  given: string,
): Promise<{ queued: true; sent: boolean; pending: number; vacuumed: boolean; remains: string }> {
  if (!/^[0-9a-f-]{36}$/i.test(given)) throw new AppError("BAD_INPUT", `not a team unit id: ${given.slice(0, 60)}`);
  // Ids are made in small letters (random UUIDs, hex digests) and compared as text, here and in the team store.
  const uid = given.toLowerCase();
  queueTeamForget(deps.scope.db, deps.scope.projectId, uid);
  const r = await pushIfReachable(deps);
  return {
    queued: true,
    sent: !r.offline && r.pending === 0,
    pending: r.pending,
    vacuumed: r.vacuumed,
    remains: forgetRemains(r.vacuumed),
  };
}

/** Where reads come from and what is waiting to be sent. */
export async function teamStatus(deps: TeamDeps): Promise<{
  url: string;
  project: string;
  reachable: boolean;
  reads: "team store" | "local copy";
  error?: string;
  pending: number;
  cached: number;
  schema?: number;
  counts?: Awaited<ReturnType<typeof teamCounts>>;
  /** A team admin's role, or a member's; a member sees only the projects granted to it. */
  access?: { role: "admin" | "member"; projects: string[] };
  similarity: string;
}> {
  const pending = pendingCount(deps.scope.db, deps.scope.projectId);
  const cached = cachedUnits(deps.scope.db, deps.scope.projectId).length;
  const base = { url: displayUrl(deps.url), project: deps.projectKey, pending, cached };
  try {
    return await withTeam(deps.url, async (c) => {
      const access = {
        role: (await isTeamAdmin(c)) ? ("admin" as const) : ("member" as const),
        projects: await visibleProjects(c),
      };
      const projectId = await teamProjectId(c, deps.projectKey).catch((err: unknown) => {
        // Not granted: say so beside the projects this role does have.
        if (err instanceof AppError && err.code === "TEAM_NOT_GRANTED")
          throw new AppError(
            "TEAM_NOT_GRANTED",
            `${err.message} (granted to your role: ${access.projects.join(", ") || "none"})`,
          );
        throw err;
      });
      const vector = await hasPgvector(c);
      return {
        ...base,
        reachable: true,
        access,
        reads: "team store" as const,
        schema: await teamSchemaVersion(c),
        counts: await teamCounts(c, projectId),
        similarity: vector
          ? "pgvector is installed; similarity still runs in process over the full-text candidates"
          : "in process over the full-text candidates (pgvector not installed)",
      };
    });
  } catch (err) {
    if (!isUnreachable(err)) throw err;
    return {
      ...base,
      reachable: false,
      reads: "local copy",
      error: (err as Error).message,
      similarity: "in process over the local copy's term matches",
    };
  }
}
