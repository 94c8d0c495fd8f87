// `memcards eval hooks`: each Claude Code hook command run as Claude Code runs it (a new process, JSON on stdin)
// against a warm database, timed end to end: p50 and p95 per hook.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

import { percentile, round } from "./localize/metrics.js";

export interface HookBench {
  runs: number;
  hooks: { event: string; p50_ms: number; p95_ms: number; max_ms: number; exit_codes: number[] }[];
}

/** Times `runs` calls of each hook in a scratch project seeded with `transcript`. */
export function benchHooks(opts: { cli: string; workDir: string; transcript: string; runs?: number }): HookBench {
  const runs = opts.runs ?? 10;
  const root = join(opts.workDir, "project");
  const home = join(opts.workDir, "home");
  spawnSync("git", ["init", "-q", root]);
  writeFileSync(join(root, "main.py"), "def main():\n    return 0\n");
  const transcript = join(root, "session.jsonl");
  copyFileSync(opts.transcript, transcript);
  const env = { ...process.env, HOME: home, MEMCARDS_HOME: join(home, ".memcards") };
  const call = (event: string, input: Record<string, unknown>) => {
    const t = performance.now();
    // As `init --hooks` registers it: dist/hook.js beside the CLI entry (a build without one: `cli.js hook`).
    const entry = join(dirname(opts.cli), "hook.js");
    const args = existsSync(entry) ? [entry, event] : [opts.cli, "hook", event];
    const r = spawnSync(process.execPath, args, {
      cwd: root,
      env,
      input: JSON.stringify({
        cwd: root,
        session_id: "bench",
        transcript_path: transcript,
        hook_event_name: event,
        ...input,
      }),
      encoding: "utf8",
      timeout: 60_000,
    });
    return { ms: performance.now() - t, code: r.status ?? -1 };
  };
  // Warm the database: one compression stored, the project indexed.
  call("PreCompact", { trigger: "manual" });
  spawnSync(process.execPath, [opts.cli, "index", root, "--lexical-only", "--log-level", "silent"], { env });
  const cases: [string, Record<string, unknown>][] = [
    ["SessionStart", { source: "compact" }],
    ["SessionStart", { source: "startup" }],
    ["PostToolUse", { tool_name: "Edit", tool_input: { file_path: join(root, "main.py") } }],
    ["SessionEnd", { reason: "exit" }],
    ["PreCompact", { trigger: "auto" }],
  ];
  const hooks = cases.map(([event, input]) => {
    const times: number[] = [];
    const codes = new Set<number>();
    for (let i = 0; i < runs; i++) {
      const r = call(event, input);
      times.push(r.ms);
      codes.add(r.code);
    }
    const label = input.source ? `${event} (${String(input.source)})` : event;
    return {
      event: label,
      p50_ms: round(percentile(times, 0.5), 1),
      p95_ms: round(percentile(times, 0.95), 1),
      max_ms: round(Math.max(...times), 1),
      exit_codes: [...codes],
    };
  });
  return { runs, hooks };
}

export function renderHookBench(b: HookBench): string {
  return [
    `${b.runs} runs of each hook, a new process each (as Claude Code runs them), warm database:`,
    ...b.hooks.map(
      (h) =>
        `  ${h.event.padEnd(24)} p50 ${h.p50_ms} ms, p95 ${h.p95_ms} ms, max ${h.max_ms} ms, exit ${h.exit_codes.join("/")}`,
    ),
  ].join("\n");
}
