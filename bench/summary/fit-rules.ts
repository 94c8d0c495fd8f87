// Fits the standing-rule sentence model (human-classes.ts `ruleSentenceProbability`): which sentence of any message a
// person typed states a standing instruction, whatever the turn around it is (a rule is often one sentence in the
// middle of a long request).
//
// Procedure:
// 1. Samples: every sentence the person said (human-classes.ts `turnSentences`: the person's words and a harness's
//    standing instructions, fenced code left out) in every labelled turn of a development session that the gold
//    calls neither pasted nor not the person's. Validation sessions (split.json) are left out of every step but
//    the last score.
// 2. Labels: a sentence is positive when it is one of its turn's labelled instruction sentences, or states one of
//    the session's gold instruction facts (its text, or a `match` string of `MIN_MATCH` characters or more: one
//    contains the other, or 60% of the sentence's words are in it; fit-human.ts `isLabelledSentence`).
// 3. Features: the sentence's words, word pairs, cues, rule shape and place in its turn (`sentenceFeatures`), kept
//    only when they occur in at least `MIN_SESSIONS` development sessions, so that no word of one session's topic
//    carries weight.
// 4. Model: binary logistic regression by the turn model's steps (fit-human.ts `fitBinary`), L2 `RULE_L2`.
// 5. Cross-validation: leave one session out; the threshold is the lowest of the grid whose pooled cross-validated
//    precision is at least 0.9 while it picks at least 5 sentences (else the most precise one; fit-human.ts
//    `chooseThreshold`); precision and recall are reported at every threshold.
// 6. The final model is fitted on all development sentences; validation sentences are scored once by it.
import { existsSync } from "node:fs";
import { join } from "node:path";

import type { Turn } from "../../src/conversation/schema.js";
import {
  type BinaryModel,
  logistic,
  standingInstructions,
  turnSentences,
} from "../../src/transcript/extraction/human-classes.js";
import { parseTranscriptFile } from "../../src/transcript/formats/parse.js";
import {
  chooseThreshold,
  type ClassReport,
  fitBinary,
  isLabelledSentence,
  LOW_GRID,
  pruneBinary,
} from "./fit-human.js";
import { type GoldFile, readGold, readSplit } from "./gold.js";

/** A feature is kept when it occurs in at least this many development sessions. */
const MIN_SESSIONS = 3;
/** A gold fact's `match` string labels a sentence only when it is at least this long (shorter ones are names). */
const MIN_MATCH = 15;
/** The rule model's L2 penalty per weight. */
const RULE_L2 = 0.003;
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
export function ruleSamples(gold: Map<string, GoldFile>, transcripts: string, sessions: string[]): RuleSample[] {
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
      for (const s of turnSentences(t.text)) {
        const y = isLabelledSentence(s.sentence, h.instruction_sentences) || isLabelledSentence(s.sentence, facts);
        const kept = lines.some((l) => l.includes(s.sentence));
        out.push({ session: name, sentence: s.sentence, feats: [...s.feats], y: y ? 1 : 0, kept });
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
  sentences: { dev: number; validation: number };
  /** The sentences User Constraints keeps (the rule shape and the turn classifier, not this model), on the same labels. */
  kept: { dev: ClassReport; validation: ClassReport };
}

/** Fits the rule sentence model and cross-validates it by session (the module header's procedure). */
export function fitRuleSentences(opts: { gold: string; transcripts: string; onStep?: (s: string) => void }): RuleFit {
  const gold = readGold(opts.gold);
  const validation = readSplit(opts.gold);
  const names = [...gold.keys()].sort();
  const dev = generalFeatures(
    ruleSamples(
      gold,
      opts.transcripts,
      names.filter((n) => !validation.has(n)),
    ),
  );
  const val = ruleSamples(
    gold,
    opts.transcripts,
    names.filter((n) => validation.has(n)),
  );
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
  const threshold = chooseThreshold((t) => pr(pairs, t));
  const model = pruneBinary(fitBinary(dev, RULE_L2));
  const vPairs = val.map((x) => [x.y, logistic(model, x.feats)] as const);
  return {
    model,
    threshold,
    cv: pr(pairs, threshold),
    curve: LOW_GRID.map((t) => ({ threshold: t, ...pr(pairs, t) })),
    validation: pr(vPairs, threshold),
    sentences: { dev: dev.length, validation: val.length },
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
    `Standing-rule sentences of any person's message (${r.sentences.dev} development sentences, ${Object.keys(r.model.weights).length} features kept, threshold ${r.threshold}): cross-validated (leave one session out) precision ${fmt(r.cv.precision)}, recall ${fmt(r.cv.recall)} (${r.cv.support} rule sentences, ${r.cv.predicted} picked); validation precision ${fmt(r.validation.precision)}, recall ${fmt(r.validation.recall)} (${r.validation.support} rule sentences of ${r.sentences.validation}, ${r.validation.predicted} picked)`,
    "",
    `The sentences User Constraints keeps (rule shape and turn classifier), on the same labels: development precision ${fmt(r.kept.dev.precision)}, recall ${fmt(r.kept.dev.recall)} (${r.kept.dev.predicted} kept); validation precision ${fmt(r.kept.validation.precision)}, recall ${fmt(r.kept.validation.recall)} (${r.kept.validation.predicted} kept)`,
    "",
    "| threshold | picked | precision | recall |",
    "|---:|---:|---:|---:|",
    ...r.curve.map((c) => `| ${c.threshold} | ${c.predicted} | ${fmt(c.precision)} | ${fmt(c.recall)} |`),
  ].join("\n");
}
