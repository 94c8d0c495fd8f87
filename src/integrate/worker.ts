// The resident hook worker (`memcards hook-worker`, started detached by a hook or the MCP server): it keeps the
// modules a hook needs loaded and answers hooks over a unix socket in a private folder, one call at a time, with
// the same function the direct path runs (hookCommand). It keeps each store it served open, with its card ranker,
// between calls (warm-stores.ts checks them on every call); every write commits within its call, so a worker killed
// at any moment loses nothing: the hook that asked runs the direct path itself.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";

import { hookCommand, type WarmHint, warmHookStore } from "./hook-command.js";
import { HOOKS } from "./hooks/registry.js";
import { createWarmStores, type WarmStores } from "./warm-stores.js";
import {
  isPrivateDir,
  MAX_WORKER_LINE,
  readToken,
  WORKER_EVENTS,
  WORKER_PROTOCOL,
  workerListening,
  type WorkerPlace,
  workerPlace,
} from "./worker-client.js";

export interface WorkerOptions {
  /** The CLI entry (dist/cli.js): it names the worker's place and runs detached follow-up work. */
  cli: string;
  env: NodeJS.ProcessEnv;
  /** Exit after this long without a call (default 10 minutes). */
  idleMs?: number;
  /** The store to open as soon as the worker listens (the one the hook that started it used). */
  warm?: WarmHint;
}

/**
 * Loads what the frequent hooks need ahead of the first call: the handler of every event a worker answers, and the
 * modules they use. A module whose first load failed stays failed in this process (Node keeps a module that failed
 * to link), so a handler that cannot load keeps the worker from starting (the hooks then run directly) rather than
 * leaving a listening worker that answers its event with nothing.
 */
async function warmUp(): Promise<void> {
  await Promise.all(Object.values(HOOKS).flatMap((h) => (h.worker ? [h.load()] : [])));
  const [{ countTokens }] = await Promise.all([
    import("../text/tokens.js"),
    import("../cards/service.js"),
    import("../retrieval/rank.js"),
    import("../memory/service.js"),
  ]);
  countTokens("warm up");
}

/** Compares bytes in constant time; a token of another byte length (not only another length) is simply wrong. */
function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const strings = (v: unknown) =>
  v === undefined || (isRecord(v) && Object.values(v).every((x) => typeof x === "string"));

interface CheckedRequest {
  event: string;
  stdin: string;
  cwd: string;
  flags?: Record<string, string | undefined>;
  env?: Record<string, string>;
  /** When the hook stops waiting (ms since the epoch): a call not started by then is not run. */
  deadline?: number;
}

/** Parses and checks one request line; the reply for a refused one names why. Never throws. */
function checkRequest(line: string, token: string): { error: string } | { req: CheckedRequest } {
  let req: unknown;
  try {
    req = JSON.parse(line);
  } catch {
    return { error: "unreadable request" };
  }
  if (!isRecord(req)) return { error: "malformed request" };
  if (typeof req.token !== "string" || !sameToken(req.token, token)) return { error: "wrong token" };
  if (req.v !== WORKER_PROTOCOL) return { error: "protocol version" };
  if (typeof req.event !== "string" || !WORKER_EVENTS.has(req.event)) return { error: "event not served here" };
  if (typeof req.stdin !== "string" || typeof req.cwd !== "string" || !strings(req.flags) || !strings(req.env))
    return { error: "malformed request" };
  if (req.deadline !== undefined && typeof req.deadline !== "number") return { error: "malformed request" };
  return { req: req as unknown as CheckedRequest };
}

/** Runs the worker until it has been idle for `idleMs`, or its socket or token is taken away. */
export async function runHookWorker(opts: WorkerOptions): Promise<void> {
  const place = workerPlace(opts.env, opts.cli);
  mkdirSync(place.dir, { recursive: true, mode: 0o700 });
  if (!isPrivateDir(place.dir)) return;
  try {
    if (await workerListening(place.socket)) return; // another worker has the place
    await warmUp();
    if (await workerListening(place.socket)) return; // one started meanwhile
    rmSync(place.socket, { force: true }); // a stale socket file: its worker is gone
    const token = randomBytes(32).toString("hex");
    const tmp = `${place.token}.${process.pid}`;
    writeFileSync(tmp, token, { mode: 0o600, flag: "wx" });
    renameSync(tmp, place.token);
    const stores = createWarmStores(opts.env);
    try {
      await serveOn(place, token, opts, stores);
    } finally {
      await stores.closeAll();
    }
  } finally {
    rmSync(place.starting, { force: true });
  }
}

function serveOn(place: WorkerPlace, token: string, opts: WorkerOptions, stores: WarmStores): Promise<void> {
  const idleMs = opts.idleMs ?? 10 * 60_000;
  let queue: Promise<unknown> = Promise.resolve();
  let last = Date.now();
  let busy = 0;
  const server: Server = createServer((conn) => handle(conn));
  const handle = (conn: Socket) => {
    const chunks: Buffer[] = [];
    let size = 0;
    conn.on("error", () => undefined);
    conn.setTimeout(30_000, () => conn.destroy());
    conn.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_WORKER_LINE) return void conn.destroy();
      const nl = c.indexOf(10);
      chunks.push(nl < 0 ? c : c.subarray(0, nl));
      if (nl < 0) return;
      conn.removeAllListeners("data");
      const checked = checkRequest(Buffer.concat(chunks).toString("utf8"), token);
      if ("error" in checked) return void conn.end(`${JSON.stringify({ ok: false, error: checked.error })}\n`);
      const r = checked.req;
      last = Date.now();
      busy++;
      queue = queue
        .then(() => {
          // The hook stopped waiting (and ran the hook itself): running it here too would act twice.
          if (conn.destroyed || (r.deadline !== undefined && Date.now() >= r.deadline))
            throw new Error("too late: the hook stopped waiting");
          return hookCommand(r.event, r.stdin, {
            flags: { root: r.flags?.root, db: r.flags?.db, embedder: r.flags?.embedder },
            env: r.env ?? {},
            cwd: r.cwd,
            cli: opts.cli,
            stores,
          });
        })
        .then(
          (stdout) => conn.end(`${JSON.stringify({ ok: true, stdout })}\n`),
          (err: unknown) => conn.end(`${JSON.stringify({ ok: false, error: (err as Error).message })}\n`),
        )
        .finally(() => {
          busy--;
          last = Date.now();
        });
    });
  };
  return new Promise((done, fail) => {
    server.once("error", fail);
    server.listen(place.socket, () => {
      rmSync(place.starting, { force: true });
      // The store the starting hook used, opened now: the next hook of that session finds it warm.
      const hint = opts.warm;
      if (hint) queue = queue.then(() => warmHookStore(stores, hint, opts.env));
      let ino: number | undefined;
      try {
        ino = lstatSync(place.socket).ino;
      } catch {
        // checked below
      }
      // Every few seconds: still ours (the socket file and token in place), and not idle too long.
      const tick = setInterval(
        () => {
          let ours = false;
          try {
            ours = lstatSync(place.socket).ino === ino && readToken(place.token) === token;
          } catch {
            ours = false;
          }
          if (ours && (busy > 0 || Date.now() - last < idleMs)) return;
          clearInterval(tick);
          server.close(() => done());
          if (ours) {
            rmSync(place.socket, { force: true });
            rmSync(place.token, { force: true });
          }
        },
        Math.min(5000, idleMs),
      );
    });
  });
}
