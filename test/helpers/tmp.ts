// Temporary directories removed after each test file.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

import { afterAll } from "vitest";

const made: string[] = [];
afterAll(() => {
  // Retries: a child process started by a test (a hook's detached job) may still be closing files inside.
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
});

/** A fresh empty directory under the OS temp dir. */
export function tmpDir(prefix = "memcards-test-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** Copies `file` into `dir` (a project root), keeping its name; returns the copy's path. */
export function copyInto(dir: string, file: string): string {
  const to = join(dir, basename(file));
  copyFileSync(file, to);
  return to;
}

/** Copies a transcript into `home`'s Claude Code transcript folder, where memcards may read it; returns its path. */
export function inClaudeProjects(home: string, file: string): string {
  const dir = join(home, ".claude", "projects", "-test-project");
  mkdirSync(dir, { recursive: true });
  return copyInto(dir, file);
}
