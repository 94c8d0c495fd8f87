// Import resolution to repo files per language, and test → covered-file links. Pure functions over paths.
import { posix } from "node:path";

import { z } from "zod";

import { baseName, detectLanguage, isTestPath, type LanguageId } from "./languages.js";
import type { Manifests } from "./manifests.js";
import type { ImportRef } from "./symbols.js";

export const ImportEdge = z.object({ from: z.string(), to: z.string() });
export type ImportEdge = z.infer<typeof ImportEdge>;

export const TestCover = z.object({
  test: z.string(),
  target: z.string(),
  /** `import`: the test imports the target; `name`: the test is named after it (test_foo.py → foo.py). */
  via: z.enum(["import", "name"]),
});
export type TestCover = z.infer<typeof TestCover>;

/** Resolves one file's import to the repo files it denotes (empty for external modules). */
export type ImportResolver = (from: string, ref: ImportRef) => string[];

interface RepoIndex {
  paths: ReadonlySet<string>;
  byBase: Map<string, string[]>;
  byDir: Map<string, string[]>;
  pyModules: Map<string, string[]>;
  manifests: Manifests;
}

const dirOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");
/** Joins and normalizes repo paths; "" is the repo root. */
function joinPath(...parts: string[]): string {
  const joined = parts.filter((p) => p !== "").join("/");
  if (joined === "") return "";
  const n = posix.normalize(joined);
  return n === "." ? "" : n.replace(/\/$/, "");
}
const insideRepo = (p: string) => p !== ".." && !p.startsWith("../") && !p.startsWith("/");

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
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

function buildIndex(paths: readonly string[], manifests: Manifests): RepoIndex {
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
function nearest(from: string, candidates: readonly string[]): string | undefined {
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
function bySuffix(index: RepoIndex, tail: string): string[] {
  return (index.byBase.get(baseName(tail)) ?? []).filter((p) => p === tail || p.endsWith("/" + tail));
}

// ---- Python -------------------------------------------------------------------------------------

function pyFile(index: RepoIndex, modPath: string): string | undefined {
  for (const c of [`${modPath}.py`, `${modPath}/__init__.py`, `${modPath}.pyi`, `${modPath}/__init__.pyi`]) {
    if (index.paths.has(c)) return c;
  }
  return undefined;
}

function pyAbsolute(index: RepoIndex, from: string, dotted: string): string | undefined {
  const hits = index.pyModules.get(dotted);
  if (hits && hits.length > 0) return nearest(from, hits);
  const rel = dotted.replace(/\./g, "/");
  for (const prefix of ["", "src", "lib", "python"]) {
    const f = pyFile(index, joinPath(prefix, rel));
    if (f) return f;
  }
  return undefined;
}

/**
 * `import a.b` → the module; `from m import x, y` → the submodules x, y where they exist, and the module m
 * itself for any name that is not a submodule (an attribute of m). Relative specs count leading dots.
 */
function resolvePython(index: RepoIndex, from: string, ref: ImportRef): string[] {
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

// ---- JavaScript / TypeScript --------------------------------------------------------------------

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

function resolveJs(index: RepoIndex, from: string, ref: ImportRef): string[] {
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

// ---- Go -----------------------------------------------------------------------------------------

function goPackageFiles(index: RepoIndex, dir: string): string[] {
  return (index.byDir.get(dir) ?? []).filter((p) => p.endsWith(".go") && !p.endsWith("_test.go"));
}

function resolveGo(index: RepoIndex, _from: string, ref: ImportRef): string[] {
  const spec = ref.spec;
  let best: { dir: string; mod: string } | undefined;
  for (const [dir, mod] of Object.entries(index.manifests.goModules)) {
    if ((spec === mod || spec.startsWith(mod + "/")) && (!best || mod.length > best.mod.length)) best = { dir, mod };
  }
  if (best) return goPackageFiles(index, joinPath(best.dir, spec.slice(best.mod.length + 1)));
  // No go.mod matched: a non-standard import path may still end in a package directory of this repo.
  if (!spec.split("/")[0]!.includes(".")) return [];
  const parts = spec.split("/");
  for (let i = 1; i < parts.length; i++) {
    const tail = parts.slice(i).join("/");
    for (const dir of index.byDir.keys()) {
      if (dir === tail || dir.endsWith("/" + tail)) {
        const files = goPackageFiles(index, dir);
        if (files.length > 0) return files;
      }
    }
  }
  return [];
}

// ---- Rust ---------------------------------------------------------------------------------------

interface RustCrate {
  dir: string;
  src: string;
  name: string | undefined;
}

function rustCrateOf(index: RepoIndex, from: string): RustCrate {
  let dir = dirOf(from);
  for (;;) {
    if (index.paths.has(joinPath(dir, "Cargo.toml"))) {
      return { dir, src: joinPath(dir, "src"), name: index.manifests.rustCrates[dir] };
    }
    if (dir === "") break;
    dir = dirOf(dir);
  }
  const at = from.lastIndexOf("/src/");
  const src = from.startsWith("src/") ? "src" : at >= 0 ? from.slice(0, at + 4) : "src";
  return { dir: dirOf(src), src, name: undefined };
}

/** Module path of a file inside its crate's src/ (lib.rs → [], a/mod.rs → [a], a/b.rs → [a, b]). */
function rustModuleOf(crate: RustCrate, from: string): string[] | undefined {
  if (!from.startsWith(crate.src + "/")) return undefined;
  const rel = from.slice(crate.src.length + 1).replace(/\.rs$/, "");
  if (rel === "lib" || rel === "main") return [];
  const segs = rel.split("/");
  if (segs[segs.length - 1] === "mod") segs.pop();
  return segs;
}

function rustModuleFile(index: RepoIndex, crate: RustCrate, segs: readonly string[]): string | undefined {
  if (segs.length === 0) {
    for (const root of ["lib.rs", "main.rs"])
      if (index.paths.has(joinPath(crate.src, root))) return joinPath(crate.src, root);
    return undefined;
  }
  const base = joinPath(crate.src, ...segs);
  for (const c of [`${base}.rs`, `${base}/mod.rs`]) if (index.paths.has(c)) return c;
  return undefined;
}

/** The file of the longest prefix of `segs` (at least `minK` segments; 0 is the crate root) that is a module. */
function rustLongest(index: RepoIndex, crate: RustCrate, segs: readonly string[], minK: number): string | undefined {
  for (let k = segs.length; k >= minK; k--) {
    const f = rustModuleFile(index, crate, segs.slice(0, k));
    if (f) return f;
  }
  return undefined;
}

function resolveRust(index: RepoIndex, from: string, ref: ImportRef): string[] {
  const crate = rustCrateOf(index, from);
  const mod = /^mod\s+(\w+)$/.exec(ref.spec);
  if (mod) {
    const stem = baseName(from).replace(/\.rs$/, "");
    const dir = ["lib", "main", "mod"].includes(stem) ? dirOf(from) : joinPath(dirOf(from), stem);
    for (const c of [joinPath(dir, `${mod[1]}.rs`), joinPath(dir, mod[1]!, "mod.rs")])
      if (index.paths.has(c)) return [c];
    return [];
  }
  const parts = ref.spec.split("::").filter(Boolean);
  const here = rustModuleOf(crate, from);
  // `minK`: how many leading segments must name a module of this crate (an item may follow them).
  let base: string[] | undefined;
  let minK = 0;
  const head = parts[0];
  if (head === "crate" || (head !== undefined && head === crate.name)) base = parts.slice(1);
  else if (head === "self" && here) {
    base = [...here, ...parts.slice(1)];
    minK = here.length + 1;
  } else if (head === "super" && here) {
    let i = 0;
    const segs = [...here];
    while (parts[i] === "super") {
      segs.pop();
      i++;
    }
    base = [...segs, ...parts.slice(i)];
    minK = segs.length;
  } else if (here) {
    // 2018 uniform paths: a child module of the current one; anything else is an external crate.
    base = [...here, ...parts];
    minK = here.length + 1;
  }
  if (!base) return [];
  const out = new Set<string>();
  for (const n of ref.names ?? []) {
    if (n === "*" || n === "self") continue;
    const f = rustLongest(index, crate, [...base, ...n.split("::")], minK);
    if (f) out.add(f);
  }
  const f = rustLongest(index, crate, base, minK);
  if (f) out.add(f);
  return [...out];
}

// ---- Java (and other JVM languages) -------------------------------------------------------------

const JVM_EXTENSIONS = [".java", ".kt", ".scala"];

function resolveJvm(index: RepoIndex, from: string, ref: ImportRef): string[] {
  const parts = ref.spec.split(".");
  if ((ref.names ?? []).includes("*")) {
    const tail = parts.join("/");
    const out: string[] = [];
    for (const [dir, files] of index.byDir) {
      if (dir !== tail && !dir.endsWith("/" + tail)) continue;
      for (const f of files) if (JVM_EXTENSIONS.some((e) => f.endsWith(e))) out.push(f);
    }
    if (out.length > 0) return out;
  }
  // a.b.C, or a.b.C.member / a.b.C.Inner: drop trailing segments until a class file matches.
  for (let k = parts.length; k >= Math.max(1, parts.length - 2); k--) {
    const tail = parts.slice(0, k).join("/");
    for (const e of JVM_EXTENSIONS) {
      const hit = nearest(from, bySuffix(index, tail + e));
      if (hit) return [hit];
    }
  }
  return [];
}

// ---- C / C++ ------------------------------------------------------------------------------------

function resolveC(index: RepoIndex, from: string, ref: ImportRef): string[] {
  const system = ref.spec.startsWith("<");
  const spec = system ? ref.spec.slice(1, -1) : ref.spec;
  if (!system) {
    const rel = joinPath(dirOf(from), spec);
    if (insideRepo(rel) && index.paths.has(rel)) return [rel];
  }
  const hit = nearest(from, bySuffix(index, posix.normalize(spec).replace(/^(\.\.\/)+/, "")));
  return hit ? [hit] : [];
}

// ---- Ruby, shell --------------------------------------------------------------------------------

function resolveRuby(index: RepoIndex, from: string, ref: ImportRef): string[] {
  const withExt = ref.spec.endsWith(".rb") ? ref.spec : `${ref.spec}.rb`;
  if (ref.spec.startsWith(".")) {
    const p = joinPath(dirOf(from), withExt);
    return insideRepo(p) && index.paths.has(p) ? [p] : [];
  }
  for (const c of [joinPath("lib", withExt), withExt]) if (index.paths.has(c)) return [c];
  const hit = nearest(from, bySuffix(index, `lib/${withExt}`));
  return hit ? [hit] : [];
}

function resolveShell(index: RepoIndex, from: string, ref: ImportRef): string[] {
  for (const c of [joinPath(dirOf(from), ref.spec), posix.normalize(ref.spec)]) {
    if (insideRepo(c) && index.paths.has(c)) return [c];
  }
  return [];
}

const RESOLVERS: Partial<Record<LanguageId, (index: RepoIndex, from: string, ref: ImportRef) => string[]>> = {
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
  return edges.sort((a, b) => (a.from === b.from ? cmp(a.to, b.to) : cmp(a.from, b.from)));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// ---- test_covers --------------------------------------------------------------------------------

const CODE_EXT: Partial<Record<LanguageId, string[]>> = {
  python: [".py"],
  typescript: [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx"],
  tsx: [".tsx", ".ts", ".jsx", ".js"],
  javascript: [".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx"],
  go: [".go"],
  rust: [".rs"],
  java: [".java"],
  kotlin: [".kt", ".java"],
  scala: [".scala", ".java"],
  c: [".c", ".h"],
  cpp: [".cc", ".cpp", ".cxx", ".c", ".hpp", ".hh", ".h"],
  ruby: [".rb"],
  csharp: [".cs"],
  php: [".php"],
  swift: [".swift"],
};

/** Base names a test file is named after: test_foo.py → foo.py, FooTest.java → Foo.java, foo.test.ts → foo.ts… */
function subjectNames(test: string, language: LanguageId): string[] {
  const base = baseName(test);
  const dot = base.indexOf(".");
  let stem = dot > 0 ? base.slice(0, dot) : base;
  const full = base.slice(0, base.lastIndexOf("."));
  if (/\.(test|spec)$/.test(full)) stem = full.replace(/\.(test|spec)$/, "");
  else {
    const stripped = stem
      .replace(/^test_/, "")
      .replace(/_(test|tests|spec|unittest)$/, "")
      .replace(/(Tests?|IT|Spec|Suite)$/, "")
      .replace(/^Test(?=[A-Z])/, "");
    if (stripped !== stem) stem = stripped;
    else if (language !== "rust") return []; // Rust tests/foo.rs is named after foo.rs without an affix.
  }
  if (!stem) return [];
  return (CODE_EXT[language] ?? []).map((e) => stem + e);
}

const NEUTRAL_DIRS = new Set(["test", "tests", "__tests__", "spec", "src", "main", "lib"]);

/** Shared directory segments at both ends (ignoring test/src/main markers), so mirrors of test trees score high. */
function mirrorScore(test: string, candidate: string): number {
  const a = dirOf(test)
    .split("/")
    .filter((s) => s && !NEUTRAL_DIRS.has(s));
  const b = dirOf(candidate)
    .split("/")
    .filter((s) => s && !NEUTRAL_DIRS.has(s));
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  return (dirOf(test) === dirOf(candidate) ? 100 : 0) + pre + suf;
}

/**
 * Links each test file to what it covers: every non-test repo file it imports (`via: "import"`), plus the
 * file it is named after when one exists (`via: "name"`; best mirror of the test's directory, same
 * directory first; a name shared by unrelated files with no directory in common is left out).
 */
export function testCovers(paths: readonly string[], importsResolved: readonly ImportEdge[]): TestCover[] {
  const langs = new Map<string, LanguageId | null>();
  const langOf = (p: string) => {
    if (!langs.has(p)) langs.set(p, detectLanguage(p));
    return langs.get(p)!;
  };
  const isTest = (p: string) => isTestPath(p, langOf(p));
  const byBase = new Map<string, string[]>();
  for (const p of paths) if (!isTest(p)) push(byBase, baseName(p), p);

  const out: TestCover[] = [];
  const seen = new Set<string>();
  const add = (test: string, target: string, via: TestCover["via"]) => {
    const key = `${test}\0${target}`;
    if (seen.has(key) || test === target) return;
    seen.add(key);
    out.push({ test, target, via });
  };
  for (const e of importsResolved) if (isTest(e.from) && !isTest(e.to)) add(e.from, e.to, "import");
  for (const test of paths) {
    const lang = langOf(test);
    if (!lang || !isTest(test)) continue;
    const candidates = subjectNames(test, lang).flatMap((n) => byBase.get(n) ?? []);
    if (candidates.length === 0) continue;
    let best: string | undefined;
    let bestScore = -1;
    let tied = false;
    for (const c of candidates) {
      const s = mirrorScore(test, c);
      if (s > bestScore) {
        best = c;
        bestScore = s;
        tied = false;
      } else if (s === bestScore) tied = true;
    }
    if (best && (bestScore > 0 || !tied)) add(test, best, "name");
  }
  return out.sort((a, b) => (a.test === b.test ? cmp(a.target, b.target) : cmp(a.test, b.test)));
}
