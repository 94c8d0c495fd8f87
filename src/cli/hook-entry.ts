// What a Claude Code hook process runs: `dist/hook.js [globals…] <event>` (what `memcards init --hooks` registers)
// and `dist/cli.js [globals…] hook <event>` (what older settings name) both come here. Node built-ins and the
// worker's client only: the resident worker answers when one listens, and only when none does (absent, killed, a
// wrong token, no answer in time) does the hook load the direct path and do the work itself.
import { resolve } from "node:path";

import {
  askWorker,
  envRecord,
  startWorker,
  WORKER_EVENTS,
  type WorkerPlace,
  workerPlace,
} from "../integrate/worker-client.js";

/** The global flags a hook call may carry, each with a value. */
const GLOBAL_WITH_VALUE = new Set(["--root", "--db", "--embedder", "--log-level"]);

/** How long a hook waits for its JSON on stdin before it goes on with what it has (an open pipe never hangs it). */
const STDIN_MS = 3000;

export interface HookInvocation {
  event: string;
  flags: Record<string, string>;
}

/** `[globals…] hook <event>` and nothing else: the global flags and the event; undefined for anything else. */
export function hookInvocation(args: readonly string[]): HookInvocation | undefined {
  const flags: Record<string, string> = {};
  let i = 0;
  for (; i < args.length && args[i] !== "hook"; i++) {
    const a = args[i]!;
    const eq = a.indexOf("=");
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (!GLOBAL_WITH_VALUE.has(name)) return undefined;
    if (eq > 0) flags[name.slice(2)] = a.slice(eq + 1);
    else {
      const v = args[++i];
      if (v === undefined) return undefined;
      flags[name.slice(2)] = v;
    }
  }
  const event = args[i + 1];
  if (args[i] !== "hook" || event === undefined || event.startsWith("-") || args.length !== i + 2) return undefined;
  return { event, flags };
}

/** The hook entry's own arguments, `[globals…] <event>` (or the CLI's `[globals…] hook <event>`). */
export function hookEntryInvocation(args: readonly string[]): HookInvocation | undefined {
  if (args.length === 0) return undefined;
  return hookInvocation(args) ?? hookInvocation([...args.slice(0, -1), "hook", args[args.length - 1]!]);
}

/** Reads stdin to the end, or gives up after `ms` (a hook must never hang on an open pipe). */
export function readStdin(ms: number): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve("");
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    const finish = () => done(Buffer.concat(chunks).toString("utf8"));
    const timer = setTimeout(() => {
      process.stdin.pause();
      finish();
    }, ms);
    const end = () => {
      clearTimeout(timer);
      finish();
    };
    process.stdin.on("data", (c: Buffer) => chunks.push(c));
    process.stdin.on("end", end);
    process.stdin.on("error", end);
  });
}

/** The `cwd` a hook's JSON names, made absolute from this process's folder; undefined when there is none. */
function inputCwd(stdin: string): string | undefined {
  try {
    const cwd = (JSON.parse(stdin) as { cwd?: unknown }).cwd;
    return typeof cwd === "string" && cwd ? resolve(cwd) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * One hook: the resident worker answers when one is listening (nothing of memcards loads here); otherwise the hook
 * runs directly and, having found a project, starts a worker for the next ones. `MEMCARDS_HOOK_WORKER=0` turns the
 * worker off. `cli` is dist/cli.js: it names the worker's place and runs the follow-up work. Never throws: a hook
 * never fails the agent.
 */
export async function runHookEntry(cli: string, hook: HookInvocation): Promise<void> {
  const flags = { root: hook.flags.root, db: hook.flags.db, embedder: hook.flags.embedder };
  try {
    const stdin = await readStdin(STDIN_MS);
    const env = process.env;
    let place: WorkerPlace | undefined;
    let start = false;
    if (env.MEMCARDS_HOOK_WORKER !== "0" && WORKER_EVENTS.has(hook.event)) {
      place = workerPlace(env, cli);
      const replyMs = Number(env.MEMCARDS_HOOK_WORKER_TIMEOUT_MS);
      const a = await askWorker(
        place,
        { event: hook.event, stdin, flags, cwd: process.cwd(), env: envRecord(env) },
        replyMs > 0 ? { replyMs } : {},
      );
      if (a.ok) {
        if (a.stdout) process.stdout.write(`${a.stdout}\n`);
        return;
      }
      start = a.start;
    }
    const { runHookCall } = await import("../integrate/hook-command.js");
    const out = await runHookCall(hook.event, stdin, { flags, env, cwd: process.cwd(), cli });
    if (out.stdout) process.stdout.write(`${out.stdout}\n`);
    if (place && start && out.acted) startWorker(place, cli, env, { cwd: inputCwd(stdin) ?? process.cwd(), flags });
  } catch (err) {
    // A hook never fails the agent, even when memcards itself cannot load.
    process.stderr.write(`memcards hook: ${(err as Error).message}\n`);
  }
}

/** What dist/hook.js runs: one hook from its arguments; a call it cannot read is said on stderr. Always exits 0. */
export async function runHookMain(cli: string, args: readonly string[]): Promise<void> {
  const hook = hookEntryInvocation(args);
  if (hook) await runHookEntry(cli, hook);
  else
    process.stderr.write("usage: hook.js [--root <dir>] [--db <file>] [--embedder <name>] <event> (JSON on stdin)\n");
  process.exitCode = 0;
}
