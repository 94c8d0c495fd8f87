// What dist/cli.js runs: `--version` and `hook <event>` (what Claude Code runs on every prompt and edit) take a short
// path that loads only what they need; every other command loads the full command tree.
import { packageVersion } from "../version.js";

const GLOBAL_WITH_VALUE = new Set(["--root", "--db", "--embedder", "--log-level"]);

/** `[globals…] hook <event>` and nothing else: the global flags and the event; undefined for anything else. */
export function hookInvocation(args: readonly string[]): { event: string; flags: Record<string, string> } | undefined {
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

/** Runs the CLI on `argv` (process.argv's shape); `entry` is the file users run (dist/cli.js). */
export async function run(entry: string, argv: readonly string[] = process.argv): Promise<void> {
  const args = argv.slice(2);
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    process.stdout.write(`${packageVersion()}\n`);
    return;
  }
  const hook = hookInvocation(args);
  if (hook) {
    try {
      const [{ hookCommand }, { readStdin }] = await Promise.all([
        import("../integrate/hook-command.js"),
        import("./stdin.js"),
      ]);
      const out = await hookCommand(hook.event, await readStdin(3000), {
        flags: { root: hook.flags.root, db: hook.flags.db, embedder: hook.flags.embedder },
        env: process.env,
        cwd: process.cwd(),
        cli: entry,
      });
      if (out) process.stdout.write(`${out}\n`);
    } catch (err) {
      // A hook never fails the agent, even when memcards itself cannot load.
      process.stderr.write(`memcards hook: ${(err as Error).message}\n`);
    }
    process.exitCode = 0;
    return;
  }
  const main = await import("./main.js");
  await main.run(entry, argv);
}
