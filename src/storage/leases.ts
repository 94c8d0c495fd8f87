// Leases: one watcher per project across processes; whoever holds an unexpired lease watches.
import type { Db } from "./db.js";
import { stmt } from "./db.js";

/** Takes or renews a lease; true when this holder has it until `now + ttlMs`. */
export function acquireLease(db: Db, name: string, holder: string, ttlMs: number, now = Date.now()): boolean {
  const res = stmt(
    db,
    `INSERT INTO leases (name, holder, pid, expires_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET holder = excluded.holder, pid = excluded.pid, expires_at = excluded.expires_at
       WHERE leases.holder = excluded.holder OR leases.expires_at < ?`,
  ).run(name, holder, process.pid, now + ttlMs, now);
  return res.changes > 0;
}

export function releaseLease(db: Db, name: string, holder: string): void {
  stmt(db, "DELETE FROM leases WHERE name = ? AND holder = ?").run(name, holder);
}

export function leaseHolder(db: Db, name: string): { holder: string; pid: number; expires_at: number } | undefined {
  return stmt(db, "SELECT holder, pid, expires_at FROM leases WHERE name = ?").get(name) as
    { holder: string; pid: number; expires_at: number } | undefined;
}
