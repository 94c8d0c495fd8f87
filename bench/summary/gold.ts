// `memcards eval summary --gold DIR`: every line of the page compress_context returns (its sections and its recent
// messages) scored against gold facts labelled on the transcript by people who never saw a summary
// (test/fixtures/summary/gold/README.md), beside a baseline: the transcript's last messages cut to the same size.
//
// Matching (goldMatches): a line states a fact when, after lower-casing, dropping backquotes and quotes and
// collapsing whitespace, it contains one of the fact's `match` strings (three characters or more). Fallback: the
// line holds at least 60% (and at least three) of the content tokens of the fact's sentence (`tokens` of
// truth.ts: words of three or more characters, no stop words, no hex runs).
// A line is
// - stale when every fact it states was superseded (`current: false`), or it reports as open (Blockers, Next Steps,
//   or the word "unresolved") an error the session resolved and no open fact;
// - wrong when it lists as changed (Files Modified, without the word reverted/undone/restored) a file whose change
//   the gold says was undone (a `file_reverted` fact and no current `file_changed` fact for it);
// - right when it states a fact and is neither; precision = right / lines.
// Recall counts the facts still current at the end (and the goal): found when some line of the page states it;
// a section's recall counts the facts of its kinds (SECTION_KINDS) stated inside that section.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { z } from "zod";

import type { Turn } from "../../src/conversation/schema.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { countTokens } from "../../src/text/tokens.js";
import { compressForEval } from "../compress/run.js";
import { readRaw, sourceFormat, tokens } from "./truth.js";

export const FactKind = z.enum([
  "goal",
  "instruction",
  "decision",
  "error",
  "file_changed",
  "file_reverted",
  "state",
  "open_item",
]);
export type FactKind = z.infer<typeof FactKind>;

export const HumanClass = z.enum(["instruction", "request", "answer", "problem", "chitchat", "pasted", "not_human"]);
export type HumanClass = z.infer<typeof HumanClass>;

export const GoldFact = z.object({
  id: z.string(),
  kind: FactKind,
  text: z.string(),
  match: z.array(z.string()).default([]),
  evidence: z.string().default(""),
  resolved: z.boolean().optional(),
  resolved_evidence: z.string().optional(),
  current: z.boolean().default(true),
  /** Adjudicated files: only one labeller gave it (kept because its evidence is in the transcript). */
  single: z.boolean().optional(),
  labellers: z.array(z.string()).optional(),
});
export type GoldFact = z.infer<typeof GoldFact>;

export const GoldTurn = z.object({
  index: z.number().int(),
  class: HumanClass,
  instruction_sentences: z.array(z.string()).default([]),
  /** Adjudicated files: the classes the two labellers gave when they differ. */
  disagree: z.array(HumanClass).optional(),
});
export type GoldTurn = z.infer<typeof GoldTurn>;

export const GoldFile = z.object({
  session: z.string(),
  labeller: z.string().optional(),
  labellers: z.array(z.string()).optional(),
  goal: z.object({ text: z.string(), match: z.array(z.string()).default([]) }).optional(),
  facts: z.array(GoldFact),
  human_turns: z.array(GoldTurn).default([]),
});
export type GoldFile = z.infer<typeof GoldFile>;

/** The facts a page is scored on: the goal as a fact of its own, then the labelled facts. */
export function goldFacts(g: GoldFile): GoldFact[] {
  const goal: GoldFact[] = g.goal
    ? [{ id: "goal", kind: "goal", text: g.goal.text, match: g.goal.match, evidence: "", current: true }]
    : [];
  return [...goal, ...g.facts];
}

/** Lower case, backquotes and quotes dropped, whitespace collapsed: how lines and match strings are compared. */
export function normalizeMatch(s: string): string {
  return s
    .toLowerCase()
    .replace(/[`"“”‘’']/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** Whether a summary line states a fact (the rule in the module header). */
export function goldMatches(line: string, f: GoldFact, lineTokens?: ReadonlySet<string>): boolean {
  const l = normalizeMatch(line);
  for (const m of f.match) {
    const n = normalizeMatch(m);
    if (n.length >= 3 && l.includes(n)) return true;
  }
  const want = [...new Set(tokens(f.text))];
  if (want.length < 3) return false;
  const have = lineTokens ?? new Set(tokens(line));
  const shared = want.filter((w) => have.has(w)).length;
  return shared >= 3 && shared >= 0.6 * want.length;
}

export const PAGE_SECTIONS = [
  "Session Intent",
  "User Constraints",
  "Files Modified",
  "Decisions Made",
  "Completed",
  "Failures",
  "Metrics",
  "Current State",
  "Blockers / Open Questions",
  "Next Steps",
  "Recent Messages (verbatim)",
] as const;

/** The fact kinds a section is meant to carry: its recall counts those facts stated inside it. */
export const SECTION_KINDS: Record<string, FactKind[]> = {
  "Session Intent": ["goal"],
  "User Constraints": ["instruction"],
  "Files Modified": ["file_changed", "file_reverted"],
  "Decisions Made": ["decision"],
  Completed: ["state"],
  Failures: ["error"],
  "Current State": ["state"],
  "Blockers / Open Questions": ["open_item"],
  "Next Steps": ["open_item"],
};

/** The lines of each `## ` section of a page (notes of omitted lines and empty-section markers left out). */
export function pageSections(markdown: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const nl = part.indexOf("\n");
    const title = (nl < 0 ? part : part.slice(0, nl)).trim();
    const body = nl < 0 ? "" : part.slice(nl + 1);
    const lines = body
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && l !== "_None recorded._" && !/^-?\s*_\(\d+ more /.test(l));
    out.set(title, [...(out.get(title) ?? []), ...lines]);
  }
  return out;
}

const OPEN_SECTIONS = new Set(["Blockers / Open Questions", "Next Steps"]);

export type LineVerdict = "right" | "stale" | "wrong" | "unmatched";

/** The verdict on one line of a section (the rule in the module header), with the facts it states. */
export function judgeLine(
  section: string,
  line: string,
  facts: readonly GoldFact[],
): { verdict: LineVerdict; facts: GoldFact[] } {
  const toks = new Set(tokens(line));
  const hit = facts.filter((f) => goldMatches(line, f, toks));
  if (hit.length === 0) return { verdict: "unmatched", facts: hit };
  if (section === "Files Modified" && !/\b(revert|undone|undo|restored|rejected)/i.test(line)) {
    const reverted = hit.some((f) => f.kind === "file_reverted" && f.current);
    const changed = hit.some((f) => f.kind === "file_changed" && f.current);
    if (reverted && !changed) return { verdict: "wrong", facts: hit };
  }
  if (hit.every((f) => !f.current)) return { verdict: "stale", facts: hit };
  const saysOpen = OPEN_SECTIONS.has(section) || /\bunresolved\b/i.test(line);
  if (saysOpen) {
    const open = hit.some((f) => f.kind === "open_item" || (f.kind === "error" && f.resolved === false));
    if (!open && hit.some((f) => f.kind === "error" && f.resolved === true)) return { verdict: "stale", facts: hit };
  }
  return { verdict: "right", facts: hit };
}

export interface Counts {
  lines: number;
  right: number;
  stale: number;
  wrong: number;
  /** Facts of the section's kinds (current), and of those stated in the section. */
  facts: number;
  found: number;
}

const zero = (): Counts => ({ lines: 0, right: 0, stale: 0, wrong: 0, facts: 0, found: 0 });
const add = (a: Counts, b: Counts): Counts => ({
  lines: a.lines + b.lines,
  right: a.right + b.right,
  stale: a.stale + b.stale,
  wrong: a.wrong + b.wrong,
  facts: a.facts + b.facts,
  found: a.found + b.found,
});

export interface PageScore {
  sections: Record<string, Counts>;
  /** Over the whole page: every line, every current fact. */
  all: Counts;
  byKind: Record<string, { facts: number; found: number }>;
  tokens: number;
  unmatched: Record<string, string[]>;
  missed: string[];
  stale_lines: string[];
  wrong_lines: string[];
}

/** Scores a page (markdown with `## ` sections) against a session's gold facts. */
export function scorePage(markdown: string, gold: GoldFile): PageScore {
  const facts = goldFacts(gold);
  const current = facts.filter((f) => f.current);
  const secs = pageSections(markdown);
  const sections: Record<string, Counts> = {};
  const found = new Set<GoldFact>();
  const unmatched: Record<string, string[]> = {};
  const staleLines: string[] = [];
  const wrongLines: string[] = [];
  let all = zero();
  for (const [title, lines] of secs) {
    const c = zero();
    const inSection = new Set<GoldFact>();
    for (const line of lines) {
      const j = judgeLine(title, line, facts);
      c.lines++;
      if (j.verdict === "right") c.right++;
      if (j.verdict === "stale") {
        c.stale++;
        staleLines.push(`[${title}] ${line.slice(0, 200)}`);
      }
      if (j.verdict === "wrong") {
        c.wrong++;
        wrongLines.push(`[${title}] ${line.slice(0, 200)}`);
      }
      if (j.verdict === "unmatched") (unmatched[title] ??= []).push(line.slice(0, 200));
      for (const f of j.facts) {
        found.add(f);
        inSection.add(f);
      }
    }
    const kinds = SECTION_KINDS[title] ?? [];
    const mine = current.filter((f) => kinds.includes(f.kind));
    c.facts = mine.length;
    c.found = mine.filter((f) => inSection.has(f)).length;
    sections[title] = c;
    all = add(all, { ...c, facts: 0, found: 0 });
  }
  all.facts = current.length;
  all.found = current.filter((f) => found.has(f)).length;
  const byKind: Record<string, { facts: number; found: number }> = {};
  for (const f of current) {
    const k = (byKind[f.kind] ??= { facts: 0, found: 0 });
    k.facts++;
    if (found.has(f)) k.found++;
  }
  return {
    sections,
    all,
    byKind,
    tokens: countTokens(markdown),
    unmatched,
    missed: current.filter((f) => !found.has(f)).map((f) => `${f.kind}: ${f.text.slice(0, 160)}`),
    stale_lines: staleLines,
    wrong_lines: wrongLines,
  };
}

/** The raw text of a turn as a reader of the transcript would see it: words, tool calls, tool output. */
function rawTurn(t: Turn): string {
  const parts: string[] = [];
  if (t.text.trim()) parts.push(`${t.role}: ${t.text.trim()}`);
  for (const c of t.tool_calls) parts.push(`${c.name} ${JSON.stringify(c.input)}`);
  for (const r of t.tool_results) parts.push(r.output);
  return parts.join("\n");
}

/** The baseline: the transcript's last messages, verbatim, cut from the front to `budget` tokens. */
export function lastMessagesPage(turns: readonly Turn[], budget: number): string {
  let text = "";
  for (let i = turns.length - 1; i >= 0; i--) {
    const next = `${rawTurn(turns[i]!)}\n\n${text}`;
    if (countTokens(next) > budget) {
      // Cut the first message that does not fit from its front, by characters, to what is left.
      const raw = rawTurn(turns[i]!);
      let lo = 0;
      let hi = raw.length;
      while (lo < hi) {
        const mid = Math.floor((lo + hi) / 2);
        if (countTokens(`${raw.slice(mid)}\n\n${text}`) > budget) lo = mid + 1;
        else hi = mid;
      }
      text = `${raw.slice(lo)}\n\n${text}`;
      break;
    }
    text = next;
  }
  return `## Last Messages\n${text.trim()}`;
}

export interface GoldSessionScore {
  file: string;
  format: string;
  split: "dev" | "validation";
  labellers: string[];
  memcards: PageScore;
  baseline: PageScore;
  error?: string;
}

export interface GoldEval {
  sessions: GoldSessionScore[];
  budget: number | null;
  keep_recent: number;
  missing_gold: string[];
}

/** The gold files of a folder (`<session>.json`; split.json and agreement.json left out). */
export function readGold(dir: string): Map<string, GoldFile> {
  const out = new Map<string, GoldFile>();
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".json") || name === "split.json" || name === "agreement.json") continue;
    const g = GoldFile.parse(JSON.parse(readFileSync(join(dir, name), "utf8")));
    out.set(g.session, g);
  }
  return out;
}

/** The validation sessions listed in `split.json` of the gold folder (`{"validation": [...]}`), if any. */
export function readSplit(dir: string): Set<string> {
  const p = join(dir, "split.json");
  if (!existsSync(p)) return new Set();
  const s = z.object({ validation: z.array(z.string()) }).parse(JSON.parse(readFileSync(p, "utf8")));
  return new Set(s.validation);
}

/** Compresses each transcript that has gold (compress_context's defaults) and scores its page and the baseline. */
export function runGoldEval(opts: {
  dir: string;
  gold: string;
  workDir: string;
  budget?: number;
  keepRecent?: number;
  files?: readonly string[];
  onFile?: (f: string) => void;
}): GoldEval {
  const gold = readGold(opts.gold);
  const validation = readSplit(opts.gold);
  const keep = opts.keepRecent ?? 5;
  const sessions: GoldSessionScore[] = [];
  const names = [...gold.keys()].filter((n) => !opts.files || opts.files.includes(n)).sort();
  const missing: string[] = [];
  names.forEach((name, i) => {
    const path = join(opts.dir, name);
    if (!existsSync(path)) {
      missing.push(name);
      return;
    }
    opts.onFile?.(name);
    const g = gold.get(name)!;
    const raw = readRaw(path);
    const format = sourceFormat(raw, path);
    const split = validation.has(name) ? "validation" : "dev";
    const labellers = g.labellers ?? (g.labeller ? [g.labeller] : []);
    const db = openDatabase(join(opts.workDir, `g${i}.db`));
    try {
      const project = upsertProject(db, `gold:${i}`, opts.workDir);
      const r = compressForEval(
        { db, projectId: project.id, root: opts.workDir },
        {
          transcriptPath: path,
          keepRecent: keep,
          route: "deterministic",
          ...(opts.budget ? { budgetTokens: opts.budget } : {}),
        },
      );
      const memcards = scorePage(r.markdown, g);
      const baseline = scorePage(lastMessagesPage(r.all_turns, memcards.tokens), g);
      sessions.push({ file: name, format, split, labellers, memcards, baseline });
    } catch (err) {
      const none = scorePage("", g);
      sessions.push({
        file: name,
        format,
        split,
        labellers,
        memcards: none,
        baseline: none,
        error: (err as Error).message.slice(0, 300),
      });
    } finally {
      db.close();
    }
  });
  return { sessions, budget: opts.budget ?? null, keep_recent: keep, missing_gold: missing };
}

const r3 = (n: number, d: number): number | null => (d > 0 ? Math.round((n / d) * 1000) / 1000 : null);
const fmt = (x: number | null) => (x === null ? "–" : x.toFixed(2));

/** Pooled counts of a set of pages, per section and over the page. */
export function poolPages(pages: readonly PageScore[]): { sections: Record<string, Counts>; all: Counts } {
  const sections: Record<string, Counts> = {};
  let all = zero();
  for (const p of pages) {
    for (const [k, c] of Object.entries(p.sections)) sections[k] = add(sections[k] ?? zero(), c);
    all = add(all, p.all);
  }
  return { sections, all };
}

function kindRecall(pages: readonly PageScore[]): Record<string, { facts: number; found: number }> {
  const out: Record<string, { facts: number; found: number }> = {};
  for (const p of pages)
    for (const [k, v] of Object.entries(p.byKind)) {
      const o = (out[k] ??= { facts: 0, found: 0 });
      o.facts += v.facts;
      o.found += v.found;
    }
  return out;
}

/** The report: per split the sections' precision and recall, stale and wrong lines; per format; per session. */
export function renderGoldEval(r: GoldEval): string {
  const out: string[] = [
    `Summary pages against gold facts (keep_recent ${r.keep_recent}, ${r.budget ? `budget ${r.budget}` : "default budget"}); P = right lines / lines, R = current facts stated / current facts`,
  ];
  for (const split of ["dev", "validation"] as const) {
    const ss = r.sessions.filter((s) => s.split === split);
    if (ss.length === 0) continue;
    const m = poolPages(ss.map((s) => s.memcards));
    const b = poolPages(ss.map((s) => s.baseline));
    out.push(
      "",
      `### ${split} (${ss.length} sessions)`,
      "",
      "| section | lines | P | stale | wrong | facts of its kinds | R in section |",
      "|---|---:|---:|---:|---:|---:|---:|",
    );
    for (const title of PAGE_SECTIONS) {
      const c = m.sections[title];
      if (!c) continue;
      out.push(
        `| ${title} | ${c.lines} | ${fmt(r3(c.right, c.lines))} | ${c.stale} | ${c.wrong} | ${c.facts} | ${fmt(r3(c.found, c.facts))} |`,
      );
    }
    out.push(
      `| **memcards page** | ${m.all.lines} | ${fmt(r3(m.all.right, m.all.lines))} | ${m.all.stale} | ${m.all.wrong} | ${m.all.facts} | ${fmt(r3(m.all.found, m.all.facts))} |`,
      `| **baseline: last messages, same tokens** | ${b.all.lines} | ${fmt(r3(b.all.right, b.all.lines))} | ${b.all.stale} | ${b.all.wrong} | ${b.all.facts} | ${fmt(r3(b.all.found, b.all.facts))} |`,
    );
    const kr = kindRecall(ss.map((s) => s.memcards));
    const kb = kindRecall(ss.map((s) => s.baseline));
    out.push(
      "",
      `Recall by kind (anywhere on the page), memcards / baseline: ${Object.entries(kr)
        .map(([k, v]) => `${k} ${fmt(r3(v.found, v.facts))} / ${fmt(r3(kb[k]?.found ?? 0, v.facts))} (${v.facts})`)
        .join(", ")}`,
    );
    const formats = [...new Set(ss.map((s) => s.format))].sort();
    out.push("", "| format | sessions | P | R | baseline P | baseline R |", "|---|---:|---:|---:|---:|---:|");
    for (const f of formats) {
      const fs = ss.filter((s) => s.format === f);
      const fm = poolPages(fs.map((s) => s.memcards)).all;
      const fb = poolPages(fs.map((s) => s.baseline)).all;
      out.push(
        `| ${f} | ${fs.length} | ${fmt(r3(fm.right, fm.lines))} | ${fmt(r3(fm.found, fm.facts))} | ${fmt(r3(fb.right, fb.lines))} | ${fmt(r3(fb.found, fb.facts))} |`,
      );
    }
  }
  out.push(
    "",
    "| session | split | labellers | tokens | P | R | stale | wrong | baseline P | baseline R |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const s of r.sessions) {
    const a = s.memcards.all;
    const b = s.baseline.all;
    out.push(
      `| ${s.file} | ${s.split} | ${s.labellers.join("+")} | ${s.memcards.tokens} | ${fmt(r3(a.right, a.lines))} | ${fmt(r3(a.found, a.facts))} | ${a.stale} | ${a.wrong} | ${fmt(r3(b.right, b.lines))} | ${fmt(r3(b.found, b.facts))} |${s.error ? ` ${s.error.slice(0, 80)}` : ""}`,
    );
  }
  if (r.missing_gold.length > 0) out.push("", `Gold without a transcript in the folder: ${r.missing_gold.join(", ")}`);
  return out.join("\n");
}
