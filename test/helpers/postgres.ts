// A real PostgreSQL 15 server per test file: initdb in a temp dir owned by the `postgres` user, started on
// 127.0.0.1 and a free port with password (scram) login, always stopped in afterAll.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PgServer {
  port: number;
  password: string;
  /** A superuser URL with the password. */
  url: string;
  start(): void;
  stop(): void;
  /** Removes the data folder (after stop). */
  destroy(): void;
}

/** Why a real server cannot run here, or undefined when it can. */
export function postgresUnavailable(): string | undefined {
  let version: string;
  try {
    execFileSync("pg_config", ["--bindir"], { stdio: ["ignore", "pipe", "ignore"] });
    version = execFileSync("pg_config", ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return "pg_config not found: PostgreSQL 15 is not installed (apt-get install postgresql-15)";
  }
  const major = Number(/PostgreSQL (\d+)/.exec(version)?.[1] ?? 0);
  if (major < 15) return `pg_config reports ${version.trim()}; the team store tests need PostgreSQL 15 or later`;
  const r = spawnSync("su", ["postgres", "-s", "/bin/bash", "-c", "true"], { timeout: 10_000 });
  if (r.status !== 0) return "cannot run commands as the postgres system user (su postgres failed)";
  return undefined;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Initializes a cluster and returns its controls (not started). */
export async function createPgServer(): Promise<PgServer> {
  const bindir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8" }).trim();
  const dir = mkdtempSync(join(tmpdir(), "memcards-pg-"));
  chmodSync(dir, 0o755);
  const data = join(dir, "data");
  const password = "s3cret-Pw-" + Math.random().toString(36).slice(2, 10);
  writeFileSync(join(dir, "pw"), password + "\n");
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  chownSync(dir, uid, gid);
  chownSync(join(dir, "pw"), uid, gid);
  const port = await freePort();
  const as = (cmd: string, timeout = 60_000) => {
    const r = spawnSync("su", ["postgres", "-s", "/bin/bash", "-c", cmd], { encoding: "utf8", timeout });
    if (r.status !== 0) throw new Error(`${cmd.split(" ")[0]} failed: ${r.stderr || r.stdout}`);
  };
  as(`${bindir}/initdb -D ${data} -U postgres --auth=scram-sha-256 --pwfile=${dir}/pw -E UTF8 --no-sync >/dev/null`);
  const pgctl = `${bindir}/pg_ctl -D ${data} -l ${dir}/log`;
  let running = false;
  return {
    port,
    password,
    url: `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    start() {
      as(
        `${pgctl} -w -t 30 -o "-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null`,
        40_000,
      );
      running = true;
    },
    stop() {
      if (!running) return;
      running = false;
      as(`${pgctl} -w -t 30 -m fast stop >/dev/null`, 40_000);
    },
    destroy() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
