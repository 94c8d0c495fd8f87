// The index every per-language resolver reads: repo paths by base name, by directory and (Python) by module
// name, plus the manifest facts; and the path helpers they share. Pure functions over paths.
import { posix } from "node:path";

import { baseName } from "../languages.js";
import type { Manifests } from "../manifests.js";
import type { ImportRef } from "../symbols.js";

/** Resolves one import of `from` against the index to the repo files it denotes (empty for external modules). */
export type LanguageResolver = (index: RepoIndex, from: string, ref: ImportRef) => string[];

export interface RepoIndex {
  paths: ReadonlySet<string>;
  byBase: Map<string, string[]>;
  byDir: Map<string, string[]>;
  pyModules: Map<string, string[]>;
  manifests: Manifests;
}

export const dirOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");
/** Joins and normalizes repo paths; "" is the repo root. */
export function joinPath(...parts: string[]): string {
  const joined = parts.filter((p) => p !== "").join("/");
  if (joined === "") return "";
  const n = posix.normalize(joined);
  return n === "." ? "" : n.replace(/\/$/, "");
}
export const insideRepo = (p: string) => p !== ".." && !p.startsWith("../") && !p.startsWith("/");

export function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Dotted Python module name of a file relative to its source root (the first ancestor without __init__.py). */
function pythonModuleName(path: string, paths: ReadonlySet<string>): string | undefined {
  const m = /^(.*?)(?:\/__init__)?\.pyi?$/.exec(path);
  if (!m) return undefined;
  const isInit = /(^|\/)__init__\.pyi?$/.test(path);
  const parts = (isInit ? dirOf(path) : m[1]!).split("/").filter(Boolean);
  // Walk up while the containing directory is a package.
  let rootLen = parts.length - 1;
  while (rootLen > 0 && paths.has(parts.slice(0, rootLen).join("/") + "/__init__.py")) rootLen--;
  const name = parts.slice(rootLen).join(".");
  return name || undefined;
}

export function buildIndex(paths: readonly string[], manifests: Manifests): RepoIndex {
  const set = new Set(paths);
  const index: RepoIndex = { paths: set, byBase: new Map(), byDir: new Map(), pyModules: new Map(), manifests };
  for (const p of paths) {
    push(index.byBase, baseName(p), p);
    push(index.byDir, dirOf(p), p);
    if (p.endsWith(".py") || p.endsWith(".pyi")) {
      const mod = pythonModuleName(p, set);
      if (mod) push(index.pyModules, mod, p);
    }
  }
  return index;
}

/** Number of leading directory segments two paths share. */
function sharedPrefix(a: string, b: string): number {
  const x = dirOf(a).split("/");
  const y = dirOf(b).split("/");
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n] && x[n] !== "") n++;
  return n;
}

/** The candidate closest to `from` (most shared leading directories, then shortest path). */
export function nearest(from: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const c of candidates) {
    const s = sharedPrefix(from, c);
    if (s > bestScore || (s === bestScore && best !== undefined && c.length < best.length)) {
      best = c;
      bestScore = s;
    }
  }
  return best;
}

/** Files whose path is `tail` or ends with `/tail`. */
export function bySuffix(index: RepoIndex, tail: string): string[] {
  return (index.byBase.get(baseName(tail)) ?? []).filter((p) => p === tail || p.endsWith("/" + tail));
}

export const compareStrings = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
