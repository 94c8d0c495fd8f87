// What dist/cli.js runs: `--version` and `hook <event>` (what settings written before dist/hook.js existed run on every
// prompt and edit) take a short path that loads only what they need; every other command loads the full command tree.
import { join } from "node:path";

import type { WarmHint } from "../integrate/hook-command.js";
import { packageVersion } from "../version.js";

const GLOBAL_WITH_VALUE = new Set(["--root", "--db", "--embedder", "--log-level"]);

const LOG_LEVELS = new Set(["debug", "info", "warn", "error", "silent"]);

/**
 * `serve` on stdio with only global flags, before or after it (what clients' registrations run): the flags;
 * undefined for anything else (--http, --help, an unknown flag or level), which the full command tree handles.
 */
export function serveInvocation(args: readonly string[]): Record<string, string> | undefined {
  const flags: Record<string, string> = {};
  let served = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "serve" && !served) {
      served = true;
      continue;
    }
    const eq = a.indexOf("=");
    const name = eq > 0 ? a.slice(0, eq) : a;
    if (!GLOBAL_WITH_VALUE.has(name)) return undefined;
    const v = eq > 0 ? a.slice(eq + 1) : args[++i];
    if (v === undefined || (eq < 0 && v.startsWith("-"))) return undefined;
    flags[name.slice(2)] = v;
  }
  if (!served || (flags["log-level"] !== undefined && !LOG_LEVELS.has(flags["log-level"]))) return undefined;
  return flags;
}

/** Whether this run prints stack traces: its log level is debug (the last `--log-level`, else MEMCARDS_LOG_LEVEL). */
export function wantsStacks(args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  let level = env.MEMCARDS_LOG_LEVEL;
  args.forEach((a, i) => {
    if (a.startsWith("--log-level=")) level = a.slice("--log-level=".length);
    else if (a === "--log-level") level = args[i + 1];
  });
  return level === "debug";
}

/** Runs the CLI on `argv` (process.argv's shape); `entry` is the file users run (dist/cli.js). */
export async function run(entry: string, argv: readonly string[] = process.argv): Promise<void> {
  const args = argv.slice(2);
  // The bundle's source maps are read only when a stack trace may be printed: then its frames name src/ files.
  if (wantsStacks(args, process.env)) process.setSourceMapsEnabled(true);
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    process.stdout.write(`${packageVersion()}\n`);
    return;
  }
  if (args.length === 1 && args[0] === "hook-worker") {
    const [{ runHookWorker }, { WARM_VAR }] = await Promise.all([
      import("../integrate/worker.js"),
      import("../integrate/worker-client.js"),
    ]);
    const idle = Number(process.env.MEMCARDS_HOOK_WORKER_IDLE_MS);
    const warm = warmHint(process.env[WARM_VAR]);
    delete process.env[WARM_VAR];
    await runHookWorker({
      cli: entry,
      env: process.env,
      ...(idle > 0 ? { idleMs: idle } : {}),
      ...(warm ? { warm } : {}),
    });
    process.exit(0);
  }
  if (args.includes("hook")) {
    // What settings written by older versions run: the same path as dist/hook.js.
    const { hookInvocation, runHookEntry } = await import("./hook-entry.js");
    const hook = hookInvocation(args);
    if (hook) {
      await runHookEntry(entry, hook);
      process.exitCode = 0;
      return;
    }
  }
  const serveFlags = serveInvocation(args);
  if (serveFlags && (await serveShort(entry, serveFlags))) return;
  const main = await import("./main.js");
  await main.run(entry, argv);
}

/** The folder and flags a starting hook passed its worker (WARM_VAR); undefined when absent or malformed. */
function warmHint(text: string | undefined): WarmHint | undefined {
  if (!text) return undefined;
  try {
    const v = JSON.parse(text) as { cwd?: unknown; flags?: unknown };
    const flags = (typeof v.flags === "object" && v.flags !== null ? v.flags : {}) as Record<string, unknown>;
    const str = (x: unknown) => (typeof x === "string" ? x : undefined);
    if (typeof v.cwd !== "string") return undefined;
    return { cwd: v.cwd, flags: { root: str(flags.root), db: str(flags.db), embedder: str(flags.embedder) } };
  } catch {
    return undefined;
  }
}

/**
 * `memcards serve` on stdio without loading the command tree (commander and every command's modules): a client
 * waits for this start-up. False when the settings do not resolve: the full command tree then reports the error.
 */
async function serveShort(entry: string, flags: Record<string, string>): Promise<boolean> {
  const [{ resolveConfig }, { createLogger }, { packageRoot }] = await Promise.all([
    import("../config.js"),
    import("../log.js"),
    import("../version.js"),
  ]);
  let config;
  try {
    config = resolveConfig({ root: flags.root, db: flags.db, logLevel: flags["log-level"], embedder: flags.embedder });
  } catch {
    return false;
  }
  const { serve } = await import("../serve.js");
  await serve({
    config,
    logger: createLogger(config.logLevel),
    version: packageVersion(),
    cwd: process.cwd(),
    http: false,
    exampleConfigPath: join(packageRoot(), "mcp.json.example"),
    cli: entry,
  });
  process.exit(0);
}
