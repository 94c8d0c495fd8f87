// C, C++ and Objective-C includes: relative to the includer first (quoted), else the nearest file with that suffix.
import { posix } from "node:path";

import type { ImportRef } from "../symbols.js";
import { bySuffix, dirOf, insideRepo, joinPath, nearest, type RepoIndex } from "./repo-index.js";

export function resolveC(index: RepoIndex, from: string, ref: ImportRef): string[] {
  const system = ref.spec.startsWith("<");
  const spec = system ? ref.spec.slice(1, -1) : ref.spec;
  if (!system) {
    const rel = joinPath(dirOf(from), spec);
    if (insideRepo(rel) && index.paths.has(rel)) return [rel];
  }
  const hit = nearest(from, bySuffix(index, posix.normalize(spec).replace(/^(\.\.\/)+/, "")));
  return hit ? [hit] : [];
}
