// Leakage audit: the ranking code must never name the gold files or reach into the evaluation.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

import { AppError } from "../../src/errors.js";

/** The folders whose code ranks files, relative to the repository root. */
export const RANKING_DIRS = [
  "src/retrieval",
  "src/graph",
  "src/repo",
  "src/storage",
  "src/text",
  "src/embeddings",
  "src/vectors",
  "src/cards",
  "src/scoring",
] as const;

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|sql)$/;

export interface AuditProblem {
  /** Repo-relative POSIX path. */
  file: string;
  line: number;
  rule: "gold-identifier" | "eval-import" | "dev-data";
  text: string;
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir).sort()) {
    if (name === "node_modules") continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* walk(p);
    else if (SOURCE.test(name)) yield p;
  }
}

/** Words of an identifier: `goldFiles` → gold, files; `GOLD_SET` → gold, set. */
const words = (id: string) =>
  id
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[\s_$]+/);

const IMPORT = [
  /\bfrom\s*["']([^"']+)["']/g,
  /\bimport\s*["']([^"']+)["']/g,
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  /\brequire\s*\(\s*["']([^"']+)["']\s*\)/g,
];

/** True when an import specifier written in `file` lands in the evaluation code (bench/ or its build). */
function isEvalImport(root: string, file: string, spec: string): boolean {
  if (spec.startsWith(".")) {
    const rel = relative(root, resolve(dirname(file), spec))
      .split(sep)
      .join("/");
    return /^(dist\/)?(src\/)?(bench|eval)(\/|\.|$)/.test(rel);
  }
  return /(^|\/)(eval|bench)\//.test(spec) && !spec.startsWith("node:");
}

/**
 * Scans every source file under `dirs` (relative to `root`) and lists each line that names `gold` or
 * `golden` as an identifier or word (any case, inside compound names too), imports from the evaluation
 * code, or mentions the dev task files. An empty list means the audit passes. A missing folder is an error,
 * so a misspelt path cannot pass by scanning nothing.
 */
export function auditRankingCode(opts: { root?: string; dirs?: readonly string[] } = {}): AuditProblem[] {
  const root = resolve(opts.root ?? process.cwd());
  const problems: AuditProblem[] = [];
  for (const d of opts.dirs ?? RANKING_DIRS) {
    const dir = resolve(root, d);
    let ok = false;
    try {
      ok = statSync(dir).isDirectory();
    } catch {
      ok = false;
    }
    if (!ok) throw new AppError("NOT_FOUND", `leakage audit: ${dir} is not a folder; fix the list of ranking folders`);
    for (const file of walk(dir)) {
      const rel = relative(root, file).split(sep).join("/");
      readFileSync(file, "utf8")
        .split("\n")
        .forEach((text, i) => {
          const at = { file: rel, line: i + 1, text: text.trim() };
          const ids = text.match(/[A-Za-z_$][\w$]*/g) ?? [];
          if (ids.some((id) => words(id).some((w) => w === "gold" || w === "golden"))) {
            problems.push({ ...at, rule: "gold-identifier" });
          }
          for (const re of IMPORT) {
            for (const m of text.matchAll(re)) {
              if (m[1] && isEvalImport(root, file, m[1])) problems.push({ ...at, rule: "eval-import" });
            }
          }
          if (/swebench-verified-dev|multi-swe-dev|shared\/data\//.test(text))
            problems.push({ ...at, rule: "dev-data" });
        });
    }
  }
  return problems;
}

/** One line per problem, `file:line: rule: text`. */
export function formatAuditProblems(problems: readonly AuditProblem[]): string {
  return problems.map((p) => `${p.file}:${p.line}: ${p.rule}: ${p.text}`).join("\n");
}
