// `memcards hook <event>`: checks the call, runs the hook, and writes one line to the hook log for every
// outcome, failures included. It never throws and returns only what belongs on stdout.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

import { createApp } from "../app.js";
import { type Config, resolveConfig } from "../config.js";
import { toAppError } from "../errors.js";
import { hasGraph } from "../graph/presence.js";
import { createLogger } from "../log.js";
import { ensureDir } from "../project/dirs.js";
import { appendOwnFile, checkStoreFiles, isOwnStoreFolder } from "../project/files.js";
import { type ProjectLocation, resolveProjectRoot } from "../project/root.js";
import { storeRefusal } from "../project/store.js";
import { redact } from "../text/redact.js";
import { jsonProblem } from "../transcript/formats/json-error.js";
import { HookEvent, HookInput } from "./hooks/input.js";
import { runHook } from "./hooks/run.js";
import type { WarmStores } from "./warm-stores.js";

/** The log's file name, beside the project's database (or in the per-user folder). */
export const HOOK_LOG = "hooks.log";

export interface HookCall {
  event?: HookEvent;
  input: HookInput;
  /** What is wrong with the call, without quoting stdin. */
  problem?: string;
}

const clip = (s: string) => s.replace(/[^\x20-\x7e]/g, "?").slice(0, 60);

/** Checks the event name and the JSON on stdin. */
export function parseHookCall(event: string, stdin: string): HookCall {
  const problems: string[] = [];
  const ev = HookEvent.safeParse(event);
  if (!ev.success) {
    const near = HookEvent.options.find((o) => o.toLowerCase() === event.toLowerCase());
    problems.push(
      near
        ? `unknown event "${clip(event)}": event names are case-sensitive, use ${near}`
        : `unknown event "${clip(event)}"; expected one of ${HookEvent.options.join(", ")}`,
    );
  }
  let input: HookInput = {};
  if (!stdin.trim()) problems.push("empty stdin: expected the hook's JSON object");
  else {
    let value: unknown;
    let parsed = false;
    try {
      value = JSON.parse(stdin);
      parsed = true;
    } catch {
      problems.push(`stdin is ${jsonProblem(stdin)}`);
    }
    if (parsed) {
      const r = HookInput.safeParse(value);
      if (r.success) input = r.data;
      else problems.push(`stdin is not a hook's JSON object (${toAppError(r.error).message})`);
    }
  }
  return {
    ...(ev.success ? { event: ev.data } : {}),
    input,
    ...(problems.length ? { problem: problems.join("; ") } : {}),
  };
}

/**
 * What a log line records of `text`: redacted, on one line, with control characters, backslashes, `$` and backticks
 * written as JSON escapes (`\n`, `\u0024`), so nothing a tool's input carried can act as a command or a new line.
 */
export function logText(text: string): string {
  return (
    redact(text)
      .replace(/[ \t]+/g, " ")
      .slice(0, 500)
      // eslint-disable-next-line no-control-regex -- control characters are what is escaped
      .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\\$`]/g, (c) =>
        c === "\n" ? "\\n" : c === "\\" ? "\\\\" : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
      )
  );
}

/** Appends one line to `file`, creating its folder; false when it could not be written (or is a link). */
function appendLine(
  file: string,
  event: string,
  sessionId: string | undefined,
  line: string,
  userDir: string,
): boolean {
  try {
    const dir = dirname(file);
    const own = isOwnStoreFolder(dir, resolve(userDir));
    checkStoreFiles(file, dir, own);
    ensureDir(dir);
    checkStoreFiles(file, dir, own);
    appendOwnFile(
      file,
      // Redacted like every stored text: each part before it is cut (no cut leaves a token's head behind), and the
      // whole line again; then escaped, so nothing a tool's input carried can act as a command or a new line.
      `${redact(`${new Date().toISOString()} ${clip(redact(event))} ${sessionId ? clip(redact(sessionId)) : "-"} ${logText(line)}`)}\n`,
    );
    return true;
  } catch {
    return false;
  }
}

export interface HookCommandOptions {
  /** Global flags: --root, --db, --embedder. */
  flags: { root?: string | undefined; db?: string | undefined; embedder?: string | undefined };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The CLI entry (dist/cli.js) for detached follow-up work. */
  cli: string;
  /** Stores kept open across calls (the resident worker); without them each call opens and closes its store. */
  stores?: WarmStores;
}

/**
 * Runs one hook call and logs its outcome to the project's `.memcards/hooks.log` (the per-user
 * `hooks.log` when no project store can be used, stderr as a last resort). Returns the hook's stdout.
 */
export async function hookCommand(event: string, stdin: string, opts: HookCommandOptions): Promise<string> {
  return (await runHookCall(event, stdin, opts)).stdout;
}

/** The settings that name a path: a relative one means a path from the caller's folder. */
const PATH_VARS = ["HOME", "MEMCARDS_HOME", "MEMCARDS_ROOT", "MEMCARDS_DB", "MEMCARDS_MODELS_DIR"] as const;

/**
 * The call's paths made absolute from the caller's folder (`cwd`), so they name the same files whichever process
 * runs the hook: the hook's own, or the resident worker, whose folder is another.
 */
function fromCaller(opts: HookCommandOptions, input: HookInput): { opts: HookCommandOptions; input: HookInput } {
  const at = (p: string | undefined) => (p ? resolve(opts.cwd, p) : p);
  const env = { ...opts.env };
  for (const k of PATH_VARS) if (env[k]) env[k] = resolve(opts.cwd, env[k]);
  return {
    opts: { ...opts, env, flags: { root: at(opts.flags.root), db: at(opts.flags.db), embedder: opts.flags.embedder } },
    input: input.cwd ? { ...input, cwd: resolve(opts.cwd, input.cwd) } : input,
  };
}

/** Rankings a worker runs on the store it opens first, and how many files each asks for. */
const WARM_QUERIES = [
  "fix the failing test: the function returns the wrong value for an empty input",
  "add an option to the command line parser and document it",
  "TypeError: cannot read properties of undefined in the main module",
];
const WARM_LIMIT = 10;

/** What a worker started by a hook opens first: the store that hook's folder and flags name. */
export interface WarmHint {
  cwd: string;
  flags: HookCommandOptions["flags"];
}

/**
 * Opens in `stores` the store a hook called with `hint` would use, with its card ranker, without running a hook: what
 * a worker a hook started does first, so the next hook finds the store warm. Never creates a store; never throws (the
 * first call then opens it, or says why not).
 */
export async function warmHookStore(stores: WarmStores, hint: WarmHint, env: NodeJS.ProcessEnv): Promise<void> {
  try {
    const { opts } = fromCaller({ flags: hint.flags, env, cwd: hint.cwd, cli: "" }, {});
    const config = resolveConfig(
      { root: opts.flags.root ?? opts.cwd, db: opts.flags.db, logLevel: "silent", embedder: opts.flags.embedder },
      opts.env,
    );
    const location = stores.locate({ explicit: config.root, cwd: opts.cwd, userDir: config.userDir });
    if (!existsSync(resolve(config.db ?? location.defaultDbPath))) return;
    const app = stores.open(config, location);
    if (!hasGraph(app.db)) return;
    // A few rankings of task-shaped text that names nothing of any project: the ranking code is compiled and the
    // store's pages read before the first prompt comes (the ranker only reads; nothing is recorded).
    const ranker = stores.ranker(app);
    for (const q of WARM_QUERIES) await ranker.rank(q, WARM_LIMIT);
  } catch {
    // the first call opens the store itself
  }
}

/** hookCommand, also telling whether the call reached a project's store (`acted`): only then is a worker worth it. */
export async function runHookCall(
  event: string,
  stdin: string,
  given: HookCommandOptions,
): Promise<{ stdout: string; acted: boolean }> {
  const parsed = parseHookCall(event, stdin);
  const { opts, input } = fromCaller(given, parsed.input);
  const call = { ...parsed, input };
  const session = call.input.session_id;
  let userDir = opts.env.MEMCARDS_HOME || join(opts.env.HOME || homedir(), ".memcards");
  let config: Config | undefined;
  let location: ProjectLocation | undefined;
  let logFile = join(userDir, HOOK_LOG);
  let outcome: string;
  let stdout = "";
  let acted = false;
  try {
    config = resolveConfig(
      { root: opts.flags.root ?? call.input.cwd, db: opts.flags.db, logLevel: "silent", embedder: opts.flags.embedder },
      opts.env,
    );
    userDir = config.userDir;
    logFile = join(userDir, HOOK_LOG);
    const where = { explicit: config.root, cwd: call.input.cwd ?? opts.cwd, userDir: config.userDir };
    location = opts.stores ? opts.stores.locate(where) : resolveProjectRoot(where);
    const dbPath = resolve(config.db ?? location.defaultDbPath);
    const storeDir = dirname(dbPath);
    // A hook acts only in a project memcards was set up in: a `cwd` on stdin names a folder, and a folder without
    // a store is not one to create a store in (nor `/`, nor a system folder).
    if (!opts.flags.root && !existsSync(dbPath)) {
      call.problem ??= `no memcards store at ${dbPath}: ${location.root} is not a project memcards was set up in (run \`memcards index\` or \`memcards init\` there); nothing done`;
    } else if (!storeRefusal(storeDir, userDir)) logFile = join(storeDir, HOOK_LOG);
  } catch (err) {
    call.problem ??= `${toAppError(err).code}: ${toAppError(err).message}`;
  }
  if (call.problem || !call.event || !config || !location) {
    outcome = `error: ${call.problem ?? "unknown event"}`;
  } else {
    try {
      const stores = opts.stores;
      const app = stores ? stores.open(config, location) : createApp(config, location, createLogger("silent"));
      try {
        const r = await runHook(call.event, call.input, {
          app,
          cli: opts.cli,
          // Follow-up work runs in the caller's folder with the caller's environment, also when a worker answers.
          spawnDetached: (args) => {
            const child = spawn(process.execPath, [opts.cli, ...args], {
              detached: true,
              stdio: "ignore",
              env: opts.env,
              cwd: opts.cwd,
            });
            child.on("error", () => undefined);
            child.unref();
          },
          ...(opts.env.HOME ? { home: opts.env.HOME } : {}),
          ...(stores ? { ranker: () => stores.ranker(app) } : {}),
        });
        stdout = r.stdout;
        outcome = r.log;
        acted = true;
      } finally {
        if (!stores) await app.close();
      }
    } catch (err) {
      const e = toAppError(err);
      outcome = `error: ${e.code}: ${e.message}`;
    }
  }
  const fallback = join(userDir, HOOK_LOG);
  if (
    !appendLine(logFile, event, session, outcome, userDir) &&
    (logFile === fallback || !appendLine(fallback, event, session, outcome, userDir))
  )
    process.stderr.write(`memcards hook ${clip(event)}: ${logText(outcome)} (the hook log could not be written)\n`);
  return { stdout, acted };
}
