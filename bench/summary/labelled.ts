// `memcards eval summary --labelled FILE`: the Failures section against hand-labelled lines. Each labelled line
// is a failure line of a transcript (one the summarizer emitted when the set was made, or an error line of a tool
// result) marked true (a failure the session really hit) or false. The section's precision is the share of true
// lines among the labelled lines it emits now; its recall the share of the true labelled lines it emits.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { z } from "zod";

import { AppError } from "../../src/errors.js";
import { failureText, sectionLines, summarize } from "./run.js";
import { tokens } from "./truth.js";

export const LabelledFailure = z.object({
  file: z.string().min(1),
  turn: z.string(),
  text: z.string().min(1),
  label: z.boolean(),
  why: z.string().min(1),
  /**
   * Where the line came from: the summary's Failures section (`summary`: a plain seeded sample; `summary-stratified`:
   * a later seeded sample stratified by transcript format), a tool result's error line, or a line picked for its kind.
   */
  source: z.enum(["summary", "tool-result", "error-kind", "summary-stratified"]).optional(),
});
export type LabelledFailure = z.infer<typeof LabelledFailure>;

export function loadLabelledFailures(path: string): LabelledFailure[] {
  if (!existsSync(path)) throw new AppError("NOT_FOUND", `--labelled: no such file: ${path}`);
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l, i) => {
      try {
        return LabelledFailure.parse(JSON.parse(l));
      } catch (err) {
        throw new AppError("BAD_INPUT", `--labelled: line ${i + 1} of ${path} is not {file, turn, text, label, why}`, {
          cause: err,
        });
      }
    });
}

/**
 * Whether an emitted Failures line is the labelled one: 80% of the shorter's tokens and half of the longer's are
 * shared (a line clipped differently still matches; a short line inside a long one does not).
 */
export function sameFailureLine(emitted: string, labelled: string): boolean {
  const a = [...new Set(tokens(emitted))];
  const b = [...new Set(tokens(labelled))];
  if (a.length === 0 || b.length === 0) return emitted.trim() === labelled.trim();
  const sb = new Set(b);
  const shared = a.filter((w) => sb.has(w)).length;
  return (
    shared >= 0.8 * Math.min(a.length, b.length) &&
    shared >= 0.5 * Math.max(a.length, b.length) &&
    shared >= Math.min(2, a.length, b.length)
  );
}

export interface LabelledCounts {
  labelled: number;
  labelled_true: number;
  emitted: number;
  emitted_true: number;
  precision: number | null;
  recall: number | null;
}

export interface LabelledReport {
  /** The same figures for each `source` of the labelled lines (lines without one under "unspecified"). */
  by_source: Record<string, LabelledCounts>;
  labelled: number;
  labelled_true: number;
  /** Labelled lines the Failures section emits now. */
  emitted: number;
  emitted_true: number;
  precision: number | null;
  recall: number | null;
  /** Lines the section emits that no label covers (not scored). */
  unlabelled_emitted: number;
  false_positives: { file: string; text: string; why: string }[];
  missed: { file: string; text: string }[];
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Summarizes each labelled transcript of `dir` and scores its Failures section on the labelled lines. */
export function runLabelled(opts: {
  dir: string;
  labelled: string;
  workDir: string;
  budget?: number;
  onFile?: (f: string) => void;
}): LabelledReport {
  const items = loadLabelledFailures(opts.labelled);
  const files = [...new Set(items.map((x) => x.file))];
  const emittedByFile = new Map<string, string[]>();
  files.forEach((f, i) => {
    opts.onFile?.(f);
    const path = join(opts.dir, f);
    if (!existsSync(path)) throw new AppError("NOT_FOUND", `--labelled names ${f}, which is not in ${opts.dir}`);
    const s = summarize(path, opts.workDir, `l${i}`, opts.budget);
    emittedByFile.set(f, sectionLines(s.markdown, "Failures").map(failureText));
  });
  const emitted = items.filter((x) => (emittedByFile.get(x.file) ?? []).some((e) => sameFailureLine(e, x.text)));
  const emittedTrue = emitted.filter((x) => x.label);
  const labelledTrue = items.filter((x) => x.label);
  const counts = (xs: readonly LabelledFailure[]): LabelledCounts => {
    const em = xs.filter((x) => emitted.includes(x));
    const emT = em.filter((x) => x.label).length;
    const lt = xs.filter((x) => x.label).length;
    return {
      labelled: xs.length,
      labelled_true: lt,
      emitted: em.length,
      emitted_true: emT,
      precision: em.length ? round(emT / em.length) : null,
      recall: lt ? round(emT / lt) : null,
    };
  };
  const sources = [...new Set(items.map((x) => x.source ?? "unspecified"))];
  const bySource = Object.fromEntries(
    sources.map((s) => [s, counts(items.filter((x) => (x.source ?? "unspecified") === s))]),
  );
  let unlabelled = 0;
  for (const [f, lines] of emittedByFile) {
    const mine = items.filter((x) => x.file === f);
    unlabelled += lines.filter((l) => !mine.some((x) => sameFailureLine(l, x.text))).length;
  }
  return {
    by_source: bySource,
    labelled: items.length,
    labelled_true: labelledTrue.length,
    emitted: emitted.length,
    emitted_true: emittedTrue.length,
    precision: emitted.length ? round(emittedTrue.length / emitted.length) : null,
    recall: labelledTrue.length ? round(emittedTrue.length / labelledTrue.length) : null,
    unlabelled_emitted: unlabelled,
    false_positives: emitted.filter((x) => !x.label).map((x) => ({ file: x.file, text: x.text, why: x.why })),
    missed: labelledTrue.filter((x) => !emitted.includes(x)).map((x) => ({ file: x.file, text: x.text })),
  };
}

export function renderLabelled(r: LabelledReport): string {
  const f = (x: number | null) => (x === null ? "–" : x.toFixed(2));
  return [
    `Failures on the hand-labelled lines: ${r.labelled} labelled (${r.labelled_true} true failures)`,
    `emitted now: ${r.emitted} labelled lines, ${r.emitted_true} true → precision ${f(r.precision)}, recall of true lines ${f(r.recall)}`,
    ...Object.entries(r.by_source).map(
      ([s, c]) =>
        `- ${s}: ${c.labelled} labelled (${c.labelled_true} true), ${c.emitted} emitted now → precision ${f(c.precision)}, recall ${f(c.recall)}`,
    ),
    `emitted lines without a label (not scored): ${r.unlabelled_emitted}`,
    ...(r.missed.length
      ? ["", "true lines not emitted:", ...r.missed.map((x) => `- ${x.file}: ${x.text.slice(0, 120)}`)]
      : []),
    ...(r.false_positives.length
      ? ["", "false positives:", ...r.false_positives.map((x) => `- ${x.file}: ${x.text.slice(0, 120)} — ${x.why}`)]
      : []),
  ].join("\n");
}
