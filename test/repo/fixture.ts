// The polyglot fixture: its path, a copy in a temp dir, and the git-ignored pieces a checkout cannot carry.
import { cpSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { tmpDir } from "../helpers/tmp.js";

/** Absolute path of fixtures/repos/polyglot. */
export const POLYGLOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fixtures", "repos", "polyglot");

/**
 * Files that git ignores (node_modules/, scratch/, *.tmp) and so never reach a clone of this repository;
 * tests that count ignored and vendored skips write them into their own copy.
 */
export function addIgnoredPieces(dir: string): void {
  const put = (rel: string, text: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  put("node_modules/leftpad/index.js", "module.exports = function leftpad(s) { return s; };\n");
  put("scratch/notes.txt", "scratch notes (ignored by .gitignore)\n");
  put("cache.tmp", "temporary\n");
}

/** A fresh copy of the fixture (with the ignored pieces) at `<tmp>/<name>`; returns its real path. */
export function copyPolyglot(name = "polyglot"): string {
  const dest = join(realpathSync(tmpDir("memcards-repo-")), name);
  cpSync(POLYGLOT, dest, { recursive: true });
  addIgnoredPieces(dest);
  return dest;
}
