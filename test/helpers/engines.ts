// Optional engines (PostgreSQL 15, Chromium, the pinned Claude Code binary): a suite that needs one runs where it is
// present. Where it is missing the suite is skipped with the reason printed, except under CI=true, where the missing
// engine is a failed test (`.ci/run` installs each one, so a skip there would hide a suite that never ran).
import { existsSync } from "node:fs";
import { join } from "node:path";

import { describe, it } from "vitest";

import { repoRoot } from "./cli.js";

export const inCi = process.env.CI === "true";

/**
 * Whether a suite needing `engine` can run here: true when `missing` is undefined. Otherwise prints why the suite is
 * skipped (or, under CI=true, registers a test that fails with the reason) and returns false.
 */
export function engineReady(suite: string, engine: string, missing: string | undefined): boolean {
  if (missing === undefined) return true;
  if (inCi) {
    describe(suite, () => {
      it(`finds ${engine} (required when CI=true)`, () => {
        throw new Error(`${engine} is missing: ${missing}`);
      });
    });
  } else {
    process.stderr.write(`\n[SKIPPED] ${suite}: ${engine} is not available here: ${missing}\n\n`);
  }
  return false;
}

/** Where `npm run engines` installs the pinned tools of the integration tier (they declare Node 22, so apart). */
export const ENGINES_DIR = join(repoRoot, "test", "engines");

/** A pinned tool's package folder under test/engines, or the reason it is not there. */
export function enginePackage(name: string): { dir: string } | { missing: string } {
  const dir = join(ENGINES_DIR, "node_modules", ...name.split("/"));
  return existsSync(join(dir, "package.json"))
    ? { dir }
    : { missing: `${name} is not installed in test/engines (run npm run engines)` };
}
