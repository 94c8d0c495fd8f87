// What a run of the built CLI loaded, as source files: dist/cli.js and dist/chunks/ are bundles, so a loaded chunk
// stands for every file its source map names (src/…, bench/…, node_modules/<package>/…).
import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { repoRoot } from "./cli.js";

/** A source path made comparable: from `node_modules/` on for packages, else relative to the repository. */
function sourceName(abs: string, root: string): string {
  const at = abs.lastIndexOf("/node_modules/");
  return at >= 0 ? abs.slice(at + 1) : relative(root, abs);
}

/** The source files one built file stands for: its source map's sources, or the file itself without a map. */
export function sourcesOf(file: string, root = repoRoot): string[] {
  const map = `${file}.map`;
  if (!existsSync(map)) return [sourceName(file, root)];
  const { sources } = JSON.parse(readFileSync(map, "utf8")) as { sources: string[] };
  return sources.map((s) => sourceName(resolve(dirname(file), s), root));
}

/** The source files behind the module URLs a run resolved (file: URLs only), without duplicates. */
export function loadedSources(urls: readonly string[], root = repoRoot): string[] {
  const out = new Set<string>();
  for (const u of urls) if (u.startsWith("file:")) for (const s of sourcesOf(fileURLToPath(u), root)) out.add(s);
  return [...out];
}
