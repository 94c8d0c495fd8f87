// Python imports: absolute dotted modules (found by module name, then under src/, lib/, python/) and relative ones.
import type { ImportRef } from "../symbols.js";
import { dirOf, joinPath, nearest, type RepoIndex } from "./repo-index.js";

function pyFile(index: RepoIndex, modPath: string): string | undefined {
  for (const c of [`${modPath}.py`, `${modPath}/__init__.py`, `${modPath}.pyi`, `${modPath}/__init__.pyi`]) {
    if (index.paths.has(c)) return c;
  }
  return undefined;
}

/**
 * Per repository index: a dotted name no module is named by, resolved under the source prefixes. It depends on the
 * name alone, and `from m import a, b, c` asks for every name (mostly attributes, not submodules) from file after file.
 */
const byPrefix = new WeakMap<RepoIndex, Map<string, string | undefined>>();

function pyAbsolute(index: RepoIndex, from: string, dotted: string): string | undefined {
  const hits = index.pyModules.get(dotted);
  if (hits && hits.length > 0) return nearest(from, hits);
  let cache = byPrefix.get(index);
  if (!cache) byPrefix.set(index, (cache = new Map()));
  if (cache.has(dotted)) return cache.get(dotted);
  const rel = dotted.replace(/\./g, "/");
  let found: string | undefined;
  for (const prefix of ["", "src", "lib", "python"]) {
    found = pyFile(index, joinPath(prefix, rel));
    if (found) break;
  }
  cache.set(dotted, found);
  return found;
}

/**
 * `import a.b` → the module; `from m import x, y` → the submodules x, y where they exist, and the module m
 * itself for any name that is not a submodule (an attribute of m). Relative specs count leading dots.
 */
export function resolvePython(index: RepoIndex, from: string, ref: ImportRef): string[] {
  const names = ref.names ?? [];
  const dots = /^\.*/.exec(ref.spec)![0].length;
  let base = "";
  if (dots > 0) {
    base = dirOf(from);
    for (let i = 1; i < dots; i++) base = dirOf(base);
  }
  const rest = ref.spec.slice(dots);
  const module = (dotted: string): string | undefined =>
    dots > 0
      ? pyFile(index, joinPath(base, dotted.replace(/\./g, "/")))
      : dotted
        ? pyAbsolute(index, from, dotted)
        : undefined;
  const out: string[] = [];
  let needModule = names.length === 0;
  for (const n of names) {
    const sub = n === "*" ? undefined : module(rest ? `${rest}.${n}` : n);
    if (sub) out.push(sub);
    else needModule = true;
  }
  if (needModule) {
    const mod = module(rest);
    if (mod) out.push(mod);
  }
  return out;
}
