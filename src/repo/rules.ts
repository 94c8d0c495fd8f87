// Rule documents for coding agents (AGENTS.md, CLAUDE.md, .cursorrules, .cursor/rules/*.mdc, …) and where each applies.
import ignore from "ignore";
import { z } from "zod";

import { baseName } from "./languages.js";
import { readInsideRoot, realRootOf } from "./scan.js";

export const RuleKind = z.enum(["agents", "claude", "gemini", "cursorrules", "cursor-mdc", "copilot", "contributing"]);
export type RuleKind = z.infer<typeof RuleKind>;

export const RuleDoc = z.object({
  /** Repo-relative path of the rule file. */
  path: z.string(),
  kind: RuleKind,
  /** Directory the rule is scoped to ("" = the whole repository). */
  dir: z.string(),
  /** Glob patterns (relative to `dir`) that select the files an .mdc / .instructions.md rule applies to. */
  globs: z.array(z.string()).optional(),
  alwaysApply: z.boolean(),
  description: z.string().optional(),
  /** The rule text without front matter. */
  body: z.string(),
});
export type RuleDoc = z.infer<typeof RuleDoc>;

const dirOf = (p: string) => (p.includes("/") ? p.slice(0, p.lastIndexOf("/")) : "");

/** The kind of rule document a repo path is, or undefined. */
export function ruleKindOf(path: string): RuleKind | undefined {
  const base = baseName(path);
  const upper = base.toUpperCase();
  if (upper === "AGENTS.MD" || upper === "AGENT.MD") return "agents";
  if (upper === "CLAUDE.MD" || upper === "CLAUDE.LOCAL.MD") return "claude";
  if (upper === "GEMINI.MD") return "gemini";
  if (base === ".cursorrules" || base === ".windsurfrules" || base === ".clinerules") return "cursorrules";
  if (/(^|\/)\.cursor\/rules\/(.+\/)?[^/]+\.mdc$/.test(path)) return "cursor-mdc";
  if (/(^|\/)\.github\/copilot-instructions\.md$/.test(path)) return "copilot";
  if (/(^|\/)\.github\/instructions\/[^/]+\.instructions\.md$/.test(path)) return "copilot";
  if (/^CONTRIBUTING(\.(md|rst|txt))?$/i.test(base)) return "contributing";
  return undefined;
}

/** The directory a rule file governs: its own, or the project directory above `.cursor/`, `.github/`, `docs/`. */
function scopeDir(path: string, kind: RuleKind): string {
  const dir = dirOf(path);
  if (kind === "cursor-mdc") return path.slice(0, Math.max(0, path.indexOf(".cursor/rules/") - 1));
  if (kind === "copilot") return path.slice(0, Math.max(0, path.indexOf(".github/") - 1));
  if (kind === "contributing") {
    const b = baseName(dir);
    if (b === ".github" || b === "docs") return dirOf(dir);
  }
  return dir;
}

interface FrontMatter {
  fields: Record<string, string | string[]>;
  body: string;
}

const unquote = (s: string) => s.trim().replace(/^(["'])([\s\S]*)\1$/, "$2");

/** Parses a small YAML front matter block: `key: value`, `key: [a, b]`, `key: a, b` and `- item` lists. */
export function parseFrontMatter(text: string): FrontMatter {
  const m = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return { fields: {}, body: text };
  const fields: Record<string, string | string[]> = {};
  let listKey: string | undefined;
  for (const raw of m[1]!.split(/\r?\n/)) {
    if (/^\s*(#|$)/.test(raw)) continue;
    const item = /^\s*-\s*(.*)$/.exec(raw);
    if (item && listKey) {
      const prev = fields[listKey];
      fields[listKey] = [...(Array.isArray(prev) ? prev : []), unquote(item[1]!)];
      continue;
    }
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(raw);
    if (!kv) continue;
    const key = kv[1]!;
    const value = kv[2]!.trim();
    listKey = value === "" ? key : undefined;
    if (value === "") fields[key] = [];
    else if (value.startsWith("[") && value.endsWith("]")) {
      fields[key] = value
        .slice(1, -1)
        .split(",")
        .map(unquote)
        .filter((v) => v !== "");
    } else fields[key] = unquote(value);
  }
  return { fields, body: text.slice(m[0].length) };
}

function globList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : value.split(",");
  return list.map(unquote).filter((g) => g !== "");
}

/** Builds the rule record for a rule file's text; undefined when the path is not a rule document. */
export function parseRule(path: string, content: string): RuleDoc | undefined {
  const kind = ruleKindOf(path);
  if (!kind) return undefined;
  const dir = scopeDir(path, kind);
  const fm = parseFrontMatter(content);
  const isScoped = kind === "cursor-mdc" || path.endsWith(".instructions.md");
  if (!isScoped) return { path, kind, dir, alwaysApply: false, body: content };
  const globs = globList(fm.fields.globs ?? fm.fields.applyTo);
  const always = String(fm.fields.alwaysApply ?? "").toLowerCase() === "true";
  const description =
    typeof fm.fields.description === "string" && fm.fields.description ? fm.fields.description : undefined;
  return {
    path,
    kind,
    dir,
    ...(globs.length > 0 ? { globs } : {}),
    alwaysApply: always,
    ...(description ? { description } : {}),
    body: fm.body,
  };
}

/** Finds and reads every rule document among `paths` (repo-relative, under `root`). Unreadable ones are skipped. */
export function findRules(root: string, paths: readonly string[]): RuleDoc[] {
  const out: RuleDoc[] = [];
  const realRoot = realRootOf(root);
  for (const p of paths) {
    if (!ruleKindOf(p)) continue;
    // A rule file that vanished, cannot be read or became a link is simply not a rule.
    const text = readInsideRoot(realRoot, p);
    if (text === undefined) continue;
    try {
      const rule = parseRule(p, text);
      if (rule) out.push(rule);
    } catch {
      // Not a rule either.
    }
  }
  return out;
}

/**
 * Compiles a rule's scope into a predicate over repo paths (compile once, test many paths). Directory rules
 * (AGENTS.md, CLAUDE.md, .cursorrules) apply to their directory and below; CONTRIBUTING and
 * copilot-instructions to the whole project; an .mdc rule applies everywhere under its project with
 * `alwaysApply: true`, else to paths matching its globs (gitignore semantics: `*.ts` matches at any depth,
 * `src/**` is anchored); an .mdc with neither is applied only on request (never here).
 */
export function ruleMatcher(rule: RuleDoc): (path: string) => boolean {
  const inDir = (path: string) => rule.dir === "" || path === rule.dir || path.startsWith(rule.dir + "/");
  const scoped = rule.kind === "cursor-mdc" || rule.path.endsWith(".instructions.md");
  if (!scoped || rule.alwaysApply) return inDir;
  if (!rule.globs || rule.globs.length === 0) return () => false;
  const globs = ignore().add(rule.globs);
  return (path) => {
    if (!inDir(path)) return false;
    const rel = rule.dir === "" ? path : path.slice(rule.dir.length + 1);
    if (rel === "") return false;
    try {
      return globs.ignores(rel);
    } catch {
      return false;
    }
  };
}

/** Whether a rule governs a repo path (see `ruleMatcher`; prefer it when testing many paths). */
export function ruleAppliesTo(rule: RuleDoc, path: string): boolean {
  return ruleMatcher(rule)(path);
}
