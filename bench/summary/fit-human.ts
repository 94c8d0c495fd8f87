// Fits the human-turn classifier (src/transcript/extraction/human-classes.ts) on the labelled turns of the development
// sessions, and reports its cross-validated precision and recall per class.
//
// Procedure:
// 1. Samples: every human turn of a development session's gold file (validation sessions, split.json, left out of
//    every step below but the last score), its text and the parser's kind taken from the transcript by the turn's
//    index. Turn features as `turnFeatures` gives them: words, word pairs, structure (length, lines, code, paths,
//    question marks), the parser's kind, and the cues and first words of the person's sentences (generality markers,
//    modal verbs, reminders, negated openings, the second person, questions, thanks; human-classes.ts `CUES`).
// 2. Vocabulary: features present in at least two training samples.
// 3. Model: multinomial logistic regression, full-batch gradient descent with AdaGrad steps (rate 0.5, 300
//    rounds), L2 penalty 0.001 per weight, classes weighted by the inverse of their frequency (square root).
// 4. Cross-validation: leave one session out over the development sessions. A message is `instruction` when its
//    cross-validated instruction probability reaches the threshold (and pasted plus not-the-person's stay under one
//    half); the threshold is the lowest of 0.10, 0.15, … 0.90, 0.93 … 0.99 whose pooled cross-validated
//    instruction precision is at least 0.9 while it classes at least 5 turns so (else the most precise such one);
//    each class's precision and recall are reported at it, and the precision and recall at every threshold.
//    The rule-shape features (human-classes.ts `cueFeatures`) are fitted like any other; the one set weight
//    (`PRIOR_FEATURE`, instruction weight `PRIOR_WEIGHT`) is held fixed in every fit, cross-validation included.
// 5. The final model is fitted on all development turns; weights under 0.1 in every class are dropped and the
//    rest rounded to two decimals. Validation sessions are scored once, by the final model.
// 6. Rule sentences: every sentence of every development turn (the person's words, fenced code left out), with
//    its cues, shape and place in the turn; positive when it overlaps a labelled instruction sentence (one contains
//    the other, or 60% of the sentence's words are in it); binary logistic regression by the same steps with L2
//    0.003; its threshold the best cross-validated F1 of the same grid over the sentences of turns labelled
//    instruction (the only turns whose sentences are picked), a sentence of the rule shape counting as picked at
//    every threshold (it is always kept; the likeliest sentence when none is picked).
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Turn } from "../../src/conversation/schema.js";
import {
  type BinaryModel,
  decideTurn,
  type HumanWeights,
  logistic,
  PRIOR_FEATURE,
  PRIOR_WEIGHT,
  softmax,
  type SoftmaxModel,
  turnFeatures,
  turnSentences,
} from "../../src/transcript/extraction/human-classes.js";
import { parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { type GoldFile, readGold, readSplit } from "./gold.js";

export const CLASSES = ["instruction", "request", "answer", "problem", "chitchat", "pasted", "not_human"];

interface Sample {
  session: string;
  feats: string[];
  y: number;
}

function vocabulary(samples: readonly { feats: string[] }[], minDf = 2): string[] {
  const df = new Map<string, number>();
  for (const s of samples) for (const f of s.feats) df.set(f, (df.get(f) ?? 0) + 1);
  return [...df]
    .filter(([, n]) => n >= minDf)
    .map(([f]) => f)
    .sort();
}

/** Multinomial logistic regression by AdaGrad (the procedure's step 3). */
export function fitSoftmax(
  samples: readonly Sample[],
  k: number,
  rounds = 300,
  rate = 0.5,
  l2 = 0.001,
  fixed: Record<string, number[]> = {},
): SoftmaxModel {
  const vocab = [...new Set([...vocabulary(samples), ...Object.keys(fixed)])].sort();
  const idx = new Map(vocab.map((f, i) => [f, i]));
  const X = samples.map((s) => s.feats.map((f) => idx.get(f)).filter((i): i is number => i !== undefined));
  const counts = Array.from({ length: k }, (_, c) => samples.filter((s) => s.y === c).length);
  const cw = counts.map((n) => (n > 0 ? Math.sqrt(samples.length / (k * n)) : 0));
  const w = new Float64Array(vocab.length * k);
  const b = new Float64Array(k);
  const gw2 = new Float64Array(vocab.length * k).fill(1e-8);
  const gb2 = new Float64Array(k).fill(1e-8);
  // A fixed feature's weights are set once and never stepped.
  const held = new Uint8Array(vocab.length * k);
  for (const [f, v] of Object.entries(fixed)) {
    const i = idx.get(f)!;
    for (let c = 0; c < k; c++) {
      w[i * k + c] = v[c] ?? 0;
      held[i * k + c] = 1;
    }
  }
  for (let r = 0; r < rounds; r++) {
    const gw = new Float64Array(vocab.length * k);
    const gb = new Float64Array(k);
    X.forEach((xs, n) => {
      const z = Array.from(b);
      for (const i of xs) for (let c = 0; c < k; c++) z[c]! += w[i * k + c]!;
      const m = Math.max(...z);
      const e = z.map((v) => Math.exp(v - m));
      const s = e.reduce((a, v) => a + v, 0);
      const y = samples[n]!.y;
      const weight = cw[y]!;
      for (let c = 0; c < k; c++) {
        const g = weight * (e[c]! / s - (c === y ? 1 : 0));
        gb[c]! += g;
        for (const i of xs) gw[i * k + c]! += g;
      }
    });
    const N = samples.length;
    for (let j = 0; j < w.length; j++) {
      if (held[j]) continue;
      const g = gw[j]! / N + l2 * w[j]!;
      gw2[j]! += g * g;
      w[j]! -= (rate * g) / Math.sqrt(gw2[j]!);
    }
    for (let c = 0; c < k; c++) {
      const g = gb[c]! / N;
      gb2[c]! += g * g;
      b[c]! -= (rate * g) / Math.sqrt(gb2[c]!);
    }
  }
  const weights: Record<string, number[]> = {};
  vocab.forEach((f, i) => {
    weights[f] = Array.from(w.slice(i * k, i * k + k));
  });
  return { classes: CLASSES.slice(0, k), bias: Array.from(b), weights };
}

/** Binary logistic regression: a two-class softmax, returned as the difference of its weights. */
export function fitBinary(samples: readonly { session: string; feats: string[]; y: 0 | 1 }[], l2 = 0.001): BinaryModel {
  const m = fitSoftmax(
    samples.map((s) => ({ ...s, y: s.y })),
    2,
    300,
    0.5,
    l2,
  );
  const weights: Record<string, number> = {};
  for (const [f, v] of Object.entries(m.weights)) weights[f] = v[1]! - v[0]!;
  return { bias: m.bias[1]! - m.bias[0]!, weights };
}

function prune(m: SoftmaxModel, min = 0.1): SoftmaxModel {
  const r = (x: number) => Math.round(x * 100) / 100;
  const weights: Record<string, number[]> = {};
  for (const [f, v] of Object.entries(m.weights)) if (v.some((x) => Math.abs(x) >= min)) weights[f] = v.map(r);
  return { classes: m.classes, bias: m.bias.map(r), weights };
}

export function pruneBinary(m: BinaryModel, min = 0.1): BinaryModel {
  const r = (x: number) => Math.round(x * 100) / 100;
  const weights: Record<string, number> = {};
  for (const [f, v] of Object.entries(m.weights)) if (Math.abs(v) >= min) weights[f] = r(v);
  return { bias: r(m.bias), weights };
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, " ").trim();
const wordsOf = (s: string) => norm(s).match(/[\p{L}\p{N}]+/gu) ?? [];

/** Whether a sentence of a turn is one of the labelled instruction sentences (step 6). */
export function isLabelledSentence(s: string, labelled: readonly string[]): boolean {
  const a = norm(s);
  const ws = wordsOf(s);
  return labelled.some((l) => {
    const b = norm(l);
    if (a.length >= 8 && (b.includes(a) || a.includes(b))) return true;
    const lw = new Set(wordsOf(l));
    return ws.length >= 3 && ws.filter((w) => lw.has(w)).length >= 0.6 * ws.length;
  });
}

export interface ClassReport {
  precision: number | null;
  recall: number | null;
  support: number;
  predicted: number;
}

function report(pairs: readonly [number, string][]): Record<string, ClassReport> {
  const out: Record<string, ClassReport> = {};
  for (const [ci, c] of CLASSES.entries()) {
    const tp = pairs.filter(([y, p]) => y === ci && p === c).length;
    const predicted = pairs.filter(([, p]) => p === c).length;
    const support = pairs.filter(([y]) => y === ci).length;
    const r3 = (n: number, d: number) => (d > 0 ? Math.round((n / d) * 1000) / 1000 : null);
    out[c] = { precision: r3(tp, predicted), recall: r3(tp, support), support, predicted };
  }
  return out;
}

export interface FitReport {
  weights: HumanWeights;
  /** The turn model's class probabilities per labelled turn (`turnKey`): out of fold for the development turns, the
   * final model's for the validation turns. The rule-sentence measurement (fit-rules.ts) reads a turn's class from
   * them. */
  turnProbs: Map<string, number[]>;
  dev_sessions: number;
  dev_turns: number;
  cv: Record<string, ClassReport>;
  cv_accuracy: number;
  /** Cross-validated instruction precision and recall at every threshold tried. */
  curve: { threshold: number; predicted: number; precision: number | null; recall: number | null }[];
  validation: Record<string, ClassReport>;
  validation_accuracy: number | null;
  sentence_cv: { precision: number | null; recall: number | null; f1: number | null; sentences: number };
  sentence_validation: { precision: number | null; recall: number | null; sentences: number };
  features: { turn: number; sentence: number };
}

/** The key of a labelled turn: its session and its index in the transcript. */
export const turnKey = (session: string, index: number): string => `${session}#${index}`;

interface Labelled {
  session: string;
  index: number;
  text: string;
  kind: string;
  y: number;
  sentences: string[];
}

function labelledTurns(gold: Map<string, GoldFile>, transcripts: string, sessions: string[]): Labelled[] {
  const out: Labelled[] = [];
  for (const name of sessions) {
    const path = join(transcripts, name);
    if (!existsSync(path)) continue;
    const turns: Turn[] = parseTranscriptFile(path).turns;
    const byIndex = new Map(turns.map((t) => [t.index, t]));
    for (const h of gold.get(name)!.human_turns) {
      const t = byIndex.get(h.index);
      if (!t) continue;
      out.push({
        session: name,
        index: h.index,
        text: t.text,
        kind: t.kind,
        y: CLASSES.indexOf(h.class),
        sentences: h.instruction_sentences,
      });
    }
  }
  return out;
}

/** Every sentence of every labelled turn, positive when it is one of its turn's labelled rule sentences. */
function sentenceSamples(ls: readonly Labelled[]): { session: string; turn: number; feats: string[]; y: 0 | 1 }[] {
  const out: { session: string; turn: number; feats: string[]; y: 0 | 1 }[] = [];
  for (const [turn, l] of ls.entries())
    for (const s of turnSentences(l.text))
      out.push({
        session: l.session,
        turn,
        feats: [...s.feats],
        y: isLabelledSentence(s.sentence, l.sentences) ? 1 : 0,
      });
  return out;
}

const GRID = [
  ...Array.from({ length: 13 }, (_, i) => Math.round((0.3 + i * 0.05) * 100) / 100),
  0.93,
  0.95,
  0.97,
  0.99,
];

/** The turn model's one set weight (human-classes.ts `PRIOR_FEATURE`): instruction only. */
const PRIOR: Record<string, number[]> = {
  [PRIOR_FEATURE]: CLASSES.map((c) => (c === "instruction" ? PRIOR_WEIGHT : 0)),
};

/** The thresholds tried, from 0.1 up. */
export const LOW_GRID = [0.1, 0.15, 0.2, 0.25, ...GRID];
/** The sentence model's L2 penalty per weight. */
const SENTENCE_L2 = 0.003;
/** A threshold is only chosen when it classes at least this many development turns as instructions. */
const MIN_PREDICTED = 5;

/**
 * The instruction threshold (step 4): the lowest on the grid whose cross-validated precision is at least 0.9 while
 * it still classes `MIN_PREDICTED` turns as instructions; when none reaches 0.9, the most precise such one (the
 * lower on a tie).
 */
export function chooseThreshold(at: (tau: number) => ClassReport): number {
  let tau = LOW_GRID[0]!;
  let best = -1;
  for (const t of LOW_GRID) {
    const r = at(t);
    if (r.predicted < MIN_PREDICTED) continue;
    const p = r.precision ?? 0;
    if (p >= 0.9) return t;
    if (p > best) {
      best = p;
      tau = t;
    }
  }
  return tau;
}

/** Fits both models and cross-validates them by session (the module header's procedure). */
export function fitHumanClassifier(opts: {
  gold: string;
  transcripts: string;
  onStep?: (s: string) => void;
  /** The turn model's L2 penalty per weight (0.001 unless given). */
  turnL2?: number;
}): FitReport {
  const turnL2 = opts.turnL2 ?? 0.001;
  const gold = readGold(opts.gold);
  const validation = readSplit(opts.gold);
  const names = [...gold.keys()].sort();
  const dev = labelledTurns(
    gold,
    opts.transcripts,
    names.filter((n) => !validation.has(n)),
  ).filter((l) => l.y >= 0);
  const val = labelledTurns(
    gold,
    opts.transcripts,
    names.filter((n) => validation.has(n)),
  ).filter((l) => l.y >= 0);
  const toSample = (l: Labelled): Sample => ({ session: l.session, feats: [...turnFeatures(l.text, l.kind)], y: l.y });
  const devSamples = dev.map(toSample);
  const sessions = [...new Set(dev.map((l) => l.session))];

  // Leave one session out: probabilities for every development turn from a model that never saw its session.
  const probs: number[][] = new Array(devSamples.length);
  const sDev = sentenceSamples(dev);
  const sProbs: number[] = new Array(sDev.length);
  for (const s of sessions) {
    opts.onStep?.(`cv ${s}`);
    const m = fitSoftmax(
      devSamples.filter((x) => x.session !== s),
      CLASSES.length,
      300,
      0.5,
      turnL2,
      PRIOR,
    );
    devSamples.forEach((x, i) => {
      if (x.session === s) probs[i] = softmax(m, x.feats);
    });
    const train = sDev.filter((x) => x.session !== s);
    if (train.some((x) => x.y === 1) && sDev.some((x) => x.session === s)) {
      const bm = fitBinary(train, SENTENCE_L2);
      sDev.forEach((x, i) => {
        if (x.session === s) sProbs[i] = logistic(bm, x.feats);
      });
    }
  }
  // A message is `instruction` when the turn model gives it the instruction threshold or more and does not call it
  // pasted or not the person's; otherwise the turn model's likeliest other class.
  const at = (tau: number) =>
    report(devSamples.map((x, i) => [x.y, decideTurn(probs[i]!, dev[i]!.kind, tau)] as [number, string]));
  const tau = chooseThreshold((t) => at(t).instruction!);
  const cv = at(tau);
  const cvAcc =
    devSamples.filter((x, i) => decideTurn(probs[i]!, dev[i]!.kind, tau) === CLASSES[x.y]).length / devSamples.length;

  // The sentence threshold: best cross-validated F1 on the grid, over the sentences of turns labelled instruction
  // (the only turns whose sentences are picked).
  // A sentence of the rule shape is kept whatever its probability: it counts as picked at every threshold.
  const sPairs = sDev
    .map((x, i) => [x.y, x.feats.includes("g:ruleshape") ? 1 : sProbs[i], CLASSES[dev[x.turn]!.y]] as const)
    .filter(([, p, c]) => p !== undefined && c === "instruction") as unknown as [number, number][];
  const prf = (th: number) => {
    const tp = sPairs.filter(([y, p]) => y === 1 && p >= th).length;
    const pp = sPairs.filter(([, p]) => p >= th).length;
    const pos = sPairs.filter(([y]) => y === 1).length;
    const precision = pp ? tp / pp : 0;
    const recall = pos ? tp / pos : 0;
    return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
  };
  let sTau = 0.5;
  let sBest = -1;
  for (const t of LOW_GRID)
    if (prf(t).f1 > sBest) {
      sBest = prf(t).f1;
      sTau = t;
    }
  const sAt = prf(sTau);

  opts.onStep?.("final");
  const turn = prune(fitSoftmax(devSamples, CLASSES.length, 300, 0.5, turnL2, PRIOR));
  const sentence = pruneBinary(fitBinary(sDev, SENTENCE_L2));
  const weights: HumanWeights = {
    turn,
    instruction_threshold: tau,
    sentence,
    sentence_threshold: sTau,
  };
  const valPairs = val.map(
    (l) => [l.y, decideTurn(softmax(turn, turnFeatures(l.text, l.kind)), l.kind, tau)] as [number, string],
  );
  const sVal = sentenceSamples(val).filter((x) => CLASSES[val[x.turn]!.y] === "instruction");
  const sv = sVal.map((x) => [x.y, logistic(sentence, x.feats) >= sTau || x.feats.includes("g:ruleshape")] as const);
  const svTp = sv.filter(([y, p]) => y === 1 && p).length;
  const svPp = sv.filter(([, p]) => p).length;
  const svPos = sv.filter(([y]) => y === 1).length;
  const turnProbs = new Map<string, number[]>();
  dev.forEach((l, i) => turnProbs.set(turnKey(l.session, l.index), probs[i]!));
  for (const l of val) turnProbs.set(turnKey(l.session, l.index), softmax(turn, turnFeatures(l.text, l.kind)));
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    weights,
    turnProbs,
    dev_sessions: sessions.length,
    dev_turns: devSamples.length,
    cv,
    cv_accuracy: r3(cvAcc),
    curve: LOW_GRID.map((t) => {
      const r = at(t).instruction!;
      return { threshold: t, predicted: r.predicted, precision: r.precision, recall: r.recall };
    }),
    validation: report(valPairs),
    validation_accuracy: valPairs.length
      ? r3(valPairs.filter(([y, p]) => CLASSES[y] === p).length / valPairs.length)
      : null,
    sentence_cv: { precision: r3(sAt.precision), recall: r3(sAt.recall), f1: r3(sAt.f1), sentences: sPairs.length },
    sentence_validation: {
      precision: svPp ? r3(svTp / svPp) : null,
      recall: svPos ? r3(svTp / svPos) : null,
      sentences: sv.length,
    },
    features: { turn: Object.keys(turn.weights).length, sentence: Object.keys(sentence.weights).length },
  };
}

const fmt = (x: number | null) => (x === null ? "–" : x.toFixed(2));

/** The fit's report as markdown. */
export function renderFitReport(r: FitReport): string {
  const rows = (x: Record<string, ClassReport>) =>
    CLASSES.map(
      (c) => `| ${c} | ${x[c]!.support} | ${x[c]!.predicted} | ${fmt(x[c]!.precision)} | ${fmt(x[c]!.recall)} |`,
    );
  return [
    `Human-turn classifier: ${r.dev_turns} labelled turns of ${r.dev_sessions} development sessions; instruction threshold ${r.weights.instruction_threshold}; ${r.features.turn} turn features, ${r.features.sentence} sentence features kept`,
    "",
    `Cross-validated (leave one session out), accuracy ${r.cv_accuracy}:`,
    "",
    "| class | labelled | predicted | precision | recall |",
    "|---|---:|---:|---:|---:|",
    ...rows(r.cv),
    "",
    "Cross-validated instruction precision and recall by threshold:",
    "",
    "| threshold | predicted | precision | recall |",
    "|---:|---:|---:|---:|",
    ...r.curve.map((c) => `| ${c.threshold} | ${c.predicted} | ${fmt(c.precision)} | ${fmt(c.recall)} |`),
    "",
    `Validation sessions (final model, never fitted on them), accuracy ${fmt(r.validation_accuracy)}:`,
    "",
    "| class | labelled | predicted | precision | recall |",
    "|---|---:|---:|---:|---:|",
    ...rows(r.validation),
    "",
    `Instruction sentences (threshold ${r.weights.sentence_threshold}): cross-validated precision ${fmt(r.sentence_cv.precision)}, recall ${fmt(r.sentence_cv.recall)} over ${r.sentence_cv.sentences} sentences; validation precision ${fmt(r.sentence_validation.precision)}, recall ${fmt(r.sentence_validation.recall)} over ${r.sentence_validation.sentences}`,
  ].join("\n");
}
