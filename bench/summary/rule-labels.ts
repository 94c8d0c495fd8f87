// The rule-sentence model (human-classes.ts `ruleFeatures`) fitted and cross-validated on sentence labels made for
// it (test/fixtures/summary/rule-sentences/: every sentence a person typed, labelled cold by two people as rule /
// request / answer / problem / chat / pasted / harness, disagreements settled), beside the sentences User
// Constraints keeps now on the same labels. A measurement: it writes no weights unless the model beats the current
// selection on the validation sessions (it does not: bench/summary/human-classes-fit.md).
//
// Procedure:
// 1. Labels: a sentence is positive when its settled label is `rule`; every other label (a harness template's rule
//    included, see the fixture's GUIDE.md) is a negative. Each sentence carries the weight of its sampling stratum
//    (all rule-like sentences are listed, weight 1; the others are a seeded sample, weight others/sampled of its
//    split), and every precision and recall here is weighted by it, so that they stand for all sentences.
// 2. Agreement: Cohen's kappa of the two labellers per split, over the seven labels and over rule / not rule.
// 3. Features: `ruleFeatures` of the sentence in its turn (its place among the turn's sentences) and the turn's class
//    probabilities: out of fold for the development turns the gold labels (fit-human.ts `turnProbs`), else the
//    shipped turn model's. A feature is kept when it occurs in at least `MIN_SESSIONS` development sessions.
// 4. Cross-validation grouped by session (leave one development session out: no session's sentences are both
//    fitted and scored); a sentence said in several sessions (a harness template) is listed once, in the group of
//    the session it is listed under. The threshold is fit-rules.ts `chooseRuleThreshold` on the weighted pooled
//    out-of-fold figures (precision ≥ 0.9 with 5 picked, else best F0.5).
// 5. The final model is fitted on every development sentence; the validation sentences are scored once by it.
// 6. The current selection: a sentence is kept when a line User Constraints keeps (`standingInstructions` on its
//    turn) contains it.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

import { z } from "zod";

import type { Turn } from "../../src/conversation/schema.js";
import { redact } from "../../src/text/redact.js";
import { humanPart } from "../../src/transcript/extraction/human.js";
import {
  type BinaryModel,
  logistic,
  ownSentences,
  ruleFeatures,
  softmax,
  standingInstructions,
  turnFeatures,
} from "../../src/transcript/extraction/human-classes.js";
import weights from "../../src/transcript/extraction/human-weights.json" with { type: "json" };
import { parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { fitBinary, LOW_GRID, pruneBinary, turnKey } from "./fit-human.js";
import { chooseRuleThreshold } from "./fit-rules.js";

/** A feature is kept when it occurs in at least this many development sessions. */
const MIN_SESSIONS = 3;
/** The model's L2 penalty per weight. */
const RULE_L2 = 0.003;

export const RuleLabel = z.object({
  id: z.string(),
  session: z.string(),
  split: z.enum(["dev", "validation"]),
  turn: z.number().int(),
  sentence: z.string(),
  sessions: z.array(z.string()),
  stratum: z.enum(["rule-like", "sampled"]),
  weight: z.number().positive(),
  label: z.enum(["rule", "request", "answer", "problem", "chat", "pasted", "harness"]),
  l1: z.string(),
  l2: z.string(),
  settled: z.string().optional(),
});
export type RuleLabel = z.infer<typeof RuleLabel>;

export function readRuleLabels(path: string): RuleLabel[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => RuleLabel.parse(JSON.parse(l)));
}

/** Cohen's kappa of two label sequences. */
export function cohenKappa(a: readonly string[], b: readonly string[]): number {
  const n = a.length;
  if (n === 0) return Number.NaN;
  const po = a.filter((x, i) => x === b[i]).length / n;
  const ca = new Map<string, number>();
  const cb = new Map<string, number>();
  for (const x of a) ca.set(x, (ca.get(x) ?? 0) + 1);
  for (const x of b) cb.set(x, (cb.get(x) ?? 0) + 1);
  let pe = 0;
  for (const [k, v] of ca) pe += (v * (cb.get(k) ?? 0)) / (n * n);
  return pe === 1 ? 1 : (po - pe) / (1 - pe);
}

interface Sample {
  label: RuleLabel;
  feats: string[];
  y: 0 | 1;
  kept: boolean;
}

/** Each labelled sentence with its features and whether User Constraints keeps it (steps 3 and 6). */
function samplesOf(
  labels: readonly RuleLabel[],
  transcripts: string,
  turnProbs: ReadonlyMap<string, number[]>,
): Sample[] {
  const bySession = new Map<string, Map<number, Turn>>();
  const out: Sample[] = [];
  for (const l of labels) {
    let turns = bySession.get(l.session);
    if (!turns) {
      const path = join(transcripts, l.session);
      const parsed = existsSync(path) ? parseTranscriptFile(path).turns : [];
      bySession.set(l.session, (turns = new Map(parsed.map((t) => [t.index, t]))));
    }
    const t = turns.get(l.turn);
    if (!t) throw new Error(`${l.id}: no turn ${l.turn} in ${l.session}`);
    const ss = ownSentences(t.text);
    // The fixture holds a sentence with its secrets redacted; the features are those of the words in the transcript.
    const exact = ss.indexOf(l.sentence);
    const at = exact >= 0 ? exact : ss.findIndex((x) => redact(x) === l.sentence);
    const position = Math.max(0, at);
    const sentence = at >= 0 ? ss[at]! : l.sentence;
    const turnChars = humanPart(t.text, { keepHarness: true }).text.length;
    const p = turnProbs.get(turnKey(l.session, l.turn)) ?? softmax(weights.turn, turnFeatures(t.text, t.kind));
    const feats = ruleFeatures(sentence, { position, sentences: ss.length, turnChars }, p);
    const lines = standingInstructions([{ id: t.id, role: t.role, kind: t.kind, text: t.text }]).map((x) => x.text);
    out.push({ label: l, feats, y: l.label === "rule" ? 1 : 0, kept: lines.some((x) => x.includes(sentence)) });
  }
  return out;
}

export interface WeightedReport {
  precision: number | null;
  recall: number | null;
  /** Weighted rule sentences and picked sentences, and the unweighted counts. */
  support: number;
  predicted: number;
  rules: number;
  picked: number;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Weighted precision and recall of picking the sentences whose score reaches `tau`. */
function weighted(xs: readonly { y: number; p: number; w: number }[], tau: number): WeightedReport {
  let tp = 0;
  let pred = 0;
  let sup = 0;
  for (const x of xs) {
    if (x.p >= tau) pred += x.w;
    if (x.y === 1) sup += x.w;
    if (x.p >= tau && x.y === 1) tp += x.w;
  }
  return {
    precision: pred > 0 ? r3(tp / pred) : null,
    recall: sup > 0 ? r3(tp / sup) : null,
    support: r3(sup),
    predicted: r3(pred),
    rules: xs.filter((x) => x.y === 1).length,
    picked: xs.filter((x) => x.p >= tau).length,
  };
}

export interface RuleLabelFit {
  sentences: { dev: number; validation: number };
  labels: Record<string, Record<string, number>>;
  agreement: Record<"dev" | "validation", { n: number; kappa: number; kappaRule: number; disagreements: number }>;
  model: BinaryModel;
  threshold: number;
  cv: WeightedReport;
  validation: WeightedReport;
  curve: { threshold: number; cv: WeightedReport; validation: WeightedReport }[];
  kept: { dev: WeightedReport; validation: WeightedReport };
  /** The current selection with the model as a veto: a kept sentence stays when the model gives it the threshold
   * (chosen the same way on the cross-validated development figures). */
  vetoThreshold: number;
  veto: { cv: WeightedReport; validation: WeightedReport };
}

/** Fits and cross-validates the rule-sentence model on the sentence labels (the module header's procedure). */
export function fitRuleLabels(opts: {
  labels: string;
  transcripts: string;
  turnProbs: ReadonlyMap<string, number[]>;
  onStep?: (s: string) => void;
}): RuleLabelFit {
  const labels = readRuleLabels(opts.labels);
  const all = samplesOf(labels, opts.transcripts, opts.turnProbs);
  const devAll = all.filter((s) => s.label.split === "dev");
  const seen = new Map<string, Set<string>>();
  for (const s of devAll)
    for (const f of s.feats) {
      let set = seen.get(f);
      if (!set) seen.set(f, (set = new Set()));
      set.add(s.label.session);
    }
  const general = (s: Sample) => ({ ...s, feats: s.feats.filter((f) => (seen.get(f)?.size ?? 0) >= MIN_SESSIONS) });
  const dev = devAll.map(general);
  const val = all.filter((s) => s.label.split === "validation");
  const probs = new Array<number>(dev.length).fill(0);
  for (const session of new Set(dev.map((s) => s.label.session))) {
    opts.onStep?.(`rule-label cv ${session}`);
    const train = dev.filter((s) => s.label.session !== session).map((s) => ({ ...s, session: s.label.session }));
    const m = fitBinary(train, RULE_L2);
    dev.forEach((s, i) => {
      if (s.label.session === session) probs[i] = logistic(m, s.feats);
    });
  }
  const cvPairs = dev.map((s, i) => ({ y: s.y, p: probs[i]!, w: s.label.weight }));
  const threshold = chooseRuleThreshold((t) => {
    const r = weighted(cvPairs, t);
    return { precision: r.precision, recall: r.recall, support: r.rules, predicted: r.picked };
  });
  const model = pruneBinary(
    fitBinary(
      dev.map((s) => ({ ...s, session: s.label.session })),
      RULE_L2,
    ),
  );
  const valPairs = val.map((s) => ({ y: s.y, p: logistic(model, s.feats), w: s.label.weight }));
  const keptPairs = (xs: readonly Sample[]) => xs.map((s) => ({ y: s.y, p: s.kept ? 1 : 0, w: s.label.weight }));
  const agreement = (split: "dev" | "validation") => {
    const xs = labels.filter((l) => l.split === split);
    const a = xs.map((l) => l.l1);
    const b = xs.map((l) => l.l2);
    const rule = (v: string) => (v === "rule" ? "rule" : "other");
    return {
      n: xs.length,
      kappa: r3(cohenKappa(a, b)),
      kappaRule: r3(cohenKappa(a.map(rule), b.map(rule))),
      disagreements: xs.filter((l) => l.l1 !== l.l2).length,
    };
  };
  const vetoCv = dev.map((s, i) => ({ y: s.y, p: s.kept ? probs[i]! : 0, w: s.label.weight }));
  const vetoVal = val.map((s, i) => ({ y: s.y, p: s.kept ? valPairs[i]!.p : 0, w: s.label.weight }));
  const vetoThreshold = chooseRuleThreshold((t) => {
    const r = weighted(vetoCv, t);
    return { precision: r.precision, recall: r.recall, support: r.rules, predicted: r.picked };
  });
  const counts: Record<string, Record<string, number>> = { dev: {}, validation: {} };
  for (const l of labels) counts[l.split]![l.label] = (counts[l.split]![l.label] ?? 0) + 1;
  return {
    sentences: { dev: dev.length, validation: val.length },
    labels: counts,
    agreement: { dev: agreement("dev"), validation: agreement("validation") },
    model,
    threshold,
    cv: weighted(cvPairs, threshold),
    validation: weighted(valPairs, threshold),
    curve: LOW_GRID.map((t) => ({ threshold: t, cv: weighted(cvPairs, t), validation: weighted(valPairs, t) })),
    kept: { dev: weighted(keptPairs(dev), 1), validation: weighted(keptPairs(val), 1) },
    vetoThreshold,
    veto: { cv: weighted(vetoCv, vetoThreshold), validation: weighted(vetoVal, vetoThreshold) },
  };
}

const fmt = (x: number | null) => (x === null ? "–" : x.toFixed(2));
const line = (r: WeightedReport) =>
  `precision ${fmt(r.precision)}, recall ${fmt(r.recall)} (${r.picked} picked, ${r.rules} rule sentences listed; weighted ${r.predicted} picked, ${r.support} rules)`;

/** The fit on the sentence labels as markdown. */
export function renderRuleLabelReport(r: RuleLabelFit): string {
  const a = r.agreement;
  const labelCounts = (split: string) =>
    Object.entries(r.labels[split] ?? {})
      .sort((x, y) => y[1] - x[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
  return [
    `Sentence labels (test/fixtures/summary/rule-sentences, ${r.sentences.dev} development and ${r.sentences.validation} validation sentences). Labels: development ${labelCounts("dev")}; validation ${labelCounts("validation")}. ` +
      `Agreement of the two labellers (Cohen's kappa, seven labels / rule or not): development ${a.dev.kappa} / ${a.dev.kappaRule} (${a.dev.disagreements} of ${a.dev.n} differ), validation ${a.validation.kappa} / ${a.validation.kappaRule} (${a.validation.disagreements} of ${a.validation.n} differ)`,
    "",
    `Rule-sentence model on them (${Object.keys(r.model.weights).length} features kept, threshold ${r.threshold}; figures weighted by sampling stratum): cross-validated by session (leave one development session out) ${line(r.cv)}; validation ${line(r.validation)}`,
    "",
    `What User Constraints keeps now, on the same labels: development ${line(r.kept.dev)}; validation ${line(r.kept.validation)}`,
    "",
    `What it keeps with the model as a veto (threshold ${r.vetoThreshold}): cross-validated ${line(r.veto.cv)}; validation ${line(r.veto.validation)}`,
    "",
    "| threshold | CV picked | CV precision | CV recall | validation picked | validation precision | validation recall |",
    "|---:|---:|---:|---:|---:|---:|---:|",
    ...r.curve.map(
      (c) =>
        `| ${c.threshold} | ${c.cv.picked} | ${fmt(c.cv.precision)} | ${fmt(c.cv.recall)} | ${c.validation.picked} | ${fmt(c.validation.precision)} | ${fmt(c.validation.recall)} |`,
    ),
  ].join("\n");
}
