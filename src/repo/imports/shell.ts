// Shell `source` / `.`: beside the sourcing script, else from the repo root.
import { posix } from "node:path";

import type { ImportRef } from "../symbols.js";
import { dirOf, insideRepo, joinPath, type RepoIndex } from "./repo-index.js";

export function resolveShell(index: RepoIndex, from: string, ref: ImportRef): string[] {
  for (const c of [joinPath(dirOf(from), ref.spec), posix.normalize(ref.spec)]) {
    if (insideRepo(c) && index.paths.has(c)) return [c];
  }
  return [];
}
