// The hook side of the resident hook worker: where it listens, how a hook asks it, and how a hook starts one.
// Node built-ins and the hook registry only (which loads no handler until one runs): this runs in every hook process
// before anything else of memcards loads, so a hook the worker answers costs a Node start-up and one local round trip. Any doubt (no worker, a stale socket, a wrong token, a
// worker that does not answer in time) means "absent", and the hook runs the direct path itself.
import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { connect } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";

import { HOOKS } from "./hooks/registry.js";

/** The events a worker answers: those the registry marks (all but PreCompact); the others run directly. */
export const WORKER_EVENTS: ReadonlySet<string> = new Set(
  Object.entries(HOOKS)
    .filter(([, h]) => h.worker)
    .map(([event]) => event),
);

/** Protocol version: a worker refuses a request of another version (the hook then runs directly). */
export const WORKER_PROTOCOL = 1;

/** The variable a hook passes the worker it starts: the folder and flags whose store to open first (JSON). */
export const WARM_VAR = "MEMCARDS_HOOK_WORKER_WARM";

/** Longest request or reply line either side accepts. */
export const MAX_WORKER_LINE = 16 * 1024 * 1024;

export interface WorkerPlace {
  /** The private (0700) folder holding the socket and the token. */
  dir: string;
  socket: string;
  token: string;
  /** Present while a hook has started a worker that is not listening yet. */
  starting: string;
}

/** What a hook sends: the same inputs the direct path takes. */
export interface WorkerRequest {
  event: string;
  stdin: string;
  flags: { root?: string | undefined; db?: string | undefined; embedder?: string | undefined };
  cwd: string;
  env: Record<string, string>;
}

export type WorkerAnswer =
  | { ok: true; stdout: string }
  /** `start`: no worker is listening, so starting one is worthwhile (not after a wrong token or a timeout). */
  | { ok: false; why: string; start: boolean };

/**
 * 16 hex digits naming the worker's place: two 32-bit FNV-1a hashes of `text` (two offset bases). It only names the
 * place (the token guards it), so the hook process needs no crypto module and no BigInt arithmetic for it.
 */
export function placeKey(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (const byte of Buffer.from(text, "utf8")) {
    a = Math.imul(a ^ byte, 0x01000193);
    b = Math.imul(b ^ byte, 0x01000193);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

const uid = () => (typeof process.getuid === "function" ? process.getuid() : -1);

/** The per-user memcards folder, as hooks resolve it before the configuration loads. */
export function hookUserDir(env: NodeJS.ProcessEnv): string {
  return resolve(env.MEMCARDS_HOME || join(env.HOME || homedir(), ".memcards"));
}

/**
 * Where the worker for this user folder, this build of memcards (`cli` and its modification time) and this Node
 * listens: `<user folder>/run/`, or a per-user folder under the OS temp folder when that path is too long for a
 * socket. A rebuilt memcards or another Node gets its own worker; the old one idles out.
 */
export function workerPlace(env: NodeJS.ProcessEnv, cli: string): WorkerPlace {
  const userDir = hookUserDir(env);
  let built = 0;
  try {
    built = statSync(cli).mtimeMs;
  } catch {
    // an entry that cannot be read still gets a stable place
  }
  const key = placeKey(JSON.stringify([userDir, resolve(cli), built, process.execPath, process.version]));
  let dir = join(userDir, "run");
  // 107 bytes is Linux's limit for a socket path (103 on macOS); stay well below.
  if (Buffer.byteLength(join(dir, `hooks-${key}.sock`)) > 100) dir = join(tmpdir(), `memcards-${uid()}`);
  return {
    dir,
    socket: join(dir, `hooks-${key}.sock`),
    token: join(dir, `hooks-${key}.token`),
    starting: join(dir, `hooks-${key}.starting`),
  };
}

/** True when `dir` is a real folder (not a link) of this user that nobody else may enter. */
export function isPrivateDir(dir: string): boolean {
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && (uid() < 0 || st.uid === uid()) && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The worker's token, read only from a regular file of this user that only this user can read. */
export function readToken(file: string): string | undefined {
  try {
    const st = lstatSync(file);
    if (!st.isFile() || (uid() >= 0 && st.uid !== uid()) || (st.mode & 0o077) !== 0 || st.size > 256) return undefined;
    return readFileSync(file, "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

export interface AskOptions {
  /** Connecting longer than this means no worker (default 300 ms). */
  connectMs?: number;
  /** Waiting longer than this for the answer means a hung worker (default 4 s). */
  replyMs?: number;
}

/** Asks the worker at `place` to run one hook. Never throws; resolves within connectMs + replyMs. */
export function askWorker(place: WorkerPlace, req: WorkerRequest, o: AskOptions = {}): Promise<WorkerAnswer> {
  if (!isPrivateDir(place.dir)) return Promise.resolve({ ok: false, why: "no private folder", start: true });
  const token = readToken(place.token);
  if (!token) return Promise.resolve({ ok: false, why: "no token", start: true });
  return new Promise((done) => {
    let settled = false;
    let connected = false;
    const chunks: Buffer[] = [];
    let size = 0;
    const sock = connect(place.socket);
    const finish = (a: WorkerAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      sock.destroy();
      done(a);
    };
    let timer = setTimeout(() => finish({ ok: false, why: "connect timed out", start: false }), o.connectMs ?? 300);
    sock.on("connect", () => {
      connected = true;
      clearTimeout(timer);
      const replyMs = o.replyMs ?? 4000;
      timer = setTimeout(() => {
        // A worker that accepts but does not answer (stuck in a call) would cost every later hook this wait: its
        // socket and token are removed, so later hooks find no worker, start a fresh one, and the stuck one leaves.
        // Only while its token is still the one this hook used: a newer worker that took the place meanwhile stays.
        if (readToken(place.token) === token) for (const f of [place.socket, place.token]) rmSync(f, { force: true });
        finish({ ok: false, why: "no answer in time", start: false });
      }, replyMs);
      // The deadline tells the worker when this hook runs the call itself, so a call still queued then is not run.
      sock.write(`${JSON.stringify({ v: WORKER_PROTOCOL, token, deadline: Date.now() + replyMs, ...req })}\n`);
    });
    sock.on("data", (c: Buffer) => {
      const nl = c.indexOf(10);
      chunks.push(nl < 0 ? c : c.subarray(0, nl));
      size += c.length;
      if (size > MAX_WORKER_LINE) return finish({ ok: false, why: "answer too long", start: false });
      if (nl < 0) return;
      try {
        const r = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          ok?: unknown;
          stdout?: unknown;
          error?: unknown;
        };
        if (r.ok === true && typeof r.stdout === "string") finish({ ok: true, stdout: r.stdout });
        else finish({ ok: false, why: `refused: ${String(r.error)}`, start: false });
      } catch {
        finish({ ok: false, why: "unreadable answer", start: false });
      }
    });
    sock.on("error", (err: NodeJS.ErrnoException) =>
      // ENOENT: nothing there; ECONNREFUSED: a stale socket file of a worker that died.
      finish({ ok: false, why: err.code ?? err.message, start: !connected }),
    );
    sock.on("close", () => finish({ ok: false, why: "closed before answering", start: false }));
  });
}

/**
 * Starts a detached worker for `place` unless one was started less than 30 s ago (a `starting` marker), so a burst
 * of hooks starts one. Best effort: never throws.
 */
export function startWorker(
  place: WorkerPlace,
  cli: string,
  env: NodeJS.ProcessEnv,
  warm?: { cwd: string; flags: WorkerRequest["flags"] },
): boolean {
  try {
    try {
      const st = lstatSync(place.starting);
      if (Date.now() - st.mtimeMs < 30_000) return false;
      unlinkSync(place.starting);
    } catch {
      // no marker
    }
    mkdirSync(place.dir, { recursive: true, mode: 0o700 });
    if (!isPrivateDir(place.dir)) return false;
    // "wx": of hooks racing here, one starts the worker.
    const fd = openSync(place.starting, "wx", 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    // The worker runs in another folder: the settings that name its place are passed as this hook resolved them.
    const own = { ...env };
    for (const k of ["HOME", "MEMCARDS_HOME"]) if (own[k]) own[k] = resolve(own[k]!);
    // The store this hook used, for the worker to open as soon as it listens.
    if (warm) own[WARM_VAR] = JSON.stringify(warm);
    else delete own[WARM_VAR];
    // Loaded here, not at the top: a hook the worker answers never starts a process.
    const { spawn } = createRequire(import.meta.url)("node:child_process") as typeof import("node:child_process");
    const child = spawn(process.execPath, [cli, "hook-worker"], {
      detached: true,
      stdio: "ignore",
      env: own,
      cwd: tmpdir(),
    });
    child.on("error", () => undefined);
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** The environment a hook passes on: its own, as strings. */
export function envRecord(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === "string") out[k] = v;
  return out;
}

/** True when something accepts connections at `socket` within `ms` (a live worker; a stale file refuses). */
export function workerListening(socket: string, ms = 500): Promise<boolean> {
  return new Promise((done) => {
    const s = connect(socket);
    const end = (v: boolean) => {
      clearTimeout(t);
      s.destroy();
      done(v);
    };
    // A worker that accepts nothing in time still holds the place; it idles out.
    const t = setTimeout(() => end(true), ms);
    s.on("connect", () => end(true));
    s.on("error", () => end(false));
  });
}

/** Starts a worker for `place` unless one is listening there. */
export async function ensureWorker(place: WorkerPlace, cli: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  if (await workerListening(place.socket)) return false;
  return startWorker(place, cli, env);
}
