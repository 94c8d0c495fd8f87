// `memcards eval summary --transcripts DIR`: per-section precision and recall of compress_context's summary
// against ground truth read from each transcript's own structure (truth.ts), per session, per format and overall.
//
// Matching rules:
// - Files Modified: a listed path is right when it names a true edit (truth.ts `samePath`: equal after
//   normalization, or one ends with the other at a segment boundary).
// - Failures: a line is right when it shares at least half of the smaller token set with a true error line, or
//   when at least 70% of its tokens (three or more) occur in the lines around one. Tokens: lower-case words of
//   three or more characters, without numbers, hex runs and stop words.
// - User Constraints: a line is right when at least 80% of its tokens occur in one human turn (it is what the
//   person typed); a binding sentence of the human (must, never, only…) is recalled when at least 70% of its
//   tokens occur in one listed constraint.
// Overall and per-format figures pool the counts of every session (micro averages); a figure with nothing to
// divide by is null.
import { readdirSync } from "node:fs";
import { join } from "node:path";

import type { Turn } from "../../src/conversation/schema.js";
import { openDatabase } from "../../src/storage/db.js";
import { upsertProject } from "../../src/storage/projects.js";
import { parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { compressForEval } from "../compress/run.js";
import {
  humanTurns,
  ownText,
  readRaw,
  samePath,
  sourceFormat,
  tokens,
  type TruthConstraint,
  truthConstraints,
  truthEdits,
  type TruthFailure,
  truthFailures,
} from "./truth.js";

export const SECTIONS = ["ledger", "failures", "constraints"] as const;
export type SectionName = (typeof SECTIONS)[number];

export interface PR {
  precision: number | null;
  recall: number | null;
}

export interface SectionScore extends PR {
  predicted: number;
  truth: number;
  /** Counts behind the figures: predicted lines judged right, true items found. */
  right: number;
  found: number;
  false_positives: string[];
  missed: string[];
}

export interface SessionScore {
  file: string;
  format: string;
  ledger: SectionScore;
  failures: SectionScore;
  constraints: SectionScore;
  summary_tokens?: number;
  error?: string;
}

export interface SummaryEval {
  overall: Record<SectionName, PR>;
  by_format: Record<string, Record<SectionName, PR>>;
  sessions: SessionScore[];
  budget: number | null;
}

/** The lines of one `## Title` section of a rendered summary (bullets only, the store note left out). */
export function sectionLines(markdown: string, title: string): string[] {
  const parts = markdown.split(/^## /m);
  const body = parts.find((p) => p.startsWith(`${title}\n`));
  if (!body) return [];
  return body
    .slice(title.length + 1)
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l.startsWith("- ") && !l.startsWith("- _("));
}

/** The path of a Files Modified line: its first backquoted span. */
export function ledgerPath(line: string): string | undefined {
  return /^- `([^`]+)`/.exec(line)?.[1];
}

/** A Failures line without its category tag, turn reference and remediation: the error it reports. */
export function failureText(line: string): string {
  return line
    .replace(/^- (?:\[[^\]]+\] )?/, "")
    .replace(/ → .*$/, "")
    .replace(/ \([^()]*\)\s*$/, "")
    .trim();
}

/** A User Constraints line without quotes and turn reference. */
export function constraintText(line: string): string {
  return line
    .replace(/^- /, "")
    .replace(/ \([^()]*\)\s*$/, "")
    .replace(/^"|"$/g, "")
    .trim();
}

function share(a: readonly string[], b: ReadonlySet<string>): number {
  return a.filter((w) => b.has(w)).length;
}

/** Whether a summary's failure line reports `t` (the rule in the module header). */
export function failureMatches(line: string, t: TruthFailure): boolean {
  const f = [...new Set(tokens(line))];
  if (f.length === 0) return false;
  const truth = [...new Set(tokens(t.text))];
  const shared = share(f, new Set(truth));
  if (truth.length > 0 && shared >= Math.max(1, Math.ceil(0.5 * Math.min(f.length, truth.length)))) return true;
  return f.length >= 3 && share(f, new Set(tokens(t.context))) >= 0.7 * f.length;
}

function score(
  predicted: string[],
  truth: string[],
  rightOf: (p: string) => boolean,
  foundOf: (t: number) => boolean,
): SectionScore {
  const fp = predicted.filter((p) => !rightOf(p));
  const missed = truth.filter((_, i) => !foundOf(i));
  const right = predicted.length - fp.length;
  const found = truth.length - missed.length;
  return {
    precision: predicted.length ? round(right / predicted.length) : null,
    recall: truth.length ? round(found / truth.length) : null,
    predicted: predicted.length,
    truth: truth.length,
    right,
    found,
    false_positives: fp,
    missed,
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Scores one summary against the truth of its transcript. */
export function scoreSession(
  file: string,
  format: string,
  markdown: string,
  raw: string,
  turns: readonly Turn[],
): SessionScore {
  const edits = truthEdits(raw, format);
  const paths = sectionLines(markdown, "Files Modified")
    .map(ledgerPath)
    .filter((p): p is string => !!p);
  const ledger = score(
    paths,
    edits.map((e) => e.path),
    (p) => edits.some((e) => samePath(p, e.path)),
    (i) => paths.some((p) => samePath(p, edits[i]!.path)),
  );

  const fails = truthFailures(turns);
  const failLines = sectionLines(markdown, "Failures").map(failureText);
  const failures = score(
    failLines,
    fails.map((f) => f.text),
    (l) => fails.some((t) => failureMatches(l, t)),
    (i) => failLines.some((l) => failureMatches(l, fails[i]!)),
  );

  const human = humanTurns(turns).map((t) => new Set(tokens(ownText(t))));
  const cons: TruthConstraint[] = truthConstraints(turns);
  const consLines = sectionLines(markdown, "User Constraints").map(constraintText);
  const consTokens = consLines.map((l) => new Set(tokens(l)));
  const constraints = score(
    consLines,
    cons.map((c) => c.text),
    (l) => {
      const w = [...new Set(tokens(l))];
      return w.length > 0 && human.some((h) => share(w, h) >= 0.8 * w.length);
    },
    (i) => {
      const w = [...new Set(tokens(cons[i]!.text))];
      return consTokens.some((c) => share(w, c) >= 0.7 * w.length);
    },
  );
  return { file, format, ledger, failures, constraints };
}

function empty(): SectionScore {
  return {
    precision: null,
    recall: null,
    predicted: 0,
    truth: 0,
    right: 0,
    found: 0,
    false_positives: [],
    missed: [],
  };
}

/** Pooled precision and recall of sessions' section scores. */
export function pool(scores: readonly SectionScore[]): PR {
  const p = scores.reduce((a, s) => a + s.predicted, 0);
  const r = scores.reduce((a, s) => a + s.right, 0);
  const t = scores.reduce((a, s) => a + s.truth, 0);
  const f = scores.reduce((a, s) => a + s.found, 0);
  return { precision: p ? round(r / p) : null, recall: t ? round(f / t) : null };
}

/** The transcripts of a folder (files only; probes.json and READMEs left out). */
export function transcriptFiles(dir: string, only?: readonly string[]): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && /\.(?:jsonl|json|md|traj)$/.test(e.name))
    .map((e) => e.name)
    .filter((n) => n !== "probes.json" && !/^readme/i.test(n))
    .filter((n) => !only || only.includes(n))
    .sort();
}

/** The summary compress_context gives for a whole transcript, in a fresh store; or why it could not. */
export function summarize(
  path: string,
  workDir: string,
  tag: string,
  budget?: number,
): { markdown: string; tokens: number; turns: Turn[] } {
  const db = openDatabase(join(workDir, `${tag}.db`));
  try {
    const project = upsertProject(db, `eval:${tag}`, workDir);
    const r = compressForEval(
      { db, projectId: project.id, root: workDir },
      {
        transcriptPath: path,
        keepRecent: 0,
        route: "deterministic",
        ...(budget ? { budgetTokens: budget } : {}),
      },
    );
    return { markdown: r.summary.markdown, tokens: r.stats.tokens_after, turns: r.all_turns };
  } finally {
    db.close();
  }
}

/** Runs the evaluation over every transcript of `dir`. */
export function runSummaryEval(opts: {
  dir: string;
  workDir: string;
  budget?: number;
  files?: readonly string[];
  onFile?: (f: string) => void;
}): SummaryEval {
  const sessions: SessionScore[] = [];
  transcriptFiles(opts.dir, opts.files).forEach((name, i) => {
    opts.onFile?.(name);
    const path = join(opts.dir, name);
    const raw = readRaw(path);
    const format = sourceFormat(raw, path);
    try {
      const s = summarize(path, opts.workDir, `s${i}`, opts.budget);
      sessions.push({ ...scoreSession(name, format, s.markdown, raw, s.turns), summary_tokens: s.tokens });
    } catch (err) {
      // An unreadable transcript still has its edits: they all count as missed.
      const turns = tryTurns(path);
      const scored = scoreSession(name, format, "", raw, turns);
      sessions.push({ ...scored, error: (err as Error).message.slice(0, 300) });
    }
  });
  return aggregate(sessions, opts.budget ?? null);
}

function tryTurns(path: string): Turn[] {
  try {
    return parseTranscriptFile(path).turns;
  } catch {
    return [];
  }
}

export function aggregate(sessions: SessionScore[], budget: number | null): SummaryEval {
  const of = (ss: SessionScore[]) =>
    Object.fromEntries(SECTIONS.map((k) => [k, pool(ss.map((s) => s[k] ?? empty()))])) as Record<SectionName, PR>;
  const formats = [...new Set(sessions.map((s) => s.format))].sort();
  return {
    overall: of(sessions),
    by_format: Object.fromEntries(formats.map((f) => [f, of(sessions.filter((s) => s.format === f))])),
    sessions,
    budget,
  };
}

const fmt = (x: number | null) => (x === null ? "–" : x.toFixed(2));

/** The report as markdown tables: per format and overall, then per session. */
export function renderSummaryEval(r: SummaryEval): string {
  const head =
    "| | sessions | ledger P | ledger R | failures P | failures R | constraints P | constraints R |\n|---|---:|---:|---:|---:|---:|---:|---:|";
  const row = (name: string, n: number, x: Record<SectionName, PR>) =>
    `| ${name} | ${n} | ${SECTIONS.map((k) => `${fmt(x[k].precision)} | ${fmt(x[k].recall)}`).join(" | ")} |`;
  const formats = Object.entries(r.by_format).map(([f, x]) =>
    row(f, r.sessions.filter((s) => s.format === f).length, x),
  );
  const perSession = r.sessions.map((s) => {
    const cell = (k: SectionName) =>
      `${fmt(s[k].precision)} / ${fmt(s[k].recall)} (${s[k].right}/${s[k].predicted}, ${s[k].found}/${s[k].truth})`;
    return `| ${s.file} | ${s.format} | ${cell("ledger")} | ${cell("failures")} | ${cell("constraints")} |${s.error ? ` ${s.error.slice(0, 80)}` : ""}`;
  });
  return [
    `Summary sections against the transcripts' own structure${r.budget ? ` (budget ${r.budget})` : " (default budget)"}`,
    "",
    head,
    ...formats,
    row("**overall**", r.sessions.length, r.overall),
    "",
    "| session | format | ledger P / R (right/listed, found/true) | failures | constraints | |",
    "|---|---|---|---|---|---|",
    ...perSession,
  ].join("\n");
}
