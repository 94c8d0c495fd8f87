// `memcards eval segment`: the segmenter against a hand-labelled set of real turns (test/fixtures/segment).
// Turn level: a turn's predicted categories are those of its sentences (each sentence's category and the
// others it also carries); per category precision and recall
// over turns. Span level: every quoted commitment must fall in a sentence the segmenter calls COMMITMENT.
import { existsSync, readFileSync } from "node:fs";

import { z } from "zod";

import { AppError } from "../src/errors.js";
import { segmentText } from "../src/memory/segment.js";
import { MemoryCategory } from "../src/vocab.js";

/** The labelled set names each category upper-case (COMMITMENT, …; see its GUIDE.md); reports keep its names. */
type Label = Uppercase<MemoryCategory>;
const labelOf = (c: MemoryCategory): Label => c.toUpperCase() as Label;
const Label = z.enum(MemoryCategory.options.map(labelOf));

export const LabelledTurn = z.object({
  source: z.string(),
  turn: z.string(),
  role: z.enum(["user", "assistant"]),
  text: z.string().min(1),
  labels: z.array(Label).min(1),
  commitments: z.array(z.string()),
  labeller: z.string(),
});
export type LabelledTurn = z.infer<typeof LabelledTurn>;

export function loadLabelled(path: string): LabelledTurn[] {
  if (!existsSync(path)) throw new AppError("NOT_FOUND", `no labelled set at ${path} (pass --set FILE)`);
  const out: LabelledTurn[] = [];
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((line, i) => {
      if (!line.trim()) return;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        throw new AppError("BAD_INPUT", `${path}:${i + 1}: not JSON`);
      }
      const r = LabelledTurn.safeParse(raw);
      if (!r.success) {
        const issue = r.error.issues[0]!;
        throw new AppError("BAD_INPUT", `${path}:${i + 1}: ${issue.path.join(".")}: ${issue.message}`);
      }
      for (const c of r.data.commitments)
        if (!r.data.text.includes(c))
          throw new AppError("BAD_INPUT", `${path}:${i + 1}: commitment quote is not in the text: ${c}`);
      out.push(r.data);
    });
  return out;
}

export interface CategoryScore {
  category: Label;
  support: number;
  predicted: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface SegmentEval {
  set: string;
  turns: number;
  sentences: number;
  by_category: CategoryScore[];
  /** Quoted commitments found in a sentence classified COMMITMENT. */
  commitment_spans: {
    total: number;
    found: number;
    recall: number;
    missed: { source: string; turn: string; quote: string }[];
  };
  /** Two labellers on the same turns: per category agreement and Cohen's kappa; null without a second set. */
  agreement: { turns: number; by_category: { category: Label; agreement: number; kappa: number }[] } | null;
  /**
   * COMMITMENT on two halves of the set, the sources sorted by name and taken alternately: the rules were
   * tuned looking only at the first half's misses; the second half is the held-out check.
   */
  halves: { half: "tuned" | "held-out"; turns: number; precision: number; recall: number; span_recall: number }[];
  by_role: Record<string, number>;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const norm = (s: string) => s.replace(/\s+/g, " ").trim().toLowerCase();

/** A quote is found when a COMMITMENT sentence and the quote overlap by most of the shorter one. */
function overlaps(sentence: string, quote: string): boolean {
  const a = norm(sentence);
  const b = norm(quote);
  if (a.includes(b) || b.includes(a)) return true;
  const aw = new Set(a.split(" "));
  const bw = b.split(" ");
  const shared = bw.filter((w) => aw.has(w)).length;
  return shared >= 0.6 * Math.min(aw.size, bw.length) && shared >= 3;
}

function kappa(a: boolean[], b: boolean[]): { agreement: number; kappa: number } {
  const n = a.length;
  if (n === 0) return { agreement: 1, kappa: 1 };
  let agree = 0;
  let pa = 0;
  let pb = 0;
  for (let i = 0; i < n; i++) {
    if (a[i] === b[i]) agree++;
    if (a[i]) pa++;
    if (b[i]) pb++;
  }
  const po = agree / n;
  const pe = (pa / n) * (pb / n) + (1 - pa / n) * (1 - pb / n);
  return { agreement: r3(po), kappa: r3(pe >= 1 ? 1 : (po - pe) / (1 - pe)) };
}

function commitmentScore(turns: LabelledTurn[]): { precision: number; recall: number; span_recall: number } {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let spans = 0;
  let found = 0;
  for (const t of turns) {
    const segs = segmentText(t.text, t.role);
    const p = segs.some((x) => x.category === "commitment");
    const g = t.labels.includes("COMMITMENT");
    if (p && g) tp++;
    else if (p) fp++;
    else if (g) fn++;
    for (const q of t.commitments) {
      spans++;
      if (segs.some((x) => x.category === "commitment" && overlaps(x.text, q))) found++;
    }
  }
  return {
    precision: r3(tp + fp ? tp / (tp + fp) : 0),
    recall: r3(tp + fn ? tp / (tp + fn) : 0),
    span_recall: r3(spans ? found / spans : 1),
  };
}

export function evalSegment(set: string, second?: string): SegmentEval {
  const turns = loadLabelled(set);
  const sources = [...new Set(turns.map((t) => t.source))].sort();
  const tuned = new Set(sources.filter((_, i) => i % 2 === 0));
  const halves: SegmentEval["halves"] = (["tuned", "held-out"] as const).map((half) => {
    const part = turns.filter((t) => tuned.has(t.source) === (half === "tuned"));
    return { half, turns: part.length, ...commitmentScore(part) };
  });
  const tp = new Map<Label, number>();
  const fp = new Map<Label, number>();
  const fn = new Map<Label, number>();
  let sentenceCount = 0;
  const spans = { total: 0, found: 0, missed: [] as { source: string; turn: string; quote: string }[] };
  const byRole: Record<string, number> = {};
  for (const t of turns) {
    byRole[t.role] = (byRole[t.role] ?? 0) + 1;
    const segs = segmentText(t.text, t.role);
    sentenceCount += segs.length;
    const predicted = new Set(segs.flatMap((s) => [s.category, ...s.also].map(labelOf)));
    if (predicted.size === 0) predicted.add("BACKGROUND");
    const gold = new Set(t.labels);
    for (const c of Label.options) {
      const p = predicted.has(c);
      const g = gold.has(c);
      if (p && g) tp.set(c, (tp.get(c) ?? 0) + 1);
      else if (p) fp.set(c, (fp.get(c) ?? 0) + 1);
      else if (g) fn.set(c, (fn.get(c) ?? 0) + 1);
    }
    for (const q of t.commitments) {
      spans.total++;
      if (segs.some((s) => s.category === "commitment" && overlaps(s.text, q))) spans.found++;
      else spans.missed.push({ source: t.source, turn: t.turn, quote: q });
    }
  }
  const byCategory = Label.options.map((c): CategoryScore => {
    const a = tp.get(c) ?? 0;
    const precision = a + (fp.get(c) ?? 0) ? a / (a + (fp.get(c) ?? 0)) : 0;
    const recall = a + (fn.get(c) ?? 0) ? a / (a + (fn.get(c) ?? 0)) : 0;
    return {
      category: c,
      support: a + (fn.get(c) ?? 0),
      predicted: a + (fp.get(c) ?? 0),
      precision: r3(precision),
      recall: r3(recall),
      f1: r3(precision + recall ? (2 * precision * recall) / (precision + recall) : 0),
    };
  });
  let agreement: SegmentEval["agreement"] = null;
  if (second) {
    const other = loadLabelled(second);
    const first = new Map(turns.map((t) => [`${t.source}#${t.turn}`, t]));
    const pairs = other.flatMap((o) => {
      const f = first.get(`${o.source}#${o.turn}`);
      return f ? [[f, o] as const] : [];
    });
    agreement = {
      turns: pairs.length,
      by_category: Label.options.map((c) => ({
        category: c,
        ...kappa(
          pairs.map(([f]) => f.labels.includes(c)),
          pairs.map(([, o]) => o.labels.includes(c)),
        ),
      })),
    };
  }
  return {
    set,
    turns: turns.length,
    sentences: sentenceCount,
    by_category: byCategory,
    commitment_spans: { ...spans, recall: r3(spans.total ? spans.found / spans.total : 1) },
    agreement,
    halves,
    by_role: byRole,
  };
}

export function renderSegmentEval(r: SegmentEval): string {
  const f = (x: number) => x.toFixed(2);
  const lines = [
    `Segmentation against ${r.turns} hand-labelled turns (${Object.entries(r.by_role)
      .map(([k, v]) => `${v} ${k}`)
      .join(", ")}; ${r.sentences} sentences), turn level:`,
    "",
    "| category | labelled turns | predicted | precision | recall | F1 |",
    "|---|---:|---:|---:|---:|---:|",
    ...r.by_category.map(
      (c) => `| ${c.category} | ${c.support} | ${c.predicted} | ${f(c.precision)} | ${f(c.recall)} | ${f(c.f1)} |`,
    ),
    "",
    `Commitment spans: ${r.commitment_spans.found}/${r.commitment_spans.total} quoted commitments fall in a sentence classified COMMITMENT (recall ${f(r.commitment_spans.recall)}).`,
  ];
  lines.push(
    `COMMITMENT by half (sources alternately by name; rules tuned on the first): ${r.halves
      .map(
        (h) =>
          `${h.half} ${h.turns} turns: precision ${f(h.precision)}, recall ${f(h.recall)}, span recall ${f(h.span_recall)}`,
      )
      .join("; ")}.`,
  );
  if (r.commitment_spans.missed.length)
    lines.push(
      "Missed:",
      ...r.commitment_spans.missed.slice(0, 20).map((m) => `- ${m.source} ${m.turn}: "${m.quote}"`),
    );
  if (r.agreement)
    lines.push(
      "",
      `Two labellers on ${r.agreement.turns} turns: ${r.agreement.by_category
        .map((c) => `${c.category} ${f(c.agreement)} (κ ${f(c.kappa)})`)
        .join(", ")}.`,
    );
  return lines.join("\n");
}
