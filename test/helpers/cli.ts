// Runs the built CLI (dist/cli.js) as a child process, the way users and clients do.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const cliPath = join(repoRoot, "dist", "cli.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `memcards ...args` with an isolated HOME unless the env says otherwise. */
export function runCli(
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): CliResult {
  const res = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, ...opts.env },
    input: opts.input ?? "",
    encoding: "utf8",
    timeout: 120_000,
  });
  return { code: res.status, stdout: res.stdout, stderr: res.stderr };
}
