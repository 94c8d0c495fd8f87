// Ruby requires: relative ones beside the requirer, others under lib/.
import type { ImportRef } from "../symbols.js";
import { bySuffix, dirOf, insideRepo, joinPath, nearest, type RepoIndex } from "./repo-index.js";

export function resolveRuby(index: RepoIndex, from: string, ref: ImportRef): string[] {
  const withExt = ref.spec.endsWith(".rb") ? ref.spec : `${ref.spec}.rb`;
  if (ref.spec.startsWith(".")) {
    const p = joinPath(dirOf(from), withExt);
    return insideRepo(p) && index.paths.has(p) ? [p] : [];
  }
  for (const c of [joinPath("lib", withExt), withExt]) if (index.paths.has(c)) return [c];
  const hit = nearest(from, bySuffix(index, `lib/${withExt}`));
  return hit ? [hit] : [];
}
