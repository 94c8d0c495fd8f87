// SQL for the local side of team memory (SQLite): the outbound queue and the last pulled copy of the team's units.
import type { Db } from "../db.js";
import { stmt, writeTx } from "../db.js";

export interface OutboxRow {
  seq: number;
  uid: string;
  op: "put" | "forget";
  local_id: number | null;
  payload: string;
  created_at: string;
}

/** Queues one operation; the same (uid, op) is queued once. */
export function enqueue(
  db: Db,
  projectId: number,
  e: { uid: string; op: "put" | "forget"; localId?: number; payload?: unknown },
): void {
  stmt(
    db,
    `INSERT INTO team_outbox (project_id, uid, op, local_id, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (uid, op) DO NOTHING`,
  ).run(projectId, e.uid, e.op, e.localId ?? null, JSON.stringify(e.payload ?? {}), new Date().toISOString());
}

/**
 * Withdraws the queued copy of a unit forgotten for the team: the put keeps only its id and its tie to the local
 * unit, and counts as sent, so nothing sends it again: not an edit of the local unit (see `requeuePut`), and the local
 * unit is never queued anew under another id.
 */
export function clearQueuedPut(db: Db, uid: string): void {
  stmt(db, "UPDATE team_outbox SET payload = '{}', sent_at = COALESCE(sent_at, ?) WHERE uid = ? AND op = 'put'").run(
    new Date().toISOString(),
    uid,
  );
}

/**
 * Replaces the queued payload of a put and queues it again (a sent one is sent once more, as an update); a withdrawn
 * put (its unit forgotten for the team, see `clearQueuedPut`) stays withdrawn.
 */
export function requeuePut(db: Db, uid: string, payload: unknown): void {
  stmt(db, "UPDATE team_outbox SET payload = ?, sent_at = NULL WHERE uid = ? AND op = 'put' AND payload <> '{}'").run(
    JSON.stringify(payload),
    uid,
  );
}

/** Detaches a forgotten unit's queued operations from its local id, which SQLite may hand to a later unit. */
export function detachLocal(db: Db, uid: string): void {
  stmt(db, "UPDATE team_outbox SET local_id = NULL WHERE uid = ?").run(uid);
}

/**
 * Local units of these categories, active and warm, created since `since`, that were never queued (what
 * distillation stored since the project was linked).
 */
export function unqueuedUnitIds(db: Db, projectId: number, categories: readonly string[], since: string): number[] {
  const marks = categories.map(() => "?").join(", ");
  return (
    stmt(
      db,
      `SELECT m.id AS id FROM memories m WHERE m.project_id = ? AND m.category IN (${marks}) AND m.status = 'active'
       AND m.tier = 'warm' AND m.created_at >= ?
       AND NOT EXISTS (SELECT 1 FROM team_outbox o WHERE o.local_id = m.id) ORDER BY m.id LIMIT 1000`,
    ).all(projectId, ...categories, since) as { id: number }[]
  ).map((r) => r.id);
}

/** Operations not yet sent, in the order they were queued. */
export function pendingOps(db: Db, projectId: number, limit = 500): OutboxRow[] {
  return stmt(
    db,
    "SELECT seq, uid, op, local_id, payload, created_at FROM team_outbox WHERE project_id = ? AND sent_at IS NULL ORDER BY seq LIMIT ?",
  ).all(projectId, limit) as OutboxRow[];
}

export function pendingCount(db: Db, projectId: number): number {
  return (
    stmt(db, "SELECT COUNT(*) AS n FROM team_outbox WHERE project_id = ? AND sent_at IS NULL").get(projectId) as {
      n: number;
    }
  ).n;
}

export function markSent(db: Db, seq: number): void {
  stmt(db, "UPDATE team_outbox SET sent_at = ? WHERE seq = ? AND sent_at IS NULL").run(new Date().toISOString(), seq);
}

/** The team id a local unit was queued under. */
export function uidForLocal(db: Db, localId: number): string | undefined {
  return (
    stmt(db, "SELECT uid FROM team_outbox WHERE local_id = ? AND op = 'put' ORDER BY seq LIMIT 1").get(localId) as
      { uid: string } | undefined
  )?.uid;
}

/** The team id queued for one of these local units, keyed by local id. */
export function uidsForLocal(db: Db, localIds: number[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const id of localIds) {
    const uid = uidForLocal(db, id);
    if (uid) out.set(id, uid);
  }
  return out;
}

export interface CachedTeamUnit {
  uid: string;
  seq: number;
  category: string;
  text: string;
  status: string;
  author: string;
  machine: string;
  created_at: string;
}

/**
 * Copies pulled units into the local cache and drops forgotten ones, in one transaction; a forgotten unit that was
 * shared from here has its put withdrawn, so a later edit of the local unit does not bring it back.
 */
export function cacheTeamUnits(db: Db, projectId: number, units: CachedTeamUnit[], forgotten: string[]): void {
  writeTx(db, () => {
    const put = stmt(
      db,
      `INSERT INTO team_cache (uid, project_id, seq, category, text, status, author, machine, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (uid) DO UPDATE SET seq = excluded.seq, status = excluded.status, text = excluded.text`,
    );
    for (const u of units)
      put.run(u.uid, projectId, u.seq, u.category, u.text, u.status, u.author, u.machine, u.created_at);
    const del = stmt(db, "DELETE FROM team_cache WHERE uid = ?");
    for (const uid of forgotten) {
      del.run(uid);
      clearQueuedPut(db, uid);
    }
  });
}

/**
 * Forgets a shared unit for everyone in one write: its queued put withdrawn, the forget queued and the local copy of
 * it dropped, all or none (a process killed half-way cannot leave a withdrawn put with no forget queued).
 */
export function queueTeamForget(db: Db, projectId: number, uid: string): void {
  writeTx(db, () => {
    clearQueuedPut(db, uid);
    enqueue(db, projectId, { uid, op: "forget" });
    dropCachedUnit(db, uid);
  });
}

export function dropCachedUnit(db: Db, uid: string): void {
  stmt(db, "DELETE FROM team_cache WHERE uid = ?").run(uid);
}

/** The highest team sequence number copied so far (0 before the first pull). */
export function cachedSeq(db: Db, projectId: number): number {
  return (
    (stmt(db, "SELECT MAX(seq) AS s FROM team_cache WHERE project_id = ?").get(projectId) as { s: number | null }).s ??
    0
  );
}

export function cachedUnits(db: Db, projectId: number, limit = 5000): CachedTeamUnit[] {
  return stmt(
    db,
    "SELECT uid, seq, category, text, status, author, machine, created_at FROM team_cache WHERE project_id = ? ORDER BY seq DESC LIMIT ?",
  ).all(projectId, limit) as CachedTeamUnit[];
}
