// Fits and cross-validates a rule-sentence model (human-classes.ts `ruleFeatures`): which sentence of any message a
// person typed states a standing instruction, whatever the turn around it is (a rule is often one sentence in the
// middle of a long request), beside the sentences User Constraints keeps (human-classes.ts `standingInstructions`:
// the rule shape and the turn model) on the same labels. A measurement: it writes no weights, since on the
// validation sessions the model does not beat what User Constraints keeps (bench/summary/human-classes-fit.md).
//
// Procedure:
// 1. Samples: every sentence the person said (human-classes.ts `ruleSamplesOf`: the person's words and a harness's
//    standing instructions, fenced code left out) in every labelled message of a development session that the gold
//    calls neither pasted nor not the person's. Validation sessions (split.json) are left out of every step but
//    the last score.
// 2. Labels: a sentence is positive when it is one of its turn's labelled instruction sentences, or states one of
//    the session's gold instruction facts (its text, or a `match` string of `MIN_MATCH` characters or more: one
//    contains the other, or 60% of the sentence's words are in it; fit-human.ts `isLabelledSentence`); every other
//    sentence of a person's message is a negative.
// 3. Features (`ruleFeatures`): the sentence's cues and rule shape (mood, modal verbs, negation before a verb, the
//    second person, scope words), structure (question, bullet, capitals, code punctuation, path, link, length in
//    words), whether it is pasted code or a log line, its place in the turn, and the turn's class from the turn
//    model, out of fold for the development turns (fit-human.ts step 6) — no word of the sentence on its own, so
//    that no topic carries weight; a feature is kept when it occurs in at least `MIN_SESSIONS` development sessions.
// 4. Model: binary logistic regression by the turn model's steps (fit-human.ts `fitBinary`), L2 `RULE_L2`.
// 5. Cross-validation: leave one session out. The threshold is the lowest of the grid whose pooled cross-validated
//    precision is at least 0.9 while it picks at least `MIN_PICKED` sentences; when none does, the one of best
//    cross-validated F0.5 (precision weighted over recall: a wrong constraint misleads a successor, a missing one
//    only costs a look back). Precision and recall are reported at every threshold.
// 6. The final model is fitted on all development sentences (weights under 0.1 dropped, the rest rounded);
//    validation sentences are scored once by it, the turn class from the final turn model.
// 7. Beside it, on the same sentences and labels, the ones User Constraints keeps; on the development sessions this
//    is in-sample for the turn model (fitted on them), so only the validation figures compare fairly.
// 8. How the development labels hold together: sentences said in two or more sessions (a harness prompt, a rule the
//    person repeats) labelled a rule in one and not in another, and how many rule-shaped sentences are labelled one.
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Turn } from "../../src/conversation/schema.js";
import {
  type BinaryModel,
  logistic,
  ruleSamplesOf,
  standingInstructions,
} from "../../src/transcript/extraction/human-classes.js";
import { parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import { type ClassReport, fitBinary, isLabelledSentence, LOW_GRID, pruneBinary, turnKey } from "./fit-human.js";
import { type GoldFile, readGold, readSplit } from "./gold.js";

/** A feature is kept when it occurs in at least this many development sessions. */
const MIN_SESSIONS = 3;
/** A gold fact's `match` string labels a sentence only when it is at least this long (shorter ones are names). */
const MIN_MATCH = 15;
/** The rule model's L2 penalty per weight. */
const RULE_L2 = 0.003;
/** A threshold is taken for its precision only when it picks at least this many development sentences. */
const MIN_PICKED = 5;
/** The precision a threshold must reach on cross-validation to be taken for it. */
const TARGET_PRECISION = 0.9;
/** The F-measure's beta when no threshold reaches the target: precision counts this much more than recall (1/beta). */
const F_BETA = 0.5;
/** Turns whose sentences are not the person's. */
const NOT_PERSONS = new Set(["pasted", "not_human"]);

export interface RuleSample {
  session: string;
  sentence: string;
  feats: string[];
  y: 0 | 1;
  /** Whether User Constraints keeps the sentence (human-classes.ts `standingInstructions` on its turn). */
  kept: boolean;
}

/** Every sentence of every labelled person's turn of `sessions`, labelled by the procedure's step 2. */
export function ruleSamples(
  gold: Map<string, GoldFile>,
  transcripts: string,
  sessions: string[],
  turnProbs: ReadonlyMap<string, number[]>,
): RuleSample[] {
  const out: RuleSample[] = [];
  for (const name of sessions) {
    const path = join(transcripts, name);
    if (!existsSync(path)) continue;
    const g = gold.get(name)!;
    const facts = g.facts
      .filter((f) => f.kind === "instruction")
      .flatMap((f) => [f.text, ...f.match.filter((m) => m.length >= MIN_MATCH)]);
    const turns: Turn[] = parseTranscriptFile(path).turns;
    const byIndex = new Map(turns.map((t) => [t.index, t]));
    for (const h of g.human_turns) {
      const t = byIndex.get(h.index);
      if (!t || NOT_PERSONS.has(h.class) || t.kind !== "message") continue;
      const lines = standingInstructions([{ id: t.id, role: t.role, kind: t.kind, text: t.text }]).map((l) => l.text);
      for (const s of ruleSamplesOf(t.text, t.kind, turnProbs.get(turnKey(name, h.index)))) {
        const y = isLabelledSentence(s.sentence, h.instruction_sentences) || isLabelledSentence(s.sentence, facts);
        const kept = lines.some((l) => l.includes(s.sentence));
        out.push({ session: name, sentence: s.sentence, feats: s.feats, y: y ? 1 : 0, kept });
      }
    }
  }
  return out;
}

/** The samples with only the features that occur in at least `MIN_SESSIONS` of their sessions (step 3). */
function generalFeatures(samples: readonly RuleSample[]): RuleSample[] {
  const seen = new Map<string, Set<string>>();
  for (const s of samples)
    for (const f of s.feats) {
      let set = seen.get(f);
      if (!set) seen.set(f, (set = new Set()));
      set.add(s.session);
    }
  return samples.map((s) => ({ ...s, feats: s.feats.filter((f) => (seen.get(f)?.size ?? 0) >= MIN_SESSIONS) }));
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

function pr(pairs: readonly (readonly [number, number])[], tau: number): ClassReport {
  const tp = pairs.filter(([y, p]) => y === 1 && p >= tau).length;
  const predicted = pairs.filter(([, p]) => p >= tau).length;
  const support = pairs.filter(([y]) => y === 1).length;
  return {
    precision: predicted ? r3(tp / predicted) : null,
    recall: support ? r3(tp / support) : null,
    support,
    predicted,
  };
}

export interface RuleFit {
  model: BinaryModel;
  threshold: number;
  cv: ClassReport;
  curve: (ClassReport & { threshold: number })[];
  validation: ClassReport;
  validationCurve: (ClassReport & { threshold: number })[];
  sentences: { dev: number; validation: number };
  /** The sentences User Constraints keeps, on the same labels. */
  kept: { dev: ClassReport; validation: ClassReport };
  /** How the development labels hold together (step 8). */
  labels: LabelConsistency;
}

export interface LabelConsistency {
  /** Sentences (lower case, whitespace collapsed) said in two or more development sessions. */
  repeated: number;
  /** Of those, the ones labelled a rule in one session and not in another. */
  mixed: number;
  /** Development sentences of the rule shape, and how many of them are labelled a rule. */
  shaped: number;
  shapedPositive: number;
}

/** Step 8: the same sentence labelled both ways across sessions, and the labels of the rule-shaped sentences. */
export function labelConsistency(samples: readonly RuleSample[]): LabelConsistency {
  const bySentence = new Map<string, { sessions: Set<string>; ys: Set<number> }>();
  for (const x of samples) {
    const key = x.sentence.toLowerCase().replace(/\s+/g, " ").trim();
    let e = bySentence.get(key);
    if (!e) bySentence.set(key, (e = { sessions: new Set(), ys: new Set() }));
    e.sessions.add(x.session);
    e.ys.add(x.y);
  }
  const repeated = [...bySentence.values()].filter((e) => e.sessions.size >= 2);
  const shaped = samples.filter((x) => x.feats.includes("g:ruleshape"));
  return {
    repeated: repeated.length,
    mixed: repeated.filter((e) => e.ys.size === 2).length,
    shaped: shaped.length,
    shapedPositive: shaped.filter((x) => x.y === 1).length,
  };
}

/**
 * The threshold (step 5): the lowest on the grid whose cross-validated precision reaches `TARGET_PRECISION` while it
 * picks `MIN_PICKED` sentences; else the one of best F0.5 (the lower on a tie).
 */
export function chooseRuleThreshold(at: (tau: number) => ClassReport): number {
  for (const t of LOW_GRID) {
    const r = at(t);
    if (r.predicted >= MIN_PICKED && (r.precision ?? 0) >= TARGET_PRECISION) return t;
  }
  const b2 = F_BETA * F_BETA;
  const f = (r: ClassReport) => {
    const p = r.precision ?? 0;
    const q = r.recall ?? 0;
    return p + q > 0 ? ((1 + b2) * p * q) / (b2 * p + q) : 0;
  };
  let tau = LOW_GRID[0]!;
  for (const t of LOW_GRID) if (f(at(t)) > f(at(tau))) tau = t;
  return tau;
}

/** Fits the rule sentence model and cross-validates it by session (the module header's procedure). */
export function fitRuleSentences(opts: {
  gold: string;
  transcripts: string;
  /** The turn model's probabilities per labelled turn (fit-human.ts `turnProbs`). */
  turnProbs: ReadonlyMap<string, number[]>;
  onStep?: (s: string) => void;
}): RuleFit {
  const gold = readGold(opts.gold);
  const validation = readSplit(opts.gold);
  const names = [...gold.keys()].sort();
  const dev = generalFeatures(
    ruleSamples(
      gold,
      opts.transcripts,
      names.filter((n) => !validation.has(n)),
      opts.turnProbs,
    ),
  );
  const val = ruleSamples(
    gold,
    opts.transcripts,
    names.filter((n) => validation.has(n)),
    opts.turnProbs,
  );
  const labels = labelConsistency(dev);
  const probs: number[] = new Array<number>(dev.length).fill(0);
  for (const s of new Set(dev.map((x) => x.session))) {
    opts.onStep?.(`rule cv ${s}`);
    const m = fitBinary(
      dev.filter((x) => x.session !== s),
      RULE_L2,
    );
    dev.forEach((x, i) => {
      if (x.session === s) probs[i] = logistic(m, x.feats);
    });
  }
  const pairs = dev.map((x, i) => [x.y, probs[i]!] as const);
  const threshold = chooseRuleThreshold((t) => pr(pairs, t));
  const model = pruneBinary(fitBinary(dev, RULE_L2));
  const vPairs = val.map((x) => [x.y, logistic(model, x.feats)] as const);
  return {
    model,
    threshold,
    cv: pr(pairs, threshold),
    curve: LOW_GRID.map((t) => ({ threshold: t, ...pr(pairs, t) })),
    validation: pr(vPairs, threshold),
    validationCurve: LOW_GRID.map((t) => ({ threshold: t, ...pr(vPairs, t) })),
    sentences: { dev: dev.length, validation: val.length },
    labels,
    kept: {
      dev: pr(
        dev.map((x) => [x.y, x.kept ? 1 : 0] as const),
        1,
      ),
      validation: pr(
        val.map((x) => [x.y, x.kept ? 1 : 0] as const),
        1,
      ),
    },
  };
}

const fmt = (x: number | null) => (x === null ? "–" : x.toFixed(2));

/** The rule fit's report as markdown. */
export function renderRuleReport(r: RuleFit): string {
  return [
    `Rule-sentence model, a measurement (${r.sentences.dev} development sentences, ${Object.keys(r.model.weights).length} features kept, threshold ${r.threshold}): cross-validated (leave one session out) precision ${fmt(r.cv.precision)}, recall ${fmt(r.cv.recall)} (${r.cv.support} rule sentences, ${r.cv.predicted} picked); validation precision ${fmt(r.validation.precision)}, recall ${fmt(r.validation.recall)} (${r.validation.support} rule sentences of ${r.sentences.validation}, ${r.validation.predicted} picked)`,
    "",
    `The sentences User Constraints keeps (rule shape and turn classifier), on the same labels: development precision ${fmt(r.kept.dev.precision)}, recall ${fmt(r.kept.dev.recall)} (${r.kept.dev.predicted} kept; in-sample for the turn model); validation precision ${fmt(r.kept.validation.precision)}, recall ${fmt(r.kept.validation.recall)} (${r.kept.validation.predicted} kept)`,
    "",
    `Development labels: ${r.labels.repeated} sentences are said in two or more sessions, ${r.labels.mixed} of them labelled a rule in one session and not in another; of the ${r.labels.shaped} sentences of the rule shape, ${r.labels.shapedPositive} are labelled a rule`,
    "",
    "| threshold | CV picked | CV precision | CV recall | validation picked | validation precision | validation recall |",
    "|---:|---:|---:|---:|---:|---:|---:|",
    ...r.curve.map((c, i) => {
      const v = r.validationCurve[i]!;
      return `| ${c.threshold} | ${c.predicted} | ${fmt(c.precision)} | ${fmt(c.recall)} | ${v.predicted} | ${fmt(v.precision)} | ${fmt(v.recall)} |`;
    }),
  ].join("\n");
}
