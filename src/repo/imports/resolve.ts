// Import resolution to repo files: picks the resolver of the importing file's language (one module per language
// beside this one) over an index of the repo paths built once.
import { z } from "zod";

import { detectLanguage, type LanguageId } from "../languages.js";
import type { Manifests } from "../manifests.js";
import type { ImportRef } from "../symbols.js";
import { resolveC } from "./c.js";
import { resolveGo } from "./go.js";
import { resolveJvm } from "./java.js";
import { resolveJs } from "./javascript.js";
import { resolvePython } from "./python.js";
import { buildIndex, compareStrings, type LanguageResolver } from "./repo-index.js";
import { resolveRuby } from "./ruby.js";
import { resolveRust } from "./rust.js";
import { resolveShell } from "./shell.js";

export const ImportEdge = z.object({ from: z.string(), to: z.string() });
export type ImportEdge = z.infer<typeof ImportEdge>;

/** Resolves one file's import to the repo files it denotes (empty for external modules). */
export type ImportResolver = (from: string, ref: ImportRef) => string[];

const RESOLVERS: Partial<Record<LanguageId, LanguageResolver>> = {
  python: resolvePython,
  typescript: resolveJs,
  tsx: resolveJs,
  javascript: resolveJs,
  go: resolveGo,
  rust: resolveRust,
  java: resolveJvm,
  kotlin: resolveJvm,
  scala: resolveJvm,
  c: resolveC,
  cpp: resolveC,
  objc: resolveC,
  ruby: resolveRuby,
  shell: resolveShell,
};

/**
 * Builds a resolver over a fixed set of repo paths (index built once; reuse it to re-resolve one changed
 * file). `manifests` gives go.mod module paths and Cargo crate names (see `readManifests`).
 */
export function createImportResolver(
  paths: readonly string[],
  manifests: Manifests = { goModules: {}, rustCrates: {} },
): ImportResolver {
  const index = buildIndex(paths, manifests);
  return (from, ref) => {
    const resolve = RESOLVERS[detectLanguage(from) ?? "text"];
    if (!resolve) return [];
    try {
      return resolve(index, from, ref).filter((to) => to !== from);
    } catch {
      return [];
    }
  };
}

/** Resolves every file's imports to `{from, to}` edges between repo files (deduplicated, sorted). */
export function resolveImports(input: {
  paths: readonly string[];
  imports: Readonly<Record<string, readonly ImportRef[]>> | ReadonlyMap<string, readonly ImportRef[]>;
  manifests?: Manifests;
}): ImportEdge[] {
  const resolve = createImportResolver(input.paths, input.manifests);
  const entries = input.imports instanceof Map ? [...input.imports.entries()] : Object.entries(input.imports);
  const seen = new Set<string>();
  const edges: ImportEdge[] = [];
  for (const [from, refs] of entries) {
    for (const ref of refs) {
      for (const to of resolve(from, ref)) {
        const key = `${from}\0${to}`;
        if (seen.has(key)) continue;
        seen.add(key);
        edges.push({ from, to });
      }
    }
  }
  return edges.sort((a, b) => (a.from === b.from ? compareStrings(a.to, b.to) : compareStrings(a.from, b.from)));
}
