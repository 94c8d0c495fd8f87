// test → covered-file links: the non-test files a test imports, and the file it is named after.
import { z } from "zod";

import { baseName, detectLanguage, isTestPath, type LanguageId } from "../languages.js";
import { compareStrings, dirOf, push } from "./repo-index.js";
import type { ImportEdge } from "./resolve.js";

export const TestCover = z.object({
  test: z.string(),
  target: z.string(),
  /** `import`: the test imports the target; `name`: the test is named after it (test_foo.py → foo.py). */
  via: z.enum(["import", "name"]),
});
export type TestCover = z.infer<typeof TestCover>;

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
  return out.sort((a, b) => (a.test === b.test ? compareStrings(a.target, b.target) : compareStrings(a.test, b.test)));
}
