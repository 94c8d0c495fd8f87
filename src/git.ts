// The one way memcards runs git: a short read-only command in a folder, its output, or undefined when git is missing,
// the folder is not in a work tree, or the command fails.
import { execFileSync } from "node:child_process";

export interface GitOptions {
  /** Milliseconds before the command is given up (default 5000). */
  timeout?: number;
  /** Bytes of output at most (default 16 MiB). */
  maxBuffer?: number;
  /** Trim the output (default true; off for NUL-separated lists). */
  trim?: boolean;
}

/**
 * Settings given on every call, over any a repository's own config sets: plain paths; no fsmonitor command (git runs
 * it while reading the index, and a repository's config names it); no bare repository found by walking up (one a
 * clone commits in a subfolder would otherwise answer for it, with its own config).
 */
const SAFE_CONFIG = ["-c", "core.quotepath=off", "-c", "core.fsmonitor=false", "-c", "safe.bareRepository=explicit"];

/** Runs `git -C dir …args` with stdin closed and stderr discarded; undefined when it cannot run or fails. */
export function git(dir: string, args: readonly string[], opts: GitOptions = {}): string | undefined {
  try {
    const out = execFileSync("git", ["-C", dir, ...SAFE_CONFIG, ...args], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: opts.timeout ?? 5000,
      maxBuffer: opts.maxBuffer ?? 16 * 1024 * 1024,
    });
    return opts.trim === false ? out : out.trim();
  } catch {
    return undefined;
  }
}
