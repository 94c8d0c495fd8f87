// JavaScript and TypeScript imports: relative specs (with extension and index-file lookup) and `@/`, `~/` aliases.
import { posix } from "node:path";

import type { ImportRef } from "../symbols.js";
import { dirOf, insideRepo, joinPath, type RepoIndex } from "./repo-index.js";

const JS_EXTENSIONS = [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".json"];
const JS_TO_TS: Record<string, string[]> = {
  ".js": [".ts", ".tsx"],
  ".jsx": [".tsx"],
  ".mjs": [".mts"],
  ".cjs": [".cts"],
};

function jsFile(index: RepoIndex, base: string): string | undefined {
  if (index.paths.has(base)) return base;
  const ext = posix.extname(base);
  for (const to of JS_TO_TS[ext] ?? []) {
    const c = base.slice(0, -ext.length) + to;
    if (index.paths.has(c)) return c;
  }
  for (const e of JS_EXTENSIONS) if (index.paths.has(base + e)) return base + e;
  for (const e of JS_EXTENSIONS) if (index.paths.has(`${base}/index${e}`)) return `${base}/index${e}`;
  return undefined;
}

export function resolveJs(index: RepoIndex, from: string, ref: ImportRef): string[] {
  const spec = ref.spec.split(/[?#]/)[0]!;
  if (spec.startsWith("./") || spec.startsWith("../") || spec === "." || spec === "..") {
    const base = joinPath(dirOf(from), spec);
    if (!insideRepo(base)) return [];
    const f = jsFile(index, base);
    return f ? [f] : [];
  }
  // Common `@/x` and `~/x` aliases point at a `src/` directory above the importer.
  const alias = /^[@~]\/(.+)$/.exec(spec);
  if (alias) {
    let dir = dirOf(from);
    for (;;) {
      const f = jsFile(index, joinPath(dir, "src", alias[1]!));
      if (f) return [f];
      if (dir === "") break;
      dir = dirOf(dir);
    }
  }
  return [];
}
